package io.jrma.transport.tcp;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.config.Param;
import io.jrma.core.os.LocalAddresses;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;

/** Run-time parameters of the TCP IO agent, each with its default and one sentence of description. */
public final class NetParams {
    public static final Param INTERFACE = new Param("jrma.tcp.interface", "loopback", "job",
            "where the IO agent listens and what it tells the other JVMs: `loopback`, `any`, an interface name"
            + " (`eth0`), an address, a subnet (`10.0.0.0/24`: this host's address in it) or `route:HOST` (the"
            + " address on the interface that routes to HOST); several, comma-separated, are tried in order."
            + " jrmarun sets `route:` its own address for a job across hosts; a job mpirun, mpiexec or srun"
            + " started across hosts (host ids differ) takes `any` unless one is set. Under `any` the agent"
            + " publishes every address of its host and each peer picks: loopback on one host, else an address"
            + " on a network both hosts share");
    public static final Param FAMILY = new Param("jrma.tcp.family", "ipv4", "job",
            "address family for `loopback` and interface names: `ipv4` or `ipv6`");
    public static final Param CREDITS = new Param("jrma.tcp.credits", String.valueOf(64 << 20), "job",
            "bytes of packets a JVM may have in flight to another before the receiver has consumed them (flow "
            + "control)");
    public static final Param FRAME_BYTES = new Param("jrma.tcp.frameBytes", String.valueOf(256 << 10), "job",
            "batches are cut into frames of at most this many bytes (a larger single packet travels alone),"
            + " so the target starts applying while the rest is in flight");
    public static final Param SEND_QUEUE_BYTES = new Param("jrma.tcp.sendQueueBytes", String.valueOf(64 << 20), "job",
            "bytes of requests queued to one JVM beyond which a rank issuing more waits (replies are never held)");
    public static final Param CREDIT_DELAY_NS = new Param("jrma.tcp.creditDelayNs", "1000000", "job",
            "returned credit rides in the header of the next frame going back (a reply); after this many ns "
            + "with nothing going back it travels in a CREDIT frame of its own (a quarter of "
            + "`jrma.tcp.credits` owed goes at once)");
    public static final Param CONNECT_TIMEOUT_MS = new Param("jrma.tcp.connectTimeoutMs", "30000", "job",
            "how long a JVM waits for the others to connect at start-up");
    public static final Param HANDSHAKE_TIMEOUT_MS = new Param("jrma.tcp.handshakeTimeoutMs", "5000", "job",
            "how long an acceptor waits for a client to prove the job secret");

    public static final Param SOCKET_BUFFER = new Param("jrma.tcp.socketBuffer", "0", "job",
            "SO_SNDBUF/SO_RCVBUF of each connection (0: kernel autotuning)");

    public static final List<Param> ALL =
            List.of(INTERFACE, FAMILY, CREDITS, FRAME_BYTES, SEND_QUEUE_BYTES, SOCKET_BUFFER,
            CREDIT_DELAY_NS, CONNECT_TIMEOUT_MS, HANDSHAKE_TIMEOUT_MS);

    private NetParams() {
    }

    /** The local address to listen on, from {@link #INTERFACE} and {@link #FAMILY}. */
    public static InetAddress bindAddress(Map<String, String> params) {
        String iface = INTERFACE.get(params);
        boolean v6 = FAMILY.getChoice(params, "ipv4", "ipv6").equals("ipv6");
        InetAddress a;
        try {
            a = LocalAddresses.resolve(iface, v6);
        } catch (IllegalArgumentException e) {
            throw new RmaException(ErrorClass.ERR_ARG, INTERFACE.name() + "=" + iface + ": " + e.getMessage(), e);
        }
        if (a == null) {
            throw new RmaException(ErrorClass.ERR_ARG, INTERFACE.name() + "=" + iface + " names no "
                    + (v6 ? "IPv6" : "IPv4") + " address of this host (" + FAMILY.name() + " picks the family)");
        }
        return a;
    }
}

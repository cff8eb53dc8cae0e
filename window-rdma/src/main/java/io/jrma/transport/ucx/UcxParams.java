package io.jrma.transport.ucx;

import io.jrma.core.config.Param;
import io.jrma.core.config.Params;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Run-time parameters of the {@code ucx} transport component, each with one sentence. */
public final class UcxParams {
    public static final Param AUTO = new Param("jrma.ucx.auto", "false", "job",
            "`false`: the ucx transport is opened only when `jrma.transports` names it (`tcp,ucx`, `shm,tcp,ucx`); "
            + "`true`: also when an exclusion leaves it in (`^shm`: then UCX, not TCP, carries the packets between "
            + "JVMs); the default list `shm,tcp` leaves it out either way");
    public static final Param TLS = new Param("jrma.ucx.tls", "", "job",
            "the UCX transports the worker may use, passed to UCX as its `TLS` setting (`sm,self`, `tcp,self`, "
            + "`rc,ud,sm`); empty: the process environment's `UCX_TLS`, else UCX's own choice among all it finds");
    public static final Param SEND_QUEUE_BYTES = new Param("jrma.ucx.sendQueueBytes", String.valueOf(64 << 20),
            "job", "bytes of packets a JVM may have in UCX sends not yet completed before requests to other JVMs "
            + "wait (back-pressure; replies are never held)");
    public static final Param RDMA = new Param("jrma.ucx.rdma", "true", "job",
            "`true`: allocate and create windows put and get straight on the registered memory of the peers the "
            + "ucx transport reaches (UCP put/get: no packet, and no target CPU where UCX has RDMA hardware); "
            + "accumulates as set by `jrma.ucx.atomics`; `false`: everything as packets over UCX's tagged messages");
    public static final Param ATOMICS = new Param("jrma.ucx.atomics", "true", "job",
            "`true`: an allocate or create window whose every rank reaches every rank's registered memory through "
            + "UCX (the RDMA lane, and the worker's own loopback for ranks of its JVM) does its accumulates, "
            + "get_accumulates, fetch_and_ops and compare_and_swaps by UCP atomics, every rank, every target "
            + "(its atomic domain; see docs/ucx.md); `false`: they stay packets and CPU atomics");

    public static final Param ALLOCATE = new Param("jrma.ucx.allocate", "true", "job",
            "`true`: an allocate window of a job over several JVMs whose memory jrma's `shm` does not place in a "
            + "shared segment gets memory UCX allocates (`ucp_mem_map` with its allocate flag), its target state "
            + "included, which UCX's shared-memory transports map into the other JVMs of the host: those reach it "
            + "by loads, stores and CPU atomics, locks included (path `packet`: puts and gets of any size as copies "
            + "through the RDMA lane); `false`: memory of the JVM, registered with UCX");

    public static final Param RDMA_MIN_BYTES = new Param("jrma.ucx.rdmaMinBytes", "4096", "job",
            "puts and gets of fewer bytes take the packets instead of the RDMA lane: packets are queued and sent in "
            + "batches, while each lane operation waits for its own completion (a stream of small gets would pay a "
            + "round trip each); 0: every put and get with a contiguous target takes the lane");

    public static final Param NAP_NS = new Param("jrma.ucx.napNs", "200000", "job",
            "longest sleep (ns) of the idle progress thread while UCX carries packets: it parks instead of sleeping in "
            + "the TCP selector (whose timeouts are whole milliseconds), since UCX's shared-memory transport does not "
            + "always signal its event descriptor; 0: sleep in the selector, woken by UCX's event descriptor only");

    public static final List<Param> ALL = List.of(AUTO, TLS, SEND_QUEUE_BYTES, RDMA, ATOMICS, ALLOCATE, RDMA_MIN_BYTES,
            NAP_NS);

    private UcxParams() {
    }

    /** Whether {@code jrma.transports} names {@code ucx} (rather than leaving it in by default or exclusion). */
    static boolean named(Map<String, String> params) {
        String v = Params.TRANSPORTS.get(params).replace(" ", "").toLowerCase(Locale.ROOT);
        return !v.startsWith("^") && Arrays.asList(v.split(",")).contains(UcxProvider.NAME);
    }
}

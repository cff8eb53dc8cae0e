package io.jrma.transport.tcp;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.os.HostId;
import io.jrma.core.os.LocalAddresses;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a JVM's IO agent tells the others about where it listens: {@code ADDRESSES PORT [HOST-ID]}, the addresses
 * comma-separated. An agent bound to one address publishes that one; an agent bound to the wildcard ({@code any}, as
 * for a job started by mpirun/mpiexec across hosts) publishes every non-loopback address of its host and loopback last,
 * with its {@link HostId}, and each peer picks ({@link #candidates}): loopback when both run on one host, otherwise the
 * addresses on a network both hosts are attached to first, then the others, never an address of its own host (another
 * host's docker or NAT address that this host has too would lead back to itself).
 *
 * <p>Immutable; any thread.
 */
record TcpCard(List<InetAddress> addresses, int port, String hostId) {

    /** The card of an agent listening at {@code bound} (the wildcard: every address of this host). */
    static TcpCard of(InetSocketAddress bound, boolean ipv6) {
        InetAddress a = bound.getAddress();
        if (!a.isAnyLocalAddress()) {
            return new TcpCard(List.of(a), bound.getPort(), HostId.current());
        }
        List<InetAddress> all = new ArrayList<>();
        for (InetAddress x : LocalAddresses.nonLoopback()) {
            if (ipv6 || x instanceof Inet4Address) { // an IPv4 wildcard accepts IPv4 only
                all.add(x);
            }
        }
        all.add(ipv6 ? InetAddress.getLoopbackAddress() : loopback4());
        return new TcpCard(List.copyOf(all), bound.getPort(), HostId.current());
    }

    private static InetAddress loopback4() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always an address
        }
    }

    /** The first address: where a peer that cannot choose connects (tests, messages). */
    InetSocketAddress first() {
        return new InetSocketAddress(addresses.get(0), port);
    }

    String encode() {
        StringBuilder b = new StringBuilder();
        for (InetAddress a : addresses) {
            b.append(b.length() == 0 ? "" : ",").append(a.getHostAddress());
        }
        b.append(' ').append(port);
        if (!hostId.isEmpty()) {
            b.append(' ').append(hostId);
        }
        return b.toString();
    }

    /** Parses the card JVM {@code jvm} published; a malformed one is {@link ErrorClass#ERR_INTERN}. */
    static TcpCard parse(String card, int jvm) {
        String[] f = card == null ? new String[0] : card.trim().split(" ");
        if (f.length < 2 || f.length > 3) {
            throw new RmaException(ErrorClass.ERR_INTERN,
                    "JVM " + jvm + " published no TCP address (got '" + card + "')");
        }
        try {
            List<InetAddress> addrs = new ArrayList<>();
            for (String a : f[0].split(",")) {
                if (a.isEmpty() || !(Character.digit(a.charAt(0), 16) >= 0 || a.contains(":"))) {
                    throw new UnknownHostException(a + " is not an address");
                }
                addrs.add(InetAddress.getByName(a)); // a literal: no name lookup
            }
            return new TcpCard(List.copyOf(addrs), Integer.parseInt(f[1]), f.length > 2 ? f[2] : "");
        } catch (UnknownHostException | NumberFormatException e) {
            throw new RmaException(ErrorClass.ERR_INTERN,
                    "JVM " + jvm + " published a malformed TCP card '" + card + "': " + e.getMessage(), e);
        }
    }

    /**
     * Where a JVM on the host {@code myHostId} tries to reach this agent, in order: a card of one address is that
     * address; otherwise loopback first when both share the host, then the addresses on a shared network, then the
     * rest, without loopback and this host's own addresses when the hosts differ.
     */
    List<InetSocketAddress> candidates(String myHostId) {
        if (addresses.size() == 1) {
            return List.of(first());
        }
        boolean sameHost = HostId.sameHost(myHostId, hostId);
        List<InetSocketAddress> near = new ArrayList<>();
        List<InetSocketAddress> far = new ArrayList<>();
        for (InetAddress a : addresses) {
            InetSocketAddress s = new InetSocketAddress(a, port);
            if (a.isLoopbackAddress()) {
                if (sameHost) {
                    near.add(0, s);
                }
            } else if (!sameHost && LocalAddresses.isLocal(a)) {
                continue; // the same address on this host: connecting there would reach this host
            } else if (LocalAddresses.onLink(a)) {
                near.add(s);
            } else {
                far.add(s);
            }
        }
        near.addAll(far);
        return near;
    }
}

package io.jrma.core.os;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Which local address a JVM listens on and tells others, from a specification as {@code jrma.tcp.interface} and
 * Open MPI's {@code btl_tcp_if_include} give it: {@code loopback}, {@code any}, an interface name ({@code eth0}), an
 * address ({@code 10.0.0.5}), a subnet in CIDR form ({@code 10.0.0.0/24}: this host's address in it), or
 * {@code route:HOST} (the address the kernel sends from towards HOST: on the interface that routes there). Several,
 * comma-separated, are tried in order; the first that names an address of this host wins.
 *
 * <p>Never asks the host's own name ({@code InetAddress.getLocalHost()} throws on a host whose name does not resolve,
 * as in a network namespace); only {@code route:HOST} resolves HOST. Stateless; any thread.
 */
public final class LocalAddresses {
    /** Prefix of a specification that names the address routing to a host. */
    public static final String ROUTE_PREFIX = "route:";
    /** Port a route lookup "connects" a UDP socket to: no packet is sent, the kernel only picks a route. */
    private static final int ROUTE_PROBE_PORT = 9;

    private LocalAddresses() {
    }

    /**
     * The address {@code spec} names on this host, or null when none of its alternatives names one here.
     *
     * @throws IllegalArgumentException when an alternative is malformed (a bad CIDR, a host that does not resolve)
     */
    public static InetAddress resolve(String spec, boolean ipv6) {
        for (String alt : spec.split(",")) {
            String s = alt.trim();
            if (!s.isEmpty()) {
                InetAddress a = resolveOne(s, ipv6);
                if (a != null) {
                    return a;
                }
            }
        }
        return null;
    }

    /** Whether {@code spec} names loopback only (a job across hosts cannot use it). */
    public static boolean isLoopback(String spec) {
        String s = spec.trim();
        return s.equalsIgnoreCase("loopback") || s.startsWith("127.") || s.equals("::1") || s.equals("lo");
    }

    private static InetAddress resolveOne(String s, boolean ipv6) {
        try {
            if (s.equalsIgnoreCase("loopback")) {
                return InetAddress.getByName(ipv6 ? "::1" : "127.0.0.1");
            }
            if (s.equalsIgnoreCase("any")) {
                return InetAddress.getByName(ipv6 ? "::" : "0.0.0.0");
            }
            if (s.startsWith(ROUTE_PREFIX)) {
                String host = s.substring(ROUTE_PREFIX.length());
                return routeTo(InetAddress.getByName(host));
            }
            int slash = s.indexOf('/');
            if (slash > 0) {
                return inSubnet(s, InetAddress.getByName(s.substring(0, slash)), prefix(s, s.substring(slash + 1)));
            }
            NetworkInterface ni = NetworkInterface.getByName(s);
            if (ni != null) {
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    if (ipv6 ? a instanceof Inet6Address : a instanceof Inet4Address) {
                        return a;
                    }
                }
                return null;
            }
            if (Character.digit(s.charAt(0), 16) >= 0 || s.contains(":")) {
                return InetAddress.getByName(s); // a literal address: no name lookup
            }
        } catch (UnknownHostException | SocketException e) {
            throw new IllegalArgumentException(s + ": " + e.getMessage(), e);
        }
        throw new IllegalArgumentException(s + " is neither loopback, any, an interface name, an address, a subnet"
                + " (CIDR) nor route:HOST");
    }

    /**
     * The local address the kernel sends from to reach {@code target} (a UDP socket "connected" there: no packet
     * leaves), or null when there is no route. For an address of this host it is that address itself.
     */
    public static InetAddress routeTo(InetAddress target) {
        try (DatagramSocket s = new DatagramSocket()) {
            s.connect(new InetSocketAddress(target, ROUTE_PROBE_PORT));
            InetAddress a = s.getLocalAddress();
            return a == null || a.isAnyLocalAddress() ? null : a;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** This host's address inside {@code net}/{@code bits}, or null. */
    private static InetAddress inSubnet(String spec, InetAddress net, int bits) throws SocketException {
        int max = net.getAddress().length * 8;
        if (bits > max) {
            throw new IllegalArgumentException(spec + ": a prefix of " + bits + " bits is longer than the address");
        }
        for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InterfaceAddress ia : ni.getInterfaceAddresses()) {
                InetAddress a = ia.getAddress();
                if (a.getClass() == net.getClass() && samePrefix(a.getAddress(), net.getAddress(), bits)) {
                    return a;
                }
            }
        }
        return null;
    }

    /**
     * Whether {@code a} lies in the subnet of one of this host's interfaces that is up (a host reached directly, not
     * through a router), this host's own addresses excluded.
     */
    public static boolean onLink(InetAddress a) {
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!ni.isUp() || ni.isLoopback()) {
                    continue;
                }
                for (InterfaceAddress ia : ni.getInterfaceAddresses()) {
                    InetAddress mine = ia.getAddress();
                    if (mine.getClass() == a.getClass() && !mine.equals(a)
                            && samePrefix(mine.getAddress(), a.getAddress(), ia.getNetworkPrefixLength())) {
                        return true;
                    }
                }
            }
        } catch (SocketException e) {
            // no interfaces to look at
        }
        return false;
    }

    static boolean samePrefix(byte[] a, byte[] b, int bits) {
        for (int i = 0; i < bits; i++) {
            int mask = 0x80 >>> (i & 7);
            if ((a[i >>> 3] & mask) != (b[i >>> 3] & mask)) {
                return false;
            }
        }
        return true;
    }

    private static int prefix(String spec, String v) {
        try {
            int b = Integer.parseInt(v);
            if (b < 0) {
                throw new NumberFormatException();
            }
            return b;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(spec + ": the prefix length must be a number of bits, got " + v);
        }
    }

    /** Whether {@code a} is an address of one of this host's interfaces. */
    public static boolean isLocal(InetAddress a) {
        if (a.isLoopbackAddress() || a.isAnyLocalAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(a) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /** Every non-loopback address of an interface that is up (IPv4 first), for messages and fallbacks. */
    public static List<InetAddress> nonLoopback() {
        List<InetAddress> v4 = new ArrayList<>();
        List<InetAddress> v6 = new ArrayList<>();
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!ni.isUp() || ni.isLoopback()) {
                    continue;
                }
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    if (a instanceof Inet4Address) {
                        v4.add(a);
                    } else if (!a.isLinkLocalAddress()) {
                        v6.add(a);
                    }
                }
            }
        } catch (SocketException e) {
            // no interfaces to list
        }
        v4.addAll(v6);
        return v4;
    }
}

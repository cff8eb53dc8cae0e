package io.jrma.core.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * How {@code jrma.tcp.interface} names a local address (loopback, names, addresses, subnets, routes, lists), and what
 * the host id covers.
 */
class LocalAddressesTest {
    private static InetAddress addr(String a) throws Exception {
        return InetAddress.getByName(a);
    }

    @Test
    void everyFormNamesAnAddressOfThisHost() throws Exception {
        assertEquals(addr("127.0.0.1"), LocalAddresses.resolve("loopback", false));
        assertEquals(addr("0.0.0.0"), LocalAddresses.resolve("any", false));
        assertEquals(addr("127.0.0.1"), LocalAddresses.resolve("lo", false), "an interface name");
        assertEquals(addr("127.0.0.1"), LocalAddresses.resolve("127.0.0.0/8", false),
                "this host's address in a subnet");
        assertEquals(addr("127.0.0.1"), LocalAddresses.resolve("route:127.0.0.1", false), "the route to itself");
        assertEquals(addr("10.1.2.3"), LocalAddresses.resolve("10.1.2.3", false), "a literal address, taken as given");
    }

    @Test
    void aListTakesTheFirstAlternativeThatNamesAnAddressHere() throws Exception {
        assertNull(LocalAddresses.resolve("198.51.100.0/24", false), "TEST-NET-2 is no subnet of this host");
        assertEquals(addr("127.0.0.1"), LocalAddresses.resolve("198.51.100.0/24, 127.0.0.0/8", false));
    }

    @Test
    void malformedSpecificationsAreErrorsThatSayWhy() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LocalAddresses.resolve("10.0.0.0/x", false))
                .getMessage().contains("prefix length must be a number of bits"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LocalAddresses.resolve("10.0.0.0/33", false))
                .getMessage().contains("longer than the address"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LocalAddresses.resolve("nosuchif", false))
                .getMessage().contains("is neither loopback, any, an interface name"));
    }

    @Test
    void prefixesCompareBitByBit() {
        byte[] a = {10, 99, 47, 1};
        assertTrue(LocalAddresses.samePrefix(a, new byte[] {10, 99, 47, 0}, 24));
        assertFalse(LocalAddresses.samePrefix(a, new byte[] {10, 99, 46, 0}, 24));
        assertTrue(LocalAddresses.samePrefix(a, new byte[] {10, 99, 46, 0}, 23));
        assertTrue(LocalAddresses.samePrefix(a, new byte[] {0, 0, 0, 0}, 0));
    }

    @Test
    void loopbackSpecificationsAreRecognised() {
        assertTrue(LocalAddresses.isLoopback("loopback"));
        assertTrue(LocalAddresses.isLoopback("127.0.0.1"));
        assertTrue(LocalAddresses.isLoopback("lo"));
        assertFalse(LocalAddresses.isLoopback("10.0.0.0/8"));
    }

    @Test
    void theHostIdCoversTheShmMount() {
        String id = HostId.current();
        assertTrue(id.startsWith(HostId.hostName() + "/"), id);
        assertTrue(id.endsWith("/" + HostId.shmDevice(Path.of("/dev/shm"))), id);
        // two file systems, two devices: hosts with a tmpfs of their own on /dev/shm get different ids
        assertNotEquals(HostId.shmDevice(Path.of("/dev/shm")), HostId.shmDevice(Path.of("/proc")));
        assertEquals("-", HostId.shmDevice(Path.of("/no/such/dir")));
    }
}

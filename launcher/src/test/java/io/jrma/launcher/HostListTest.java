package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The host lists of {@code --host} and {@code --hostfile} (Open MPI's syntax) and the maps made from them: Open MPI's
 * by-slot map, {@code -N}, oversubscription, and each host's ranks over JVMs.
 */
class HostListTest {
    private static HostList file(String... lines) {
        return HostList.ofHostfileLines("hosts", List.of(lines));
    }

    @Test
    void hostArgumentsGiveOneSlotEachOrTheirCountAndAddUpRepeatedNames() {
        HostList h = HostList.ofHostArgs(List.of("a,b:4,c", "a"));
        assertEquals(List.of(new HostList.Host("a", 2, HostList.NO_MAX), new HostList.Host("b", 4, HostList.NO_MAX),
                new HostList.Host("c", 1, HostList.NO_MAX)), h.hosts());
        assertEquals(7, h.totalSlots());
    }

    @Test
    void badHostArgumentsAreClearErrors() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostList.ofHostArgs(List.of("a,,b")))
                .getMessage().contains("empty host name"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostList.ofHostArgs(List.of("a:x")))
                .getMessage().contains("positive integer"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostList.ofHostArgs(List.of("a:0")))
                .getMessage().contains("positive integer"));
    }

    @Test
    void aHostfileHasSlotsMaxSlotsCommentsAndBlankLines() {
        HostList h = file("# the cluster", "", "node1 slots=2", "  node2 slots=4 max_slots=6   # big one",
                "node3", "user@node4 max_slots=3", "node1 slots=1");
        assertEquals(List.of(new HostList.Host("node1", 3, HostList.NO_MAX), new HostList.Host("node2", 4, 6),
                new HostList.Host("node3", 1, HostList.NO_MAX), new HostList.Host("user@node4", 1, 3)), h.hosts());
    }

    @Test
    void aBadHostfileLineIsNamedWithItsNumber() {
        assertEquals("hosts:2: unknown keyword 'slot' (slots=N, max_slots=N)", assertThrows(
                IllegalArgumentException.class, () -> file("a", "b slot=2")).getMessage());
        assertEquals("hosts:1: 'slots' is not KEY=VALUE (slots=N, max_slots=N)", assertThrows(
                IllegalArgumentException.class, () -> file("b slots")).getMessage());
        assertEquals("hosts:1: slots=4 exceeds max_slots=2", assertThrows(
                IllegalArgumentException.class, () -> file("b slots=4 max_slots=2")).getMessage());
        assertEquals("hosts:1: slots needs a positive integer, got '-1'", assertThrows(
                IllegalArgumentException.class, () -> file("b slots=-1")).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> file("# nothing", ""))
                .getMessage().contains("names no host"));
    }

    @Test
    void aHostfileIsReadFromDisk() throws Exception {
        Path p = Files.createTempFile("multihost-hostfile", ".txt");
        try {
            Files.writeString(p, "h1 slots=2\nh2 slots=2\n");
            assertEquals(4, HostList.ofHostfile(p).totalSlots());
        } finally {
            Files.delete(p);
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostList.ofHostfile(p))
                .getMessage().startsWith("cannot read the hostfile " + p));
    }

    @Test
    void bySlotFillsEachHostInOrder() {
        HostList h = HostList.ofHostArgs(List.of("a:2,b:3,c:1"));
        assertArrayEquals(new int[] {0, 0, 1, 1, 1, 2}, h.map(-1, 0, false), "no -n: one rank per slot");
        assertArrayEquals(new int[] {0, 0, 1, 1}, h.map(4, 0, false), "fewer ranks: the last hosts stay empty");
    }

    @Test
    void moreRanksThanSlotsIsAnErrorUnlessOversubscribed() {
        HostList h = HostList.ofHostArgs(List.of("a:2,b:1"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> h.map(5, 0, false));
        assertEquals("there are not enough slots for 5 ranks: the hosts have 3 slots in all (give more slots with"
                + " --host NAME:N or slots=N in the hostfile, or allow it with --oversubscribe)", e.getMessage());
        // the two extra ranks spread one per host, consecutive ranks on one host
        assertArrayEquals(new int[] {0, 0, 0, 1, 1}, h.map(5, 0, true));
    }

    @Test
    void oversubscriptionStopsAtMaxSlots() {
        HostList h = file("a slots=1 max_slots=2", "b slots=1 max_slots=1");
        assertArrayEquals(new int[] {0, 0, 1}, h.map(3, 0, true));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> h.map(4, 0, true)).getMessage()
                .contains("every host is at its max_slots"));
    }

    @Test
    void npernodePutsNRanksOnEachHost() {
        HostList h = HostList.ofHostArgs(List.of("a:2,b:2,c:2"));
        assertArrayEquals(new int[] {0, 0, 1, 1, 2, 2}, h.map(-1, 2, false));
        assertArrayEquals(new int[] {0, 0, 1}, h.map(3, 2, false));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> h.map(7, 2, false)).getMessage()
                .contains("do not fit 2 per host on 3 host(s)"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> h.map(-1, 3, false)).getMessage()
                .contains("a has 2 slots and -N 3 puts 3 ranks there"));
        assertArrayEquals(new int[] {0, 0, 0, 1, 1, 1, 2, 2, 2}, h.map(-1, 3, true));
    }

    @Test
    void eachHostsRanksGoToJvmsOfTheirOwn() {
        int[] hosts = {0, 0, 1, 1};
        assertArrayEquals(new int[] {0, 0, 1, 1}, HostList.jvmMap(hosts, -1, -1), "default: one JVM per host");
        assertArrayEquals(new int[] {0, 1, 2, 3}, HostList.jvmMap(hosts, 4, -1), "--jvms 4: 2 per host");
        assertArrayEquals(new int[] {0, 1, 2, 3}, HostList.jvmMap(hosts, -1, 1), "--ranks-per-jvm 1");
        assertArrayEquals(new int[] {0, 0, 0, 1, 1, 2}, HostList.jvmMap(new int[] {0, 0, 0, 0, 0, 1}, 3, -1),
                "--jvms shared in proportion to the ranks of each host");
        assertArrayEquals(new int[] {0, 0, 1, 2, 2, 3}, HostList.jvmMap(new int[] {0, 0, 0, 1, 1, 1}, -1, 2),
                "--ranks-per-jvm 2: the last JVM of a host may hold fewer");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostList.jvmMap(hosts, 1, -1)).getMessage()
                .contains("between 2 (one per host) and 4 (one per rank)"));
    }
}

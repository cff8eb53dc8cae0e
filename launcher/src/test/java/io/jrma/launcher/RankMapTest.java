package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.os.Topology;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The mapper against the maps Open MPI documents for {@code mpirun}, on constructed topologies: by slot and by node
 * over hosts, by core and by socket on two-socket hosts, ppr, rank-by, PE and cpus-per-rank, and the errors.
 */
class RankMapTest {
    /** Two sockets of eight cores of two threads: the hosts of the IBM Spectrum MPI (Open MPI) examples. */
    private static final Topology TWO_BY_EIGHT_HT = Topology.uniform(2, 8, 2);
    /** Two sockets of four cores, no hyperthreads. */
    private static final Topology TWO_BY_FOUR = Topology.uniform(2, 4, 1);

    private static RankMap map(String hosts, Topology t, int n, String... options) {
        RankMap.Policy p = new RankMap.Policy();
        for (int k = 0; k < options.length; k += 2) {
            switch (options[k]) {
                case "--map-by" -> p.mapBy(options[k + 1]);
                case "--rank-by" -> p.rankBy(options[k + 1]);
                case "--bind-to" -> p.bindTo(options[k + 1]);
                case "--cpus-per-rank" -> p.pe = Integer.parseInt(options[k + 1]);
                case "--oversubscribe" -> {
                    p.oversubscribe = true;
                    k--;
                }
                default -> throw new AssertionError(options[k]);
            }
        }
        return RankMap.compute(HostList.ofHostArgs(List.of(hosts)), t, n, 0, p);
    }

    private static String bitmaps(RankMap m, Topology t) {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < m.size(); r++) {
            sb.append(m.hostOfRank()[r]).append(' ').append(t.bitmap(m.bound(r))).append('\n');
        }
        return sb.toString();
    }

    @Test
    void fourRanksOnTwoHostsOfTwoSlotsFillHostsBySlotAndAlternateByNode() {
        assertArrayEquals(new int[] {0, 0, 1, 1}, map("a:2,b:2", TWO_BY_FOUR, 4).hostOfRank());
        assertArrayEquals(new int[] {0, 0, 1, 1}, map("a:2,b:2", TWO_BY_FOUR, 4, "--map-by", "slot").hostOfRank());
        assertArrayEquals(new int[] {0, 1, 0, 1}, map("a:2,b:2", TWO_BY_FOUR, 4, "--map-by", "node").hostOfRank());
        // by node with uneven slots: a round deals one to each host with a slot left
        assertArrayEquals(new int[] {0, 1, 0, 0}, map("a:3,b:1", TWO_BY_FOUR, 4, "--map-by", "node").hostOfRank());
        // ranks by slot over a by-node map: a host's ranks are consecutive again
        assertArrayEquals(new int[] {0, 0, 1, 1},
                map("a:2,b:2", TWO_BY_FOUR, 4, "--map-by", "node", "--rank-by", "slot").hostOfRank());
    }

    @Test
    void mapByCoreAndBySocketMatchOpenMpisDocumentedBindings() {
        // mpirun -host hostA:4,hostB:2 -map-by core (bound to core): packed
        RankMap core = map("hostA:4,hostB:2", TWO_BY_EIGHT_HT, 6, "--map-by", "core", "--bind-to", "core");
        assertEquals("""
                0 [BB/../../../../../../..][../../../../../../../..]
                0 [../BB/../../../../../..][../../../../../../../..]
                0 [../../BB/../../../../..][../../../../../../../..]
                0 [../../../BB/../../../..][../../../../../../../..]
                1 [BB/../../../../../../..][../../../../../../../..]
                1 [../BB/../../../../../..][../../../../../../../..]
                """, bitmaps(core, TWO_BY_EIGHT_HT));
        // mpirun -host hostA:4,hostB:2 -map-by socket (bound to socket): round-robin over the sockets
        RankMap socket = map("hostA:4,hostB:2", TWO_BY_EIGHT_HT, 6, "--map-by", "socket", "--bind-to", "socket");
        String s0 = "[BB/BB/BB/BB/BB/BB/BB/BB][../../../../../../../..]";
        String s1 = "[../../../../../../../..][BB/BB/BB/BB/BB/BB/BB/BB]";
        assertEquals("0 " + s0 + "\n0 " + s1 + "\n0 " + s0 + "\n0 " + s1 + "\n1 " + s0 + "\n1 " + s1 + "\n",
                bitmaps(socket, TWO_BY_EIGHT_HT));
    }

    @Test
    void rankByRenumbersTheSamePlacements() {
        // map-by socket, bound to core: the placements are socket 0 core 0, socket 1 core 4, socket 0 core 1, ...
        RankMap bySocket = map("h:4", TWO_BY_FOUR, 4, "--map-by", "socket", "--bind-to", "core");
        assertEquals("""
                0 [B/././.][./././.]
                0 [./././.][B/././.]
                0 [./B/./.][./././.]
                0 [./././.][./B/./.]
                """, bitmaps(bySocket, TWO_BY_FOUR));
        RankMap byCore = map("h:4", TWO_BY_FOUR, 4, "--map-by", "socket", "--bind-to", "core", "--rank-by", "core");
        assertEquals("""
                0 [B/././.][./././.]
                0 [./B/./.][./././.]
                0 [./././.][B/././.]
                0 [./././.][./B/./.]
                """, bitmaps(byCore, TWO_BY_FOUR));
        // map-by core, rank-by socket: one rank of each socket in turn (here all on socket 0: unchanged)
        RankMap coreBySocket = map("h:8", TWO_BY_FOUR, 8, "--map-by", "core", "--bind-to", "core", "--rank-by",
                "socket");
        assertArrayEquals(new int[] {0}, coreBySocket.bound(0));
        assertArrayEquals(new int[] {4}, coreBySocket.bound(1), "rank 1: the first core of socket 1");
        assertArrayEquals(new int[] {1}, coreBySocket.bound(2));
    }

    @Test
    void pprPutsNOnEachResourceOfEachHost() {
        RankMap one = map("a:2,b:2", TWO_BY_FOUR, 0, "--map-by", "ppr:1:socket", "--bind-to", "socket");
        assertEquals(4, one.size(), "no -n: one per socket of each host");
        assertEquals("""
                0 [B/B/B/B][./././.]
                0 [./././.][B/B/B/B]
                1 [B/B/B/B][./././.]
                1 [./././.][B/B/B/B]
                """, bitmaps(one, TWO_BY_FOUR));
        RankMap two = map("a:4", TWO_BY_FOUR, 4, "--map-by", "ppr:2:socket", "--bind-to", "core");
        assertEquals("""
                0 [B/././.][./././.]
                0 [./B/./.][./././.]
                0 [./././.][B/././.]
                0 [./././.][./B/./.]
                """, bitmaps(two, TWO_BY_FOUR));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> map("a:8", TWO_BY_FOUR, 5, "--map-by", "ppr:2:socket"));
        assertTrue(e.getMessage().contains("places at most 4 ranks on a host"), e.getMessage());
    }

    @Test
    void peAndCpusPerRankGiveEachRankConsecutiveCoresAndBindToThem() {
        RankMap pe = map("h:2", TWO_BY_FOUR, 2, "--map-by", "slot:PE=2");
        assertEquals("0 [B/B/./.][./././.]\n0 [././B/B][./././.]\n", bitmaps(pe, TWO_BY_FOUR),
                "PE=n binds to core without --bind-to");
        RankMap cpr = map("h:4", TWO_BY_FOUR, 4, "--map-by", "socket", "--cpus-per-rank", "2");
        assertEquals("""
                0 [B/B/./.][./././.]
                0 [./././.][B/B/./.]
                0 [././B/B][./././.]
                0 [./././.][././B/B]
                """, bitmaps(cpr, TWO_BY_FOUR));
        assertEquals("0-1;4-5;2-3;6-7", cpr.bindParam());
    }

    @Test
    void hardwareThreadsAreMappedOrBoundOnlyWhenAskedFor() {
        Topology ht = Topology.uniform(1, 2, 2);
        // map by core, bind to a hardware thread: the first thread of each rank's own core
        assertEquals("0 [B./..]\n0 [../B.]\n",
                bitmaps(map("h:2", ht, 2, "--map-by", "core", "--bind-to", "hwthread"), ht));
        // map by hardware thread: consecutive threads, so two ranks share a core
        assertEquals("0 [B./..]\n0 [.B/..]\n",
                bitmaps(map("h:2", ht, 2, "--map-by", "hwthread", "--bind-to", "hwthread"), ht));
        assertEquals("0 [BB/..]\n0 [BB/..]\n",
                bitmaps(map("h:2", ht, 2, "--map-by", "hwthread", "--bind-to", "core"), ht));
    }

    @Test
    void withoutBindingNothingIsBoundAndAnyNumberFits() {
        RankMap m = map("h:16", Topology.uniform(1, 2, 1), 16);
        assertEquals(16, m.size());
        assertTrue(!m.binds());
        assertEquals(";;;;;;;;;;;;;;;", m.bindParam());
    }

    @Test
    void errorsSayWhatIsWrongInOneLine() {
        Topology twoCores = Topology.uniform(1, 2, 1);
        IllegalArgumentException over = assertThrows(IllegalArgumentException.class,
                () -> map("h:3", twoCores, 3, "--bind-to", "core"));
        assertTrue(over.getMessage().startsWith("binding more ranks than cpus: --bind-to core puts more ranks on h"
                + " than it has cores (2)"), over.getMessage());
        RankMap allowed = map("h:3", twoCores, 3, "--bind-to", "core", "--oversubscribe");
        assertArrayEquals(new int[] {0}, allowed.bound(2), "oversubscribed: the cores are dealt again");
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> map("h:2", twoCores, 2, "--map-by", "diagonal"));
        assertTrue(unknown.getMessage().contains("unknown mapping policy 'diagonal'"), unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> map("h:2", twoCores, 2, "--rank-by", "board"));
        assertThrows(IllegalArgumentException.class, () -> map("h:2", twoCores, 2, "--bind-to", "l9cache"));
        assertThrows(IllegalArgumentException.class, () -> map("h:2", twoCores, 2, "--map-by", "ppr:2"));
        assertThrows(IllegalArgumentException.class, () -> map("h:2", twoCores, 2, "--map-by", "ppr:2:board"));
        IllegalArgumentException pe = assertThrows(IllegalArgumentException.class,
                () -> map("h:1", twoCores, 1, "--map-by", "core:PE=3"));
        assertTrue(pe.getMessage().contains("PE=3"), pe.getMessage());
        IllegalArgumentException slots = assertThrows(IllegalArgumentException.class,
                () -> map("a:1,b:1", twoCores, 3, "--map-by", "node"));
        assertTrue(slots.getMessage().contains("not enough slots for 3 ranks"), slots.getMessage());
        for (IllegalArgumentException e : List.of(over, unknown, pe, slots)) {
            assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
        }
    }

    @Test
    void reportAndDisplayUseOpenMpisWords() {
        Topology t = Topology.uniform(2, 2, 2);
        assertEquals("socket 0[core 1[hwt 0-1]], socket 1[core 2[hwt 0]]", t.describe(new int[] {2, 3, 4}));
        assertEquals("[../BB][B./..]", t.bitmap(new int[] {2, 3, 4}));
        RankMap m = map("a:2,b:1", Topology.uniform(1, 2, 1), 3, "--map-by", "node", "--bind-to", "core");
        String shown = m.display(new int[] {0, 1, 0});
        assertTrue(shown.contains(" Data for node: a\tNum slots: 2\tMax slots: 0\tNum procs: 2\n"
                + " \tProcess rank: 0 JVM: 0 Bound: socket 0[core 0[hwt 0]]:[B/.]\n"
                + " \tProcess rank: 2 JVM: 0 Bound: socket 0[core 1[hwt 0]]:[./B]\n"), shown);
        assertTrue(shown.contains(" Data for node: b\tNum slots: 1\tMax slots: 0\tNum procs: 1\n"
                + " \tProcess rank: 1 JVM: 1 Bound: socket 0[core 0[hwt 0]]:[B/.]\n"), shown);
        assertTrue(shown.contains("JOB MAP") && shown.contains("Total slots allocated 3"), shown);
    }

    @Test
    void aHostsRanksShareItsJvmsAlsoWhenTheyAreNotConsecutive() {
        assertArrayEquals(new int[] {0, 1, 0, 1}, HostList.jvmMap(new int[] {0, 1, 0, 1}, 0, 0));
        assertArrayEquals(new int[] {0, 2, 1, 3}, HostList.jvmMap(new int[] {0, 1, 0, 1}, 0, 1));
        assertArrayEquals(new int[] {0, 0, 1, 1}, HostList.jvmMap(new int[] {0, 0, 1, 1}, 0, 0));
    }
}

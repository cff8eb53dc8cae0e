package io.jrma.core.os;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrma.core.os.Topology.Kind;
import io.jrma.core.os.Topology.Pu;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The topology by logical index, Open MPI's words and pictures for a binding, and this host's topology. */
class TopologyTest {
    @Test
    void logicalIndicesHideTheKernelsInterleavedCpuNumbers() {
        // two sockets of two cores, the kernel numbering CPUs across the sockets alternately (0, 2 on socket 0)
        Topology t = new Topology(List.of(new Pu(0, 0, 0, 0, 0), new Pu(2, 1, 0, 0, 0), new Pu(1, 2, 1, 1, 0),
                new Pu(3, 3, 1, 1, 0)));
        assertEquals(2, t.count(Kind.SOCKET));
        assertEquals(4, t.count(Kind.CORE));
        assertArrayEquals(new int[] {2, 3}, t.objects(Kind.SOCKET).get(1));
        assertArrayEquals(new int[] {0, 2}, t.osCpus(t.objects(Kind.SOCKET).get(0)), "socket 0 is CPUs 0 and 2");
        assertArrayEquals(new int[] {1, 2}, t.logicalOf(new int[] {2, 1}));
        assertEquals("socket 0[core 1[hwt 0]], socket 1[core 2[hwt 0]]", t.describe(new int[] {1, 2}));
        assertEquals("[./B][B/.]", t.bitmap(new int[] {1, 2}));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.osCpus(new int[] {4}));
        assertEquals("processing unit 4 does not exist here (this host has 4)", e.getMessage());
    }

    @Test
    void uniformHostsAndCpuLists() {
        Topology t = Topology.uniform(2, 2, 2);
        assertEquals(8, t.size());
        assertEquals(2, t.count(Kind.NUMA));
        assertEquals(1, t.count(Kind.NODE));
        assertArrayEquals(new int[] {2, 3}, t.objects(Kind.CORE).get(1));
        assertEquals("[BB/..][../.B]", t.bitmap(new int[] {0, 1, 7}));
        assertEquals("0-3,8,10-11", Topology.formatList(new int[] {0, 1, 2, 3, 8, 10, 11}));
        assertEquals("", Topology.formatList(new int[0]));
    }

    @Test
    void thisHostsTopologyHoldsEveryCpuThisProcessMayUse() {
        Topology here = Topology.here();
        int[] all = new int[here.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        int[] cpus = here.osCpus(all);
        Arrays.sort(cpus);
        assertArrayEquals(Affinity.cpus(), cpus);
        // logical order: socket by socket, core by core
        for (int i = 1; i < here.size(); i++) {
            Pu a = here.pu(i - 1);
            Pu b = here.pu(i);
            assertEquals(true, a.socket() < b.socket() || a.socket() == b.socket() && a.core() <= b.core(),
                    "unit " + i + " out of order: " + a + " then " + b);
        }
    }
}

package io.jrma.core.os;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Jrma;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The host's CPU list, binding a thread to a CPU, and jrma.bind=core binding each rank's thread. */
class AffinityTest {
    @Test
    void cpuListsParseAsLinuxWritesThem() {
        assertArrayEquals(new int[] {0, 1, 2, 3, 8, 10, 11}, Affinity.parseList("0-3,8,10-11"));
        assertArrayEquals(new int[] {5}, Affinity.parseList("5"));
        assertTrue(Affinity.cores() >= 1);
        assertEquals(Affinity.cores(), Affinity.cpus().length);
    }

    @Test
    @Timeout(30)
    void aBoundThreadRunsOnItsCpuAndTheHostStillCountsAllCores() throws Exception {
        Assumptions.assumeTrue(Affinity.available(), "thread binding needs Linux and JNA");
        int[] cpus = Affinity.cpus();
        int last = cpus[cpus.length - 1];
        int[][] seen = new int[1][];
        String[] why = new String[1];
        int[] cores = new int[1];
        Thread t = new Thread(() -> {
            why[0] = Affinity.bindCurrentThread(last);
            seen[0] = Affinity.currentThread();
            cores[0] = Affinity.cores();
        });
        t.start();
        t.join();
        assertNull(why[0]);
        assertArrayEquals(new int[] {last}, seen[0]);
        assertEquals(cpus.length, cores[0], "the job's core count is the host's, not the bound thread's");
        assertArrayEquals(cpus, Affinity.currentThread(), "other threads are not bound");
    }

    @Test
    @Timeout(60)
    void bindCoreBindsEachRankThreadToTheCpusInRankOrder() {
        Assumptions.assumeTrue(Affinity.available(), "thread binding needs Linux and JNA");
        int n = 3;
        AtomicReferenceArray<int[]> where = new AtomicReferenceArray<>(n);
        Jrma.job(n).param("jrma.bind", "core").timeout(Duration.ofSeconds(30))
                .run(world -> where.set(world.rank(), Affinity.currentThread()));
        for (int r = 0; r < n; r++) {
            assertArrayEquals(new int[] {Affinity.cpuOfRank(r)}, where.get(r), "rank " + r);
        }
        AtomicReferenceArray<int[]> free = new AtomicReferenceArray<>(2);
        Jrma.job(2).timeout(Duration.ofSeconds(30)).run(world -> free.set(world.rank(), Affinity.currentThread()));
        assertArrayEquals(Affinity.cpus(), free.get(1), "jrma.bind=none (the default) leaves rank threads unbound");
    }
}

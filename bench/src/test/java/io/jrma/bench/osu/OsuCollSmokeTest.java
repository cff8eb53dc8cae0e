package io.jrma.bench.osu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The OSU collective twins run under jrmarun as a user starts them (thread ranks, and one JVM per rank), on a few
 * small sizes and iterations: one row per size in the format bench/compare parses, and every collective's result
 * checked by the twin itself ({@code # Validation: all results correct}, exit code 0).
 */
class OsuCollSmokeTest {

    /** The sizes of the rows bench/compare would take ("SIZE  LATENCY", two decimals). */
    private static long[] sizes(String out) {
        return out.lines().filter(l -> l.matches("\\d+ +\\d+\\.\\d\\d"))
                .mapToLong(l -> Long.parseLong(l.split(" +")[0])).toArray();
    }

    private static void assertRun(String out, String title, long... sizes) {
        assertTrue(out.contains("# OSU MPI " + title + " Latency Test (jrma mpi package)"), out);
        assertTrue(out.contains("Avg Latency (us)"), out);
        assertArrayEquals(sizes, sizes(out), out);
        assertTrue(out.contains("# Validation: all results correct"), out);
    }

    @Test
    @Timeout(300)
    void everyTwinRunsAndChecksItsResults() throws Exception {
        String main = OsuColl.class.getName();
        String[] tiny = {"-i", "3", "-x", "1"};
        // 3 ranks: reduce_scatter's uneven blocks (and the 4-byte size gives ranks 1 and 2 nothing)
        assertRun(Jrmarun.run(Jrmarun.cat(new String[] {"-n", "3", main, "reduce_scatter", "-m", "1:64"},
                tiny)), "Reduce_scatter",
                4, 8, 16, 32, 64);
        assertRun(Jrmarun.run(Jrmarun.cat(new String[] {"-n", "2", "--jvms", "2", main, "bcast", "-m", "1:16"},
                tiny)), "Broadcast",
                1, 2, 4, 8, 16);
        assertRun(Jrmarun.run(Jrmarun.cat(new String[] {"-n", "4", "--jvms", "2", main, "allgather", "-m", "8:32"},
                tiny)), "Allgather",
                8, 16, 32);
        assertRun(Jrmarun.run(Jrmarun.cat(new String[] {"-n", "4", main, "alltoall", "-m", "4:16"}, tiny)),
                "All-to-All Personalized Exchange", 4, 8, 16);
        assertRun(Jrmarun.run(Jrmarun.cat(new String[] {"-n", "2", main, "barrier"}, tiny)), "Barrier", 0);
        // past the large-message threshold, where the counts switch to OSU's large ones and bcast to its long algorithm
        String full = Jrmarun.run("-n", "3", main, "bcast", "-m", "8192:524288", "-i", "2", "-x", "0", "-f");
        assertTrue(full.lines().filter(l -> l.matches("\\d+( +\\d+\\.\\d\\d){3} +2")).count() == 7, full);
        assertTrue(full.contains("# Validation: all results correct"), full);
    }

    @Test
    void theCheckCountsEveryElementOfAnUntouchedReceiveBuffer() throws Exception {
        // the buffers start with the complement of the result, so a collective that wrote nothing cannot pass
        int size = 16;
        int np = 3;
        for (String test : List.of("bcast", "allgather", "alltoall", "reduce_scatter")) {
            OsuColl.Coll c = new OsuColl.Coll(test, 1, np, 64);
            assertTrue(c.prepare(size));
            long want = switch (test) {
                case "bcast" -> size;
                case "allgather", "alltoall" -> (long) size * np;
                default -> OsuColl.counts(size / 4, np)[1];
            };
            assertEquals(want, c.check(), test);
        }
        // what the collectives should leave there passes
        OsuColl.Coll a = new OsuColl.Coll("alltoall", 1, np, 64);
        a.prepare(size);
        for (int s = 0; s < np; s++) {
            for (int j = 0; j < size; j++) {
                a.recv.put(s * size + j, OsuColl.value(s, 1, j, size));
            }
        }
        assertEquals(0, a.check());
        a.recv.put(size + 3, (byte) (a.recv.get(size + 3) + 1));
        assertEquals(1, a.check());
    }

    @Test
    void reduceScatterCountsFollowOsu() {
        assertArrayEquals(new int[] {3, 3, 2, 2}, OsuColl.counts(10, 4));
        assertArrayEquals(new int[] {1, 1, 0, 0}, OsuColl.counts(2, 4));
        assertArrayEquals(new int[] {4, 4}, OsuColl.counts(8, 2));
    }
}

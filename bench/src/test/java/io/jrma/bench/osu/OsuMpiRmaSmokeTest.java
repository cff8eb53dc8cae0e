package io.jrma.bench.osu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The OSU one-sided twin on the {@code mpi} package runs under jrmarun as a user starts it, on thread ranks and on
 * one JVM per rank, on every window kind and each kind of synchronization, latency and bandwidth tests: one row per
 * size, and what every size's operations left in the target's window and in the origin's buffers checked by the twin
 * itself.
 */
class OsuMpiRmaSmokeTest {

    private static long[] sizes(String out) {
        return out.lines().filter(l -> l.matches("\\d+ +\\d+\\.\\d\\d"))
                .mapToLong(l -> Long.parseLong(l.split(" +")[0]))
                .toArray();
    }

    private static void assertRun(String out, String title, long... sizes) {
        assertTrue(out.contains("# OSU MPI_" + title + " Test (jrma mpi package)"), out);
        assertArrayEquals(sizes, sizes(out), out);
        assertTrue(out.contains("# Validation: all results correct"), out);
    }

    @Test
    @Timeout(300)
    void everyTestChecksWhatItsOperationsLeft() throws Exception {
        String main = OsuMpiRma.class.getName();
        String[] tiny = {"-i", "20", "-x", "2"};
        assertRun(Jrmarun.run(Jrmarun.cat(new String[] {"-n", "2", main, "put_latency", "-m", "1:8"}, tiny)),
                "Put Latency", 1, 2, 4, 8);
        assertRun(Jrmarun.run(Jrmarun.cat(new String[] {"-n", "2", "--jvms", "2", main, "get_latency", "-w",
                "create", "-s", "fence",
            "-m", "8:16"}, tiny)), "Get Latency", 8, 16);
        assertRun(Jrmarun.run(Jrmarun.cat(new String[] {"-n", "2", "--jvms", "2", main, "acc_latency", "-w",
                "dynamic", "-s", "lock",
            "-m", "2:8"}, tiny)), "Accumulate Latency", 2, 4, 8);
        assertRun(Jrmarun.run(Jrmarun.cat(new String[] {"-n", "2", main, "get_acc_latency", "-s", "pscw",
                "-m", "4:4"}, tiny)),
                "Get_accumulate Latency", 4);
        assertRun(Jrmarun.run(Jrmarun.cat(new String[] {"-n", "2", "--jvms", "2", main, "fop_latency", "-s",
                "lock_all"}, tiny)),
                "Fetch_and_op Latency", 8);
        String cas = Jrmarun.run(Jrmarun.cat(new String[] {"-n", "2", main, "cas_latency", "-s",
                "flush_local", "-P", "5"}, tiny));
        assertRun(cas, "Compare_and_swap Latency", 8);
        assertTrue(cas.contains("# probe size 8: steady"), cas);
        // the bandwidth tests: a window of operations into consecutive slots, each slot's bytes checked
        assertRun(Jrmarun.run(Jrmarun.cat(new String[] {"-n", "2", "--jvms", "2", main, "put_bw", "-m", "512:1024",
            "-W", "8"}, tiny)), "Put Bandwidth", 512, 1024);
        assertRun(Jrmarun.run(Jrmarun.cat(new String[] {"-n", "2", main, "get_bw", "-s", "lock", "-m", "4:4"}, tiny)),
                "Get Bandwidth", 4);
    }
}

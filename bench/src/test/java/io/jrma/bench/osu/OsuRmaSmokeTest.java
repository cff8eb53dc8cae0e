package io.jrma.bench.osu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every OSU test under every window kind and synchronization runs on tiny sizes and prints one row per size. */
class OsuRmaSmokeTest {
    @Test
    @Timeout(180)
    void everyTestWindowAndSyncRuns() throws Exception {
        String[] tests = {"put_latency", "get_latency", "acc_latency", "get_acc_latency", "fop_latency", "cas_latency",
            "put_bw", "get_bw", "put_bibw"};
        String[] windows = {"allocate", "create", "dynamic"};
        String[] syncs = {"lock", "flush", "flush_local", "lock_all", "pscw", "fence"};
        List<String> failures = new ArrayList<>();
        PrintStream out = System.out;
        for (String t : tests) {
            for (String w : windows) {
                for (String s : syncs) {
                    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
                    try {
                        OsuRma.main(new String[] {t, "-w", w, "-s", s, "-m", "1:8", "-i", "3", "-x", "1", "-W", "2",
                            "--no-jit-warmup"});
                    } catch (Exception e) {
                        failures.add(t + " -w " + w + " -s " + s + ": " + e);
                        continue;
                    } finally {
                        System.setOut(out);
                    }
                    String text = bytes.toString(StandardCharsets.UTF_8);
                    long rows = text.lines().filter(l -> l.matches("\\d+\\s+\\d+\\.\\d{2,3}")).count();
                    long expected = t.startsWith("fop") || t.startsWith("cas") ? 1 : 4;
                    if (!text.startsWith("# OSU MPI_") || rows != expected) {
                        failures.add(t + " -w " + w + " -s " + s + ": " + rows + " rows in\n" + text);
                    }
                }
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
        assertEquals(0, failures.size());
    }

    /**
     * {@code --counters} counts the timed iterations only (the warm-up runs in the same epoch, on the same window),
     * and {@code --trace} prints the spread of those iterations.
     */
    @Test
    @Timeout(120)
    void countersAndTraceCoverTheTimedIterationsOnly() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = System.out;
        PrintStream e = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            OsuRma.main(new String[] {"fop_latency", "-w", "allocate", "-s", "flush", "-i", "50", "-x", "5",
                "--jit-passes", "2", "--counters", "--trace"});
        } finally {
            System.setOut(o);
            System.setErr(e);
        }
        String text = err.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("rank 0, 8 bytes: {fetch_and_ops=50,"), "50 timed fetch_and_ops, not the warm-up's"
                + " (2 passes of 500 + 5, and OSU's 5):\n" + text);
        assertTrue(text.matches("(?s).*trace 8 bytes: p50 [0-9.]+ p90 [0-9.]+ p99 [0-9.]+ max [0-9.]+ mean [0-9.]+ us;"
                + " stalls \\d+ \\(\\d+% of the time\\).*"), text);
        assertTrue(out.toString(StandardCharsets.UTF_8).lines().anyMatch(l -> l.matches("8\\s+\\d+\\.\\d{3}")),
                out.toString(StandardCharsets.UTF_8));
    }
}

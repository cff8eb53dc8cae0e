package io.jrma.bench.micro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.WinCounters.Counter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every flush/lock microbenchmark runs on tiny counts on both paths and prints its line with counters. */
class FlushLockMicroSmokeTest {
    private static FlushLockMicro run(ByteArrayOutputStream bytes, String... args) throws Exception {
        FlushLockMicro m = FlushLockMicro.parse(args).out(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        m.runAll();
        System.out.print(bytes.toString(StandardCharsets.UTF_8));
        return m;
    }

    private static FlushLockMicro.Row row(FlushLockMicro m, String name, String path, int ranks) {
        return m.rows.stream().filter(r -> r.name().equals(name) && r.path().equals(path) && r.ranks() == ranks)
                .findFirst().orElseThrow(() -> new AssertionError("no line '" + name + "' " + path + " " + ranks
                        + " in " + m.rows.stream().map(r -> r.name() + "/" + r.path() + "/"
                        + r.ranks()).collect(Collectors.toList())));
    }

    @Test
    @Timeout(120)
    void everyCaseRunsOnBothPathsWithItsCounters() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        FlushLockMicro m = run(bytes, "--iters", "3", "--reps", "2", "--warmup-ms", "0", "--ranks", "2,3",
                "--threads", "1,2");
        String text = bytes.toString(StandardCharsets.UTF_8);
        List<String> lines = text.lines().collect(Collectors.toList());
        assertTrue(lines.get(1).startsWith("case ") && lines.get(1).contains("pkts")
                && lines.get(1).contains("wait_us"), text);
        // 14 pair lines and 4 collective lines per job size, per path
        assertEquals(2 * (14 + 2 * 4), m.rows.size(), text);
        assertEquals(m.rows.size() + 2, lines.size(), text);
        for (FlushLockMicro.Row r : m.rows) {
            assertTrue(r.median() > 0 && r.best() > 0, r.toString());
        }
        // the counters tell the paths apart and show what coalescing saves
        FlushLockMicro.Row direct = row(m, "lock/put8/unlock shar coalesce=on", "direct", 2);
        assertEquals(1.0, direct.perOp(Counter.DIRECT_OPS), 1e-9);
        assertEquals(0.0, direct.perOp(Counter.PACKETS_SENT), 1e-9);
        FlushLockMicro.Row on = row(m, "lock/put8/unlock shar coalesce=on", "packet", 2);
        assertEquals(1.0, on.perOp(Counter.PACKETS_SENT), 1e-9, "one packet per epoch");
        assertEquals(2.0, on.perOp(Counter.PACKETS_COALESCED), 1e-9, "lock and unlock ride on the put");
        assertEquals(1.0, on.perOp(Counter.PACKETS_APPLIED), 1e-9, "counted at the target");
        FlushLockMicro.Row off = row(m, "lock/put8/unlock shar coalesce=off", "packet", 2);
        assertEquals(3.0, off.perOp(Counter.PACKETS_SENT), 1e-9, "lock, put, unlock");
        assertEquals(0.0, off.perOp(Counter.PACKETS_COALESCED), 1e-9);
        assertEquals(2.0, off.perOp(Counter.REPLIES_RECEIVED), 1e-9, "grant and unlock ack");
        FlushLockMicro.Row flush0 = row(m, "lock_all: 0 x put8 + flush", "packet", 2);
        assertEquals(1.0, flush0.perOp(Counter.ACKS_ELIDED), 1e-9, "an empty flush sends nothing");
        assertEquals(16.0, row(m, "lock_all: 16 x put8 + flush", "packet", 2).perOp(Counter.PACKETS_SENT), 1e-9);
        assertEquals(1.0, row(m, "put8 rate (x64 + flush) 1 thread", "packet", 2).perOp(Counter.PACKETS_SENT), 1e-9);
        assertTrue(row(m, "fence (empty)", "packet", 3).perOp(Counter.PACKETS_SENT) > 0, "fence markers are packets");
        assertEquals("Mmsg/s", row(m, "put8 rate (x64 + flush) 2 threads", "direct", 2).unit());
    }

    @Test
    @Timeout(60)
    void csvHasOneHeaderAndOneLinePerCase() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        FlushLockMicro m = run(bytes, "--csv", "--path", "packet", "--cases", "flush,pscw", "--ranks", "2",
                "--iters", "2", "--reps", "1", "--warmup-ms", "0");
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().collect(Collectors.toList());
        assertEquals(1 + 3 + 2, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(0).startsWith("case,path,ranks,threads,iters,median,best,unit,puts_per_op,"),
                lines.get(0));
        int columns = lines.get(0).split(",").length;
        assertEquals(8 + Counter.values().length, columns);
        for (String l : lines.subList(1, lines.size())) {
            assertEquals(columns, l.split(",").length, l);
        }
        assertEquals(5, m.rows.size());
    }
}

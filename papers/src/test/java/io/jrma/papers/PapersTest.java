package io.jrma.papers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The claims' machinery end to end, in a reduced form of papers/mpich-one-packet-epoch: EpochProbe on 2 thread
 * ranks over the packet path with lock coalescing on and off, two short repetitions, then the report. The counts are
 * deterministic, so the verdict must not be "does not hold" and the table must show one packet per coalesced epoch
 * and three without.
 */
class PapersTest {
    static final int REPS = 2;

    @Test
    @Timeout(120)
    void onePacketClaimInReducedFormWritesTableVerdictAndPlot(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            for (int rep = 1; rep <= REPS; rep++) {
                for (String c : new String[] {"on", "off"}) {
                    String[] args = {"--pattern", "one-packet", "--series", "threads coalesce=" + c, "--rep",
                        Integer.toString(rep), "--ms", "100", "--warmup-ms", "100"};
                    EpochProbe.run(args, Map.of("jrma.path", "packet", "jrma.lock.coalesce",
                            c.equals("on") ? "true" : "false"), out);
                }
            }
        }
        Path raw = dir.resolve("raw.csv");
        Files.writeString(raw, "series,x,metric,rep,value\n" + bytes.toString(StandardCharsets.UTF_8));
        Path meta = dir.resolve("meta.txt");
        Files.writeString(meta, String.join("\n",
                "id=mpich-one-packet-epoch", "title=one packet (reduced)", "command=PapersTest", "source=test",
                "claim=one packet per single-operation epoch", "date=now", "machine=this", "commit=HEAD", "jdk=this",
                "load.before=0", "load.after=0", "mode=test", "seconds=0",
                "metric=us|Time per epoch|time", "metric=packets|Request packets per epoch|count",
                "metric=replies|Reply packets per epoch|count", "plot=us|time per epoch|lock type|us", ""));
        Verdicts.Verdict v = Report.write(raw, meta, dir);
        String md = Files.readString(dir.resolve("RESULTS.md"));
        assertTrue(!v.level().equals(Verdicts.NOT), "counts are deterministic: " + v);
        assertTrue(md.contains(Report.VERDICT_PREFIX + v.level() + ".**"), md);
        assertTrue(md.contains("| | threads coalesce=on | threads coalesce=off |"), md);
        assertTrue(md.contains("### Request packets per epoch"), md);
        Measurements m = Measurements.read(raw);
        assertEquals(1.0, m.median("threads coalesce=on", "shared", "packets"), 1e-9);
        assertEquals(3.0, m.median("threads coalesce=off", "exclusive", "packets"), 1e-9);
        assertEquals(REPS, m.reps("threads coalesce=on", "exclusive", "us"));
        byte[] png = Files.readAllBytes(dir.resolve(Report.PNG));
        assertTrue(png.length > 1000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', "a PNG image");
        assertTrue(md.contains("](" + Report.PNG + ")"), "RESULTS.md shows the plot");
    }
}

package io.jrma.papers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.config.Params;
import io.jrma.shm.ShmFiles;
import io.jrma.shm.ShmSegment;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The claims' machinery end to end, in reduced forms. papers/mpich-one-packet-epoch: EpochProbe on 2 thread
 * ranks over the packet path with lock coalescing on and off, two short repetitions, then the report. The counts are
 * deterministic, so the verdict must not be "does not hold" and the table must show one packet per coalesced epoch
 * and three without. papers/openmpi-components-no-cost: SelectionProbe's timing loop (not JMH) over both lanes, wired
 * through the SPI and by hand, then the report: exact census counts, and a verdict that cannot be "holds" while two
 * of its variants were not measured.
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

    /** Operations per lane, wiring and repetition in the components claim's reduced form. */
    static final int SELECTION_OPS = 300;

    @Test
    @Timeout(300)
    void componentsClaimInReducedFormWritesTableVerdictAndPlot(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Path shm = ShmSegment.directory(Params.SHM_DIR.get(Map.of()));
        List<String> left;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            for (int rep = 1; rep <= REPS; rep++) {
                for (String lane : new String[] {"shm", "tcp"}) {
                    for (String wiring : new String[] {"hand", "spi"}) {
                        SelectionProbe.run(new String[] {"--wiring", wiring, "--lane", lane, "--time", "--ops",
                            Integer.toString(SELECTION_OPS), "--rep", Integer.toString(rep)}, out);
                    }
                }
            }
        } finally {
            left = ShmFiles.filesOf(shm, ProcessHandle.current().pid());
            WiredPair.removeShmFiles(Map.of()); // also when a pair failed
        }
        assertEquals(List.of(), left, "files the pairs left in " + shm);
        Path raw = dir.resolve("raw.csv");
        Files.writeString(raw, "series,x,metric,rep,value\n" + bytes.toString(StandardCharsets.UTF_8));
        Measurements m = Measurements.read(raw);
        for (String lane : new String[] {"shm", "tcp"}) {
            double opened = lane.equals("shm") ? 2 : 1;
            assertEquals(0.0, m.median("hand", lane, "providers_found"), 1e-9, "hand wiring looks nothing up");
            assertTrue(m.median("spi", lane, "providers_found") >= 2, "the SPI finds at least tcp and shm");
            assertEquals(opened, m.median("hand", lane, "transports_opened"), 1e-9, lane);
            assertEquals(opened, m.median("spi", lane, "transports_opened"), 1e-9, lane);
            for (String op : new String[] {" put+flush", " get+flush"}) {
                assertEquals(REPS, m.reps("spi", lane + op, "us"));
                assertTrue(m.median("hand", lane + op, "us") > 0, lane + op);
            }
        }
        Path meta = dir.resolve("meta.txt");
        Files.writeString(meta, String.join("\n",
                "id=openmpi-components-no-cost", "title=components (reduced)", "command=PapersTest", "source=test",
                "claim=no cost", "date=now", "machine=this", "commit=HEAD", "jdk=this", "load.before=0",
                "load.after=0", "mode=test", "seconds=0", "metric=us|Time per operation|time",
                "metric=providers_found|Components looked up|count", "plot=us|time per operation|lane|us",
                "listing.title=jrma-info", "listing=|  + tcp: priority 10", ""));
        Verdicts.Verdict v = Report.write(raw, meta, dir);
        String md = Files.readString(dir.resolve("RESULTS.md"));
        assertNotEquals(Verdicts.HOLDS, v.level(), "spi-bare and spi-mixed were not measured: " + v);
        assertTrue(v.summary().contains("not measured"), v.summary());
        assertTrue(md.contains(Report.VERDICT_PREFIX + v.level() + ".**"), md);
        assertTrue(md.contains("| | hand | spi |"), md);
        assertTrue(md.contains("### Components looked up"), md);
        assertTrue(md.contains("## jrma-info\n\n```\n  + tcp: priority 10\n```"), "the listing, indented: " + md);
        byte[] png = Files.readAllBytes(dir.resolve(Report.PNG));
        assertTrue(png.length > 1000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', "a PNG image");
    }
}

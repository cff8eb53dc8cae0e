package io.jrma.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.bench.report.Report;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** bench/compare's report: medians, noisy marks, ratios to the best peer, RESULTS.md and PNG plots from a small CSV. */
class ReportTest {
    /** Writes {@code rows} (after the CSV header) and {@code meta}, runs the report into dir/out, returns dir/out. */
    private static Path report(Path dir, String meta, String... rows) throws Exception {
        Path raw = dir.resolve("raw.csv");
        Files.writeString(raw, "impl,test,window,sync,size,rep,value\n" + String.join("\n", rows) + "\n");
        Path m = dir.resolve("meta.txt");
        Files.writeString(m, meta);
        Path out = dir.resolve("out");
        Report.main(new String[] {raw.toString(), m.toString(), out.toString()});
        return out;
    }

    @Test
    @Timeout(60)
    void writesTablesRatiosAndPlots(@TempDir Path dir) throws Exception {
        Path out = report(dir, "command=bench/compare --path shm\ndate=2026-11-23\nmachine=2 cores\nplotdir=results\n"
                + "impl.jrma-shm=2 JVMs\nimpl.jrma-threads=not measured in this run\n",
                // jrma 0.04 (median of 0.04, 0.03, 0.04), peers 0.08 and 0.51 (noisy): ratio 0.04 / 0.08 = 0.50
                "jrma-shm,put_latency,allocate,flush,8,1,0.04",
                "jrma-shm,put_latency,allocate,flush,8,2,0.03",
                "jrma-shm,put_latency,allocate,flush,8,3,0.04",
                "openmpi-sm,put_latency,allocate,flush,8,1,0.08",
                "openmpi-sm,put_latency,allocate,flush,8,2,0.08",
                "openmpi-sm,put_latency,allocate,flush,8,3,0.08",
                "mpich,put_latency,allocate,flush,8,1,0.50",
                "mpich,put_latency,allocate,flush,8,2,0.90",
                "mpich,put_latency,allocate,flush,8,3,0.51",
                "jrma-shm,put_latency,allocate,flush,16,1,0.06",
                "openmpi-sm,put_latency,allocate,flush,16,1,0.09",
                // bandwidth in MB/s: jrma 11000 vs best peer 10000: 1.10
                "jrma-shm,put_bw,allocate,flush,1048576,1,11000",
                "openmpi-sm,put_bw,allocate,flush,1048576,1,10000",
                "mpich,put_bw,allocate,flush,1048576,1,2000",
                "jrma-shm,put_bw,allocate,flush,4194304,1,9000",
                "openmpi-sm,put_bw,allocate,flush,4194304,1,9500",
                // over TCP, jrma is compared with the peer over TCP only: 30 / 15 = 2.00
                "jrma-tcp,get_latency,allocate,flush,8,1,30",
                "openmpi-tcp,get_latency,allocate,flush,8,1,15",
                "openmpi-sm,get_latency,allocate,flush,8,1,0.1");

        String md = Files.readString(out.resolve("RESULTS.md"), StandardCharsets.UTF_8);
        assertTrue(md.contains("| put_latency | allocate | flush | 8 B | 0.040 ~ | 0.080 | 0.510 ~ | n/a | n/a | 0.50 "
                + "| n/a |"), md);
        assertTrue(md.contains("| put_bw | allocate | flush | 1 MiB | 11.00 ~ | 10.00 ~ | 2.00 ~ | n/a | n/a | 1.10 | "
                + "n/a |"), md);
        assertTrue(md.contains("| machine | 2 cores |"), md);
        assertTrue(md.contains("| get_latency | allocate | flush | 8 B | n/a | 0.100 ~ | n/a | 30.00 ~ | 15.00 ~ | "
                + "n/a | 2.00 |"), md);
        assertTrue(md.contains("- `jrma-shm`: 2 JVMs"), md);
        assertFalse(md.contains("not measured in this run"), "implementations not run are not described: " + md);
        String medians = Files.readString(out.resolve("medians.csv"));
        assertTrue(medians.contains("mpich,put_latency,allocate,flush,8,3,0.51,0.5,0.9,true"), medians);
        assertTrue(medians.contains("jrma-shm,put_latency,allocate,flush,8,3,0.04,0.03,0.04,true"), medians);
        for (String png : new String[] {"put_latency-allocate-flush.png", "put_bw-allocate-flush.png"}) {
            byte[] head = Arrays.copyOf(Files.readAllBytes(out.resolve(png)), 4);
            assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, head, png + " is a PNG");
            assertTrue(md.contains("(results/" + png + ")"), md);
        }
        assertFalse(Files.exists(out.resolve("fop_latency-allocate-flush.png")));
    }

    @Test
    @Timeout(60)
    void memcpyIsTheLimitBesideBandwidthNeverAPeer(@TempDir Path dir) throws Exception {
        Path out = report(dir, "command=bench/compare --path all\nimpl.memcpy=the limit\n",
                // memcpy (12000) is faster than every peer, yet jrma is divided by Open MPI (10000) in the peer
                // column, and by memcpy in its own: 11000 / 12000 = 0.92; over TCP there is no memcpy column
                "jrma-shm,put_bw,allocate,flush,1048576,1,11000",
                "openmpi-sm,put_bw,allocate,flush,1048576,1,10000",
                "memcpy,put_bw,allocate,flush,1048576,1,12000",
                "jrma-tcp,put_bw,allocate,flush,1048576,1,4000",
                "openmpi-tcp,put_bw,allocate,flush,1048576,1,5000",
                // latency rows have no memcpy column (one repetition: every figure is marked rough)
                "jrma-shm,put_latency,allocate,flush,8,1,0.04",
                "openmpi-sm,put_latency,allocate,flush,8,1,0.08");
        String md = Files.readString(out.resolve("RESULTS.md"), StandardCharsets.UTF_8);
        assertTrue(md.contains("| test | window | sync | size | jrma-shm | openmpi-sm | memcpy | jrma-tcp | "
                + "openmpi-tcp | jrma-shm / best peer | jrma-tcp / best peer | jrma-shm / memcpy |"), md);
        assertTrue(md.contains("| put_bw | allocate | flush | 1 MiB | 11.00 ~ | 10.00 ~ | 12.00 ~ | 4.00 ~ | 5.00 ~ | "
                + "1.10 | 0.80 | 0.92 |"), md);
        assertTrue(md.contains("| put_latency | allocate | flush | 8 B | 0.040 ~ | 0.080 ~ | n/a | n/a | n/a | 0.50 | "
                + "n/a |"), md);
        assertTrue(md.contains("- `memcpy`: the limit"), md);
    }

    @Test
    @Timeout(10)
    void aBadLineIsAnError(@TempDir Path dir) throws Exception {
        Path raw = dir.resolve("raw.csv");
        Files.writeString(raw, "impl,test,window,sync,size,rep,value\njrma,put_latency,allocate\n");
        Path meta = dir.resolve("m");
        Files.writeString(meta, "");
        IllegalArgumentException e = Assertions.assertThrows(IllegalArgumentException.class,
                () -> Report.main(new String[] {raw.toString(), meta.toString(), dir.resolve("o").toString()}));
        assertTrue(e.getMessage().contains("bad line"), e.getMessage());
    }

    @Test
    @Timeout(60)
    void aRunOfLatencyTestsOnlyHasNoBandwidthSection(@TempDir Path dir) throws Exception {
        // bench/compare --only collectives: latency rows of N ranks, barrier's single row at size 0
        Path out = report(dir, "command=bench/compare --only collectives\n",
                "jrma-shm,barrier_latency,-,4 ranks,0,1,3.0",
                "openmpi-sm,barrier_latency,-,4 ranks,0,1,1.5",
                "jrma-shm,bcast_latency,-,2 ranks,4,1,2.0",
                "openmpi-sm,bcast_latency,-,2 ranks,4,1,0.5");
        String md = Files.readString(out.resolve("RESULTS.md"), StandardCharsets.UTF_8);
        assertTrue(md.contains("| barrier_latency | - | 4 ranks | 0 B | 3.00 ~ | 1.50 ~ | 2.00 |"), md);
        assertTrue(md.contains("| bcast_latency | - | 2 ranks | 4 B | 2.00 ~ | 0.500 ~ | 4.00 |"), md);
        assertTrue(md.contains("## Latency"), md);
        assertFalse(md.contains("## Bandwidth"), md);
    }
}

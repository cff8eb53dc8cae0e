package io.jrma.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.bench.report.MultiHostReport;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bench/multihost/run's report: per group a table of medians beside each other, the ratio columns the run asks for
 * (only between implementations it measured), the noisy mark, units, and the failed jobs.
 */
class MultiHostReportTest {
    private static final String META = String.join("\n", "command=bench/multihost/run --quick --reps 3",
            "date=2026-01-01 00:00 UTC", "impl.jrma-jrmarun=jrma under jrmarun", "impl.openmpi=Open MPI",
            "ratios.rma=jrma-jrmarun/openmpi,jrma-jrmarun/mpich", "ratios.startup=jrmarun-jvms/mpirun-c", "");

    private static String report(Path dir, String fails, String... rows) throws Exception {
        Files.writeString(dir.resolve("raw.csv"), "group,impl,test,size,rep,value\n" + String.join("\n", rows) + "\n");
        Files.writeString(dir.resolve("failures.csv"), "group,impl,test,size,rep,reason\n" + fails);
        Files.writeString(dir.resolve("meta.txt"), META);
        MultiHostReport.main(new String[] {dir.toString()});
        assertTrue(Files.exists(dir.resolve("medians.csv")));
        return Files.readString(dir.resolve("RESULTS.md"));
    }

    @Test
    void tablesHoldMediansRatiosUnitsAndFailures(@TempDir Path dir) throws Exception {
        String md = report(dir, "rma,openmpi,get_latency,-,2,exit 1: connect() failed\n",
                "rma,jrma-jrmarun,put_latency,8,1,30", "rma,jrma-jrmarun,put_latency,8,2,20",
                "rma,jrma-jrmarun,put_latency,8,3,21",
                "rma,openmpi,put_latency,8,1,40", "rma,openmpi,put_latency,8,2,40", "rma,openmpi,put_latency,8,3,41",
                "rma,jrma-jrmarun,put_bw,1048576,1,900", "rma,openmpi,put_bw,1048576,1,450",
                "startup,jrmarun-jvms,hello_startup,4,1,2.5", "startup,mpirun-c,hello_startup,4,1,1.25");
        assertTrue(md.startsWith("# jrma across two hosts beside Open MPI and MPICH"), md);
        assertTrue(md.contains("`bench/multihost/run --quick --reps 3`"), md);
        assertTrue(md.contains("| test | size | unit | jrma-jrmarun | openmpi | jrma-jrmarun / openmpi |"), md);
        // median 21 of 20, 21, 30 (spread 10/21: noisy); Open MPI 40 of 40, 40, 41; ratio 21/40
        assertTrue(md.contains("| put_latency | 8 B | µs | 21.0 ~ | 40.0 | 0.53 |"), md);
        // one repetition is noisy by definition; bandwidth in MB/s, its ratio above 1 when jrma is faster
        assertTrue(md.contains("| put_bw | 1 MiB | MB/s | 900 ~ | 450 ~ | 2.00 |"), md);
        assertTrue(md.contains("| hello_startup | 4 | s | 2.50 ~ | 1.25 ~ | 2.00 |"), md);
        // mpich was not measured: no ratio column names it
        assertFalse(md.contains("/ mpich"), md);
        assertTrue(md.contains("| rma | openmpi | get_latency | - | 2 | exit 1: connect() failed |"), md);
        assertTrue(md.contains("- `jrma-jrmarun`: jrma under jrmarun"), md);
        assertFalse(md.contains("| ratios.rma |"), md);
    }

    @Test
    void aRunWithoutFailuresSaysSo(@TempDir Path dir) throws Exception {
        String md = report(dir, "", "pt2pt,openmpi,pt2pt_latency,8,1,25");
        assertTrue(md.contains("| pt2pt_latency | 8 B | µs | 25.0 ~ |"), md);
        assertTrue(md.contains("None: every job of the run ended with code 0"), md);
        assertFalse(md.contains("## One-sided"), md);
    }
}

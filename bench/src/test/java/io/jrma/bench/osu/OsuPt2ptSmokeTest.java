package io.jrma.bench.osu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The two-sided OSU tests run under jrmarun (threads, and two JVMs) on tiny sizes and print one row per size. */
class OsuPt2ptSmokeTest {

    private static long rows(String out) {
        return out.lines().filter(l -> l.matches("\\d+\\s+\\d+\\.\\d\\d")).count();
    }

    @Test
    @Timeout(180)
    void latencyBandwidthAndAllreduceRun() throws Exception {
        String main = OsuPt2pt.class.getName();
        String lat = Jrmarun.run("-n", "2", main, "latency", "-m", "1:8", "-i", "3", "-x", "1");
        assertTrue(lat.contains("# OSU MPI Latency Test") && rows(lat) == 4, lat);
        String bw = Jrmarun.run("-n", "2", "--jvms", "2", main, "bw", "-m", "1024:2048", "-i", "2", "-x", "1");
        assertTrue(bw.contains("Bandwidth (MB/s)") && rows(bw) == 2, bw);
        String ar = Jrmarun.run("-n", "4", "--jvms", "2", main, "allreduce", "-m", "8:64", "-i", "3", "-x", "1");
        assertTrue(ar.contains("Allreduce") && rows(ar) == 4, ar);
    }
}

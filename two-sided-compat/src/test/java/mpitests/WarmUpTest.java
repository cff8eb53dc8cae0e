package mpitests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.testsupport.ChildProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * MPI.Init's JIT warm-up ({@code jrma.mpi.warmup}; the build's tests otherwise run with it off, see the root pom):
 * run on every layout, with an odd rank count, it leaves nothing a program can see; a bad value is an error naming
 * the parameter; a peer that never reaches {@code Init} ends the job instead of holding the others in the warm-up.
 * How much it buys is a benchmark's business (bench/compare's cold columns), not this test's.
 */
class WarmUpTest {
    @ParameterizedTest(name = "{0} ranks in {1} JVM(s)")
    @CsvSource({"2, 1", "2, 2", "3, 1", "3, 3", "4, 2"})
    @Timeout(120)
    void theWarmUpLeavesNothingAProgramCanSee(String ranks, String jvms) throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", ranks, "--jvms", jvms, "--timeout", "100", "--param",
                "jrma.mpi.warmup=on", "mpitests.WarmUpProbe");
        assertEquals(0, r.exit(110), r.output());
        assertTrue(r.printed("WarmUpProbe OK on " + ranks + " ranks"), r.output());
        r.assertNoProcessLeft();
    }

    @Test
    @Timeout(60)
    void aBadValueIsAnErrorNamingTheParameter() throws Exception {
        for (String[] bad : new String[][] {{"jrma.mpi.warmup=sometimes", "jrma.mpi.warmup must be auto, on or off"},
            {"jrma.mpi.warmupMs=soon", "jrma.mpi.warmupMs must be a number of milliseconds"}}) {
            ChildProcess r = ChildProcess.jrmarun("-n", "2", "--timeout", "40", "--param", "jrma.mpi.warmup=on",
                    "--param", bad[0], "mpitests.WarmUpProbe");
            assertEquals(1, r.exit(50), r.output());
            assertTrue(r.output().contains(bad[1]), r.output());
            r.assertNoProcessLeft();
        }
    }

    @Test
    @Timeout(60)
    void aPeerThatNeverReachesInitEndsTheJob() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "2", "--jvms", "2", "--timeout", "40", "--param",
                "jrma.mpi.warmup=on", "mpitests.WarmUpProbe", "leave-before-init", "1");
        assertEquals(3, r.exit(50), r.output());
        assertTrue(r.printed("rank 1 leaves before MPI.Init"), r.output());
        r.assertNoProcessLeft();
    }
}

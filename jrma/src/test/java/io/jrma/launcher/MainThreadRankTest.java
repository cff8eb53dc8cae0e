package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.testsupport.ChildProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A JVM of one rank runs the program's main on its main thread, as mpirun starts a process: the bottom frame of the
 * rank's stack is the program's class (ranks that share a JVM keep their threads), output before MPI.Init is the
 * rank's too, the secret file is taken, a failure out of main fails the job naming the rank, and programs that never
 * join end as processes that never call MPI_Init would.
 */
class MainThreadRankTest {
    private static final String FIX = "io.jrma.launcher.fixtures.";

    @Test
    @Timeout(60)
    void aJvmOfOneRankRunsMainOnItsMainThreadAndThreadRanksKeepTheirThreads() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "3", "--jvms", "2", "--tag-output", FIX + "BottomFrame");
        assertEquals(0, r.exit(40), r.output());
        String out = r.output();
        // ranks 0 and 1 share JVM 0 (threads), rank 2 has JVM 1 to itself
        assertTrue(out.contains("[1,0]<stdout>:rank 0 bottom=java.lang.Thread secretFileLeft=false"), out);
        assertTrue(out.contains("[1,1]<stdout>:rank 1 bottom=java.lang.Thread secretFileLeft=false"), out);
        assertTrue(out.contains("[1,2]<stdout>:rank 2 bottom=" + FIX + "BottomFrame secretFileLeft=false"), out);
        assertTrue(out.contains("[1,2]<stdout>:before joining"), "a line printed before joining is the rank's: " + out);
        r.assertNoJvmLeft();
    }

    /**
     * Jrma.runOrJoin in a JVM of one rank joins jrmarun's job with its parameters: it must not start a job of its own
     * in each JVM (which would print every rank once per JVM, and ignore --param).
     */
    @Test
    @Timeout(60)
    void runOrJoinInAJvmOfOneRankJoinsTheLaunchersJob() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "2", "--jvms", "2", "--param", "jrma.path=packet",
                FIX + "RunOrJoinWorld", "2");
        assertEquals(0, r.exit(40), r.output());
        assertEquals(2, r.count("runOrJoin rank "), r.output());
        for (int k = 0; k < 2; k++) {
            assertTrue(r.printed("runOrJoin rank " + k + " of 2 path=packet"), r.output());
        }
        r.assertNoJvmLeft();
    }

    @Test
    @Timeout(60)
    void everyRankOfAJvmPerRankJobHasTheProgramAtTheBottom() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "2", "--jvms", "2", FIX + "BottomFrame");
        assertEquals(0, r.exit(40), r.output());
        for (int k = 0; k < 2; k++) {
            assertTrue(r.output().contains("rank " + k + " bottom=" + FIX + "BottomFrame"), r.output());
        }
        r.assertNoJvmLeft();
    }

    @Test
    @Timeout(60)
    void anExceptionOutOfMainFailsTheJobNamingTheRankWithItsTraceOnce() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "3", "--jvms", "3", FIX + "Thrower", "1");
        long t0 = System.nanoTime();
        assertEquals(1, r.exit(40), r.output());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        String out = r.output();
        assertTrue(out.contains("jrmarun: rank 1 failed: java.lang.IllegalStateException: boom from rank 1"), out);
        assertEquals(1, out.lines().filter(l -> l.contains("at " + FIX + "Thrower.main(")).count(),
                "one stack trace, jrmarun's: " + out);
        assertFalse(out.contains("Exception in thread \"main\""), "java's own report of the exception: " + out);
        assertTrue(ms < 20_000, "teardown took " + ms + " ms");
        r.assertNoJvmLeft();
    }

    @Test
    @Timeout(90)
    void programsThatNeverJoinEndCleanlyButOneThatAloneDoesNotFailsTheJob() throws Exception {
        ChildProcess none = ChildProcess.jrmarun("-n", "2", "--jvms", "2", FIX + "NoInit", "all");
        assertEquals(0, none.exit(40), none.output());
        assertTrue(none.output().contains("rank 1 ends without joining"), none.output());
        none.assertNoJvmLeft();

        ChildProcess one = ChildProcess.jrmarun("-n", "3", "--jvms", "3", FIX + "NoInit", "2");
        assertEquals(1, one.exit(40), one.output());
        assertTrue(one.output().contains("JVM 2 (pid "), one.output());
        assertTrue(one.output().contains("ranks [2]) ended without joining the job: its program returned without"
                + " calling MPI.Init or Jrma.world(), while the other ranks did"), one.output());
        one.assertNoJvmLeft();
    }
}

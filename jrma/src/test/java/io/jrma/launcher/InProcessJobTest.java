package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.JvmFlags;
import io.jrma.testsupport.ChildProcess;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A job whose ranks are all threads of this host runs in jrmarun's own JVM when that JVM has jrma's flags (as
 * bin/jrmarun starts it): the ranks print jrmarun's pid, and failures, abort codes, timeouts and per-rank statics are
 * as in a JVM apart. Without the flags, or with a JVM option for the job, a JVM apart runs the ranks.
 */
class InProcessJobTest {
    private static final String FIX = "io.jrma.launcher.fixtures.";

    /** jrmarun in a JVM started with the flags jrma needs, as bin/jrmarun starts it. */
    private static ChildProcess jrmarun(String... args) throws Exception {
        List<String> flags = new ArrayList<>(Arrays.asList(JvmFlags.current().split(" ")));
        return ChildProcess.jrmarun(flags, args);
    }

    @Test
    @Timeout(60)
    void threadRanksRunInJrmarunsJvmAndAJvmOptionGivesThemOneApart() throws Exception {
        ChildProcess r = jrmarun("-n", "3", "--tag-output", FIX + "Hello");
        assertEquals(0, r.exit(40), r.output());
        for (int k = 0; k < 3; k++) {
            assertTrue(r.output().contains("[1," + k + "]<stdout>:hello from rank " + k + " of 3 pid="
                    + r.process().pid()),
                    "rank " + k + " in jrmarun's JVM: " + r.output());
        }
        ChildProcess apart = jrmarun("-n", "2", "--jvm-arg", "-Xmx256m", FIX + "Hello");
        assertEquals(0, apart.exit(40), apart.output());
        assertTrue(!apart.output().contains("pid=" + apart.process().pid()), "a JVM apart: " + apart.output());
        apart.assertNoJvmLeft();
    }

    @Test
    @Timeout(90)
    void failuresAbortCodesTimeoutsAndStaticsAreAsInAJvmApart() throws Exception {
        ChildProcess thrower = jrmarun("-n", "3", FIX + "Thrower", "1");
        assertEquals(1, thrower.exit(40), thrower.output());
        assertTrue(thrower.output().contains(
                "jrmarun: rank 1 failed: java.lang.IllegalStateException: boom from rank 1"), thrower.output());
        assertTrue(thrower.output().contains("jrmarun: job torn down, exit code 1"), thrower.output());

        ChildProcess aborter = jrmarun("-n", "3", FIX + "Aborter", "2", "7");
        assertEquals(7, aborter.exit(40), aborter.output());
        assertTrue(aborter.output().contains("jrmarun: rank 2 called abort(7)"), aborter.output());
        assertTrue(!aborter.output().contains("\tat "), "no stack trace for a deliberate abort: " + aborter.output());

        ChildProcess sleeper = jrmarun("-n", "2", "--timeout", "2", FIX + "Sleeper");
        assertEquals(JobLauncher.TIMEOUT_EXIT, sleeper.exit(40), sleeper.output());
        assertTrue(sleeper.output().contains("jrmarun: job timed out after 2000 ms"), sleeper.output());

        ChildProcess statics = jrmarun("-n", "3", FIX + "Statics");
        assertEquals(0, statics.exit(40), statics.output());
        for (int k = 0; k < 3; k++) {
            assertTrue(statics.lines().contains("rank " + k + " static=1"), "a class per rank: " + statics.output());
        }
    }
}

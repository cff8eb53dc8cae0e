package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.testsupport.ChildProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A JVM of the job stopped with SIGSTOP is reported, not a silent hang: a notice naming it (pid, ranks) after
 * {@code jrma.launcher.stoppedNoticeMs}, another when SIGCONT resumes it (and the job goes on), and, stopped for
 * {@code jrma.launcher.stoppedFailMs}, the job ends with ERR_PROC_ABORTED's code, leaving no JVM behind.
 */
class StoppedJvmTest {
    private static final String FIX = "io.jrma.launcher.fixtures.";
    private static final long NOTICE_MS = 500;
    private static final long FAIL_MS = 4_000;
    private static final long LINE_WAIT_MS = 30_000;

    @Test
    @Timeout(120)
    void aStoppedJvmIsNamedWhenStoppedAndResumedAndEndsTheJobWhenItStaysStopped() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "2", "--jvms", "2", "--param",
                "jrma.launcher.stoppedNoticeMs=" + NOTICE_MS, "--param", "jrma.launcher.stoppedFailMs=" + FAIL_MS,
                FIX + "EpochLoop");
        try {
            r.awaitLine(l -> l.equals("epochs running"), LINE_WAIT_MS);
            long pid = jvm(r, 1);
            signal("STOP", pid);
            String who = "JVM 1 (pid " + pid + ", ranks [1])";
            r.awaitLine(l -> l.startsWith("jrmarun: " + who + " has been stopped (SIGSTOP or SIGTSTP) for "),
                    LINE_WAIT_MS);
            signal("CONT", pid);
            r.awaitLine(l -> l.startsWith("jrmarun: " + who + " runs again after "), LINE_WAIT_MS);
            assertTrue(r.process().isAlive(), "the job goes on once the JVM runs again: " + r.output());
            signal("STOP", pid);
            long t0 = System.nanoTime();
            assertEquals(StoppedJvms.STOPPED_EXIT, r.exit(60), r.output());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(r.output().contains("jrmarun: ERR_PROC_ABORTED: " + who
                    + " has been stopped (SIGSTOP or SIGTSTP) for "), r.output());
            assertTrue(ms >= FAIL_MS - NOTICE_MS, "ended after " + ms + " ms, before " + FAIL_MS + " ms stopped");
            r.assertNoJvmLeft();
        } finally {
            r.kill();
        }
    }

    /** The pid of JVM {@code index} of the job (jrmarun gave it JRMA_JVM). */
    private static long jvm(ChildProcess r, int index) throws IOException {
        for (ProcessHandle h : r.process().children().toList()) {
            String env = new String(Files.readAllBytes(Path.of("/proc", String.valueOf(h.pid()), "environ")),
                    StandardCharsets.ISO_8859_1);
            if (("\0" + env).contains("\0JRMA_JVM=" + index + "\0")) {
                return h.pid();
            }
        }
        throw new AssertionError("no JVM " + index + " among jrmarun's children");
    }

    private static void signal(String sig, long pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + sig, String.valueOf(pid)).start().waitFor(), "kill -" + sig);
    }
}

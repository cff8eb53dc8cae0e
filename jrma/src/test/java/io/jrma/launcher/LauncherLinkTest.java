package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import io.jrma.core.config.Params;
import io.jrma.testsupport.ChildProcess;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The link between jrmarun and the JVMs of its job (issue 34): the handshake's time limit is a parameter and its
 * expiry a clear error, and a JVM whose ranks have ended leaves an aborted job at once instead of waiting for an end
 * of job that an abort never sends.
 */
class LauncherLinkTest {
    private static final String FIX = "io.jrma.launcher.fixtures.";
    /** The grace a failed job's JVMs get before jrmarun kills them; a JVM that waited for END would use all of it. */
    private static final int GRACE_S = 30;
    /** From the failing rank's last line to jrmarun's exit: well under the grace. */
    private static final long TEARDOWN_LIMIT_MS = 10_000;

    @Test
    @Timeout(120)
    void jvmsWhoseRanksEndedLeaveAnAbortedJobWithoutWaitingForTheGrace() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "4", "--jvms", "2", "--grace", String.valueOf(GRACE_S),
                FIX + "LateThrower", "1500");
        try {
            r.awaitLine(l -> l.contains("THROWING"), 90_000);
            long t0 = System.nanoTime();
            r.noteDescendants();
            assertTrue(r.process().waitFor(GRACE_S + 20, TimeUnit.SECONDS), "jrmarun still running: " + r.output());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            Thread.sleep(200); // the reader takes the last lines
            assertEquals(1, r.process().exitValue(), r.output());
            assertTrue(r.output().contains("late boom from rank 3"), r.output());
            assertTrue(ms < TEARDOWN_LIMIT_MS, "jrmarun took " + ms + " ms to tear down the job (grace " + GRACE_S
                    + " s): a JVM waited for an END that an abort never sends; output: " + r.output());
            r.assertNoJvmLeft();
        } finally {
            r.kill();
        }
    }

    @Test
    void theHandshakeTimeoutIsAPositiveParameter() {
        assertEquals(30_000, JobLauncher.handshakeTimeoutMs(Map.of()));
        String name = Params.LAUNCHER_HANDSHAKE_TIMEOUT_MS.name();
        assertEquals(1_500, JobLauncher.handshakeTimeoutMs(Map.of(name, "1500")));
        for (String bad : List.of("0", "-5", "99999999999", "soon")) {
            RmaException e = assertThrows(RmaException.class,
                    () -> JobLauncher.handshakeTimeoutMs(Map.of(name, bad)));
            assertEquals(ErrorClass.ERR_ARG, e.errorClass(), e.getMessage());
            assertTrue(e.getMessage().contains(name), e.getMessage());
        }
    }

    /**
     * A JVM whose launcher accepts its connection but never answers fails within the handshake timeout with
     * ERR_ACCESS, in one line that names the parameter, and exits 1: it neither hangs nor prints a stack trace.
     */
    @Test
    @Timeout(120)
    void aJvmWhoseLauncherNeverAnswersFailsWithErrAccessWithinTheTimeout() throws Exception {
        int timeoutMs = 1_500;
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try (Socket s = silent.accept()) {
                    s.getInputStream().transferTo(OutputStream.nullOutputStream()); // reads, never answers
                } catch (IOException ignored) {
                    // the JVM closed its side
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    JvmHost.class.getName());
            SecretFile secrets = new SecretFile();
            pb.environment().put(LauncherLink.ENV_RENDEZVOUS, "127.0.0.1:" + silent.getLocalPort());
            pb.environment().put(LauncherLink.ENV_JVM, "0");
            pb.environment().put(LauncherLink.ENV_LINK_ID, Handshake.newJobId());
            pb.environment().put(LauncherLink.ENV_SECRET_FILE, secrets.write(0, Handshake.newSecret()).toString());
            pb.environment().put(Params.LAUNCHER_HANDSHAKE_TIMEOUT_MS.envName(), String.valueOf(timeoutMs));
            pb.redirectErrorStream(true);
            Process p = pb.start();
            try (secrets) {
                long t0 = System.nanoTime();
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the JVM still waits for its launcher");
                long ms = (System.nanoTime() - t0) / 1_000_000;
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(1, p.exitValue(), out);
                assertTrue(out.contains("jrma: ERR_ACCESS: JVM 0 cannot join its job")
                        && out.contains("did not answer the handshake within " + timeoutMs + " ms")
                        && out.contains(Params.LAUNCHER_HANDSHAKE_TIMEOUT_MS.name()), out);
                assertFalse(out.contains("\tat "), "a stack trace instead of one line: " + out);
                assertTrue(ms >= timeoutMs, "gave up after " + ms + " ms, before the timeout");
            } finally {
                p.destroyForcibly();
            }
        }
    }
}

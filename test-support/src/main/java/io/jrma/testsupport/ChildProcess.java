package io.jrma.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A process a test started (jrmarun, a plain JVM, another launcher) and every line it printed, stdout and stderr
 * merged, read by a daemon thread as they come. {@link #exit} waits for it within a bound and then kills it and
 * every process it started, whether it ended or not, so a failing test leaves nothing running; {@link #kill} does
 * the same at once. The processes it started are remembered ({@link #seen}) so a test can check afterwards that they
 * are gone and left no shared-memory files ({@link #assertNoJvmLeft}).
 *
 * <p>Owned by one test; the line list is guarded by itself (the reader thread appends).
 */
public final class ChildProcess {
    /** How long {@link #exit} lets the reader take the last lines after the process ended. */
    private static final long LAST_LINES_MS = 200;
    /** How long {@link #assertNoJvmLeft} waits at least after the job ended (its JVMs remove their files). */
    private static final long JVMS_GONE_MS = 300;
    /**
     * How long a killed process may still be seen (a zombie until its new parent reaps it, slow on a loaded
     * machine) before {@link #assertNoProcessLeft} calls it left running.
     */
    private static final long REAPED_MS = 10_000;
    private static final long REAPED_POLL_MS = 50;
    /** How often {@link #awaitLine} looks again when no line arrives. */
    private static final long LINE_POLL_MS = 100;

    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final List<ProcessHandle> seen = new ArrayList<>();

    private ChildProcess(Process process) {
        this.process = process;
        Thread reader = new Thread(this::readLines, "output of " + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code cmd} with stderr merged into stdout. */
    public static ChildProcess start(List<String> cmd) throws IOException {
        return start(new ProcessBuilder(cmd));
    }

    /** Starts {@code pb} (its directory and environment as set) with stderr merged into stdout. */
    public static ChildProcess start(ProcessBuilder pb) throws IOException {
        return new ChildProcess(pb.redirectErrorStream(true).start());
    }

    /** jrmarun with these arguments. */
    public static ChildProcess jrmarun(String... args) throws IOException {
        return start(Command.jrmarun(args));
    }

    /** jrmarun with extra options for its own JVM ({@code -D} test hooks). */
    public static ChildProcess jrmarun(List<String> launcherJvmOptions, String... args) throws IOException {
        return start(Command.jrmarun(launcherJvmOptions, args));
    }

    /** A plain JVM running {@code mainClass} with jrma's JVM flags and the test class path. */
    public static ChildProcess java(String mainClass, String... args) throws IOException {
        return start(Command.javaMain(mainClass, args));
    }

    private void readLines() {
        try (BufferedReader r = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String l;
            while ((l = r.readLine()) != null) {
                synchronized (lines) {
                    lines.add(l);
                    lines.notifyAll();
                }
            }
        } catch (IOException ignored) {
            // the process is gone
        }
    }

    public Process process() {
        return process;
    }

    /** The lines printed so far. */
    public List<String> lines() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /** Every line printed so far, joined by newlines. */
    public String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    /** Whether a line printed so far starts with {@code prefix}. */
    public boolean printed(String prefix) {
        synchronized (lines) {
            return lines.stream().anyMatch(l -> l.startsWith(prefix));
        }
    }

    /** How many lines printed so far start with {@code prefix}. */
    public long count(String prefix) {
        synchronized (lines) {
            return lines.stream().filter(l -> l.startsWith(prefix)).count();
        }
    }

    /** The first line that {@code match} accepts, waiting up to {@code ms} for it; fails with the output if none. */
    public String awaitLine(Predicate<String> match, long ms) throws InterruptedException {
        long until = System.currentTimeMillis() + ms;
        synchronized (lines) {
            while (System.currentTimeMillis() < until) {
                for (String l : lines) {
                    if (match.test(l)) {
                        return l;
                    }
                }
                lines.wait(LINE_POLL_MS);
            }
        }
        throw new AssertionError("no such line within " + ms + " ms; output: " + output());
    }

    /** Remembers the processes the child runs now (the JVMs of its job), for {@link #assertNoJvmLeft}. */
    public void noteDescendants() {
        process.descendants().forEach(seen::add);
    }

    /** The processes remembered by {@link #noteDescendants} (and by {@link #exit}). */
    public List<ProcessHandle> seen() {
        return List.copyOf(seen);
    }

    /**
     * Waits up to {@code seconds} for the process to end and returns its exit code; fails (with the output) when it
     * does not end in time. Kills it and everything it started in any case.
     */
    public int exit(long seconds) throws InterruptedException {
        noteDescendants();
        try {
            assertTrue(process.waitFor(seconds, TimeUnit.SECONDS),
                    "did not end within " + seconds + " s; output:\n" + output());
            Thread.sleep(LAST_LINES_MS);
            return process.exitValue();
        } finally {
            kill();
        }
    }

    /** Kills the process and every process it started, at once. */
    public void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** Asserts that no process the child started is still running. */
    public void assertNoProcessLeft() throws InterruptedException {
        Thread.sleep(JVMS_GONE_MS);
        long until = System.nanoTime() + REAPED_MS * 1_000_000L;
        while (seen.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < until) {
            Thread.sleep(REAPED_POLL_MS);
        }
        for (ProcessHandle h : seen) {
            assertFalse(h.isAlive(), "process " + h.pid() + " of the job is still running");
        }
    }

    /** Asserts that no process the child started is still running nor left a shared-memory file behind. */
    public void assertNoJvmLeft() throws InterruptedException {
        assertNoProcessLeft();
        for (ProcessHandle h : seen) {
            assertEquals(List.of(), ShmLeftovers.filesOf(h.pid()), "shared-memory files of JVM " + h.pid()
                    + " left behind");
        }
    }
}

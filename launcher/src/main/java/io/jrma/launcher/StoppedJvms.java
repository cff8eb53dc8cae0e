package io.jrma.launcher;

import io.jrma.ErrorClass;
import io.jrma.core.config.Params;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Watches the JVMs of a job on this host for one that is stopped (SIGSTOP, SIGTSTP: state {@code T} in
 * {@code /proc/PID/stat}), which nothing else notices: its peers just wait for it. After
 * {@code jrma.launcher.stoppedNoticeMs} it prints a notice naming the JVM, its pid and ranks (once), and another
 * when the JVM runs again; after {@code jrma.launcher.stoppedFailMs} (if not 0) it ends the job with
 * ERR_PROC_ABORTED, as if the JVM had died. A JVM stopped by a debugger (state {@code t}, tracing stop) is left
 * alone. Linux only: elsewhere nothing reads as stopped.
 *
 * <p>One daemon thread per job, started once the job runs; it ends with the job.
 */
final class StoppedJvms {
    /** The exit code of a job ended because a JVM stayed stopped: the error class's code. */
    static final int STOPPED_EXIT = ErrorClass.ERR_PROC_ABORTED.code();
    /** The shortest pause between two looks. */
    private static final long MIN_POLL_MS = 50;
    /** The longest pause between two looks. */
    private static final long MAX_POLL_MS = 500;
    /** How many looks the notice time is divided into. */
    private static final long LOOKS_PER_NOTICE = 4;

    /** What the watcher needs of the job. */
    interface Job {
        /** The local process of JVM {@code j}, or null (another host, or not started). */
        Process process(int j);

        /** How messages name JVM {@code j}: {@code JVM 1 (pid 4711, ranks [1])}. */
        String describe(int j);

        /** Whether the job is over or being torn down. */
        boolean over();

        /** Ends the job: a JVM stayed stopped. */
        void fail(int j, String message);
    }

    private StoppedJvms() {
    }

    /** Starts watching the {@code njvms} JVMs of {@code job}, unless both times are 0. */
    static void watch(Job job, int njvms, Map<String, String> params, PrintStream diagnostics) {
        long noticeMs = Params.LAUNCHER_STOPPED_NOTICE_MS.getLong(params);
        long failMs = Params.LAUNCHER_STOPPED_FAIL_MS.getLong(params);
        if (noticeMs <= 0 && failMs <= 0) {
            return;
        }
        long shortest = noticeMs <= 0 ? failMs : failMs <= 0 ? noticeMs : Math.min(noticeMs, failMs);
        long pollMs = Math.max(MIN_POLL_MS, Math.min(MAX_POLL_MS, shortest / LOOKS_PER_NOTICE));
        Thread t = new Thread(() -> {
            long[] since = new long[njvms];
            boolean[] noticed = new boolean[njvms];
            while (!job.over()) {
                long now = System.currentTimeMillis();
                for (int j = 0; j < njvms; j++) {
                    Process p = job.process(j);
                    boolean stopped = p != null && p.isAlive() && isStopped(p.pid());
                    if (!stopped) {
                        if (noticed[j] && diagnostics != null) {
                            diagnostics.println("jrmarun: " + job.describe(j) + " runs again after "
                                    + (now - since[j]) + " ms stopped");
                        }
                        since[j] = 0;
                        noticed[j] = false;
                        continue;
                    }
                    if (since[j] == 0) {
                        since[j] = now;
                    }
                    long stoppedMs = now - since[j];
                    if (failMs > 0 && stoppedMs >= failMs) {
                        job.fail(j, ErrorClass.ERR_PROC_ABORTED.name() + ": " + job.describe(j) + " has been stopped"
                                + " (SIGSTOP or SIGTSTP) for " + stoppedMs + " ms ("
                                + Params.LAUNCHER_STOPPED_FAIL_MS.name() + "): the job is ended as if it had died");
                        return;
                    }
                    if (noticeMs > 0 && stoppedMs >= noticeMs && !noticed[j]) {
                        noticed[j] = true;
                        if (diagnostics != null) {
                            diagnostics.println("jrmarun: " + job.describe(j) + " has been stopped (SIGSTOP or"
                                    + " SIGTSTP) for " + stoppedMs + " ms; its peers wait for it (SIGCONT resumes it"
                                    + (failMs > 0 ? "; the job ends after " + failMs + " ms" : "") + ")");
                        }
                    }
                }
                try {
                    Thread.sleep(pollMs);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "jrma-launcher-stopped");
        t.setDaemon(true);
        t.start();
    }

    /** Whether process {@code pid} is stopped by a signal (state T in /proc/PID/stat; not a debugger's t). */
    static boolean isStopped(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            int end = stat.lastIndexOf(')'); // the command name may hold spaces and parentheses
            return end > 0 && end + 2 < stat.length() && stat.charAt(end + 2) == 'T';
        } catch (IOException | RuntimeException e) {
            return false; // gone, or no /proc here
        }
    }
}

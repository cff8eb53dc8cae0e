package io.jrma.launcher;

import io.jrma.JvmFlags;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The end of a job's JVMs on other hosts, which the launcher cannot kill itself: closing their links (they abort and
 * exit within seconds), and removing the shared-memory files a JVM killed there left ({@code jrmarun --cleanup}
 * through the launch agent). Stateless; called by the launcher's teardown.
 */
final class RemoteHosts {
    /** How long a JVM on another host may take to end after its link closed ({@link JvmHost} halts within 3 s). */
    static final long REMOTE_EXIT_WAIT_MS = 4_000;

    /** How long the clean-up of other hosts' shared-memory files may take after a failed job. */
    static final long REMOTE_CLEANUP_MS = 20_000;

    private RemoteHosts() {
    }

    /**
     * A JVM killed on another host (SIGKILL runs no clean-up) may leave named shared-memory files there, which only a
     * process on that host can remove: runs {@code jrmarun --cleanup} there through the agent (the files of jrma JVMs
     * that no longer run), on every reachable host where a JVM ended with a non-zero code, all at once, bounded; not
     * where jrma is not in the {@code --prefix} directory (no JVM of jrma ran there).
     */
    static void clean(LaunchedJvm[] workers, Set<String> unreachable, JobLauncher.Options o) {
        Set<String> dirty = new LinkedHashSet<>();
        for (LaunchedJvm w : workers) {
            if (w != null && w.host != null && !w.process.isAlive() && w.process.exitValue() != 0
                    && !unreachable.contains(w.host)
                    && !(o.remotePrefix != null && w.process.exitValue() == RemoteStart.NOT_INSTALLED)) {
                dirty.add(w.host);
            }
        }
        List<Process> cleaners = new ArrayList<>();
        for (String host : dirty) {
            List<String> cmd = new ArrayList<>();
            cmd.add(o.javaCommand);
            cmd.addAll(Arrays.asList(JvmFlags.current().split(" ")));
            cmd.add("-cp");
            cmd.add(o.remoteLibraryClasspath != null ? o.remoteLibraryClasspath : o.classpath);
            cmd.add(JrmaRun.class.getName());
            cmd.add(JrmaRun.CLEANUP);
            try {
                Process p = new ProcessBuilder(RemoteStart.command(o.launchAgent, host, System.getProperty("user.dir"),
                        Map.of(), cmd, false)).redirectErrorStream(true).start();
                p.getOutputStream().close();
                cleaners.add(p);
            } catch (IOException e) {
                // the agent cannot run now: the next jrmarun --cleanup there removes them
            }
        }
        long until = System.currentTimeMillis() + REMOTE_CLEANUP_MS;
        int k = 0;
        for (String host : dirty) {
            Process p = k < cleaners.size() ? cleaners.get(k++) : null;
            try {
                if (p != null && p.waitFor(Math.max(1, until - System.currentTimeMillis()),
                        TimeUnit.MILLISECONDS)) {
                    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
                    if (o.diagnostics != null && !said.isEmpty() && !said.contains(" removed 0 ")) {
                        o.diagnostics.println("jrmarun: on host " + host + ": " + said.replaceFirst("^jrmarun: ", ""));
                    }
                } else if (p != null) {
                    p.destroyForcibly();
                }
            } catch (IOException | InterruptedException e) {
                p.destroyForcibly();
            }
        }
    }

    /**
     * Killing the agent of a JVM on another host does not kill the JVM there: closing its link does (it aborts and
     * exits within seconds). Closes the links of the remote JVMs still running and waits a little for their agents.
     */
    static void closeLinks(LaunchedJvm[] workers) {
        boolean any = false;
        for (LaunchedJvm w : workers) {
            if (w != null && w.host != null && w.process.isAlive()) {
                Rendezvous.closeQuietly(w.socket);
                any = true;
            }
        }
        long until = System.currentTimeMillis() + REMOTE_EXIT_WAIT_MS;
        for (LaunchedJvm w : workers) {
            long left = until - System.currentTimeMillis();
            if (any && w != null && w.host != null && left > 0) {
                try {
                    w.process.waitFor(left, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}

package io.jrma.launcher;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of a job as its {@link JobLauncher} sees it: its process (or, on another host, its launch agent's), its
 * authenticated link, and what its agent said on stderr before it joined. A pooled JVM passes from one launcher to
 * the next ({@link #current}).
 *
 * <p>The link fields are set by the launcher's start-up thread before the job runs; the stderr methods are called by
 * the agent's stderr reader and the launcher, and are synchronized.
 */
final class LaunchedJvm {
    /** How long a killed JVM may take to be reaped. */
    private static final long KILL_WAIT_S = 2;

    final int index;
    final Process process;
    final String key;
    /** The other host this JVM runs on (through the launch agent), or null for this host. */
    final String host;
    Socket socket;
    DataInputStream in;
    DataOutputStream out;
    volatile JobLauncher current;
    /** The last line the agent (or the JVM) wrote to stderr: why a remote start failed. */
    volatile String lastErrorLine;
    /** What the agent wrote to stderr before the JVM joined; null once it joined (then lines pass at once). */
    private List<String> heldErrors = new ArrayList<>();
    /** What its stderr lines get once it joined: the rank's tag for a tagged JVM of one rank, else nothing. */
    volatile String errorPrefix = "";
    /** When the launcher last heard from this JVM (ms), for the liveness of JVMs on other hosts. */
    volatile long lastHeardMs;

    LaunchedJvm(int index, Process process, String key, String host) {
        this.index = index;
        this.process = process;
        this.key = key;
        this.host = host;
    }

    /**
     * A line of the agent's stderr: before the JVM joined it is held (if the start fails, the failure message
     * quotes the last one, and the others are printed before it); afterwards it is printed at once.
     */
    synchronized void errorLine(String line) {
        if (!line.isBlank()) {
            lastErrorLine = line.trim();
        }
        if (heldErrors != null) {
            heldErrors.add(line);
        } else {
            System.err.println(errorPrefix + line);
        }
    }

    /** The JVM joined: what its agent held back was not a failure to start; prints it. */
    synchronized void joined() {
        if (heldErrors != null) {
            heldErrors.forEach(l -> System.err.println(errorPrefix + l));
            heldErrors = null;
        }
    }

    /** The start failed: prints the held lines but the last (the failure message quotes that one). */
    synchronized void startFailed() {
        if (heldErrors != null) {
            for (int i = 0; i < heldErrors.size() - 1; i++) {
                System.err.println(heldErrors.get(i));
            }
            heldErrors = null;
        }
    }

    /** Kills the JVM (one on another host: closes its link, which ends it there) and removes its files here. */
    void kill() {
        if (host != null) {
            Rendezvous.closeQuietly(socket); // the JVM there aborts and exits once its link is gone
        }
        process.destroyForcibly();
        try {
            process.waitFor(KILL_WAIT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (host == null) {
            JobLauncher.reclaim(Map.of(), process.pid()); // a killed JVM runs no shutdown hook
        }
    }
}

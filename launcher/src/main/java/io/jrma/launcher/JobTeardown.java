package io.jrma.launcher;

import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The end of a job launched by a {@link JobLauncher}: hands a clean job's JVMs to the pool or gives them their grace
 * to exit, learns how the ended ones ended before anything is killed here, kills what is left, removes the
 * shared-memory files of dead JVMs, cleans up on the other hosts, and reports the failure that won. Called by the
 * launcher's thread once ({@link #finish}) and by its shutdown hook ({@link #killAll}).
 */
final class JobTeardown {
    /** How long a peer's report of a lost connection waits for the lost JVM's exit status (bounded). */
    static final long LOST_CONNECTION_WAIT_MS = 2_000;

    /** How often that wait looks at the JVMs again. */
    private static final long LOST_CONNECTION_POLL_MS = 10;

    /** How long the JVMs of a job that ended cleanly may take to exit (or, pooled, to become idle). */
    private static final long CLEAN_END_GRACE_MS = 10_000;

    /** How often the wait for idle pooled JVMs looks again. */
    private static final long IDLE_POLL_MS = 100;

    /** How long a JVM killed here may take to be reaped. */
    private static final long KILL_WAIT_S = 5;

    private final JobLauncher.Options o;
    private final JobLayout layout;
    private final JobOutcome outcome;
    private final LaunchedJvm[] workers;
    private final Process[] procs;
    private final Set<String> unreachable;
    private final String poolKey;

    JobTeardown(JobLauncher.Options o, JobLayout layout, JobOutcome outcome, LaunchedJvm[] workers, Process[] procs,
                Set<String> unreachable, String poolKey) {
        this.o = o;
        this.layout = layout;
        this.outcome = outcome;
        this.workers = workers;
        this.procs = procs;
        this.unreachable = unreachable;
        this.poolKey = poolKey;
    }

    /** Ends the job: the JVMs pooled or gone, what they left removed, the failure (if any) reported. */
    JobLauncher.Result finish() {
        long grace;
        synchronized (outcome) {
            boolean tearingDown = outcome.failed();
            grace = tearingDown ? o.graceMs : CLEAN_END_GRACE_MS;
            if (o.reuseJvms && !tearingDown) {
                long until = System.currentTimeMillis() + CLEAN_END_GRACE_MS;
                while (!outcome.allIdle() && System.currentTimeMillis() < until) {
                    try {
                        outcome.wait(IDLE_POLL_MS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                if (outcome.allIdle() && !outcome.failed()) {
                    for (LaunchedJvm w : workers) {
                        w.current = null;
                    }
                    if (JvmPool.keep(poolKey, workers)) {
                        return outcome.result();
                    }
                    for (LaunchedJvm w : workers) {
                        Rendezvous.closeQuietly(w.socket); // EOF on its link: the JVM exits
                    }
                }
            }
        }
        long until = System.currentTimeMillis() + grace;
        for (Process p : procs) { // every JVM gets the whole grace, however long those before it took
            long left = until - System.currentTimeMillis();
            if (p != null && left > 0) {
                try {
                    p.waitFor(left, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        // How each ended JVM ended (a signal from outside, its own exit code) is learned before anything is killed
        // here: the onExit callbacks may not have delivered it yet (they share the common pool, one thread on two
        // cores), and a dead JVM taken for one this launcher killed lost its signal to the peers' "lost the
        // connection" (exit 1 instead of 137).
        reportEnded();
        awaitCauseOfLostConnection();
        RemoteHosts.closeLinks(workers);
        for (Process p : procs) {
            if (p != null && p.isAlive()) {
                outcome.markKilledHere(p);
                p.destroyForcibly();
            }
        }
        reportEnded(); // those killed just now are not causes (killedHere)
        killAll();
        reclaimShm();
        RemoteHosts.clean(workers, unreachable, o);
        synchronized (outcome) {
            JobLauncher.Result result = outcome.result();
            if (result.message != null && o.diagnostics != null) {
                o.diagnostics.println("jrmarun: " + result.message);
                if (result.remoteTrace != null) {
                    o.diagnostics.print(result.remoteTrace);
                }
                o.diagnostics.println("jrmarun: job torn down, exit code " + result.exitCode);
            }
            return result;
        }
    }

    /**
     * When the only failure known is a JVM's report that it lost the connection to another, that other JVM is
     * ending (killed, crashed, exited) but may not be reaped yet: waits up to {@link #LOST_CONNECTION_WAIT_MS} for
     * its status, as mpirun does, so that the job ends with its signal or exit code rather than 1.
     */
    private void awaitCauseOfLostConnection() {
        long until = System.currentTimeMillis() + LOST_CONNECTION_WAIT_MS;
        while (outcome.priority() == JobOutcome.P_ABORT && Arrays.stream(procs).anyMatch(p -> p != null && p.isAlive())
                && System.currentTimeMillis() < until) {
            JobLauncher.sleepQuietly(LOST_CONNECTION_POLL_MS);
            reportEnded();
        }
    }

    /** Delivers the exit codes of ended JVMs the onExit callbacks may not have delivered yet. */
    private void reportEnded() {
        for (int j = 0; j < procs.length; j++) {
            Process p = procs[j];
            if (p != null && !p.isAlive() && p.exitValue() != 0 && !outcome.isIdle(j)) {
                outcome.jvmExited(j, p.exitValue());
            }
        }
    }

    /** Removes the /dev/shm files of this job's JVMs that are gone (killed JVMs run no shutdown hook). */
    private void reclaimShm() {
        for (int j = 0; j < procs.length; j++) {
            Process p = procs[j];
            if (p != null && layout.hostOf(j) == null && !p.isAlive()) {
                JobLauncher.reclaim(o.params, p.pid());
            }
        }
    }

    /** Kills every JVM of the job still alive, unless the pool keeps them for the next job. */
    void killAll() {
        if (JvmPool.holds(workers)) {
            return; // kept for the next job
        }
        for (int j = 0; j < procs.length; j++) {
            Process p = procs[j];
            if (p != null && p.isAlive()) {
                outcome.markKilledHere(p);
                if (workers[j] != null && workers[j].host != null) {
                    Rendezvous.closeQuietly(workers[j].socket); // the JVM there ends once its link is gone
                }
                p.destroyForcibly();
                try {
                    p.waitFor(KILL_WAIT_S, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}

package io.jrma.launcher;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How a job launched by a {@link JobLauncher} is ending: which ranks finished, how each JVM ended, and the failure
 * that wins (a rank's own failure over a dead JVM over a timeout over a peer's abort), with its exit code and the
 * rank it names. The first failure starts the teardown: every JVM is told to abort.
 *
 * <p>The launcher's start-up thread, its link readers (one per JVM), the JVMs' exit callbacks, the liveness and
 * stopped-JVM watchers and the teardown all call in; every method that reads or writes the bookkeeping is
 * synchronized on this object, which is also the monitor they wait on and notify.
 */
final class JobOutcome {
    /** Failure priority: a JVM's report that the job was aborted (often a lost connection to another JVM). */
    static final int P_ABORT = 1;
    /** Failure priority: the job timed out, or the launcher was interrupted. */
    static final int P_TIMEOUT = 2;
    /** Failure priority: a JVM died, could not start or join, or its host became unreachable. */
    static final int P_JVM = 3;
    /** Failure priority: a rank failed (threw, or exited non-zero). */
    static final int P_RANK = 4;

    /** How long a failed agent's stderr may take to reach its reader after the agent ended. */
    static final long STDERR_DRAIN_MS = 200;

    /** ssh's exit code when the connection broke or the remote command was killed by a signal. */
    static final int REMOTE_LOST = 255;

    /** Exit codes above this are a signal's: 128 + the signal number, as a shell reports them. */
    static final int SIGNAL_EXIT_BASE = 128;

    /** The exit code of a launcher that was interrupted (as a shell's after SIGINT: 128 + 2). */
    static final int INTERRUPTED_EXIT = 130;

    /** How long a JVM's exit waits for the last messages of its link (ranks that ended) to be read. */
    private static final long LINK_DRAIN_MS = 1_000;

    /** How often that wait looks again. */
    private static final long LINK_DRAIN_POLL_MS = 50;

    /** The longest wait for the job's end between two looks at its deadline. */
    private static final long END_POLL_MS = 1_000;

    private final JobLauncher.Options o;
    private final JobLayout layout;
    private final LaunchedJvm[] workers;
    private final Process[] procs;
    private final DataOutputStream[] links;
    private final boolean[] idle;
    private final boolean[] rankDone;
    private final boolean[] linkClosed;
    /** JVMs this launcher killed itself (their signal exit is not a cause of the failure). */
    private final boolean[] killedHere;
    /** JVMs that said they exit on their own (EXITING: System.exit or a signal that runs the shutdown hooks). */
    private final boolean[] exitingOnOwn;
    /** JVMs of one rank that ended with code 0 before they joined (their program never called MPI.Init). */
    private final boolean[] endedUnjoined;
    private int ranksDone;
    private int failurePriority;
    private final JobLauncher.Result result = new JobLauncher.Result();
    private boolean tearingDown;
    private boolean allExited;

    /** The outcome of the job of {@code o}, whose JVMs, processes and links the launcher fills in as they start. */
    JobOutcome(JobLauncher.Options o, JobLayout layout, LaunchedJvm[] workers, Process[] procs,
               DataOutputStream[] links) {
        this.o = o;
        this.layout = layout;
        this.workers = workers;
        this.procs = procs;
        this.links = links;
        this.idle = new boolean[o.njvms];
        this.rankDone = new boolean[o.nranks];
        this.linkClosed = new boolean[o.njvms];
        this.killedHere = new boolean[o.njvms];
        this.exitingOnOwn = new boolean[o.njvms];
        this.endedUnjoined = new boolean[o.njvms];
    }

    /** The result: read it under this object's lock, or once the job has ended. */
    JobLauncher.Result result() {
        return result;
    }

    /** Records a failure (the most telling one wins: a rank's own failure over a dead JVM over an abort). */
    synchronized void fail(int priority, int code, int rank, String message, Throwable cause, String trace) {
        if (priority > failurePriority) {
            failurePriority = priority;
            result.exitCode = code == 0 ? 1 : code;
            result.failedRank = rank;
            result.message = message;
            result.cause = cause;
            result.remoteTrace = trace;
        }
        if (!tearingDown) {
            tearingDown = true;
            for (int j = 0; j < links.length; j++) {
                DataOutputStream l = links[j];
                // an idle pooled JVM finished its part and waits for its next job: an abort would be read as that
                if (l != null && !idle[j]) {
                    try {
                        Rendezvous.write(l, Rendezvous.ABORT,
                                ("job aborted: " + message).getBytes(StandardCharsets.UTF_8));
                    } catch (IOException ignored) {
                        // that JVM is gone
                    }
                }
            }
        }
        notifyAll();
    }

    /** Whether a failure was recorded (the teardown has begun). */
    synchronized boolean failed() {
        return tearingDown;
    }

    /** The priority of the failure recorded so far, 0 if none. */
    synchronized int priority() {
        return failurePriority;
    }

    /** Whether every JVM exited or every rank finished. */
    synchronized boolean ended() {
        return allExited || ranksDone == o.nranks;
    }

    /** Waits until the job ends, fails or times out; a job that ended cleanly tells every JVM so (END). */
    synchronized void waitForEnd() {
        long deadline = o.timeoutMs > 0 ? System.currentTimeMillis() + o.timeoutMs : Long.MAX_VALUE;
        try {
            while (ranksDone < o.nranks && !tearingDown && !allExited) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    int[] stopped = stoppedJvm();
                    String why = stopped[0] < 0 ? "" : "; JVM " + stopped[0] + " (pid " + procs[stopped[0]].pid()
                            + ", ranks " + layout.ranksOf(stopped[0]) + ") is stopped (SIGSTOP or SIGTSTP), and its"
                            + " peers waited for it";
                    fail(P_TIMEOUT, JobLauncher.TIMEOUT_EXIT, stopped[1], "job timed out after " + o.timeoutMs + " ms"
                            + why, null, null);
                    break;
                }
                wait(Math.min(left, END_POLL_MS));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(P_TIMEOUT, INTERRUPTED_EXIT, -1, "the launcher was interrupted", null, null);
        }
        if (!tearingDown) {
            for (DataOutputStream l : links) {
                try {
                    Rendezvous.write(l, Rendezvous.END, new byte[0]);
                } catch (IOException ignored) {
                    // exited already
                }
            }
        }
    }

    /**
     * The first JVM of the job that is stopped by a signal (state T in /proc/PID/stat: SIGSTOP, SIGTSTP) and its first
     * rank, or -1s: a job that times out because one of its JVMs does not run names that JVM. Linux only.
     */
    private int[] stoppedJvm() {
        for (int j = 0; j < procs.length; j++) {
            Process p = procs[j];
            if (p != null && layout.hostOf(j) == null && p.isAlive() && StoppedJvms.isStopped(p.pid())) {
                return new int[] {j, layout.ranksOf(j).get(0)};
            }
        }
        return new int[] {-1, -1};
    }

    /** How many JVMs of one rank ended cleanly without joining (a program that never called MPI.Init). */
    synchronized int goneBeforeJoining() {
        int n = 0;
        for (boolean b : endedUnjoined) {
            n += b ? 1 : 0;
        }
        return n;
    }

    /** Whether every rank of JVM {@code j} has ended (its JVM may then be quiet while it closes). */
    synchronized boolean jvmDone(int j) {
        for (int r = 0; r < o.nranks; r++) {
            if (o.jvmOfRank[r] == j && !rankDone[r]) {
                return false;
            }
        }
        return true;
    }

    /** JVM {@code j} said it exits on its own (EXITING). */
    synchronized void exitingOnOwn(int j) {
        exitingOnOwn[j] = true;
    }

    /** Pooled JVM {@code j} finished its part and waits for its next job (IDLE). */
    synchronized void idle(int j) {
        idle[j] = true;
        notifyAll();
    }

    /** Whether JVM {@code j} is an idle pooled JVM (read without the lock, as the teardown's last looks do). */
    boolean isIdle(int j) {
        return idle[j];
    }

    /** Whether every JVM of the job is idle (call under this object's lock). */
    boolean allIdle() {
        for (boolean b : idle) {
            if (!b) {
                return false;
            }
        }
        return true;
    }

    /** JVM {@code j} closed its link. */
    synchronized void linkClosed(int j) {
        linkClosed[j] = true;
        notifyAll();
    }

    /** A rank's end, as its JVM reported it (RANK_DONE): a failure if its code is not 0. */
    synchronized void rankEnded(Rendezvous.RankDone d) {
        if (d.rank() >= 0 && d.rank() < rankDone.length && !rankDone[d.rank()]) {
            rankDone[d.rank()] = true;
            ranksDone++;
        }
        if (d.code() != 0) {
            Throwable cause = null;
            if (d.throwable() != null) {
                try {
                    cause = (Throwable) Rendezvous.deserialize(d.throwable());
                } catch (IOException | RuntimeException e) {
                    // the class is not on this side's class path
                }
            }
            if (cause == null) {
                cause = new JobLauncher.RemoteRankException(d.message(), d.trace());
            }
            // a report without a trace is a deliberate abort, whose message names the rank and the code
            String what = d.trace() == null && d.throwable() == null ? d.message()
                    : "rank " + d.rank() + " failed: " + d.message();
            fail(d.secondary() ? P_ABORT : P_RANK, d.code(), d.rank(), what, cause, d.trace());
        }
        notifyAll();
    }

    /** JVM {@code j} (or its launch agent) exited with {@code code}: a failure if its ranks had not all finished. */
    synchronized void jvmExited(int j, int code) {
        if (idle[j]) {
            return;
        }
        long until = System.currentTimeMillis() + LINK_DRAIN_MS;
        while (links[j] != null && !linkClosed[j] && System.currentTimeMillis() < until) {
            try {
                wait(LINK_DRAIN_POLL_MS); // let the link's last messages (ranks that ended) be read first
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<Integer> unfinished = new ArrayList<>();
        for (int r = 0; r < o.nranks; r++) {
            if (o.jvmOfRank[r] == j && !rankDone[r]) {
                unfinished.add(r);
            }
        }
        String host = layout.hostOf(j);
        if (links[j] == null && code == 0 && layout.mainRank(j) >= 0 && !tearingDown) {
            // a program that ended without calling MPI.Init: fine if none did (the join loop decides)
            endedUnjoined[j] = true;
            notifyAll();
            return;
        }
        String how = code > SIGNAL_EXIT_BASE ? "was killed by signal " + (code - SIGNAL_EXIT_BASE)
                : "exited with code " + code;
        if (host != null) {
            if (links[j] == null && !tearingDown) { // it never joined: the agent could not start it
                String said = null;
                if (workers[j] != null) {
                    JobLauncher.sleepQuietly(STDERR_DRAIN_MS); // the agent's last words may still be in its pipe
                    workers[j].startFailed();
                    said = workers[j].lastErrorLine;
                }
                fail(P_JVM, code == 0 ? 1 : code, layout.ranksOf(j).get(0), "cannot start JVM " + j + " on host "
                        + host + ": the launch agent '" + o.launchAgent + "' exited with code " + code
                        + (said == null ? "" : " (" + said + ")"), null, null);
                allExited = Arrays.stream(procs).allMatch(p -> p != null && !p.isAlive());
                notifyAll();
                return;
            }
            how = code == REMOTE_LOST ? "ended with code " + code + " (the launch agent's code for a lost connection or"
                    + " a JVM killed by a signal)" : "exited with code " + code;
        }
        // A JVM killed by a signal this launcher did not send is the root cause even when the teardown has begun:
        // the other JVMs notice the lost connection and report it first, often before this exit is seen.
        boolean killedOutside = code > SIGNAL_EXIT_BASE && !killedHere[j];
        // Likewise a JVM that exited on its own with a non-zero code (a rank's System.exit(3)) while the teardown
        // had begun only because its peers lost their connections to it.
        boolean ownExit = exitingOnOwn[j] && code != 0 && !killedHere[j] && failurePriority < P_JVM;
        if (!unfinished.isEmpty() && (!tearingDown || killedOutside || ownExit)) {
            String who = host == null ? "JVM " + j + " (pid " + procs[j].pid() + ", ranks " + unfinished + ")"
                    : "JVM " + j + " on host " + host + " (ranks " + unfinished + "; the host runs ranks "
                    + layout.ranksOn(host) + ")";
            fail(P_JVM, code == 0 ? 1 : code, unfinished.get(0), who + " " + how + " while its ranks were running",
                    null, null);
        } else if (code != 0 && (!tearingDown || ownExit)) {
            // e.g. System.exit(3) after every rank of the JVM had finalized
            int first = -1;
            for (int r = 0; r < o.nranks && first < 0; r++) {
                first = o.jvmOfRank[r] == j ? r : -1;
            }
            fail(P_JVM, code, first, "JVM " + j + (host == null ? " (pid " + procs[j].pid() + ")" : " on host " + host)
                    + " " + how, null, null);
        }
        boolean all = true;
        for (Process p : procs) {
            all &= p != null && !p.isAlive();
        }
        allExited = all;
        notifyAll();
    }

    /** Notes that this launcher kills {@code p} itself: its signal exit is no cause of the failure. */
    synchronized void markKilledHere(Process p) {
        for (int j = 0; j < procs.length; j++) {
            if (procs[j] == p) {
                killedHere[j] = true;
            }
        }
    }
}

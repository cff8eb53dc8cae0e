package io.jrma.core.runtime;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.RmaException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs the ranks of a job that live in this JVM, one platform thread each, and reports how each ended. If a
 * rank throws, the job is aborted: every rank blocked in the library fails fast with ERR_PROC_ABORTED (those
 * secondary failures are not reported as causes). Used by {@code Jrma.run} (all ranks here) and by the JVM
 * host of a job spread over JVMs (this JVM's share).
 *
 * <p>Called by one thread per job.
 */
public final class RankThreads {
    /** What a rank runs. */
    @FunctionalInterface
    public interface Body {
        void run(Comm world) throws Exception;
    }

    /** How one rank ended; {@code failure} is null when it returned normally. */
    public interface Listener {
        void rankEnded(int rank, Throwable failure, boolean secondary);
    }

    /** The outcome of this JVM's ranks. */
    public static final class Outcome {
        public volatile int firstFailedRank = -1;
        public volatile Throwable firstFailure;
        public volatile boolean timedOut;
        public volatile String stuckRanks = "";
    }

    private static final InheritableThreadLocal<Comm> WORLD = new InheritableThreadLocal<>();

    private RankThreads() {
    }

    /** The world communicator of the rank the calling thread belongs to, or null. */
    public static Comm world() {
        return WORLD.get();
    }

    /**
     * Makes the calling thread rank 0 of a new job of one rank (threads it starts afterwards inherit it) and
     * returns that rank's world. The job is never stopped: its progress thread is a daemon, so it lives as long
     * as the JVM. Used for MPI's singleton init ({@code io.jrma.Jrma#singleton}).
     */
    /**
     * Makes the calling thread world rank {@code rank} of {@code job}, whose other ranks live in other processes
     * (a job another launcher started: one rank per process), starts the job and returns that rank's world.
     */
    public static Comm adopt(Job job, int rank) {
        Comm mine = LocalComm.world(job, rank, new CollectiveState(job.size()));
        job.bindRank(rank, Thread.currentThread());
        job.start();
        WORLD.set(mine);
        return mine;
    }

    /**
     * Whether {@code t} is the job's abort reaching this rank (ERR_PROC_ABORTED), also when a layer above wraps it
     * (the mpi package's MPIException: MPI.Init failed while another rank aborted), and not this rank's own abort.
     */
    public static boolean endedByAbort(Throwable t) {
        if (t instanceof Jrma.AbortException) {
            return false;
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof RmaException r && r.errorClass() == ErrorClass.ERR_PROC_ABORTED
                    && !(c instanceof Jrma.AbortException)) {
                return true;
            }
        }
        return false;
    }

    public static Comm singleton(Map<String, String> params) {
        Job job = new Job(1, params);
        Comm mine = LocalComm.world(job, 0, new CollectiveState(1));
        job.bindRank(0, Thread.currentThread());
        job.start();
        WORLD.set(mine);
        return mine;
    }

    /**
     * Starts {@code ranks} (world ranks living in this JVM), waits for them until {@code timeoutMs} (0: no
     * limit; then the job is aborted and given 5 s to unwind), and returns the outcome.
     */
    public static Outcome run(Job job, int[] ranks, Body body, long timeoutMs, Listener listener) {
        CollectiveState world = new CollectiveState(job.size());
        Outcome out = new Outcome();
        AtomicReference<Throwable> first = new AtomicReference<>();
        Thread[] threads = new Thread[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            final int rank = ranks[i];
            threads[i] = new Thread(() -> {
                Throwable failure = null;
                boolean secondary = false;
                try {
                    job.bindRankThread(rank);
                    Comm mine = LocalComm.world(job, rank, world);
                    WORLD.set(mine);
                    body.run(mine);
                } catch (Throwable t) {
                    failure = t;
                    secondary = job.isAborted() && endedByAbort(t);
                    if (!secondary && first.compareAndSet(null, t)) {
                        out.firstFailedRank = rank;
                        out.firstFailure = t;
                    }
                    job.abort(ErrorClass.ERR_PROC_ABORTED, "rank " + rank + " failed: " + t, t);
                } finally {
                    if (listener != null) {
                        listener.rankEnded(rank, failure, secondary);
                    }
                }
            }, "jrma-rank-" + rank);
            threads[i].setDaemon(true);
            job.bindRank(rank, threads[i]);
        }
        job.start();
        for (Thread t : threads) {
            t.start();
        }
        long deadline = timeoutMs > 0 ? System.currentTimeMillis() + timeoutMs : Long.MAX_VALUE;
        for (Thread t : threads) {
            joinUntil(t, deadline);
        }
        if (anyAlive(threads)) {
            out.timedOut = true;
            job.abort(ErrorClass.ERR_PROC_ABORTED, "job timed out after " + timeoutMs + " ms", null);
            long grace = System.currentTimeMillis() + 5_000;
            for (Thread t : threads) {
                joinUntil(t, grace);
            }
            StringBuilder stuck = new StringBuilder();
            for (int i = 0; i < ranks.length; i++) {
                if (threads[i].isAlive()) {
                    stuck.append(stuck.length() == 0 ? "" : ", ").append(ranks[i]);
                }
            }
            out.stuckRanks = stuck.toString();
        }
        return out;
    }

    private static void joinUntil(Thread t, long deadline) {
        try {
            long left;
            while (t.isAlive() && (left = deadline - System.currentTimeMillis()) > 0) {
                t.join(Math.min(left, 1_000));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean anyAlive(Thread[] threads) {
        for (Thread t : threads) {
            if (t.isAlive()) {
                return true;
            }
        }
        return false;
    }
}

package io.jrma;

import io.jrma.core.runtime.CollectiveState;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.LocalComm;
import io.jrma.core.runtime.Params;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Starts a job whose ranks are threads of this JVM: {@code Jrma.run(4, world -> { ... })} runs the body once
 * per rank, each on its own platform thread with its own world {@link Comm}, and returns when all ranks have
 * returned. If a rank throws, the job is aborted: every rank blocked in the library fails fast with
 * {@link ErrorClass#ERR_PROC_ABORTED}, and {@code run} throws a {@link JobFailedException} naming the rank.
 *
 * <p>Any thread may start jobs; jobs are independent.
 */
public final class Jrma {
    /** The program each rank runs. */
    @FunctionalInterface
    public interface RankMain {
        void run(Comm world) throws Exception;
    }

    private static final InheritableThreadLocal<Comm> WORLD = new InheritableThreadLocal<>();

    private Jrma() {
    }

    /**
     * The world communicator of the rank the calling thread belongs to (threads a rank starts inherit it):
     * how a program started by {@code jrmarun} as {@code main(String[])} finds its rank.
     *
     * @throws RmaException ERR_COMM if the thread is not part of a rank of a running job
     */
    public static Comm world() {
        Comm c = WORLD.get();
        if (c == null) {
            throw new RmaException(ErrorClass.ERR_COMM, "this thread is not a rank of a jrma job: start the program"
                    + " with jrmarun or from Jrma.run(n, world -> ...)");
        }
        return c;
    }

    /** Whether the calling thread belongs to a rank of a running job (see {@link #world()}). */
    public static boolean inJob() {
        return WORLD.get() != null;
    }

    /**
     * The counters of every window of this job in this JVM (all ranks), summed: packets, acks elided, bytes,
     * time waiting in synchronization. A snapshot; any rank may ask.
     */
    public static WinCounters jvmCounters(Comm comm) {
        return ((io.jrma.core.runtime.CommCore) comm).job().counters();
    }

    /** Runs {@code nranks} ranks with run-time parameters from system properties and the environment. */
    public static void run(int nranks, RankMain main) {
        job(nranks).run(main);
    }

    /** A job builder: {@code Jrma.job(4).param("jrma.path", "packet").timeout(Duration.ofSeconds(30)).run(main)}. */
    public static Builder job(int nranks) {
        return new Builder(nranks);
    }

    /** Options of a job. */
    public static final class Builder {
        private final int nranks;
        private final Map<String, String> params = new HashMap<>();
        private Duration timeout;

        private Builder(int nranks) {
            this.nranks = nranks;
        }

        /** Sets a run-time parameter for this job only (see {@code jrma-info} for the list). */
        public Builder param(String name, String value) {
            params.put(name, value);
            return this;
        }

        public Builder params(Map<String, String> more) {
            params.putAll(more);
            return this;
        }

        /** Aborts the job if it runs longer than this. */
        public Builder timeout(Duration t) {
            this.timeout = t;
            return this;
        }

        /** Runs the job and waits for it. */
        public void run(RankMain main) {
            Job job = new Job(nranks, params);
            long timeoutMs = timeout != null ? timeout.toMillis() : Params.JOB_TIMEOUT_MS.getLong(job.params());
            CollectiveState world = new CollectiveState(nranks);
            AtomicReference<Throwable> first = new AtomicReference<>();
            int[] firstRank = {-1};
            Thread[] threads = new Thread[nranks];
            for (int r = 0; r < nranks; r++) {
                final int rank = r;
                threads[r] = new Thread(() -> {
                    try {
                        Comm mine = LocalComm.world(job, rank, world);
                        WORLD.set(mine);
                        main.run(mine);
                    } catch (Throwable t) {
                        boolean secondary = job.isAborted() && t instanceof RmaException
                                && ((RmaException) t).errorClass() == ErrorClass.ERR_PROC_ABORTED;
                        if (!secondary && first.compareAndSet(null, t)) {
                            firstRank[0] = rank;
                        }
                        job.abort(ErrorClass.ERR_PROC_ABORTED, "rank " + rank + " failed: " + t, t);
                    }
                }, "jrma-rank-" + r);
                threads[r].setDaemon(true);
                job.bindRank(r, threads[r]);
            }
            job.start();
            for (Thread t : threads) {
                t.start();
            }
            long deadline = timeoutMs > 0 ? System.currentTimeMillis() + timeoutMs : Long.MAX_VALUE;
            try {
                for (Thread t : threads) {
                    joinUntil(t, deadline);
                }
                if (anyAlive(threads)) {
                    job.abort(ErrorClass.ERR_PROC_ABORTED, "job timed out after " + timeoutMs + " ms", null);
                    long grace = System.currentTimeMillis() + 5_000;
                    for (Thread t : threads) {
                        joinUntil(t, grace);
                    }
                    StringBuilder stuck = new StringBuilder();
                    for (int r = 0; r < nranks; r++) {
                        if (threads[r].isAlive()) {
                            stuck.append(stuck.length() == 0 ? "" : ", ").append(r);
                        }
                    }
                    throw new JobFailedException(-1, "job timed out after " + timeoutMs + " ms"
                            + (stuck.length() > 0 ? "; ranks still running outside the library: " + stuck : ""),
                            first.get());
                }
            } finally {
                job.stop();
            }
            if (first.get() != null) {
                throw new JobFailedException(firstRank[0], "rank " + firstRank[0] + " failed: " + first.get(), first.get());
            }
            if (job.isAborted()) {
                throw new JobFailedException(-1, job.abortReason().getMessage(), job.abortReason());
            }
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

    /** A job ended with a failed rank, an abort, or a timeout. */
    public static final class JobFailedException extends RmaException {
        private static final long serialVersionUID = 1L;
        private final int failedRank;

        public JobFailedException(int failedRank, String message, Throwable cause) {
            super(ErrorClass.ERR_PROC_ABORTED, message, cause);
            this.failedRank = failedRank;
        }

        /** The rank whose failure ended the job, or -1 (timeout, abort). */
        public int failedRank() {
            return failedRank;
        }
    }
}

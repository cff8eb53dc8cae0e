package io.jrma;

import io.jrma.core.config.JobLayout;
import io.jrma.core.config.Param;
import io.jrma.core.config.Params;
import java.io.PrintStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Starts a job whose ranks are threads of this JVM: {@code Jrma.run(4, world -> { ... })} runs the body once
 * per rank, each on its own platform thread with its own world {@link Comm}, and returns when all ranks have
 * returned. If a rank throws, the job is aborted: every rank blocked in the library fails fast with
 * {@link ErrorClass#ERR_PROC_ABORTED}, and {@code run} throws a {@link JobFailedException} naming the rank.
 *
 * <p>Any thread may start jobs; jobs are independent.
 */
public final class Jrma {
    /**
     * The program each rank runs. It is {@link java.io.Serializable} so that a job spread over several JVMs
     * can ship it to each of them; a lambda is serializable when everything it captures is.
     */
    @FunctionalInterface
    public interface RankMain extends Serializable {
        void run(Comm world) throws Exception;
    }

    private Jrma() {
    }

    /**
     * The world communicator of the rank the calling thread belongs to (threads a rank starts inherit it):
     * how a program started by {@code jrmarun} as {@code main(String[])} finds its rank. In a process a launcher
     * started to be one rank (a JVM of one rank under jrmarun, {@code mpirun}, {@code mpiexec}, {@code srun}), the
     * first call joins the launcher's job (see {@link #singleton}).
     *
     * @throws RmaException ERR_COMM if the thread is not part of a rank of a running job
     */
    public static Comm world() {
        Comm c = engine().world();
        if (c == null && engine().startedAsRank()) {
            // a process a launcher started to be one rank (jrmarun's JVM of one rank, mpirun, mpiexec, srun): its
            // first call joins the launcher's job, as MPI.Init would
            return singleton();
        }
        if (c == null) {
            throw new RmaException(ErrorClass.ERR_COMM, "this thread is not a rank of a jrma job: start the program"
                    + " with jrmarun or from Jrma.run(n, world -> ...)");
        }
        return c;
    }

    /**
     * The world of the calling thread's rank; if the thread is not part of a job, either joins the job another
     * launcher started this process in ({@code mpiexec}: see {@code io.jrma.spi.WorldBootstrap}), or makes it rank 0
     * of a new job of one rank (MPI's singleton init: a program started with plain {@code java} instead of jrmarun
     * runs alone). Threads the caller starts afterwards belong to that rank too. The one-rank job lives as long as the
     * JVM (its progress thread is a daemon). Run-time parameters come from system properties and the environment.
     */
    public static synchronized Comm singleton() {
        return engine().singleton(new HashMap<>());
    }

    /**
     * Whether this process joined a job another launcher started ({@code mpiexec}, {@code srun}): then
     * {@link #singleton()} returned one rank of a larger job, and {@link #leave} ends this process's part of it.
     */
    public static boolean joinedExternalJob() {
        return engine().joinedExternalJob();
    }

    /**
     * Ends this process's part of a job another launcher started, once its rank has finalized: the transports say
     * goodbye and close so the process can exit. Does nothing otherwise.
     */
    public static void leave(Comm world) {
        engine().leave(world);
    }

    /**
     * Whether this process was started by a launcher to be one rank of its job (jrmarun's JVM of one rank,
     * {@code mpirun}, {@code mpiexec}, {@code srun}) and has not joined it yet: {@link #world()} joins it then.
     */
    public static boolean startedAsRank() {
        return engine().startedAsRank();
    }

    /** Whether the calling thread belongs to a rank of a running job (see {@link #world()}). */
    public static boolean inJob() {
        return engine().world() != null;
    }

    /**
     * The counters of every window of this job in this JVM (all ranks), summed: packets, acks elided, bytes,
     * time waiting in synchronization. A snapshot; any rank may ask.
     */
    public static WinCounters jvmCounters(Comm comm) {
        return engine().jvmCounters(comm);
    }

    /**
     * The value in force of a run-time parameter of {@code comm}'s job ({@code jrma.path}, {@code jrma.progress},
     * ...: see the table in docs/parameters.md): the job's setting, or the parameter's default.
     *
     * @throws RmaException ERR_ARG if jrma has no parameter of that name
     */
    public static String parameter(Comm comm, String name) {
        for (Param p : Params.ALL) {
            if (p.name().equals(name)) {
                return engine().parameter(comm, p);
            }
        }
        throw new RmaException(ErrorClass.ERR_ARG, "jrma has no run-time parameter named '" + name + "'");
    }

    /**
     * For a program's {@code main}: under {@code jrmarun} (the calling thread already is a rank, or this JVM was
     * started to be one rank and joins the launcher's job now, as under {@code mpirun}, {@code mpiexec} and
     * {@code srun}) runs {@code main} right here as this rank; otherwise starts a job of {@code nranks} thread ranks
     * and waits for it. So one program runs both as {@code jrmarun -n 8 Prog} and as {@code java Prog}.
     */
    public static void runOrJoin(int nranks, RankMain main) throws Exception {
        if (inJob() || startedAsRank()) {
            main.run(world());
        } else {
            run(nranks, main);
        }
    }

    /**
     * Lets this JVM's progress agent run one duty cycle now, unless another thread is running it or the job's
     * progress mode is {@code thread}: for clients that wait by polling their own window memory (a message
     * queue, a flag) and so never enter a waiting library call. Packets from other JVMs are applied to this
     * JVM's windows by that agent; with {@code jrma.progress=caller} nobody else runs it.
     *
     * @return the work it did (0: nothing to do, or someone else is on it)
     */
    public static int progress(Comm comm) {
        return engine().progress(comm);
    }

    /**
     * Memory for buffers and for windows created over them (MPI_Alloc_mem): a zeroed little-endian direct
     * buffer. In a JVM of a job that spans several JVMs it lives in a shared segment of /dev/shm, so that a
     * window created over it ({@link Win#create}) reaches its peers in other JVMs of the host by load/store, as
     * fast as an allocated window; elsewhere it is ordinary direct memory. Buffers of 1 MiB or more are
     * released when unreachable; smaller ones come from chunks kept until the JVM exits.
     *
     * @param bytes the capacity, at least 0
     * @return the buffer
     * @throws RmaException ERR_SIZE for a negative size, ERR_NO_MEM when there is no room
     */
    public static ByteBuffer allocateMemory(int bytes) {
        return engine().allocateMemory(bytes);
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

        /** Spreads the ranks over {@code jvms} JVMs on this host (the body must then be serializable). */
        public Builder jvms(int jvms) {
            params.put(Params.JVMS.name(), String.valueOf(jvms));
            return this;
        }

        /**
         * Runs the job and waits for it. With {@code jrma.jvms} > 1 (see {@link #jvms}), the ranks run in that
         * many child JVMs connected over TCP, and {@code main} travels to them serialized: it may capture only
         * serializable values.
         */
        public void run(RankMain main) {
            engine().run(nranks, params, timeout, main);
        }
    }

    /**
     * What {@link Comm#abort} throws in the rank that called it (MPI_Abort): the job is aborted, every other rank
     * fails with {@link ErrorClass#ERR_PROC_ABORTED}, and under {@code jrmarun} the job's exit code is
     * {@link #exitCode()} (modulo 256; 1 if that is 0).
     */
    public static final class AbortException extends RmaException {
        private static final long serialVersionUID = 1L;
        private final int rank;
        private final int exitCode;

        public AbortException(int rank, int exitCode, String message) {
            super(ErrorClass.ERR_PROC_ABORTED, message);
            this.rank = rank;
            this.exitCode = exitCode;
        }

        /** The world rank that called abort. */
        public int rank() {
            return rank;
        }

        /** The code passed to abort. */
        public int exitCode() {
            return exitCode;
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

    /** The engine behind the static methods of this class and of {@link JrmaInfo}, found on first use. */
    static Engine engine() {
        return EngineHolder.ENGINE;
    }

    /**
     * What this class and {@link JrmaInfo} need of the engine below them: rma-core's runtime implements it and
     * registers it with {@code ServiceLoader} (META-INF/services), so that this package, which the engine builds on,
     * does not link the engine in turn. An implementation hook, not for programs: they call the static methods of
     * {@link Jrma}. Start-up and job-level calls only; no RMA operation goes through it.
     */
    public interface Engine {
        /** The world communicator of the calling thread's rank, or {@code null} (see {@link Jrma#world()}). */
        Comm world();

        /** {@link Jrma#singleton()}; a new job of one rank gets the run-time parameters {@code params}. */
        Comm singleton(Map<String, String> params);

        /** {@link Jrma#startedAsRank()}. */
        boolean startedAsRank();

        /** {@link Jrma#joinedExternalJob()}. */
        boolean joinedExternalJob();

        /** {@link Jrma#leave}. */
        void leave(Comm world);

        /** {@link Jrma#jvmCounters}. */
        WinCounters jvmCounters(Comm comm);

        /** The value in force of {@code p} in {@code comm}'s job ({@link Jrma#parameter}). */
        String parameter(Comm comm, Param p);

        /** {@link Jrma#progress}. */
        int progress(Comm comm);

        /** {@link Jrma#allocateMemory}. */
        ByteBuffer allocateMemory(int bytes);

        /** Runs a job and waits for it ({@link Builder#run}); {@code timeout} may be null. */
        void run(int nranks, Map<String, String> params, Duration timeout, RankMain main);

        /** The run-time parameters of the transport components on the class path (for {@link JrmaInfo}). */
        List<Param> componentParams();

        /** Writes jrma-info's section on the transport components for a job of {@code layout}. */
        void printTransports(PrintStream out, JobLayout layout);
    }

    /** Loads the engine from the class loader that loaded this class (rma-core's), once. */
    private static final class EngineHolder {
        static final Engine ENGINE = load();

        private EngineHolder() {
        }

        private static Engine load() {
            Iterator<Engine> it = ServiceLoader.load(Engine.class, Engine.class.getClassLoader()).iterator();
            if (!it.hasNext()) {
                throw new RmaException(ErrorClass.ERR_INTERN, "rma-core is incomplete: no " + Engine.class.getName()
                        + " in its META-INF/services");
            }
            return it.next();
        }
    }
}

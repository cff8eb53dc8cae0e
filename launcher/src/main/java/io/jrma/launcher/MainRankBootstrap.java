package io.jrma.launcher;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.RmaException;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.RankThreads;
import io.jrma.spi.WorldBootstrap;
import io.jrma.spi.transport.Transport;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Joins the job of the jrmarun that started this JVM as {@code java ... MAINCLASS ARGS} to run one rank: the
 * program's {@code main} runs on the JVM's main thread, as under {@code mpirun} (the bottom frame of its stack is the
 * program's class), and the thread that calls {@code MPI.Init} or {@code Jrma.world()} becomes the rank. Detected
 * by jrmarun's variables ({@link LauncherLink}) and {@code JRMA_MAIN_RANK}; the link, the transports and the messages
 * to the launcher are those of a {@link JvmHost}, so failures end the job as they do for thread ranks.
 *
 * <p>How the rank ends, as the launcher hears it: at {@code MPI.Finalize}, or when its thread returns (a program that
 * never finalizes), it reports a clean end, and the JVM stays up (a non-daemon thread) until the launcher says every
 * rank has ended, so that its windows still serve the others; an exception out of {@code main} is the rank's failure
 * (its stack trace printed by jrmarun); {@code abort} reports its code at once; {@code System.exit} ends the JVM, whose
 * exit code the launcher takes.
 */
public final class MainRankBootstrap implements WorldBootstrap {
    /** Set by the launcher for a JVM of one rank that runs the program's main: that rank's number. */
    static final String ENV_MAIN_RANK = "JRMA_MAIN_RANK";
    /** How long an aborted rank's JVM waits for the launcher's word before it closes. */
    private static final long ABORTED_END_WAIT_MS = 500;

    private LauncherLink link;
    private Job job;
    private int rank;
    private List<Transport> transports = List.of();
    /** Whether the rank's end was reported (once). Guarded by this. */
    private boolean reported;

    @Override
    public String name() {
        return "jrmarun";
    }

    @Override
    public boolean detected() {
        return System.getenv(ENV_MAIN_RANK) != null && LauncherLink.inEnvironment();
    }

    @Override
    public Comm join(Map<String, String> params) {
        try {
            return joinOrFail();
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_OTHER, "joining the job of the jrmarun that started this JVM failed: "
                    + e.getMessage(), e);
        }
    }

    private Comm joinOrFail() throws IOException {
        link = LauncherLink.connect();
        Rendezvous.Spec spec = link.awaitSpec();
        if (spec == null) {
            LauncherLink.halt(1); // the job failed to start elsewhere: jrmarun says why
        }
        rank = -1;
        for (int r = 0; r < spec.nranks(); r++) {
            if (spec.jvmOfRank()[r] == link.jvm) {
                if (rank >= 0) {
                    throw new RmaException(ErrorClass.ERR_INTERN, "JVM " + link.jvm + " runs more than one rank: it is"
                            + " started as " + JvmHost.class.getSimpleName() + ", not with the program's main");
                }
                rank = r;
            }
        }
        job = link.openJob(spec);
        transports = link.openMesh(job, spec, e -> {
            Jrma.AbortException own = PmiBootstrap.ownAbort(e);
            if (own != null) { // abort's code at once, even if the program catches the exception abort throws
                report(JvmHost.done(rank, JvmHost.exitCode(own), false, own));
            }
        });
        link.ready();
        link.listen(job, spec);
        Thread main = Thread.currentThread();
        main.setUncaughtExceptionHandler((t, x) -> failed(x));
        Runtime.getRuntime().addShutdownHook(new Thread(this::exitingOnItsOwn, "jrma-exit-report"));
        Thread end = new Thread(() -> endWith(main), "jrma-rank-end");
        end.setDaemon(false); // keeps the JVM, and the rank's windows, up until every rank of the job has ended
        end.start();
        Comm world = RankThreads.adopt(job, rank);
        job.bindRankThread(rank);
        return world;
    }

    /** The rank's thread threw: as a rank thread's failure ({@link RankThreads#run}), reported to the launcher. */
    private void failed(Throwable x) {
        boolean secondary = job.isAborted() && RankThreads.endedByAbort(x);
        job.abort(ErrorClass.ERR_PROC_ABORTED, "rank " + rank + " failed: " + x, x);
        report(JvmHost.done(rank, JvmHost.exitCode(x), secondary, x));
    }

    /**
     * Waits for the rank's thread to end; reports a clean end if nothing was reported (it returned without
     * finalizing); waits for the launcher's END (or its abort); closes the transports.
     */
    private void endWith(Thread main) {
        try {
            main.join();
            report(JvmHost.done(rank, 0, false, null));
            link.awaitEnd(job.isAborted() ? ABORTED_END_WAIT_MS : 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        job.stop();
        for (int i = transports.size() - 1; i >= 0; i--) {
            transports.get(i).close(JvmHost.CLOSE_TIMEOUT_MS); // the narrower ones first; TCP says goodbye last
        }
    }

    /**
     * A shutdown hook: the JVM exits before the job ended (System.exit, a termination signal). A finalized rank
     * ended cleanly; the launcher takes the JVM's exit code for the rest.
     */
    private void exitingOnItsOwn() {
        if (link.ended()) {
            return;
        }
        boolean quiet;
        synchronized (this) {
            quiet = reported;
        }
        if (!quiet && job.isFinalized(rank)) {
            report(JvmHost.done(rank, 0, false, null));
        } else if (!quiet) {
            link.exiting();
        }
        System.out.flush();
        System.err.flush();
    }

    /** Reports the rank's end once: the first report is how it ended. */
    private void report(Rendezvous.RankDone d) {
        synchronized (this) {
            if (reported) {
                return;
            }
            reported = true;
        }
        link.rankDone(d);
    }

    @Override
    public void finish(Comm world) {
        report(JvmHost.done(rank, 0, false, null)); // MPI_Finalize: the rank is done; its windows serve until END
    }
}

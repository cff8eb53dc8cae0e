package io.jrma.launcher;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.RmaException;
import io.jrma.core.config.Params;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.RankThreads;
import io.jrma.spi.transport.Transport;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * The main class of a JVM of several ranks (or of a shipped rank body) started by a {@link JobLauncher}: joins the
 * launcher's rendezvous over its {@link LauncherLink}, opens the transports the job selects (TCP to every JVM,
 * shared-memory rings to those of its host), runs its ranks (each a thread calling the program's
 * {@code main(String[])} or a shipped rank body), reports how each ended, and exits when the launcher says the job is
 * over. If the launcher disappears, the job is aborted here too. A JVM of one rank running a program's {@code main}
 * is started as {@code java MAINCLASS} instead and joins through {@link MainRankBootstrap}.
 *
 * <p>In a job across hosts (started on another host by a launch agent such as ssh), unless
 * {@code jrma.tcp.interface} says otherwise, the IO agent listens on the address this host reaches the launcher from
 * ({@code route:} the rendezvous address), and the launcher and this JVM exchange heartbeats: a JVM that has not
 * heard from its launcher for {@code jrma.launcher.silenceMs} (a link that went down) aborts its ranks and exits.
 */
public final class JvmHost {
    /** How long closing waits for the goodbyes to leave. */
    static final long CLOSE_TIMEOUT_MS = 1_000;
    /** How long an aborted JVM waits for the launcher's word before it closes. */
    private static final long ABORTED_END_WAIT_MS = 500;

    private JvmHost() {
    }

    public static void main(String[] argv) {
        int code;
        try {
            code = host();
        } catch (Throwable t) {
            String jvm = System.getenv(LauncherLink.ENV_JVM);
            if (t instanceof RmaException e && e.errorClass() == ErrorClass.ERR_ARG) {
                // the program's mistake (a main class that is not there, main not static): the message is the story
                System.err.println("jrma: JVM " + jvm + " cannot run its ranks: " + e.getMessage());
            } else if (t instanceof RmaException e && e.errorClass() == ErrorClass.ERR_ACCESS) {
                System.err.println("jrma: " + e.getMessage()); // its handshake with the launcher failed: one line
            } else {
                System.err.println("jrma: JVM " + jvm + " failed to run its ranks: " + t);
                t.printStackTrace();
            }
            code = 1;
        }
        System.out.flush();
        System.err.flush();
        LauncherLink.halt(code); // rank threads stuck outside the library must not keep the JVM alive
    }

    private static int host() throws Exception {
        LauncherLink link = LauncherLink.connect();
        boolean tagged = false;
        while (true) {
            Rendezvous.Spec spec = link.awaitSpec();
            if (spec == null) {
                // the launcher let this pooled JVM go, or the job failed to start elsewhere (the launcher says why)
                return link.startAborted() ? 1 : 0;
            }
            if (spec.tagOutput() && !tagged) {
                TaggedOutput.install(link.jvm);
                tagged = true;
            }
            int code = runJob(spec, link);
            if (!spec.reusable() || code != 0) {
                return code;
            }
            link.idle();
        }
    }

    /** Runs one job's ranks of this JVM; returns 0 if they all returned normally and nothing aborted. */
    private static int runJob(Rendezvous.Spec spec, LauncherLink link) throws Exception {
        RankThreads.Body body = body(spec); // a missing main class fails the start-up, before any rank runs
        Job job = link.openJob(spec);
        List<Transport> transports = link.openMesh(job, spec, null);
        link.ready();
        link.listen(job, spec);
        int[] mine = IntStream.range(0, spec.nranks()).filter(r -> spec.jvmOfRank()[r] == link.jvm).toArray();
        int[] firstCode = {0};
        Set<Integer> endedRanks = ConcurrentHashMap.newKeySet();
        // A rank that calls System.exit ends this JVM as it would end a process: ranks that had finalized
        // (MPI_Finalize) count as done; the launcher takes the JVM's exit code for the rest.
        Thread exitHook = new Thread(() -> {
            for (int r : mine) {
                if (!endedRanks.contains(r) && job.isFinalized(r)) {
                    link.rankDone(done(r, 0, false, null));
                }
            }
            link.exiting();
            System.out.flush();
            System.err.flush();
        }, "jrma-exit-report");
        Runtime.getRuntime().addShutdownHook(exitHook);
        RankThreads.Outcome outcome = RankThreads.run(job, mine, body, 0, (rank, failure, secondary) -> {
            int c = failure == null ? 0 : exitCode(failure);
            if (c != 0 && firstCode[0] == 0 && !secondary) {
                firstCode[0] = c;
            }
            link.rankDone(done(rank, c, secondary, failure));
            // only once its report is out: a System.exit by another rank meanwhile must not skip this one in the
            // exit hook and halt the JVM before the write (the launcher takes a second report of a rank as one)
            endedRanks.add(rank);
        });
        try {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        } catch (IllegalStateException ignored) {
            // already exiting
        }
        // the launcher tears an aborted job down; do not wait long for an END that will not come
        boolean ended = link.awaitEnd(job.isAborted() ? ABORTED_END_WAIT_MS : 0);
        job.stop();
        for (int i = transports.size() - 1; i >= 0; i--) {
            transports.get(i).close(CLOSE_TIMEOUT_MS); // the narrower ones first; TCP says goodbye last
        }
        boolean clean = !job.isAborted() && outcome.firstFailure == null && !outcome.timedOut && ended;
        return clean ? 0 : Math.max(1, firstCode[0]);
    }

    private static RankThreads.Body body(Rendezvous.Spec spec) throws Exception {
        if (spec.body() != null) {
            Object o = Rendezvous.deserialize(spec.body());
            Jrma.RankMain main = (Jrma.RankMain) o;
            return main::run;
        }
        return mainBody(spec.mainClass(), spec.args(), spec.params(), JvmHost.class.getClassLoader(), new URL[0]);
    }

    /**
     * A rank body that runs {@code mainClass.main(args)} loaded by {@code app} (each rank with a loader of its own
     * unless {@code jrma.rankLoaders=shared}; {@code program}: the program's class path when {@code app} is not this
     * JVM's class path). ERR_ARG when the class is not there.
     */
    static RankThreads.Body mainBody(String mainClass, String[] args, Map<String, String> params, ClassLoader app,
            URL[] program) {
        try {
            Class.forName(mainClass, false, app);
        } catch (ClassNotFoundException e) {
            throw new RmaException(ErrorClass.ERR_ARG, "main class " + mainClass + " is not on the class path");
        }
        boolean isolated = Params.RANK_LOADERS.getChoice(params, "isolated", "shared").equals("isolated");
        return (Comm world) -> {
            ClassLoader loader = isolated ? new RankClassLoader(world.rank(), app, program) : app;
            Thread.currentThread().setContextClassLoader(loader);
            Method m = Class.forName(mainClass, true, loader).getMethod("main", String[].class);
            if (!Modifier.isStatic(m.getModifiers())) {
                throw new RmaException(ErrorClass.ERR_ARG, mainClass + ".main(String[]) is not static");
            }
            // the java launcher also runs a public main of a class that is not public (class Foo { ... })
            m.setAccessible(true);
            try {
                m.invoke(null, (Object) args.clone());
            } catch (InvocationTargetException e) {
                Throwable t = e.getCause();
                if (t instanceof Exception) {
                    throw (Exception) t;
                }
                throw (Error) t;
            }
        };
    }

    /**
     * The exit code a failed rank gives the job: the code it passed to {@link Comm#abort} (MPI_Abort; as a
     * process exit status, so modulo 256, and 1 for a code that would read as success), else 1.
     */
    static int exitCode(Throwable failure) {
        if (failure instanceof Jrma.AbortException) {
            int c = ((Jrma.AbortException) failure).exitCode() & 0xff;
            return c == 0 ? 1 : c;
        }
        return 1;
    }

    static Rendezvous.RankDone done(int rank, int code, boolean secondary, Throwable t) {
        if (t == null) {
            return new Rendezvous.RankDone(rank, 0, false, null, null, null);
        }
        if (t instanceof Jrma.AbortException a) {
            // a deliberate MPI_Abort: its message is the whole story, as mpirun's banner (no stack trace)
            String m = a.getMessage();
            String prefix = ErrorClass.ERR_PROC_ABORTED.name() + ": ";
            String banner = m.startsWith(prefix) ? m.substring(prefix.length()) : m;
            return new Rendezvous.RankDone(rank, code, secondary, banner, null, null);
        }
        StringWriter sw = new StringWriter();
        t.printStackTrace(new PrintWriter(sw));
        byte[] ser = null;
        try {
            ser = Rendezvous.serialize(t);
        } catch (IOException | RuntimeException e) {
            // not serializable: the text must do
        }
        return new Rendezvous.RankDone(rank, code, secondary, t.toString(), sw.toString(), ser);
    }
}

package io.jrma.launcher;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import io.jrma.core.os.HostId;
import io.jrma.core.os.LocalAddresses;
import io.jrma.core.op.ElementLocks;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.Params;
import io.jrma.core.runtime.RankThreads;
import io.jrma.spi.Components;
import io.jrma.spi.Transport;
import io.jrma.spi.TransportProvider;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * The main class of every JVM of a job started by a {@link JobLauncher}: reads the job secret from stdin,
 * joins the launcher's rendezvous, opens the transports the job selects (TCP to every JVM, shared-memory rings to
 * those of its host), runs its ranks (each a
 * thread calling the program's {@code main(String[])} or a shipped rank body), reports how each ended, and
 * exits when the launcher says the job is over. If the launcher disappears, the job is aborted here too.
 *
 * <p>Environment: {@code JRMA_RENDEZVOUS} (host:port), {@code JRMA_JVM} (this JVM's index),
 * {@code JRMA_JOB_ID}; the secret comes as the first line of stdin, never through the environment.
 *
 * <p>In a job across hosts (started on another host by a launch agent such as ssh), unless
 * {@code jrma.tcp.interface} says otherwise, the IO agent listens on the address this host reaches the launcher from
 * ({@code route:} the rendezvous address), and the launcher and this JVM exchange heartbeats: a JVM that has not
 * heard from its launcher for {@code jrma.launcher.silenceMs} (a link that went down) aborts its ranks and exits.
 */
public final class JvmHost {
    /** The launcher's rendezvous address, {@code host:port}. */
    static final String ENV_RENDEZVOUS = "JRMA_RENDEZVOUS";
    /** This JVM's index in the job. */
    static final String ENV_JVM = "JRMA_JVM";
    /** The id of the link to the launcher (not secret: the secret proves it). */
    static final String ENV_LINK_ID = "JRMA_JOB_ID";
    /** The parameters of the job running here (where its shared-memory files are), for the clean-up at the end. */
    private static volatile Map<String, String> jobParams = Map.of();
    /** How long a JVM whose launcher went away lets its ranks fail before it halts. */
    private static final long ORPHAN_HALT_MS = 3_000;

    /** How long closing waits for the goodbyes to leave. */
    private static final long CLOSE_TIMEOUT_MS = 1_000;

    private JvmHost() {
    }

    public static void main(String[] argv) {
        int code;
        try {
            code = host();
        } catch (Throwable t) {
            if (t instanceof RmaException e && e.errorClass() == ErrorClass.ERR_ARG) {
                // the program's mistake (a main class that is not there, main not static): the message is the story
                System.err.println("jrma: JVM " + System.getenv(ENV_JVM) + " cannot run its ranks: " + e.getMessage());
            } else {
                System.err.println("jrma: JVM " + System.getenv(ENV_JVM) + " failed to run its ranks: " + t);
                t.printStackTrace();
            }
            code = 1;
        }
        System.out.flush();
        System.err.flush();
        halt(code); // rank threads stuck outside the library must not keep the JVM alive
    }

    private static int host() throws Exception {
        String secret = firstLine(System.in); // byte by byte: the rest of stdin is rank 0's (jrmarun forwards it)
        String rv = System.getenv(ENV_RENDEZVOUS);
        String jvmEnv = System.getenv(ENV_JVM);
        String linkId = System.getenv(ENV_LINK_ID);
        if (secret == null || rv == null || linkId == null || jvmEnv == null) {
            throw new IllegalStateException("JvmHost is started by a jrma launcher (jrmarun), not by hand");
        }
        int jvm = Integer.parseInt(jvmEnv);
        int colon = rv.lastIndexOf(':');
        String rvHost = rv.substring(0, colon).replace("[", "").replace("]", "");
        Socket s = new Socket(rvHost, Integer.parseInt(rv.substring(colon + 1)));
        s.setTcpNoDelay(true);
        Handshake.client(s, linkId, secret, jvm, 30_000);
        DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
        boolean tagged = false;
        while (true) {
            Rendezvous.Msg m;
            try {
                m = Rendezvous.read(in);
            } catch (EOFException e) {
                return 0; // the launcher let this pooled JVM go
            }
            if (m.type() == Rendezvous.ABORT) {
                return 1; // the job failed to start elsewhere (another host): the launcher says why
            }
            if (m.type() != Rendezvous.SPEC) {
                throw new IOException("rendezvous: expected a job, got message " + m.type()
                        + (m.type() == Rendezvous.ABORT ? " (" + new String(m.body(), StandardCharsets.UTF_8) + ")" : ""));
            }
            Rendezvous.Spec spec = (Rendezvous.Spec) m.object();
            if (spec.tagOutput() && !tagged) {
                TaggedOutput.install(jvm);
                tagged = true;
            }
            if (spec.acrossHosts() && RemoteStart.explicitInterface(spec.params()) == null) {
                // this host's address towards the launcher: on the network the job's hosts share, never loopback
                spec.params().put(RemoteStart.TCP_INTERFACE, LocalAddresses.ROUTE_PREFIX + rvHost);
            }
            int code = runJob(spec, jvm, in, out);
            if (!spec.reusable() || code != 0) {
                return code;
            }
            Rendezvous.write(out, Rendezvous.IDLE, new byte[0]);
        }
    }

    /** The first line of {@code in}, read without taking a byte more; null at end of input. */
    private static String firstLine(java.io.InputStream in) throws IOException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            b.write(c);
        }
        return c < 0 && b.size() == 0 ? null : b.toString(StandardCharsets.US_ASCII);
    }

    /** Runs one job's ranks of this JVM; returns 0 if they all returned normally and nothing aborted. */
    private static int runJob(Rendezvous.Spec spec, int jvm, DataInputStream in, DataOutputStream out) throws Exception {
        RankThreads.Body body = body(spec); // a missing main class fails the start-up, before any rank runs
        jobParams = spec.params();
        Job job = new Job(spec.nranks(), spec.params(), jvm, spec.jvmOfRank());
        if (job.jvmCount() > 1) {
            // buffers from Jrma.allocateMemory / MPI.newByteBuffer in shared segments: create windows over them
            // are then reachable by load/store from the other JVMs of the host
            Components.bufferAllocator().jobSpansJvms(job.params());
        }
        ElementLocks.onLongWait(job::checkAborted); // a holder in a killed JVM never releases
        List<Transport> transports = TransportMesh.open(job, spec.jobId(), spec.meshSecret(), mine -> {
            Rendezvous.writeObject(out, Rendezvous.ENDPOINT, mine);
            return (String[][]) expect(in, Rendezvous.ENDPOINTS).object();
        });
        job.onAbort(e -> {
            for (Transport t : transports) {
                t.abortPeers(e.getMessage());
            }
            try {
                Rendezvous.write(out, Rendezvous.ABORT, e.getMessage().getBytes(StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                // the launcher is gone: it tears the job down anyway
            }
        });
        Rendezvous.write(out, Rendezvous.READY, new byte[0]);
        expect(in, Rendezvous.GO);
        final boolean[] ended = {false};
        long[] lastHeard = {System.currentTimeMillis()};
        Thread reader = new Thread(() -> listen(in, job, ended, lastHeard), "jrma-launcher-link");
        reader.setDaemon(true);
        reader.start();
        if (spec.heartbeatMs() > 0) {
            heartbeat(out, job, ended, lastHeard, spec.heartbeatMs(), spec.silenceMs());
        }
        int[] mine = IntStream.range(0, spec.nranks()).filter(r -> spec.jvmOfRank()[r] == jvm).toArray();
        int[] firstCode = {0};
        Set<Integer> endedRanks = ConcurrentHashMap.newKeySet();
        // A rank that calls System.exit ends this JVM as it would end a process: ranks that had finalized
        // (MPI_Finalize) count as done; the launcher takes the JVM's exit code for the rest.
        Thread exitHook = new Thread(() -> {
            for (int r : mine) {
                if (!endedRanks.contains(r) && job.isFinalized(r)) {
                    try {
                        Rendezvous.writeObject(out, Rendezvous.RANK_DONE, done(r, 0, false, null));
                    } catch (IOException ignored) {
                        // launcher gone
                    }
                }
            }
            try {
                Rendezvous.write(out, Rendezvous.EXITING, new byte[0]);
            } catch (IOException ignored) {
                // launcher gone
            }
            System.out.flush();
            System.err.flush();
        }, "jrma-exit-report");
        Runtime.getRuntime().addShutdownHook(exitHook);
        RankThreads.Outcome outcome = RankThreads.run(job, mine, body, 0, (rank, failure, secondary) -> {
            int c = failure == null ? 0 : exitCode(failure);
            if (c != 0 && firstCode[0] == 0 && !secondary) {
                firstCode[0] = c;
            }
            try {
                Rendezvous.writeObject(out, Rendezvous.RANK_DONE, done(rank, c, secondary, failure));
            } catch (IOException ignored) {
                // launcher gone
            }
            // only once its report is out: a System.exit by another rank meanwhile must not skip this one in the
            // exit hook and halt the JVM before the write (the launcher takes a second report of a rank as one)
            endedRanks.add(rank);
        });
        try {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        } catch (IllegalStateException ignored) {
            // already exiting
        }
        if (job.isAborted()) {
            reader.join(500); // the launcher tears the job down; do not wait for an END that will not come
        } else {
            reader.join();
        }
        job.stop();
        for (int i = transports.size() - 1; i >= 0; i--) {
            transports.get(i).close(CLOSE_TIMEOUT_MS); // the narrower ones first; TCP says goodbye last
        }
        boolean clean = !job.isAborted() && outcome.firstFailure == null && !outcome.timedOut && ended[0];
        return clean ? 0 : Math.max(1, firstCode[0]);
    }

    /**
     * Sends the launcher a heartbeat every {@code periodMs} while the job runs, and when nothing has come from the
     * launcher for {@code silenceMs} (its host or this one cut off), aborts the job here and halts.
     */
    private static void heartbeat(DataOutputStream out, Job job, boolean[] ended, long[] lastHeard, long periodMs,
            long silenceMs) {
        Thread t = new Thread(() -> {
            while (true) {
                synchronized (ended) {
                    if (ended[0]) {
                        return;
                    }
                }
                try {
                    Rendezvous.write(out, Rendezvous.HEARTBEAT, new byte[0]);
                } catch (IOException e) {
                    return; // the link is gone: listen() aborts the job
                }
                long silent;
                synchronized (lastHeard) {
                    silent = System.currentTimeMillis() - lastHeard[0];
                }
                if (silent > silenceMs) {
                    orphaned(job, "nothing heard from the launcher for " + silent + " ms ("
                            + Params.LAUNCHER_SILENCE_MS.name() + "): this host or the launcher's is cut off");
                    return;
                }
                try {
                    Thread.sleep(periodMs);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "jrma-heartbeat");
        t.setDaemon(true);
        t.start();
    }

    /** The launcher is gone or out of reach: fails the ranks here and halts the JVM soon after. */
    private static void orphaned(Job job, String why) {
        System.err.println("jrma: JVM " + System.getenv(ENV_JVM) + " on " + HostId.hostName() + ": " + why
                + "; aborting its ranks");
        job.abort(ErrorClass.ERR_PROC_ABORTED, why, null);
        Thread killer = new Thread(() -> {
            try {
                Thread.sleep(ORPHAN_HALT_MS);
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
            halt(1);
        });
        killer.setDaemon(true);
        killer.start();
    }

    /**
     * Removes this JVM's named shared-memory files (buffers a window may still be created over: the shutdown hook that
     * would remove them does not run on a halt) and halts. On this host the launcher would reclaim them after the
     * exit; on another host nobody else can.
     */
    private static void halt(int code) {
        for (TransportProvider p : Components.transportProviders()) {
            try {
                p.reclaim(jobParams, ProcessHandle.current().pid());
            } catch (RuntimeException ignored) {
                // what is left, the next jrmarun --cleanup on this host removes
            }
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(code);
    }

    private static void listen(DataInputStream in, Job job, boolean[] ended, long[] lastHeard) {
        try {
            while (true) {
                Rendezvous.Msg m = Rendezvous.read(in);
                synchronized (lastHeard) {
                    lastHeard[0] = System.currentTimeMillis();
                }
                if (m.type() == Rendezvous.ABORT) {
                    job.abort(ErrorClass.ERR_PROC_ABORTED, new String(m.body(), StandardCharsets.UTF_8), null);
                } else if (m.type() == Rendezvous.END) {
                    synchronized (ended) {
                        ended[0] = true;
                    }
                    return;
                }
            }
        } catch (IOException e) {
            job.abort(ErrorClass.ERR_PROC_ABORTED, "the launcher of this job went away (" + e.getMessage() + ")", null);
            Thread killer = new Thread(() -> {
                try {
                    Thread.sleep(ORPHAN_HALT_MS);
                } catch (InterruptedException ignored) {
                    // exiting anyway
                }
                halt(1);
            });
            killer.setDaemon(true);
            killer.start();
        }
    }

    private static Rendezvous.Msg expect(DataInputStream in, int type) throws IOException {
        Rendezvous.Msg m = Rendezvous.read(in);
        if (m.type() == Rendezvous.ABORT) {
            throw new RmaException(ErrorClass.ERR_PROC_ABORTED, "job aborted during start-up: "
                    + new String(m.body(), StandardCharsets.UTF_8));
        }
        if (m.type() != type) {
            throw new IOException("rendezvous: expected message " + type + ", got " + m.type());
        }
        return m;
    }

    private static RankThreads.Body body(Rendezvous.Spec spec) throws Exception {
        if (spec.body() != null) {
            Object o = Rendezvous.deserialize(spec.body());
            Jrma.RankMain main = (Jrma.RankMain) o;
            return main::run;
        }
        ClassLoader app = JvmHost.class.getClassLoader();
        try {
            Class.forName(spec.mainClass(), false, app);
        } catch (ClassNotFoundException e) {
            throw new RmaException(ErrorClass.ERR_ARG, "main class " + spec.mainClass() + " is not on the class path");
        }
        boolean isolated = Params.RANK_LOADERS.getChoice(spec.params(), "isolated", "shared")
                .equals("isolated");
        String[] args = spec.args();
        return (Comm world) -> {
            ClassLoader loader = isolated ? new RankClassLoader(world.rank(), app) : app;
            Thread.currentThread().setContextClassLoader(loader);
            Method m = Class.forName(spec.mainClass(), true, loader).getMethod("main", String[].class);
            if (!Modifier.isStatic(m.getModifiers())) {
                throw new RmaException(ErrorClass.ERR_ARG, spec.mainClass() + ".main(String[]) is not static");
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

    private static Rendezvous.RankDone done(int rank, int code, boolean secondary, Throwable t) {
        if (t == null) {
            return new Rendezvous.RankDone(rank, 0, false, null, null, null);
        }
        if (t instanceof Jrma.AbortException a) {
            // a deliberate MPI_Abort: its message is the whole story, as mpirun's banner (no stack trace)
            String m = a.getMessage();
            String prefix = ErrorClass.ERR_PROC_ABORTED.name() + ": ";
            return new Rendezvous.RankDone(rank, code, secondary, m.startsWith(prefix) ? m.substring(prefix.length()) : m,
                    null, null);
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

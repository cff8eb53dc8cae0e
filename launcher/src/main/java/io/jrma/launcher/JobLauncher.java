package io.jrma.launcher;

import static io.jrma.launcher.JobOutcome.P_ABORT;
import static io.jrma.launcher.JobOutcome.P_JVM;
import static io.jrma.launcher.JobOutcome.P_TIMEOUT;

import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.JvmFlags;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import io.jrma.core.config.Params;
import io.jrma.spi.Components;
import io.jrma.spi.TransportProvider;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Starts a job whose ranks are spread over several JVMs of this host and watches it to the end: spawns the
 * JVMs ({@link JvmHost}) with the library's JVM flags, hands each the per-job secret on its stdin, acts as the
 * rendezvous (job layout and IO agent addresses), and collects how every rank ended. On the first failure —
 * a rank that throws or exits non-zero, a JVM that dies or is killed, a timeout — it tells every JVM to abort
 * (ranks blocked in the library fail fast), gives them a grace period, kills what is left and reports the
 * failure that caused it, naming the rank.
 *
 * <p>Used by {@code Jrma.job(n).jvms(j)} and by {@code jrmarun}. One instance per job; not reusable.
 */
public final class JobLauncher {
    /** What to run and how. */
    public static final class Options {
        public int nranks;
        public int njvms;
        /** JVM index of each world rank; null: consecutive blocks. */
        public int[] jvmOfRank;
        public Map<String, String> params = new HashMap<>();
        public String mainClass;
        public String[] args = new String[0];
        public byte[] body;
        public String classpath = System.getProperty("java.class.path");
        /** The program's part of {@link #classpath} (jrmarun's -cp), for messages; null if not given apart. */
        public String userClasspath;
        /** Whether this process's stdin goes to JVM 0 (rank 0), as mpirun forwards it; else the JVMs read EOF. */
        public boolean forwardStdin;
        public String javaCommand = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        public List<String> jvmArgs = new ArrayList<>();
        public Map<String, String> env = new LinkedHashMap<>();
        public boolean tagOutput;
        /** True: the JVMs write to this process's stdout/stderr directly; false: lines are copied to System.out/err. */
        public boolean inheritOutput;
        public long timeoutMs;
        public long graceMs = 3_000;
        /** Where the launcher writes its own diagnostics (failures, teardown); null: nowhere. */
        public PrintStream diagnostics = System.err;
        /**
         * On JDK 17: start the JVMs with {@link JvmFlags#JDK17_LINKER} (system calls through the JDK's incubating
         * linker). The JVMs get it anyway when this one runs with it ({@link JvmFlags#current}).
         */
        public boolean jdkLinker;
        /** Keep the JVMs after a clean job and reuse them for the next job with the same command line. */
        public boolean reuseJvms;
        /**
         * The host of each JVM ({@code --host}, {@code --hostfile}) as the launch agent takes it; null, or a null
         * entry: this host, started directly.
         */
        public String[] hostOfJvm;
        /** The rsh-style command that starts a JVM on another host ({@code AGENT HOST COMMAND}). */
        public String launchAgent = RemoteStart.DEFAULT_AGENT;
        /** jrmarun's {@code --display-map}: the job map, printed before the job starts; null: not printed. */
        public String jobMap;
        /**
         * Whether a JVM of one rank runs the program's {@code main} on its main thread, started as
         * {@code java MAINCLASS} ({@link MainRankBootstrap}), as mpirun starts a process (jrmarun); false: every JVM
         * is a {@link JvmHost}.
         */
        public boolean rankOnMainThread;
        /** jrma's own class path on the other hosts ({@code --prefix DIR}: DIR/lib/*); null: the same as here. */
        public String remoteLibraryClasspath;
        /**
         * jrma's install directory on the other hosts ({@code --prefix DIR}), checked there before a JVM starts (a
         * missing DIR/lib is one line naming the host, not a class-loading error); null: none given.
         */
        public String remotePrefix;
    }

    /** How the job ended. */
    public static final class Result {
        public int exitCode;
        public int failedRank = -1;
        public String message;
        public Throwable cause;
        public String remoteTrace;

        public boolean ok() {
            return exitCode == 0 && message == null;
        }
    }

    /** A failure in another JVM whose exception could not travel here: its text and stack trace. */
    public static final class RemoteRankException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public RemoteRankException(String message, String trace) {
            super(message + (trace == null ? "" : "\n--- remote stack trace ---\n" + trace));
        }
    }

    /** The file name ending of a JDK 25+ ahead-of-time cache (bin/jrmarun makes one instead of a CDS archive). */
    static final String AOT_CACHE_SUFFIX = ".aot";
    /**
     * Tests only ({@code -Djrma.launcher.test.exitReportDelayMs}): how long the onExit callback waits before it
     * reports a JVM's end, as when the common pool that runs it is busy, so that the launcher's own look at the
     * ended JVMs comes first.
     */
    static final long EXIT_REPORT_DELAY_MS = Long.getLong("jrma.launcher.test.exitReportDelayMs", 0);

    /** How long JVMs started as {@link JvmHost} (and those that ended) may take to join the job. */
    static final long JOIN_TIMEOUT_MS = 60_000;

    /** How often the join loop looks at the JVMs that have not joined. */
    static final long ACCEPT_POLL_MS = 500;

    /** The exit code of a job that timed out (as timeout(1)'s). */
    static final int TIMEOUT_EXIT = 124;

    /** Sleeps {@code ms} (nothing if not positive); an interrupt ends the sleep and stays set. */
    static void sleepQuietly(long ms) {
        if (ms > 0) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private final Options o;
    private final JobLayout layout;
    private final LaunchedJvm[] workers;
    private final Process[] procs;
    private final DataOutputStream[] links;
    /** Hosts taken for unreachable (no clean-up is tried there). */
    private final Set<String> unreachable = ConcurrentHashMap.newKeySet();
    private final JobOutcome outcome;
    private final JobTeardown teardown;
    private final JvmSpawner spawner;

    private JobLauncher(Options o) {
        this.o = o;
        this.layout = new JobLayout(o);
        this.workers = new LaunchedJvm[o.njvms];
        this.procs = new Process[o.njvms];
        this.links = new DataOutputStream[o.njvms];
        this.outcome = new JobOutcome(o, layout, workers, procs, links);
        this.teardown = new JobTeardown(o, layout, outcome, workers, procs, unreachable, poolKey());
        this.spawner = new JvmSpawner(o, layout);
    }

    /** Runs the job to its end. */
    public static Result run(Options o) {
        if (o.nranks < 1 || o.njvms < 1 || o.njvms > o.nranks) {
            throw new RmaException(ErrorClass.ERR_ARG, "cannot run " + o.nranks + " ranks on " + o.njvms + " JVMs");
        }
        if (o.jvmOfRank == null) {
            o.jvmOfRank = blockMap(o.nranks, o.njvms);
        }
        if (o.njvms > 1) {
            // the shared-memory files of JVMs that died in earlier jobs (SIGKILL during a window's creation)
            for (TransportProvider p : Components.transportProviders()) {
                p.reclaimDead(o.params);
            }
        }
        return new JobLauncher(o).go();
    }

    /** Rank r lives in JVM r*J/n: consecutive blocks whose sizes differ by at most one. */
    public static int[] blockMap(int nranks, int njvms) {
        int[] m = new int[nranks];
        for (int r = 0; r < nranks; r++) {
            m[r] = (int) ((long) r * njvms / nranks);
        }
        return m;
    }

    /** {@code Jrma.job(n).jvms(j).run(main)}: ships the serialized body, throws if the job failed. */
    public static void runSerializable(int nranks, int jvms, Map<String, String> params, Duration timeout,
            Jrma.RankMain main) {
        Options o = new Options();
        o.nranks = nranks;
        o.njvms = jvms;
        o.params.putAll(params);
        o.params.remove(Params.JVMS.name());
        try {
            o.body = Rendezvous.serialize(main);
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_ARG, "a job over several JVMs ships the rank body to each of them,"
                    + " but it captures something not serializable: " + e.getMessage(), e);
        }
        o.timeoutMs = timeout != null ? timeout.toMillis() : Params.JOB_TIMEOUT_MS.getLong(params);
        o.diagnostics = null;
        o.reuseJvms = Params.JVMS_REUSE.get(params).equals("true");
        Result r = run(o);
        if (!r.ok()) {
            throw new Jrma.JobFailedException(r.failedRank, r.message, r.cause);
        }
    }

    private String poolKey() {
        return o.njvms + "|" + o.javaCommand + "|" + o.classpath + "|" + o.jvmArgs + "|" + o.jdkLinker + "|" + o.env
                + "|" + o.tagOutput + "|" + o.inheritOutput;
    }

    private Result go() {
        Thread hook = new Thread(teardown::killAll, "jrma-launcher-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            LaunchedJvm[] ws = o.reuseJvms ? JvmPool.take(poolKey()) : null;
            if (ws != null) {
                for (LaunchedJvm w : ws) {
                    adopt(w);
                }
            } else if (!spawnAll()) {
                return teardown.finish();
            }
            String jobId = Handshake.newJobId();
            boolean across = layout.acrossHosts();
            Rendezvous.Spec spec = new Rendezvous.Spec(jobId, Handshake.newSecret(), o.nranks, o.jvmOfRank,
                    new HashMap<>(o.params), o.mainClass, o.args, o.body, o.tagOutput, o.reuseJvms, across,
                    across ? Params.LAUNCHER_HEARTBEAT_MS.getLong(o.params) : 0,
                    across ? Params.LAUNCHER_SILENCE_MS.getLong(o.params) : 0);
            byte[] specBytes = Rendezvous.serialize(spec);
            for (int j = 0; j < o.njvms; j++) {
                Rendezvous.write(links[j], Rendezvous.SPEC, specBytes);
            }
            String[][] eps = new String[o.njvms][];
            for (int j = 0; j < o.njvms; j++) {
                eps[j] = (String[]) startupMessage(workers[j].in, j, Rendezvous.ENDPOINT).object();
            }
            for (int j = 0; j < o.njvms; j++) {
                Rendezvous.writeObject(links[j], Rendezvous.ENDPOINTS, eps);
            }
            for (int j = 0; j < o.njvms; j++) {
                startupMessage(workers[j].in, j, Rendezvous.READY);
            }
            for (int j = 0; j < o.njvms; j++) {
                workers[j].lastHeardMs = System.currentTimeMillis();
                Rendezvous.write(links[j], Rendezvous.GO, new byte[0]);
                final int jj = j;
                Thread t = new Thread(() -> listen(jj, workers[jj].in), "jrma-launcher-jvm-" + j);
                t.setDaemon(true);
                t.start();
            }
            if (across) {
                watchLiveness(spec.heartbeatMs(), spec.silenceMs());
            }
            StoppedJvms.watch(new StoppedJvms.Job() {
                @Override
                public Process process(int j) {
                    return layout.hostOf(j) == null ? procs[j] : null;
                }

                @Override
                public String describe(int j) {
                    return JobLauncher.this.describe(j);
                }

                @Override
                public boolean over() {
                    return outcome.failed() || outcome.ended();
                }

                @Override
                public void fail(int j, String message) {
                    outcome.fail(P_JVM, StoppedJvms.STOPPED_EXIT, layout.ranksOf(j).get(0), message, null, null);
                }
            }, o.njvms, o.params, o.diagnostics);
            outcome.waitForEnd();
            return teardown.finish();
        } catch (IOException e) {
            outcome.fail(P_JVM, 1, -1, "job start-up failed: " + e.getMessage(), e, null);
            return teardown.finish();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // shutting down: the hook runs
            }
        }
    }

    private void adopt(LaunchedJvm w) {
        workers[w.index] = w;
        procs[w.index] = w.process;
        links[w.index] = w.out;
        w.current = this;
    }

    /** Starts the JVMs and waits until each has joined over its link; false if start-up failed. */
    private boolean spawnAll() throws IOException {
        String linkId = Handshake.newJobId();
        String secret = Handshake.newSecret();
        String key = poolKey();
        RemoteStart.Listen where;
        try {
            where = layout.acrossHosts() ? RemoteStart.rendezvous(new LinkedHashSet<>(Arrays.stream(o.hostOfJvm)
                    .filter(h -> h != null).toList()), o.params) : null;
        } catch (IllegalArgumentException e) {
            outcome.fail(P_JVM, 1, -1, "cannot choose an address the job's hosts reach: " + e.getMessage(), null, null);
            return false;
        }
        InetAddress bind = where == null ? InetAddress.getLoopbackAddress() : where.bind();
        int handshakeMs;
        try {
            handshakeMs = handshakeTimeoutMs(o.params);
        } catch (RmaException e) {
            outcome.fail(P_JVM, 1, -1, e.getMessage(), e, null);
            return false;
        }
        // every JVM's handshake on a thread of its own, as it connects: one that is slow to answer (descheduled
        // on a loaded host) holds up no other
        try (RendezvousJoins rv = new RendezvousJoins(bind, linkId, secret, handshakeMs);
             SecretFile secrets = new SecretFile()) {
            for (int j = 0; j < o.njvms; j++) {
                String host = layout.hostOf(j);
                InetAddress told = where == null ? bind : where.forHost(host);
                Process proc;
                try {
                    proc = spawner.spawn(j, linkId, secret, told, rv.port(), secrets, handshakeMs);
                } catch (IOException e) {
                    if (host == null) {
                        throw e;
                    }
                    outcome.fail(P_JVM, 1, layout.ranksOf(j).get(0), "cannot start JVM " + j + " on host " + host
                            + " with the launch agent '" + o.launchAgent + "': " + e.getMessage(), null, null);
                    return false;
                }
                LaunchedJvm w = new LaunchedJvm(j, proc, key, host);
                adopt(w);
                if (host != null) {
                    spawner.pumpRemote(w);
                }
                w.process.onExit().thenAccept(p -> {
                    sleepQuietly(EXIT_REPORT_DELAY_MS);
                    // segment and ring files live unnamed once set up; a JVM that died during a set-up leaves some
                    if (w.host == null) {
                        reclaim(o.params, p.pid());
                    }
                    JobLauncher l = w.current;
                    if (l != null) {
                        l.outcome.jvmExited(w.index, p.exitValue());
                    }
                });
            }
            long start = System.currentTimeMillis();
            int joined = 0;
            while (joined + outcome.goneBeforeJoining() < o.njvms) {
                if (outcome.failed()) {
                    return false;
                }
                long now = System.currentTimeMillis();
                List<String> late = new ArrayList<>();
                for (int j = 0; j < o.njvms; j++) {
                    // a JVM of one rank joins when its program calls MPI.Init, however late, as under mpirun
                    if (workers[j].socket == null && (layout.mainRank(j) < 0 || !procs[j].isAlive())) {
                        late.add(describe(j));
                    }
                }
                if (now - start > JOIN_TIMEOUT_MS && !late.isEmpty()) {
                    outcome.fail(P_JVM, 1, -1, "only " + joined + " of " + o.njvms + " JVMs joined the job within "
                            + JOIN_TIMEOUT_MS / 1000 + " s; missing: " + String.join(", ", late)
                            + (rv.refused() == 0 ? "" : "; " + rv.refused() + " connection(s) to the rendezvous were"
                            + " refused, the last one: " + rv.lastRefusal()), null, null);
                    return false;
                }
                if (o.timeoutMs > 0 && now - start > o.timeoutMs) {
                    outcome.fail(P_TIMEOUT, TIMEOUT_EXIT, -1, "job timed out after " + o.timeoutMs + " ms, before"
                            + " every JVM joined (a program that has not called MPI.Init or Jrma.world())", null, null);
                    return false;
                }
                RendezvousJoins.Joined next;
                try {
                    next = rv.next(ACCEPT_POLL_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    outcome.fail(P_TIMEOUT, 1, -1, "the launcher was interrupted during start-up", null, null);
                    return false;
                }
                if (next == null) {
                    continue;
                }
                int j = next.jvm();
                Socket s = next.socket();
                if (j < 0 || j >= o.njvms || workers[j].socket != null) {
                    s.close(); // proved the secret but claims no JVM still missing: not one of ours now
                    continue;
                }
                LaunchedJvm w = workers[j];
                w.socket = s;
                w.joined();
                w.in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
                w.out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
                links[j] = w.out;
                joined++;
            }
            if (joined == 0) {
                return false; // every program ended without joining (none called MPI.Init): nothing failed
            }
            for (int j = 0; j < o.njvms; j++) {
                if (workers[j].socket == null) {
                    outcome.fail(P_JVM, 1, layout.ranksOf(j).get(0), describe(j) + " ended without joining the job:"
                            + " its program returned without calling MPI.Init or Jrma.world(), while the other ranks"
                            + " did", null, null);
                    return false;
                }
            }
            return true;
        }
    }


    private Rendezvous.Msg startupMessage(DataInputStream in, int j, int type) throws IOException {
        Rendezvous.Msg m;
        try {
            m = Rendezvous.read(in);
        } catch (IOException e) {
            throw new IOException("JVM " + j + " left during start-up (" + e.getMessage() + ")", e);
        }
        if (m.type() == Rendezvous.ABORT) {
            throw new IOException("JVM " + j + " failed during start-up: "
                    + new String(m.body(), StandardCharsets.UTF_8));
        }
        if (m.type() != type) {
            throw new IOException("JVM " + j + " sent message " + m.type() + " during start-up, expected " + type);
        }
        return m;
    }


    /**
     * {@link Params#LAUNCHER_HANDSHAKE_TIMEOUT_MS} for a job of {@code params}: a positive number of milliseconds.
     *
     * @throws RmaException {@code ERR_ARG} for anything else
     */
    static int handshakeTimeoutMs(Map<String, String> params) {
        long ms = Params.LAUNCHER_HANDSHAKE_TIMEOUT_MS.getLong(params);
        if (ms <= 0 || ms > Integer.MAX_VALUE) {
            throw new RmaException(ErrorClass.ERR_ARG, Params.LAUNCHER_HANDSHAKE_TIMEOUT_MS.name() + "=" + ms
                    + " is no time limit: give a positive number of milliseconds up to " + Integer.MAX_VALUE);
        }
        return (int) ms;
    }

    /** How messages name JVM {@code j}: its pid here, or its host. */
    private String describe(int j) {
        String host = layout.hostOf(j);
        return "JVM " + j + (host == null ? " (pid " + procs[j].pid() : " on host " + host + " (") + ", ranks "
                + layout.ranksOf(j) + ")";
    }

    /**
     * For a job across hosts: sends every JVM a heartbeat each {@code heartbeatMs} and aborts the job when a JVM of
     * another host has not been heard from for {@code silenceMs} (its host died or its link went down: no connection
     * is reset then, and nothing else would notice for minutes). The JVMs there, cut off, end themselves likewise.
     */
    private void watchLiveness(long heartbeatMs, long silenceMs) {
        Thread t = new Thread(() -> {
            while (!outcome.failed() && !outcome.ended()) {
                for (int j = 0; j < o.njvms; j++) {
                    try {
                        Rendezvous.write(links[j], Rendezvous.HEARTBEAT, new byte[0]);
                    } catch (IOException ignored) {
                        // that JVM is gone: its end is reported by jvmExited
                    }
                }
                long now = System.currentTimeMillis();
                for (int j = 0; j < o.njvms; j++) {
                    LaunchedJvm w = workers[j];
                    if (w.host != null && w.process.isAlive() && now - w.lastHeardMs > silenceMs
                            && !outcome.jvmDone(j)) {
                        List<String> jvms = new ArrayList<>();
                        for (int k = 0; k < o.njvms; k++) {
                            if (w.host.equals(layout.hostOf(k))) {
                                jvms.add(String.valueOf(k));
                            }
                        }
                        unreachable.add(w.host);
                        outcome.fail(P_JVM, 1, layout.ranksOf(j).get(0), "host " + w.host + " (JVMs "
                                + String.join(",", jvms) + ", ranks " + layout.ranksOn(w.host)
                                + ") is unreachable: nothing heard from JVM " + j
                                + " for " + (now - w.lastHeardMs) + " ms (" + Params.LAUNCHER_SILENCE_MS.name() + ")",
                                null, null);
                        break;
                    }
                }
                sleepQuietly(heartbeatMs);
            }
        }, "jrma-launcher-liveness");
        t.setDaemon(true);
        t.start();
    }


    private void listen(int j, DataInputStream in) {
        try {
            while (true) {
                Rendezvous.Msg m = Rendezvous.read(in);
                workers[j].lastHeardMs = System.currentTimeMillis();
                if (m.type() == Rendezvous.RANK_DONE) {
                    outcome.rankEnded((Rendezvous.RankDone) m.object());
                } else if (m.type() == Rendezvous.ABORT) {
                    outcome.fail(P_ABORT, 1, -1, new String(m.body(), StandardCharsets.UTF_8), null, null);
                } else if (m.type() == Rendezvous.EXITING) {
                    outcome.exitingOnOwn(j);
                } else if (m.type() == Rendezvous.IDLE) {
                    outcome.idle(j);
                    return; // a pooled JVM is ready for the next job: the next launcher reads its link
                }
            }
        } catch (IOException e) {
            // the JVM closed its link: its exit is reported by jvmExited
        }
        outcome.linkClosed(j);
    }


    /**
     * Has every component remove what JVM {@code pid} left behind (segment and ring files live unnamed once set up;
     * a JVM that died during a set-up leaves some).
     */
    static void reclaim(Map<String, String> params, long pid) {
        for (TransportProvider p : Components.transportProviders()) {
            p.reclaim(params, pid);
        }
    }
}

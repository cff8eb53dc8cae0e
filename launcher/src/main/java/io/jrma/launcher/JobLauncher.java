package io.jrma.launcher;

import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.JvmFlags;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import io.jrma.core.runtime.Params;
import io.jrma.spi.Components;
import io.jrma.spi.TransportProvider;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
import java.util.concurrent.TimeUnit;

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

    /** How long a failed agent's stderr may take to reach its reader after the agent ended. */
    static final long STDERR_DRAIN_MS = 200;

    /** How long JVMs started as {@link JvmHost} (and those that ended) may take to join the job. */
    static final long JOIN_TIMEOUT_MS = 60_000;

    /** How often the join loop looks at the JVMs that have not joined. */
    static final long ACCEPT_POLL_MS = 500;

    /** The exit code of a job that timed out (as timeout(1)'s). */
    static final int TIMEOUT_EXIT = 124;

    /** ssh's exit code when the connection broke or the remote command was killed by a signal. */
    static final int REMOTE_LOST = 255;

    /** How long a peer's report of a lost connection waits for the lost JVM's exit status (bounded). */
    static final long LOST_CONNECTION_WAIT_MS = 2_000;

    private static void sleepQuietly(long ms) {
        if (ms > 0) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static final int P_ABORT = 1;
    private static final int P_TIMEOUT = 2;
    private static final int P_JVM = 3;
    private static final int P_RANK = 4;

    private final Options o;
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
    /** Hosts taken for unreachable (no clean-up is tried there). */
    private final Set<String> unreachable = ConcurrentHashMap.newKeySet();
    private int failurePriority;
    private final Result result = new Result();
    private boolean tearingDown;
    private boolean allExited;

    private JobLauncher(Options o) {
        this.o = o;
        this.workers = new LaunchedJvm[o.njvms];
        this.procs = new Process[o.njvms];
        this.idle = new boolean[o.njvms];
        this.links = new DataOutputStream[o.njvms];
        this.rankDone = new boolean[o.nranks];
        this.linkClosed = new boolean[o.njvms];
        this.killedHere = new boolean[o.njvms];
        this.exitingOnOwn = new boolean[o.njvms];
        this.endedUnjoined = new boolean[o.njvms];
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
        Thread hook = new Thread(this::killAll, "jrma-launcher-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            LaunchedJvm[] ws = o.reuseJvms ? JvmPool.take(poolKey()) : null;
            if (ws != null) {
                for (LaunchedJvm w : ws) {
                    adopt(w);
                }
            } else if (!spawnAll()) {
                return finish();
            }
            String jobId = Handshake.newJobId();
            boolean across = acrossHosts();
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
                    return hostOf(j) == null ? procs[j] : null;
                }

                @Override
                public String describe(int j) {
                    return JobLauncher.this.describe(j);
                }

                @Override
                public boolean over() {
                    return failed() || ended();
                }

                @Override
                public void fail(int j, String message) {
                    JobLauncher.this.fail(P_JVM, StoppedJvms.STOPPED_EXIT, ranksOf(j).get(0), message, null, null);
                }
            }, o.njvms, o.params, o.diagnostics);
            waitForEnd();
            return finish();
        } catch (IOException e) {
            fail(P_JVM, 1, -1, "job start-up failed: " + e.getMessage(), e, null);
            return finish();
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

    /** Whether some JVM of the job runs on another host. */
    private boolean acrossHosts() {
        return o.hostOfJvm != null && Arrays.stream(o.hostOfJvm).anyMatch(h -> h != null);
    }

    /** The host JVM {@code j} runs on, or null for this host. */
    private String hostOf(int j) {
        return o.hostOfJvm == null ? null : o.hostOfJvm[j];
    }

    /** Starts the JVMs and waits until each has joined over its link; false if start-up failed. */
    private boolean spawnAll() throws IOException {
        String linkId = Handshake.newJobId();
        String secret = Handshake.newSecret();
        String key = poolKey();
        RemoteStart.Listen where;
        try {
            where = acrossHosts() ? RemoteStart.rendezvous(new LinkedHashSet<>(Arrays.stream(o.hostOfJvm)
                    .filter(h -> h != null).toList()), o.params) : null;
        } catch (IllegalArgumentException e) {
            fail(P_JVM, 1, -1, "cannot choose an address the job's hosts reach: " + e.getMessage(), null, null);
            return false;
        }
        InetAddress bind = where == null ? InetAddress.getLoopbackAddress() : where.bind();
        int handshakeMs;
        try {
            handshakeMs = handshakeTimeoutMs(o.params);
        } catch (RmaException e) {
            fail(P_JVM, 1, -1, e.getMessage(), e, null);
            return false;
        }
        // every JVM's handshake on a thread of its own, as it connects: one that is slow to answer (descheduled
        // on a loaded host) holds up no other
        try (RendezvousJoins rv = new RendezvousJoins(bind, linkId, secret, handshakeMs);
             SecretFile secrets = new SecretFile()) {
            for (int j = 0; j < o.njvms; j++) {
                String host = hostOf(j);
                InetAddress told = where == null ? bind : where.forHost(host);
                Process proc;
                try {
                    proc = spawn(j, linkId, secret, told, rv.port(), secrets, handshakeMs);
                } catch (IOException e) {
                    if (host == null) {
                        throw e;
                    }
                    fail(P_JVM, 1, ranksOf(j).get(0), "cannot start JVM " + j + " on host " + host
                            + " with the launch agent '" + o.launchAgent + "': " + e.getMessage(), null, null);
                    return false;
                }
                LaunchedJvm w = new LaunchedJvm(j, proc, key, host);
                adopt(w);
                if (host != null) {
                    pumpRemote(w);
                }
                w.process.onExit().thenAccept(p -> {
                    sleepQuietly(EXIT_REPORT_DELAY_MS);
                    // segment and ring files live unnamed once set up; a JVM that died during a set-up leaves some
                    if (w.host == null) {
                        reclaim(o.params, p.pid());
                    }
                    JobLauncher l = w.current;
                    if (l != null) {
                        l.jvmExited(w.index, p.exitValue());
                    }
                });
            }
            long start = System.currentTimeMillis();
            int joined = 0;
            while (joined + goneBeforeJoining() < o.njvms) {
                if (failed()) {
                    return false;
                }
                long now = System.currentTimeMillis();
                List<String> late = new ArrayList<>();
                for (int j = 0; j < o.njvms; j++) {
                    // a JVM of one rank joins when its program calls MPI.Init, however late, as under mpirun
                    if (workers[j].socket == null && (mainRank(j) < 0 || !procs[j].isAlive())) {
                        late.add(describe(j));
                    }
                }
                if (now - start > JOIN_TIMEOUT_MS && !late.isEmpty()) {
                    fail(P_JVM, 1, -1, "only " + joined + " of " + o.njvms + " JVMs joined the job within "
                            + JOIN_TIMEOUT_MS / 1000 + " s; missing: " + String.join(", ", late)
                            + (rv.refused() == 0 ? "" : "; " + rv.refused() + " connection(s) to the rendezvous were"
                            + " refused, the last one: " + rv.lastRefusal()), null, null);
                    return false;
                }
                if (o.timeoutMs > 0 && now - start > o.timeoutMs) {
                    fail(P_TIMEOUT, TIMEOUT_EXIT, -1, "job timed out after " + o.timeoutMs + " ms, before every JVM"
                            + " joined (a program that has not called MPI.Init or Jrma.world())", null, null);
                    return false;
                }
                RendezvousJoins.Joined next;
                try {
                    next = rv.next(ACCEPT_POLL_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    fail(P_TIMEOUT, 1, -1, "the launcher was interrupted during start-up", null, null);
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
                    fail(P_JVM, 1, ranksOf(j).get(0), describe(j) + " ended without joining the job: its program"
                            + " returned without calling MPI.Init or Jrma.world(), while the other ranks did", null,
                            null);
                    return false;
                }
            }
            return true;
        }
    }

    /** How many JVMs of one rank ended cleanly without joining (a program that never called MPI.Init). */
    private synchronized int goneBeforeJoining() {
        int n = 0;
        for (boolean b : endedUnjoined) {
            n += b ? 1 : 0;
        }
        return n;
    }

    /**
     * The rank JVM {@code j} runs on its main thread, as the program's {@code main} ({@link MainRankBootstrap}), or
     * -1 when it is a {@link JvmHost} (several ranks as threads, or a shipped rank body).
     */
    private int mainRank(int j) {
        if (o.body != null || o.mainClass == null || !o.rankOnMainThread) {
            return -1;
        }
        List<Integer> ranks = ranksOf(j);
        return ranks.size() == 1 ? ranks.get(0) : -1;
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

    private Process spawn(int j, String jobId, String secret, InetAddress rendezvous, int port, SecretFile secrets,
                          int handshakeMs)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(o.javaCommand);
        String flags = o.jdkLinker ? JvmFlags.withJdkLinker(Runtime.version().feature()) : JvmFlags.current();
        cmd.addAll(Arrays.asList(flags.split(" ")));
        cmd.add("-Dslf4j.internal.verbosity=ERROR"); // Chronicle's "no SLF4J provider" notice, once per JVM
        String archive = Params.LAUNCHER_CDS_ARCHIVE.get(o.params);
        if (!archive.isEmpty() && hostOf(j) == null && Files.isRegularFile(Path.of(archive))) {
            // jrma's classes mapped, not loaded one by one (JDK 25+: an ahead-of-time cache, with the JIT's profiles)
            cmd.add((archive.endsWith(AOT_CACHE_SUFFIX) ? "-XX:AOTCache=" : "-XX:SharedArchiveFile=") + archive);
        }
        for (String k : System.getProperties().stringPropertyNames()) {
            if (k.startsWith("jrma.")) { // run-time parameters given to the launching JVM apply to the whole job
                cmd.add("-D" + k + "=" + System.getProperty(k));
            }
        }
        cmd.addAll(o.jvmArgs);
        cmd.add("-cp");
        String host = hostOf(j);
        cmd.add(host != null && o.remoteLibraryClasspath != null ? o.remoteLibraryClasspath
                + (o.userClasspath == null ? "" : File.pathSeparator + o.userClasspath) : o.classpath);
        int mainRank = mainRank(j);
        Map<String, String> env = new LinkedHashMap<>(o.env);
        if (mainRank >= 0) { // as mpirun starts it: the program's main on the main thread, joining at MPI.Init
            cmd.add(o.mainClass);
            cmd.addAll(Arrays.asList(o.args));
            env.put(MainRankBootstrap.ENV_MAIN_RANK, String.valueOf(mainRank));
        } else {
            cmd.add(JvmHost.class.getName());
        }
        env.put(LauncherLink.ENV_RENDEZVOUS, hostPort(rendezvous, port));
        env.put(LauncherLink.ENV_JVM, String.valueOf(j));
        env.put(LauncherLink.ENV_LINK_ID, jobId);
        // the JVM's side of the handshake waits as long as this side (a --param of jrmarun is not in its properties)
        env.put(Params.LAUNCHER_HANDSHAKE_TIMEOUT_MS.envName(), String.valueOf(handshakeMs));
        ProcessBuilder pb;
        if (host == null) {
            env.put(LauncherLink.ENV_SECRET_FILE, secrets.write(j, secret).toString());
            pb = new ProcessBuilder(cmd);
            pb.environment().putAll(env);
        } else {
            // nothing secret in this command line: the secret goes on the agent's stdin, below, and the remote shell
            // puts it in a file of its own
            pb = new ProcessBuilder(RemoteStart.command(o.launchAgent, host, System.getProperty("user.dir"), env, cmd));
        }
        // one rank per JVM: jrmarun tags its lines, as mpirun does (what the program prints before MPI.Init too)
        String tag = o.tagOutput && mainRank >= 0 ? "[1," + mainRank + "]" : null;
        if (o.inheritOutput && host == null && tag == null) {
            pb.redirectOutput(ProcessBuilder.Redirect.INHERIT).redirectError(ProcessBuilder.Redirect.INHERIT);
        }
        Process p = pb.start();
        OutputStream in = p.getOutputStream();
        if (host != null) {
            try {
                in.write((secret + "\n").getBytes(StandardCharsets.US_ASCII));
                in.flush();
            } catch (IOException e) {
                // the agent ended at once (it could not reach the host, or is no launch agent): its exit says so
            }
        }
        if (j == 0 && o.forwardStdin) {
            // JVM 0's stdin is jrmarun's (after the secret's line, for the agent's shell): rank 0 reads what the user
            // types or pipes in
            Thread t = new Thread(() -> {
                try (in) {
                    System.in.transferTo(in);
                } catch (IOException ignored) {
                    // the JVM is gone, or stopped reading
                }
            }, "jrma-stdin");
            t.setDaemon(true);
            t.start();
        } else {
            try {
                in.close();
            } catch (IOException e) {
                if (host == null) {
                    throw e;
                }
                // as above: the agent is gone
            }
        }
        if (host == null && (!o.inheritOutput || tag != null)) {
            OutputPump.lines(p.getInputStream(), System.out, "jrma-out-" + j, tag == null ? null : tag + "<stdout>:");
            OutputPump.lines(p.getErrorStream(), System.err, "jrma-err-" + j, tag == null ? null : tag + "<stderr>:");
        }
        return p;
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

    /** {@code host:port}, an IPv6 address in brackets. */
    private static String hostPort(InetAddress a, int port) {
        String h = a.getHostAddress();
        return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + port;
    }

    /**
     * Copies the output of a JVM on another host (it comes through the agent) line by line to this process's, and
     * remembers the last error line: what the agent said when it could not start the JVM.
     */
    private void pumpRemote(LaunchedJvm w) {
        String tag = o.tagOutput && mainRank(w.index) >= 0 ? "[1," + mainRank(w.index) + "]" : null;
        OutputPump.lines(w.process.getInputStream(), System.out, "jrma-out-" + w.index,
                tag == null ? null : tag + "<stdout>:");
        w.errorPrefix = tag == null ? "" : tag + "<stderr>:";
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(w.process.getErrorStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    w.errorLine(line);
                }
            } catch (IOException ignored) {
                // the agent is gone
            }
        }, "jrma-err-" + w.index);
        t.setDaemon(true);
        t.start();
    }

    /** How messages name JVM {@code j}: its pid here, or its host. */
    private String describe(int j) {
        String host = hostOf(j);
        return "JVM " + j + (host == null ? " (pid " + procs[j].pid() : " on host " + host + " (") + ", ranks "
                + ranksOf(j) + ")";
    }

    /**
     * For a job across hosts: sends every JVM a heartbeat each {@code heartbeatMs} and aborts the job when a JVM of
     * another host has not been heard from for {@code silenceMs} (its host died or its link went down: no connection
     * is reset then, and nothing else would notice for minutes). The JVMs there, cut off, end themselves likewise.
     */
    private void watchLiveness(long heartbeatMs, long silenceMs) {
        Thread t = new Thread(() -> {
            while (!failed() && !ended()) {
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
                    if (w.host != null && w.process.isAlive() && now - w.lastHeardMs > silenceMs && !jvmDone(j)) {
                        List<String> jvms = new ArrayList<>();
                        for (int k = 0; k < o.njvms; k++) {
                            if (w.host.equals(hostOf(k))) {
                                jvms.add(String.valueOf(k));
                            }
                        }
                        unreachable.add(w.host);
                        fail(P_JVM, 1, ranksOf(j).get(0), "host " + w.host + " (JVMs " + String.join(",", jvms)
                                + ", ranks " + ranksOn(w.host) + ") is unreachable: nothing heard from JVM " + j
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

    /** The ranks of every JVM on {@code host}. */
    private List<Integer> ranksOn(String host) {
        List<Integer> l = new ArrayList<>();
        for (int r = 0; r < o.nranks; r++) {
            if (host.equals(hostOf(o.jvmOfRank[r]))) {
                l.add(r);
            }
        }
        return l;
    }

    /** Whether every rank of JVM {@code j} has ended (its JVM may then be quiet while it closes). */
    private synchronized boolean jvmDone(int j) {
        for (int r = 0; r < o.nranks; r++) {
            if (o.jvmOfRank[r] == j && !rankDone[r]) {
                return false;
            }
        }
        return true;
    }

    private synchronized boolean ended() {
        return allExited || ranksDone == o.nranks;
    }

    private void listen(int j, DataInputStream in) {
        try {
            while (true) {
                Rendezvous.Msg m = Rendezvous.read(in);
                workers[j].lastHeardMs = System.currentTimeMillis();
                if (m.type() == Rendezvous.RANK_DONE) {
                    rankEnded((Rendezvous.RankDone) m.object());
                } else if (m.type() == Rendezvous.ABORT) {
                    fail(P_ABORT, 1, -1, new String(m.body(), StandardCharsets.UTF_8), null, null);
                } else if (m.type() == Rendezvous.EXITING) {
                    synchronized (this) {
                        exitingOnOwn[j] = true;
                    }
                } else if (m.type() == Rendezvous.IDLE) {
                    synchronized (this) {
                        idle[j] = true;
                        notifyAll();
                    }
                    return; // a pooled JVM is ready for the next job: the next launcher reads its link
                }
            }
        } catch (IOException e) {
            // the JVM closed its link: its exit is reported by jvmExited
        }
        synchronized (this) {
            linkClosed[j] = true;
            notifyAll();
        }
    }

    private synchronized void rankEnded(Rendezvous.RankDone d) {
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
                cause = new RemoteRankException(d.message(), d.trace());
            }
            // a report without a trace is a deliberate abort, whose message names the rank and the code
            String what = d.trace() == null && d.throwable() == null ? d.message()
                    : "rank " + d.rank() + " failed: " + d.message();
            fail(d.secondary() ? P_ABORT : P_RANK, d.code(), d.rank(), what, cause, d.trace());
        }
        notifyAll();
    }

    private synchronized void jvmExited(int j, int code) {
        if (idle[j]) {
            return;
        }
        long until = System.currentTimeMillis() + 1_000;
        while (links[j] != null && !linkClosed[j] && System.currentTimeMillis() < until) {
            try {
                wait(50); // let the link's last messages (ranks that ended) be read first
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
        String host = hostOf(j);
        if (links[j] == null && code == 0 && mainRank(j) >= 0 && !tearingDown) {
            // a program that ended without calling MPI.Init: fine if none did (the join loop decides)
            endedUnjoined[j] = true;
            notifyAll();
            return;
        }
        String how = code > 128 ? "was killed by signal " + (code - 128) : "exited with code " + code;
        if (host != null) {
            if (links[j] == null && !tearingDown) { // it never joined: the agent could not start it
                String said = null;
                if (workers[j] != null) {
                    sleepQuietly(STDERR_DRAIN_MS); // the agent's last words may still be in its pipe
                    workers[j].startFailed();
                    said = workers[j].lastErrorLine;
                }
                fail(P_JVM, code == 0 ? 1 : code, ranksOf(j).get(0), "cannot start JVM " + j + " on host " + host
                        + ": the launch agent '" + o.launchAgent + "' exited with code " + code
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
        boolean killedOutside = code > 128 && !killedHere[j];
        // Likewise a JVM that exited on its own with a non-zero code (a rank's System.exit(3)) while the teardown
        // had begun only because its peers lost their connections to it.
        boolean ownExit = exitingOnOwn[j] && code != 0 && !killedHere[j] && failurePriority < P_JVM;
        if (!unfinished.isEmpty() && (!tearingDown || killedOutside || ownExit)) {
            String who = host == null ? "JVM " + j + " (pid " + procs[j].pid() + ", ranks " + unfinished + ")"
                    : "JVM " + j + " on host " + host + " (ranks " + unfinished + "; the host runs ranks "
                    + ranksOn(host) + ")";
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

    /** Records a failure (the most telling one wins: a rank's own failure over a dead JVM over an abort). */
    private synchronized void fail(int priority, int code, int rank, String message, Throwable cause, String trace) {
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

    private synchronized boolean failed() {
        return tearingDown;
    }

    private synchronized void waitForEnd() {
        long deadline = o.timeoutMs > 0 ? System.currentTimeMillis() + o.timeoutMs : Long.MAX_VALUE;
        try {
            while (ranksDone < o.nranks && !tearingDown && !allExited) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    int[] stopped = stoppedJvm();
                    String why = stopped[0] < 0 ? "" : "; JVM " + stopped[0] + " (pid " + procs[stopped[0]].pid()
                            + ", ranks " + ranksOf(stopped[0]) + ") is stopped (SIGSTOP or SIGTSTP), and its peers"
                            + " waited for it";
                    fail(P_TIMEOUT, TIMEOUT_EXIT, stopped[1], "job timed out after " + o.timeoutMs + " ms" + why, null,
                            null);
                    break;
                }
                wait(Math.min(left, 1_000));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(P_TIMEOUT, 130, -1, "the launcher was interrupted", null, null);
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
            if (p != null && hostOf(j) == null && p.isAlive() && StoppedJvms.isStopped(p.pid())) {
                return new int[] {j, ranksOf(j).get(0)};
            }
        }
        return new int[] {-1, -1};
    }

    private List<Integer> ranksOf(int jvm) {
        List<Integer> l = new ArrayList<>();
        for (int r = 0; r < o.nranks; r++) {
            if (o.jvmOfRank[r] == jvm) {
                l.add(r);
            }
        }
        return l;
    }

    private Result finish() {
        long grace;
        synchronized (this) {
            grace = tearingDown ? o.graceMs : 10_000;
            if (o.reuseJvms && !tearingDown) {
                long until = System.currentTimeMillis() + 10_000;
                while (!allIdle() && System.currentTimeMillis() < until) {
                    try {
                        wait(100);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                if (allIdle() && !tearingDown) {
                    for (LaunchedJvm w : workers) {
                        w.current = null;
                    }
                    if (JvmPool.keep(poolKey(), workers)) {
                        return result;
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
                markKilledHere(p);
                p.destroyForcibly();
            }
        }
        reportEnded(); // those killed just now are not causes (killedHere)
        killAll();
        reclaimShm();
        RemoteHosts.clean(workers, unreachable, o);
        synchronized (this) {
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
        while (priority() == P_ABORT && Arrays.stream(procs).anyMatch(p -> p != null && p.isAlive())
                && System.currentTimeMillis() < until) {
            sleepQuietly(10);
            reportEnded();
        }
    }

    private synchronized int priority() {
        return failurePriority;
    }

    /** Delivers the exit codes of ended JVMs the onExit callbacks may not have delivered yet. */
    private void reportEnded() {
        for (int j = 0; j < procs.length; j++) {
            Process p = procs[j];
            if (p != null && !p.isAlive() && p.exitValue() != 0 && !idle[j]) {
                jvmExited(j, p.exitValue());
            }
        }
    }

    private synchronized void markKilledHere(Process p) {
        for (int j = 0; j < procs.length; j++) {
            if (procs[j] == p) {
                killedHere[j] = true;
            }
        }
    }

    /** Removes the /dev/shm files of this job's JVMs that are gone (killed JVMs run no shutdown hook). */
    private void reclaimShm() {
        for (int j = 0; j < procs.length; j++) {
            Process p = procs[j];
            if (p != null && hostOf(j) == null && !p.isAlive()) {
                reclaim(o.params, p.pid());
            }
        }
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

    private boolean allIdle() {
        for (boolean b : idle) {
            if (!b) {
                return false;
            }
        }
        return true;
    }

    private void killAll() {
        if (JvmPool.holds(workers)) {
            return; // kept for the next job
        }
        for (int j = 0; j < procs.length; j++) {
            Process p = procs[j];
            if (p != null && p.isAlive()) {
                markKilledHere(p);
                if (workers[j] != null && workers[j].host != null) {
                    Rendezvous.closeQuietly(workers[j].socket); // the JVM there ends once its link is gone
                }
                p.destroyForcibly();
                try {
                    p.waitFor(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}

package io.jrma.launcher;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import io.jrma.core.config.Params;
import io.jrma.core.op.ElementLocks;
import io.jrma.core.os.HostId;
import io.jrma.core.os.LocalAddresses;
import io.jrma.core.runtime.Job;
import io.jrma.spi.Components;
import io.jrma.spi.TransportProvider;
import io.jrma.spi.transport.Transport;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A JVM's end of its link to the jrmarun that started it (the {@link Rendezvous} messages over one authenticated
 * connection), shared by the two kinds of JVM a launcher starts: {@link JvmHost} (ranks as threads) and
 * {@link MainRankBootstrap} (one rank, the program's {@code main} on the JVM's main thread).
 *
 * <p>Environment: {@code JRMA_RENDEZVOUS} (host:port), {@code JRMA_JVM} (this JVM's index), {@code JRMA_JOB_ID} (the
 * link's id, not secret) and {@code JRMA_SECRET_FILE}: a file private to the user ({@link SecretFile}) holding the
 * link's secret, which is read once and removed; the secret is never on a command line nor in the environment, and
 * stdin stays the program's (rank 0's is jrmarun's).
 *
 * <p>After {@link #connect}, one thread runs the start-up ({@link #awaitSpec}, {@link #openJob},
 * {@link #openMesh}, {@link #ready}); then a reader thread ({@link #listen}) takes the launcher's ABORT and END, and
 * any thread may report ({@link #rankDone}, {@link #exiting}); writes are serialized by {@link Rendezvous#write}.
 */
final class LauncherLink {
    /** The launcher's rendezvous address, {@code host:port}. */
    static final String ENV_RENDEZVOUS = "JRMA_RENDEZVOUS";
    /** This JVM's index in the job. */
    static final String ENV_JVM = "JRMA_JVM";
    /** The id of the link to the launcher (not secret: the secret proves it). */
    static final String ENV_LINK_ID = "JRMA_JOB_ID";
    /** The file holding the link's secret (read once, then removed). */
    static final String ENV_SECRET_FILE = "JRMA_SECRET_FILE";
    /** How long a JVM whose launcher went away lets its ranks fail before it halts. */
    static final long ORPHAN_HALT_MS = 3_000;

    /** The parameters of the job running here (where its shared-memory files are), for the clean-up at a halt. */
    private static volatile Map<String, String> jobParams = Map.of();

    final int jvm;
    /** The launcher's host as this JVM reaches it (the route to it picks this host's address in a job across hosts). */
    private final String launcherHost;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final Object state = new Object();
    /** Set by the launcher's END: every rank of the job has ended. Guarded by {@link #state}. */
    private boolean ended;
    /** Set when the link broke or the launcher aborted the job. Guarded by {@link #state}. */
    private boolean broken;
    /** Whether the launcher aborted the job before it started (it failed to start elsewhere). */
    private volatile boolean startAborted;
    /** When the launcher was last heard from (ms). Guarded by {@link #state}. */
    private long lastHeardMs = System.currentTimeMillis();

    private LauncherLink(int jvm, String launcherHost, DataInputStream in, DataOutputStream out) {
        this.jvm = jvm;
        this.launcherHost = launcherHost;
        this.in = in;
        this.out = out;
    }

    /** Whether this process was started by jrmarun (its link variables are set). */
    static boolean inEnvironment() {
        return System.getenv(ENV_RENDEZVOUS) != null && System.getenv(ENV_JVM) != null
                && System.getenv(ENV_LINK_ID) != null;
    }

    /** Connects to the launcher named by the environment and proves the secret; ERR_OTHER when that fails. */
    static LauncherLink connect() throws IOException {
        String rv = System.getenv(ENV_RENDEZVOUS);
        String jvmEnv = System.getenv(ENV_JVM);
        String linkId = System.getenv(ENV_LINK_ID);
        String secretFile = System.getenv(ENV_SECRET_FILE);
        if (rv == null || linkId == null || jvmEnv == null || secretFile == null) {
            throw new RmaException(ErrorClass.ERR_OTHER, "this JVM is started by a jrma launcher (jrmarun), not by"
                    + " hand: " + ENV_RENDEZVOUS + ", " + ENV_JVM + ", " + ENV_LINK_ID + " or " + ENV_SECRET_FILE
                    + " is not set");
        }
        String secret = SecretFile.take(Path.of(secretFile));
        int jvm = Integer.parseInt(jvmEnv);
        int colon = rv.lastIndexOf(':');
        String rvHost = rv.substring(0, colon).replace("[", "").replace("]", "");
        Socket s = new Socket(rvHost, Integer.parseInt(rv.substring(colon + 1)));
        s.setTcpNoDelay(true);
        int handshakeMs = JobLauncher.handshakeTimeoutMs(null); // the launcher's value, through the environment
        try {
            Handshake.client(s, linkId, secret, jvm, handshakeMs);
        } catch (Handshake.Refused e) {
            s.close();
            throw new RmaException(e.errorClass(), "JVM " + jvm + " cannot join its job at the launcher's rendezvous "
                    + rv + ": " + e.getMessage() + " (" + Params.LAUNCHER_HANDSHAKE_TIMEOUT_MS.name() + " = "
                    + handshakeMs + " ms)", e);
        }
        return new LauncherLink(jvm, rvHost, new DataInputStream(new BufferedInputStream(s.getInputStream())),
                new DataOutputStream(new BufferedOutputStream(s.getOutputStream())));
    }

    /**
     * The next job from the launcher; null when the launcher let this (pooled) JVM go or aborted the start-up
     * (the job failed to start elsewhere: the launcher says why).
     */
    Rendezvous.Spec awaitSpec() throws IOException {
        Rendezvous.Msg m;
        try {
            m = Rendezvous.read(in);
        } catch (EOFException e) {
            return null;
        }
        if (m.type() == Rendezvous.ABORT) {
            startAborted = true;
            return null;
        }
        if (m.type() != Rendezvous.SPEC) {
            throw new IOException("rendezvous: expected a job, got message " + m.type());
        }
        Rendezvous.Spec spec = (Rendezvous.Spec) m.object();
        if (spec.acrossHosts() && RemoteStart.explicitInterface(spec.params()) == null) {
            // this host's address towards the launcher: on the network the job's hosts share, never loopback
            spec.params().put(RemoteStart.TCP_INTERFACE, LocalAddresses.ROUTE_PREFIX + launcherHost);
        }
        return spec;
    }

    /** Whether {@link #awaitSpec} returned null because the launcher aborted the start-up. */
    boolean startAborted() {
        return startAborted;
    }

    /** The job of {@code spec} as this JVM runs it (not started). */
    Job openJob(Rendezvous.Spec spec) {
        jobParams = spec.params();
        Job job = new Job(spec.nranks(), spec.params(), jvm, spec.jvmOfRank());
        if (job.jvmCount() > 1) {
            // buffers from Jrma.allocateMemory / MPI.newByteBuffer in shared segments: create windows over them
            // are then reachable by load/store from the other JVMs of the host
            Components.bufferAllocator().jobSpansJvms(job.params());
        }
        ElementLocks.onLongWait(job::checkAborted); // a holder in a killed JVM never releases
        return job;
    }

    /**
     * Opens the job's transports, trading cards with the other JVMs through the launcher, and has an abort of the
     * job here tell the peers and the launcher, after {@code onAbort} (null: nothing) had its say.
     */
    List<Transport> openMesh(Job job, Rendezvous.Spec spec, Consumer<RmaException> onAbort) throws IOException {
        List<Transport> transports = TransportMesh.open(job, spec.jobId(), spec.meshSecret(), mine -> {
            Rendezvous.writeObject(out, Rendezvous.ENDPOINT, mine);
            return (String[][]) expect(Rendezvous.ENDPOINTS).object();
        });
        job.onAbort(e -> {
            synchronized (state) { // no END follows an abort: a wait for it ends now
                broken = true;
                state.notifyAll();
            }
            if (onAbort != null) {
                onAbort.accept(e);
            }
            for (Transport t : transports) {
                t.abortPeers(e.getMessage());
            }
            send(Rendezvous.ABORT, e.getMessage().getBytes(StandardCharsets.UTF_8));
        });
        return transports;
    }

    /** Says the mesh is up and waits for the launcher's GO: every JVM of the job is connected. */
    void ready() throws IOException {
        Rendezvous.write(out, Rendezvous.READY, new byte[0]);
        expect(Rendezvous.GO);
    }

    /**
     * Starts the reader of the launcher's messages (its ABORT aborts {@code job}; END ends the job; a broken link
     * aborts the job and halts this JVM soon after) and, in a job across hosts, the heartbeat.
     */
    void listen(Job job, Rendezvous.Spec spec) {
        synchronized (state) { // a pooled JVM runs one job after another over the same link
            lastHeardMs = System.currentTimeMillis();
            ended = false;
            broken = false;
        }
        Thread reader = new Thread(() -> read(job), "jrma-launcher-link");
        reader.setDaemon(true);
        reader.start();
        if (spec.heartbeatMs() > 0) {
            heartbeat(job, spec.heartbeatMs(), spec.silenceMs());
        }
    }

    private void read(Job job) {
        try {
            while (true) {
                Rendezvous.Msg m = Rendezvous.read(in);
                synchronized (state) {
                    lastHeardMs = System.currentTimeMillis();
                }
                if (m.type() == Rendezvous.ABORT) {
                    synchronized (state) {
                        broken = true;
                        state.notifyAll();
                    }
                    job.abort(ErrorClass.ERR_PROC_ABORTED, new String(m.body(), StandardCharsets.UTF_8), null);
                } else if (m.type() == Rendezvous.END) {
                    synchronized (state) {
                        ended = true;
                        state.notifyAll();
                    }
                    return;
                }
            }
        } catch (IOException e) {
            synchronized (state) {
                broken = true;
                state.notifyAll();
            }
            orphaned(job, "the launcher of this job went away (" + e.getMessage() + ")");
        }
    }

    /**
     * Waits until the launcher ends the job (true), aborts it or goes away (false), or {@code timeoutMs} passes
     * (false; 0: no limit).
     */
    boolean awaitEnd(long timeoutMs) throws InterruptedException {
        long until = timeoutMs > 0 ? System.currentTimeMillis() + timeoutMs : Long.MAX_VALUE;
        synchronized (state) {
            while (!ended && !broken) {
                long left = until - System.currentTimeMillis();
                if (left <= 0) {
                    return false;
                }
                state.wait(left);
            }
            return ended;
        }
    }

    /** Whether the launcher said the job is over. */
    boolean ended() {
        synchronized (state) {
            return ended;
        }
    }

    /** Reports how a rank of this JVM ended. */
    void rankDone(Rendezvous.RankDone d) {
        try {
            Rendezvous.writeObject(out, Rendezvous.RANK_DONE, d);
        } catch (IOException ignored) {
            // launcher gone: it tears the job down anyway
        }
    }

    /** Says this JVM is exiting on its own (System.exit, or a signal that runs the shutdown hooks). */
    void exiting() {
        send(Rendezvous.EXITING, new byte[0]);
    }

    /** Says this pooled JVM is free for the next job. */
    void idle() throws IOException {
        Rendezvous.write(out, Rendezvous.IDLE, new byte[0]);
    }

    private void send(int type, byte[] body) {
        try {
            Rendezvous.write(out, type, body);
        } catch (IOException ignored) {
            // the launcher is gone: it tears the job down anyway
        }
    }

    /**
     * Sends the launcher a heartbeat every {@code periodMs} while the job runs, and when nothing has come from the
     * launcher for {@code silenceMs} (its host or this one cut off), aborts the job here and halts.
     */
    private void heartbeat(Job job, long periodMs, long silenceMs) {
        Thread t = new Thread(() -> {
            while (!ended()) {
                try {
                    Rendezvous.write(out, Rendezvous.HEARTBEAT, new byte[0]);
                } catch (IOException e) {
                    return; // the link is gone: the reader aborts the job
                }
                long silent;
                synchronized (state) {
                    silent = System.currentTimeMillis() - lastHeardMs;
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
    private void orphaned(Job job, String why) {
        System.err.println("jrma: JVM " + jvm + " on " + HostId.hostName() + ": " + why + "; aborting its ranks");
        job.abort(ErrorClass.ERR_PROC_ABORTED, why, null);
        Thread killer = new Thread(() -> {
            try {
                Thread.sleep(ORPHAN_HALT_MS);
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
            halt(1);
        }, "jrma-orphan-halt");
        killer.setDaemon(true);
        killer.start();
    }

    private Rendezvous.Msg expect(int type) throws IOException {
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

    /**
     * Removes this JVM's named shared-memory files (buffers a window may still be created over: the shutdown hook that
     * would remove them does not run on a halt) and halts. On this host the launcher would reclaim them after the
     * exit; on another host nobody else can.
     */
    static void halt(int code) {
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
}

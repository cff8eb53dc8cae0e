package io.jrma.papers;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.Win;
import io.jrma.core.auth.Handshake;
import io.jrma.core.config.JobLayout;
import io.jrma.core.config.Params;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.RankThreads;
import io.jrma.launcher.TransportMesh;
import io.jrma.shm.ShmFiles;
import io.jrma.shm.ShmSegment;
import io.jrma.spi.Transports;
import io.jrma.spi.transport.Transport;
import io.jrma.transport.shm.ShmRingTransport;
import io.jrma.transport.tcp.TcpTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Exchanger;
import java.util.concurrent.TimeUnit;

/**
 * A job of two ranks over two JVMs of this host, both simulated in this process as the transports' own tests do
 * (two {@link Job}s, JVM 0 and JVM 1, one rank each, each with its progress agent and transports, talking through
 * loopback TCP and rings in {@code /dev/shm}), whose transports are opened in one of two ways:
 *
 * <ul>
 *   <li>{@link Wiring#SPI}: as the launcher does in every JVM of a job: the providers found with
 *       {@code ServiceLoader}, {@link Transports#select} (the {@code jrma.transports} selection and every
 *       provider's query, by priority), then each chosen provider opens, trades its card and connects;</li>
 *   <li>{@link Wiring#HAND}: the transports constructed directly ({@link TcpTransport#listen},
 *       {@link TcpTransport#connectMesh}, {@link ShmRingTransport#attach}): no provider is looked up, queried or
 *       loaded, only the concrete classes of the one or two transports used are.</li>
 * </ul>
 *
 * Either way the window engine then reaches the peer through {@code Job.transportFor}, so the difference between
 * the two is exactly what the component machinery leaves behind in the JVM. Rank 0 allocates a window, opens a
 * {@code lock_all} epoch and hands its {@link Win} to the caller (any thread may issue on it); rank 1 waits in a
 * barrier until {@link #close}, which ends the epoch, frees the window, stops both jobs, closes their transports and
 * removes what this process left in {@code /dev/shm}, also when something failed.
 *
 * <p>Owned by the thread that started it; {@link #win()} may be used by one thread at a time.
 */
public final class WiredPair implements AutoCloseable {
    /** How the transports are opened. */
    public enum Wiring { SPI, HAND }

    /** Which transport carries the packets: rings in shared memory, or TCP alone ({@code jrma.transports=^shm}). */
    public enum Lane { SHM, TCP }

    /** Bytes of the window on each rank. */
    public static final int WIN_BYTES = 4096;
    /** The two simulated JVMs. */
    static final int JVMS = 2;
    /** How long setting up and tearing down may take before the pair is declared stuck. */
    static final long SETUP_TIMEOUT_MS = 60_000;
    /** How long the job may run at most (a JMH trial of the full mode is far shorter): then it is aborted. */
    static final long JOB_TIMEOUT_MS = 15 * 60_000;
    /** How long closing a transport waits for its goodbyes. */
    static final long CLOSE_TIMEOUT_MS = 1_000;

    private final Wiring wiring;
    private final Lane lane;
    private final Map<String, String> params;
    private final String jobId = Handshake.newJobId();
    private final String secret = Handshake.newSecret();
    private final Exchanger<Object> cards = new Exchanger<>();
    private final CountDownLatch finish = new CountDownLatch(1);
    private final CompletableFuture<Win> ready = new CompletableFuture<>();
    private final Thread[] jvmThreads = new Thread[JVMS];
    private final Job[] jobs = new Job[JVMS];
    private final Throwable[] failures = new Throwable[JVMS];
    private volatile int providersFound;
    private volatile int providersUsed;
    private volatile String via = "?";
    private final Win win;

    private WiredPair(Wiring wiring, Lane lane, Map<String, String> extra) throws Exception {
        this.wiring = wiring;
        this.lane = lane;
        Map<String, String> p = new HashMap<>();
        p.put("jrma.path", "packet");
        p.put("jrma.transports", lane == Lane.TCP ? "^shm" : "shm,tcp");
        p.putAll(extra);
        this.params = Map.copyOf(p);
        for (int k = 0; k < JVMS; k++) {
            final int jvm = k;
            jvmThreads[k] = new Thread(() -> runJvm(jvm), "papers-jvm-" + k);
            jvmThreads[k].setDaemon(true);
            jvmThreads[k].start();
        }
        Win w;
        try {
            w = ready.get(SETUP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            try {
                close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        win = w;
    }

    /** Starts the pair; parameters in {@code extra} are added to the job's (and win over the defaults). */
    public static WiredPair start(Wiring wiring, Lane lane, Map<String, String> extra) throws Exception {
        return new WiredPair(wiring, lane, extra);
    }

    /** Parses {@code spi} / {@code hand}. */
    public static Wiring wiring(String s) {
        return Wiring.valueOf(s.toUpperCase(Locale.ROOT));
    }

    /** Parses {@code shm} / {@code tcp}. */
    public static Lane lane(String s) {
        return Lane.valueOf(s.toUpperCase(Locale.ROOT));
    }

    /** Rank 0's window, in a {@code lock_all} epoch; rank 1 is the target. */
    public Win win() {
        return win;
    }

    /** The name of the transport rank 0 reaches rank 1 through ({@code shm}, {@code tcp}). */
    public String via() {
        return via;
    }

    /** Providers the SPI found on the class path (0 when wired by hand: none was looked up). */
    public int providersFound() {
        return providersFound;
    }

    /** Transports opened in JVM 0. */
    public int providersUsed() {
        return providersUsed;
    }

    /** One simulated JVM, as JvmHost runs one: job, transports, its rank, then the clean-up. */
    private void runJvm(int jvm) {
        Job job = new Job(JVMS, params, jvm, new int[] {0, 1});
        jobs[jvm] = job;
        List<Transport> opened = new ArrayList<>();
        try {
            opened.addAll(wiring == Wiring.SPI ? openThroughSpi(job, jvm) : openByHand(job, jvm));
            if (jvm == 0) {
                providersUsed = opened.size();
                via = job.transportFor(1).name();
            }
            RankThreads.Outcome out = RankThreads.run(job, new int[] {jvm}, this::rank, JOB_TIMEOUT_MS, null);
            if (out.firstFailure != null) {
                failures[jvm] = out.firstFailure;
            } else if (out.timedOut) {
                failures[jvm] = new IllegalStateException("the pair's job timed out");
            }
        } catch (Throwable t) {
            failures[jvm] = t;
            job.abort(ErrorClass.ERR_PROC_ABORTED, "JVM " + jvm + " of the pair failed: " + t, t);
        } finally {
            ready.completeExceptionally(new IllegalStateException("JVM " + jvm + " of the pair ended before its "
                    + "window was ready", failures[jvm]));
            job.stop();
            for (int i = opened.size() - 1; i >= 0; i--) {
                opened.get(i).close(CLOSE_TIMEOUT_MS); // the narrower ones first; TCP says goodbye last
            }
        }
    }

    /** The launcher's transport mesh, with the card trade between the two threads. */
    private List<Transport> openThroughSpi(Job job, int jvm) throws Exception {
        if (jvm == 0) {
            providersFound = Transports.evaluate(new JobLayout(job.size(), job.jvmCount(), job.params())).size();
        }
        return TransportMesh.open(job, jobId, secret, mine -> {
            String[] theirs;
            try {
                theirs = (String[]) trade(mine);
            } catch (Exception e) {
                throw new IOException("the pair's card trade failed: " + e, e);
            }
            return jvm == 0 ? new String[][] {mine, theirs} : new String[][] {theirs, mine};
        });
    }

    /** The same transports, constructed directly. */
    private List<Transport> openByHand(Job job, int jvm) throws Exception {
        List<Transport> opened = new ArrayList<>();
        TcpTransport tcp = TcpTransport.listen(job, jobId, secret);
        opened.add(tcp);
        InetSocketAddress mine = tcp.endpoint();
        InetSocketAddress theirs = (InetSocketAddress) trade(mine);
        tcp.connectMesh(jvm == 0 ? new InetSocketAddress[] {mine, theirs} : new InetSocketAddress[] {theirs, mine});
        job.addRemote(tcp, 1 - jvm);
        if (lane == Lane.SHM) {
            opened.add(ShmRingTransport.attach(job, tcp, tcp::wakeJvm, jobId)); // registers itself for rank 1 - jvm
        }
        return opened;
    }

    private Object trade(Object mine) throws Exception {
        return cards.exchange(mine, SETUP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    private void rank(Comm world) throws Exception {
        Win w = Win.allocate(world, WIN_BYTES, 1, null);
        if (world.rank() == 0) {
            w.lockAll(0);
            ready.complete(w);
            finish.await();
            w.unlockAll();
        }
        world.barrier(); // rank 1 sits here for the whole measurement
        w.free();
    }

    /**
     * Removes every file this process made in the shared-memory directory (rings, window segments), as the shm
     * component does for a JVM that ended without cleaning up, but without looking that component up.
     */
    static List<String> removeShmFiles(Map<String, String> params) {
        return ShmFiles.removeFilesOf(ShmSegment.directory(Params.SHM_DIR.get(params)), ProcessHandle.current().pid());
    }

    /**
     * Ends the epoch and the job, waits for both simulated JVMs, and removes this process's files in
     * {@code /dev/shm}.
     *
     * @throws IllegalStateException when a JVM of the pair failed or did not end in time
     */
    @Override
    public void close() throws InterruptedException {
        finish.countDown();
        boolean stuck = false;
        for (Thread t : jvmThreads) {
            t.join(SETUP_TIMEOUT_MS);
            stuck |= t.isAlive();
        }
        if (stuck) {
            for (Job j : jobs) {
                if (j != null) {
                    j.abort(ErrorClass.ERR_PROC_ABORTED, "the pair did not end in time", null);
                }
            }
        }
        removeShmFiles(params);
        if (stuck) {
            throw new IllegalStateException("the pair's simulated JVMs did not end within " + SETUP_TIMEOUT_MS + " ms");
        }
        for (Throwable f : failures) {
            if (f != null) {
                throw new IllegalStateException("the pair's job failed: " + f, f);
            }
        }
    }
}

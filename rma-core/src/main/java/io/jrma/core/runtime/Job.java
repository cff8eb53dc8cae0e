package io.jrma.core.runtime;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.WinCounters;
import io.jrma.core.config.Param;
import io.jrma.core.config.Params;
import io.jrma.core.os.Affinity;
import io.jrma.core.os.HostId;
import io.jrma.core.os.Topology;
import io.jrma.core.progress.ProgressAgent;
import io.jrma.spi.transport.Transport;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.agrona.concurrent.BackoffIdleStrategy;

/**
 * The part of a job that lives in this JVM: its ranks (threads), its run-time parameters, its progress agent
 * and transports, and its abort state. Every blocking wait in the library checks {@link #checkAborted()},
 * so one failed rank makes every other rank fail fast instead of hanging.
 *
 * <p>Thread-safe.
 */
public final class Job {
    private final int size;
    private final Map<String, String> params;
    private final ProgressAgent agent = new ProgressAgent();
    private final AtomicReference<RmaException> abort = new AtomicReference<>();
    private final Thread[] rankThreads;
    private final AtomicInteger nextObjectId = new AtomicInteger(1);
    private final Map<String, Object> shared = new ConcurrentHashMap<>();
    private final String progressMode;
    private final WaitPolicy waitPolicy;
    private volatile Transport transport;
    private volatile Transport[] remote;
    private final Set<WinCounters> liveCounters = ConcurrentHashMap.newKeySet();
    private final WinCounters retiredCounters = new WinCounters();
    private volatile boolean stopping;
    private volatile Thread progressThread;
    private final int jvmIndex;
    private final int[] jvmOfRank;
    private final int jvmCount;
    private final ControlPlane controlPlane;

    /** A job whose ranks all live in this JVM. */
    public Job(int size, Map<String, String> params) {
        this(size, params, 0, null);
    }

    /**
     * This JVM's part of a job spread over several JVMs: {@code jvmOfRank[r]} is the index of the JVM that runs
     * world rank {@code r}, and this JVM is {@code jvmIndex}. A null map means every rank is here.
     */
    public Job(int size, Map<String, String> params, int jvmIndex, int[] jvmOfRank) {
        if (size < 1) {
            throw new RmaException(ErrorClass.ERR_ARG, "a job needs at least one rank, got " + size);
        }
        this.size = size;
        this.params = Map.copyOf(params);
        this.rankThreads = new Thread[size];
        this.progressMode = Params.PROGRESS.getChoice(this.params, "thread", "caller", "both");
        // more ranks than cores (MPI's oversubscription): a spinning waiter holds the core the rank it waits for
        // needs. With as many ranks as cores, spinning is what makes cross-rank waits fast (2 thread ranks, quiet
        // 2-core host: fence 1.5 -> 0.19 us, PSCW ring 1.4 -> 0.34 us; 2 JVMs over TCP: put+flush 47-85 -> 16-22
        // us), and the progress threads stay out of the spinners' way (see start()).
        boolean oversubscribed = size > Affinity.cores();
        this.waitPolicy = new WaitPolicy(autoOr(Params.WAIT_SPINS, oversubscribed ? 0 : 2000),
                autoOr(Params.WAIT_YIELDS, oversubscribed ? 5000 : 200), Params.WAIT_MAX_PARK_NS.getLong(this.params),
                Params.WAIT_SPIN_NS.getLong(this.params));
        this.transport = new LocalTransport(this);
        agent.addTransport(transport);
        if (jvmOfRank != null && jvmOfRank.length != size) {
            throw new IllegalArgumentException("jvmOfRank has " + jvmOfRank.length + " entries for " + size + " ranks");
        }
        this.jvmIndex = jvmIndex;
        this.jvmOfRank = jvmOfRank == null ? null : jvmOfRank.clone();
        int jvms = 1;
        if (jvmOfRank != null) {
            for (int j : jvmOfRank) {
                jvms = Math.max(jvms, j + 1);
            }
        }
        this.jvmCount = jvms;
        this.controlPlane = new ControlPlane(this);
    }

    /** Index of this JVM in the job (0 when the job lives in one JVM). */
    public int jvmIndex() {
        return jvmIndex;
    }

    /** Number of JVMs the job spans. */
    public int jvmCount() {
        return jvmCount;
    }

    /** The JVM index of world rank {@code r}. */
    public int jvmOf(int r) {
        return jvmOfRank == null ? 0 : jvmOfRank[r];
    }

    /** The cross-JVM control plane (all-gathers of communicators that span JVMs). */
    public ControlPlane controlPlane() {
        return controlPlane;
    }

    private long autoOr(Param p, long auto) {
        return p.get(params).equalsIgnoreCase("auto") ? auto : p.getLong(params);
    }

    /** Number of ranks in the job. */
    public int size() {
        return size;
    }

    public Map<String, String> params() {
        return params;
    }

    public String param(Param p) {
        return p.get(params);
    }

    public ProgressAgent agent() {
        return agent;
    }

    /** The in-JVM transport (ranks of this JVM). */
    public Transport transport() {
        return transport;
    }

    /** Whether world rank {@code r} runs in this JVM. */
    public boolean isLocal(int r) {
        return jvmOfRank == null || jvmOfRank[r] == jvmIndex;
    }

    /** The transport that reaches world rank {@code r}: in-JVM for local ranks, else the one registered for it. */
    public Transport transportFor(int r) {
        Transport[] rt = remote;
        Transport t = rt == null ? null : rt[r];
        return t == null ? transport : t;
    }

    /**
     * Declares that world ranks {@code ranks} live in another JVM reached through {@code t} (the transport is
     * also driven by this JVM's progress agent). Called before any window or communicator is created.
     */
    public synchronized void addRemote(Transport t, int... ranks) {
        Transport[] rt = remote == null ? new Transport[size] : remote.clone();
        for (int r : ranks) {
            rt[r] = t;
        }
        remote = rt;
        routesVersion++;
        if (!Arrays.asList(opened).contains(t)) {
            Transport[] o = Arrays.copyOf(opened, opened.length + 1);
            o[o.length - 1] = t;
            opened = o;
            agent.addTransport(t);
        }
        if (t.canAwaitInput()) {
            blockingTransport = t;
        }
    }

    /**
     * The transport whose selector the idle progress thread sleeps in (TCP), or null: a transport without input of
     * its own to wait for (shared-memory rings) sleeps in it and has its peers ring a doorbell ({@link #wakeJvm}).
     */
    public Transport blockingTransport() {
        return blockingTransport;
    }

    /**
     * Wakes the progress thread of JVM {@code jvm} through the first transport that can ring its doorbell (a TCP
     * WAKE frame). Any thread; false when no transport reaches that JVM.
     */
    public boolean wakeJvm(int jvm) {
        for (Transport t : opened) {
            if (t.wakeJvm(jvm)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sends a control-plane message to JVM {@code jvm}: the most specific transport that takes it carries it
     * (the last registered first: a ring to a JVM of this host before TCP, which takes what is too large for a
     * ring record).
     *
     * @throws RmaException ERR_INTERN when no transport reaches that JVM
     */
    void sendControl(int jvm, byte[] message) {
        Transport[] o = opened;
        for (int i = o.length - 1; i >= 0; i--) {
            if (o[i].sendControl(jvm, message)) {
                return;
            }
        }
        checkAborted();
        throw new RmaException(ErrorClass.ERR_INTERN, "no transport to JVM " + jvm + " for a control message");
    }

    /** The transports to other JVMs in registration order: the broad ones first (TCP), then the narrower ones. */
    private volatile Transport[] opened = new Transport[0];
    private volatile Transport blockingTransport;
    /** Bumped by {@link #addRemote}: the routes changed. */
    private volatile int routesVersion;

    /** A number that changes whenever ranks are routed to another transport (see {@link #routesTo}). */
    public int routesVersion() {
        return routesVersion;
    }

    /** Whether any world rank's packets go through {@code t} now. */
    public boolean routesTo(Transport t) {
        Transport[] rt = remote;
        if (rt != null) {
            for (Transport x : rt) {
                if (x == t) {
                    return true;
                }
            }
        }
        return false;
    }
    private volatile Consumer<RmaException> abortListener;

    /** Called once, with the reason, when this JVM's part of the job aborts (to tell the other JVMs). */
    public void onAbort(Consumer<RmaException> listener) {
        this.abortListener = listener;
    }

    public WaitPolicy waitPolicy() {
        return waitPolicy;
    }

    /**
     * A new id for windows and communicators, unique in the whole job: ids of JVM {@code j} are
     * {@code j + k * jvmCount}, so ids proposed by different JVMs never collide.
     */
    public int newObjectId() {
        return nextObjectId.getAndIncrement() * jvmCount + jvmIndex;
    }

    /** A map for objects that the ranks of this JVM share (e.g. per-communicator collective state). */
    public Map<String, Object> shared() {
        return shared;
    }

    /** Adds a window's counters to the JVM totals (until {@link #retireCounters}). */
    public void addCounters(WinCounters c) {
        liveCounters.add(c);
    }

    /** A freed window's counters stay in the JVM totals. */
    public void retireCounters(WinCounters c) {
        if (liveCounters.remove(c)) {
            retiredCounters.addAll(c);
        }
    }

    /** The sum of the counters of every window of this job in this JVM, live or freed. */
    public WinCounters counters() {
        WinCounters sum = new WinCounters();
        sum.addAll(retiredCounters);
        for (WinCounters c : liveCounters) {
            sum.addAll(c);
        }
        return sum;
    }

    private final Set<Integer> finalized = ConcurrentHashMap.newKeySet();

    /**
     * Records that world rank {@code rank} has finished with the library (MPI_Finalize in the {@code mpi}
     * package): if its JVM then exits through System.exit, the launcher counts the rank as done.
     */
    public void markFinalized(int rank) {
        finalized.add(rank);
    }

    public boolean isFinalized(int rank) {
        return finalized.contains(rank);
    }

    /**
     * Waits until every rank of this JVM has finalized or ended (or the job is aborted): after that a
     * System.exit by one of them (programs written for one process per rank end with it after MPI_Finalize)
     * ends only ranks that are done, instead of a neighbour that has not yet recorded its finalize.
     */
    public void awaitLocalRanksFinalized() {
        for (int r = 0; r < rankThreads.length; r++) {
            while (isLocal(r) && !finalized.contains(r) && !isAborted()
                    && (rankThreads[r] == null || rankThreads[r].isAlive())) {
                LockSupport.parkNanos(FINALIZE_POLL_NS);
            }
        }
    }

    /**
     * Binds the calling thread, which runs world rank {@code rank}, as {@code jrma.bind.cpus} (jrmarun's map) or else
     * {@code jrma.bind} says, and reports it on stderr, as Open MPI's {@code --report-bindings}, if
     * {@code jrma.bind.report} is true. Under the map, a JVM that runs only this rank binds all its threads (a JVM
     * rank, as a process is bound); a JVM of several ranks binds only this rank's thread.
     */
    public void bindRankThread(int rank) {
        String mode = Params.BIND.getChoice(params, "none", "core");
        String map = Params.BIND_CPUS.get(params);
        boolean report = Boolean.parseBoolean(Params.BIND_REPORT.get(params));
        if (map.isEmpty() && mode.equals("none") && !report) {
            return; // nothing to bind or say: the topology is not even read
        }
        Topology topo = Topology.here();
        int[] logical = new int[0];
        String why = null;
        if (!map.isEmpty()) {
            String[] perRank = map.split(";", -1);
            String mine = rank < perRank.length ? perRank[rank].trim() : "";
            if (!mine.isEmpty()) {
                logical = Affinity.parseList(mine);
                try {
                    int[] cpus = topo.osCpus(logical);
                    why = localRanks() == 1 ? Affinity.bindProcess(cpus) : Affinity.bindCurrentThread(cpus);
                } catch (IllegalArgumentException e) {
                    why = e.getMessage();
                }
            }
        } else if (mode.equals("core")) {
            int cpu = Affinity.cpuOfRank(rank);
            logical = topo.logicalOf(new int[] {cpu});
            why = Affinity.bindCurrentThread(cpu);
        }
        if (report) {
            String who = "[" + HostId.hostName() + ":" + ProcessHandle.current().pid() + "] MCW rank " + rank;
            if (why != null) {
                System.err.println(who + " is not bound: " + why);
            } else if (logical.length == 0) {
                System.err.println(who + " is not bound (or bound to all available processors)");
            } else {
                System.err.println(who + " bound to " + topo.describe(logical) + ": " + topo.bitmap(logical));
            }
        }
    }

    /** How many ranks of the job run in this JVM. */
    private int localRanks() {
        int n = 0;
        for (int r = 0; r < size; r++) {
            n += isLocal(r) ? 1 : 0;
        }
        return n;
    }

    /** Records the thread that runs {@code rank}, so an abort can wake it. */
    public void bindRank(int rank, Thread t) {
        rankThreads[rank] = t;
    }

    /** Starts the dedicated progress thread if the progress mode asks for one. */
    public synchronized void start() {
        if (!progressMode.equals("caller") && progressThread == null) {
            long maxPark = Params.AGENT_MAX_PARK_NS.getLong(params);
            // With a rank per core (or more) every core belongs to a rank: an idle progress thread that spins or
            // yields takes time from one (a 1 MiB put stream over TCP ran a third slower), so it parks at once.
            boolean fullySubscribed = size >= Affinity.cores();
            int idleBeforeSleep = fullySubscribed ? 20 : 400;
            BackoffIdleStrategy idle = fullySubscribed ? new BackoffIdleStrategy(0, 5, 1_000, Math.max(1_000, maxPark))
                    : new BackoffIdleStrategy(200, 50, 1_000, Math.max(1_000, maxPark));
            progressThread = new Thread(() -> {
                int idleRounds = 0;
                boolean deferred = false; // parked last round because ranks drove progress
                long deferNs = CALLERS_ACTIVE_PARK_NS;
                while (!stopping) {
                    if (agent.spinningCallers().get() > 0 || deferred && agent.callersActive()) {
                        // A rank waiting in the library drives progress right now, or ranks did since the last
                        // look (a ping-pong between waits): competing with them for the agent would only move the
                        // work to this thread and take a rank's core (2 cores), so not even one duty cycle runs.
                        // Every wake-up preempts a polling rank: with 1 ms parks (~1,200 wake-ups a second) TCP
                        // put+flush measured ~0.7 us slower than with no progress thread, so while ranks keep
                        // driving progress the parks grow to CALLERS_ACTIVE_MAX_PARK_NS.
                        deferNs = deferred ? Math.min(CALLERS_ACTIVE_MAX_PARK_NS, deferNs * 2) : CALLERS_ACTIVE_PARK_NS;
                        deferred = true;
                        LockSupport.parkNanos(this, deferNs);
                        continue;
                    }
                    deferred = false;
                    int work = agent.tryProgress();
                    Transport bt = blockingTransport;
                    if (work > 0) {
                        idleRounds = 0;
                        idle.reset();
                    } else if (++idleRounds > idleBeforeSleep && agent.callersActive()) {
                        // a rank waiting in the library polls the transports itself, or did a moment ago: every
                        // wake-up of this thread would preempt it (2 cores). A waiter that stops spinning to park
                        // unparks this thread, so the sockets are watched again at once.
                        deferred = true;
                        deferNs = CALLERS_ACTIVE_PARK_NS;
                        LockSupport.parkNanos(this, deferNs);
                    } else if (bt != null && idleRounds > idleBeforeSleep && agent.busy()) {
                        // a rank runs a duty cycle (a parked waiter's look): it reads what the selector would
                        // report, and until it has, epoll returns at once. On a loaded 2-core machine the holder,
                        // preempted mid-cycle, left this thread to spin in epoll_wait (76 returns per 8-byte put
                        // over TCP), taking the core the holder needed. A short park instead.
                        LockSupport.parkNanos(this, BUSY_AGENT_PARK_NS);
                    } else if (bt != null && idleRounds > idleBeforeSleep) {
                        agent.sleepIn(bt, maxPark); // the IO agent: epoll until a connection has input
                    } else {
                        idle.idle(0);
                    }
                }
            }, "jrma-progress");
            progressThread.setDaemon(true);
            progressThread.start();
        }
    }

    /** How often {@link #awaitLocalRanksFinalized} looks at the local ranks again. */
    static final long FINALIZE_POLL_NS = 100_000;

    /** How long the idle progress thread parks while another thread runs a duty cycle of the agent. */
    static final long BUSY_AGENT_PARK_NS = 50_000;
    /** How long the idle progress thread parks while ranks waiting in the library drive progress themselves. */
    static final long CALLERS_ACTIVE_PARK_NS = 1_000_000;
    /**
     * The longest of those parks, when ranks have driven progress at every look: how late the progress thread
     * may notice that the ranks left the library (then it serves passive-target operations to them).
     */
    static final long CALLERS_ACTIVE_MAX_PARK_NS = 8_000_000;

    /** Wakes the dedicated progress thread (a waiter stopped polling the transports). Any thread. */
    public void wakeProgressThread() {
        Thread t = progressThread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Whether the job has a dedicated progress thread (progress mode {@code thread} or {@code both}). */
    public boolean hasProgressThread() {
        return !progressMode.equals("caller");
    }

    /** Whether callers waiting in the library should drive the progress agent. */
    public boolean callersProgress() {
        return !progressMode.equals("thread");
    }

    /** Stops the progress thread (job end). */
    public synchronized void stop() {
        stopping = true;
        if (progressThread != null) {
            LockSupport.unpark(progressThread);
            try {
                progressThread.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Aborts the job: every rank blocked in the library, now or later, gets an {@link RmaException} with this
     * error class and message. The first abort wins.
     */
    public void abort(ErrorClass errorClass, String message, Throwable cause) {
        if (abort.compareAndSet(null, new RmaException(errorClass, message, cause))) {
            for (Thread t : rankThreads) {
                if (t != null) {
                    LockSupport.unpark(t);
                }
            }
            Consumer<RmaException> l = abortListener;
            if (l != null) {
                try {
                    l.accept(abort.get());
                } catch (RuntimeException e) {
                    // telling others is best effort: this JVM is aborted either way
                }
            }
        }
    }

    public boolean isAborted() {
        return abort.get() != null;
    }

    /** The abort reason, or null. */
    public RmaException abortReason() {
        return abort.get();
    }

    /** Throws if the job was aborted. */
    public void checkAborted() {
        RmaException e = abort.get();
        if (e != null) {
            throw new RmaException(e.errorClass(), "job aborted: " + e.getMessage().substring(
                    e.errorClass().name().length() + 2), e.getCause());
        }
    }
}

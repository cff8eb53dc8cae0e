package io.jrma.sync;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Flavor;
import io.jrma.Info;
import io.jrma.Op;
import io.jrma.Request;
import io.jrma.RmaException;
import io.jrma.SharedMemory;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Sleeper;
import io.jrma.shm.ShmSegment;
import io.jrma.shm.window.OpSlots;
import io.jrma.spi.transport.RemoteMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * One rank's handle on a window: the engine's parts for it, the communication calls (argument checking and
 * dispatch to the path chosen for the target at creation: {@link DirectOps} or {@link PacketOrigin}), the waits of
 * synchronization calls, dynamic attach and shared query, and free. Its attributes, name, info and error handler are
 * {@link WindowAttributes}; the synchronization calls {@link WindowSync}, their state {@link Epochs}; the packet
 * path's target side {@link PacketTarget}.
 *
 * <p>Owned by one rank; several of its threads may issue operations concurrently (see {@link Win}).
 */
final class WindowImpl extends WindowSync {
    final TargetState target;
    final DynamicRegions regions;
    final WindowRouter router;
    /** A private duplicate of the communicator for the window's own collectives (free). */
    CommCore ctrl;
    final PacketOrigin packets;
    final PacketTarget receiver;
    final FastPath fast;
    final Operations ops;
    Peer[] peers;
    SharedMemory[] shared;
    /** Shared segments this rank created or mapped (its own memory, peers in other JVMs); unmapped at free. */
    private final WindowSegments segments;
    boolean anyPacketPeer;
    /** The RDMA lane to the peers that take it, or null ({@link RdmaLane}); set at creation. */
    RdmaLane rdma;
    /** The window's atomic domain, or null ({@link AtomicDomain}); set at creation. */
    AtomicDomain atomics;
    /** Each peer's lane and the rules for memory private to other JVMs of the host (set at creation). */
    Lanes lanes;
    /** This rank's memory registered for peers' RDMA lanes, and with whom, or null; released at free. */
    RemoteMemory.Registration rdmaRegistration;
    RemoteMemory rdmaMemory;
    /** Handles of peers' memory the transport mapped here ({@link #mapPeer}), detached at free. */
    private final List<Long> mappedPeers = new ArrayList<>();
    /**
     * Whether operations to a direct peer may travel as packets: a dynamic window (or a create window over private
     * memory) whose ranks in other JVMs of the host are direct for regions in shared segments and reached by kernel
     * copies, request slots or packets for private ones.
     */
    boolean mixedPeers;
    /**
     * Request slots of a dynamic window, or a create window over private memory, spanning JVMs of the host
     * ({@link OpSlots}): served here in every duty cycle, and used to reach peers' private memory; null otherwise
     * (volatile: the progress agent reads it).
     */
    volatile OpSlots slots;

    WindowImpl(CommCore comm, int windowId, Flavor flavor, WindowMemory memory, int dispUnit, WinConfig config,
               WindowRouter router, TargetState state) {
        super(comm, windowId, flavor, memory, dispUnit, config);
        this.segments = new WindowSegments(config.shmDir);
        this.router = router;
        this.target = state != null ? state : new TargetState(groupSize);
        this.regions = flavor == Flavor.DYNAMIC ? new DynamicRegions() : null;
        this.packets = new PacketOrigin(this);
        this.receiver = new PacketTarget(this);
        this.fast = new FastPath(this);
        this.ops = new Operations(this);
    }

    // ------------------------------------------------------------------ waits
    /** Checks of a direct-path wait's condition before the wait is timed (about 1-2 us of spinning). */
    static final int UNTIMED_SPINS = 64;

    /**
     * Waits in a synchronization call (spin, yield, park; drives progress), counting the time waited (on windows
     * whose peers are all direct, after the first {@link #UNTIMED_SPINS} looks).
     */
    void awaitSync(BooleanSupplier done) {
        awaitSync(done, null);
    }

    /** {@link #awaitSync(java.util.function.BooleanSupplier)}, sleeping on {@code sleeper} once spinning is over. */
    void awaitSync(BooleanSupplier done, Sleeper sleeper) {
        awaitSync(done, sleeper, false);
    }

    /**
     * A wait for replies to this rank's packets (acks, data): drives progress from the start, since only
     * progress brings them.
     */
    void awaitReplies(BooleanSupplier done) {
        awaitSync(done, null, true);
    }

    private void awaitSync(BooleanSupplier done, Sleeper sleeper, boolean replies) {
        if (done.getAsBoolean()) {
            return;
        }
        if (!anyPacketPeer && !replies) {
            // every peer stores its signals here directly: most waits end within a cache-line transfer (0.1-0.2 us
            // between JVMs), which two clock reads would lengthen by a fifth; those short waits are not timed
            for (int i = 0; i < UNTIMED_SPINS; i++) {
                Thread.onSpinWait();
                if (done.getAsBoolean()) {
                    return;
                }
            }
        }
        long t0 = System.nanoTime();
        try {
            // direct peers store the signals themselves; a mixed window's peers may wait for this JVM to apply their
            // packets (and ack them) before they signal, so its waits drive progress once the spinning above is over
            job.waitPolicy().await(job, done, sleeper, anyPacketPeer || mixedPeers || replies);
        } finally {
            counters.add(Counter.SYNC_WAIT_NS, System.nanoTime() - t0);
        }
    }
    // ------------------------------------------------------------------ communication

    @Override
    public void put(Object origin, long oc, Datatype ot, int t, long disp, long tc, Datatype tt) {
        try {
            if (ot == tt && oc == tc && ot != null && fast.put(origin, oc, ot, t, disp)) {
                return;
            }
            OpArgs a = ops.prepare(OpArgs.PUT, origin, oc, ot, null, 0, null, null, t, disp, tc, tt, null);
            if (a != null) {
                ops.issue(a, null);
            }
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public void get(Object origin, long oc, Datatype ot, int t, long disp, long tc, Datatype tt) {
        try {
            if (ot == tt && oc == tc && ot != null && fast.get(origin, oc, ot, t, disp)) {
                return;
            }
            OpArgs a = ops.prepare(OpArgs.GET, origin, oc, ot, null, 0, null, null, t, disp, tc, tt, null);
            if (a != null) {
                ops.issue(a, null);
            }
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public void accumulate(Object origin, long oc, Datatype ot, int t, long disp, long tc, Datatype tt, Op op) {
        try {
            if (ot == tt && oc == tc && ot != null && fast.accumulate(origin, oc, ot, t, disp, op)) {
                return;
            }
            OpArgs a = ops.prepare(OpArgs.ACC, origin, oc, ot, null, 0, null, null, t, disp, tc, tt, op);
            if (a != null) {
                ops.issue(a, null);
            }
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public void getAccumulate(Object origin, long oc, Datatype ot, Object result, long rc, Datatype rt, int t,
                              long disp, long tc, Datatype tt, Op op) {
        try {
            if (rt == tt && rc == tc && tt != null && (op == Op.NO_OP || (ot == tt && oc == tc))
                    && fast.getAccumulate(origin, tc, tt, result, t, disp, op)) {
                return;
            }
            OpArgs a = ops.prepare(OpArgs.GET_ACC, origin, oc, ot, result, rc, rt, null, t, disp, tc, tt, op);
            if (a != null) {
                ops.issue(a, null);
            }
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public void fetchAndOp(Object origin, Object result, Datatype type, int t, long disp, Op op) {
        try {
            if (type != null && fast.fetchAndOp(origin, result, type, t, disp, op)) {
                return;
            }
            OpArgs a = ops.prepare(OpArgs.FOP, origin, 1, type, result, 1, type, null, t, disp, 1, type, op);
            if (a != null) {
                ops.issue(a, null);
            }
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public void compareAndSwap(Object origin, Object compare, Object result, Datatype type, int t, long disp) {
        try {
            if (type != null && fast.compareAndSwap(origin, compare, result, type, t, disp)) {
                return;
            }
            OpArgs a = ops.prepare(OpArgs.CAS, origin, 1, type, result, 1, type, compare, t, disp, 1, type, null);
            if (a != null) {
                ops.issue(a, null);
            }
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public Request rput(Object origin, long oc, Datatype ot, int t, long disp, long tc, Datatype tt) {
        return request(OpArgs.PUT, origin, oc, ot, null, 0, null, t, disp, tc, tt, null);
    }

    @Override
    public Request rget(Object origin, long oc, Datatype ot, int t, long disp, long tc, Datatype tt) {
        return request(OpArgs.GET, origin, oc, ot, null, 0, null, t, disp, tc, tt, null);
    }

    @Override
    public Request raccumulate(Object origin, long oc, Datatype ot, int t, long disp, long tc, Datatype tt, Op op) {
        return request(OpArgs.ACC, origin, oc, ot, null, 0, null, t, disp, tc, tt, op);
    }

    @Override
    public Request rgetAccumulate(Object origin, long oc, Datatype ot, Object result, long rc, Datatype rt, int t,
                                  long disp, long tc, Datatype tt, Op op) {
        return request(OpArgs.GET_ACC, origin, oc, ot, result, rc, rt, t, disp, tc, tt, op);
    }

    private Request request(int kind, Object origin, long oc, Datatype ot, Object result, long rc, Datatype rt,
                            int t, long disp, long tc, Datatype tt, Op op) {
        try {
            // MPI-3.1 11.3.5 allows request-based operations only in passive-target epochs, but Open MPI's
            // shared-memory and RDMA one-sided components take them in fence and PSCW epochs too, and programs
            // written for it use them there: any access epoch to the target will do (prepare checks it)
            OpArgs a = ops.prepare(kind, origin, oc, ot, result, rc, rt, null, t, disp, tc, tt, op);
            if (a == null) {
                return CompletionRequest.completed(job);
            }
            int target = a.target;
            CompletionRequest r = new CompletionRequest(job, peers[target].completesAtIssue() ? null
                    : () -> packets.kick(target));
            ops.issue(a, r);
            return r;
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public long fetchAndAddLong(int t, long disp, long delta) {
        long[] out = new long[1];
        blockingSingle(OpArgs.FOP, new long[] {delta}, null, out, t, disp, Op.SUM);
        return out[0];
    }

    @Override
    public long compareAndSwapLong(int t, long disp, long expected, long newValue) {
        long[] out = new long[1];
        blockingSingle(OpArgs.CAS, new long[] {newValue}, new long[] {expected}, out, t, disp, null);
        return out[0];
    }

    /** A fetch_and_op or compare_and_swap on one long whose result is needed now: waits for that op only. */
    private void blockingSingle(int kind, long[] origin, long[] compare, long[] result, int t, long disp, Op op) {
        try {
            OpArgs a = ops.prepare(kind, origin, 1, Datatype.LONG, result, 1, Datatype.LONG, compare, t, disp,
                    1, Datatype.LONG, op);
            if (a == null) {
                return;
            }
            a.blocking = true;
            if (peers[t].completesAtIssue()) {
                ops.issue(a, null);
                return;
            }
            CompletionRequest r = new CompletionRequest(job, () -> packets.kick(t));
            ops.issue(a, r);
            r.waitFor();
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    // ------------------------------------------------------------------ dynamic, shared

    @Override
    public void attach(Object mem) {
        try {
            checkLive();
            if (flavor != Flavor.DYNAMIC) {
                throw fail(ErrorClass.ERR_RMA_FLAVOR, "attach needs a dynamic window; this one is " + flavor);
            }
            WindowMemory m = WindowMemory.wrap(mem);
            regions.attach(m.address, m.length, name(), mem, m.buffer);
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public void detach(Object mem) {
        try {
            checkLive();
            if (flavor != Flavor.DYNAMIC) {
                throw fail(ErrorClass.ERR_RMA_FLAVOR, "detach needs a dynamic window; this one is " + flavor);
            }
            regions.detach(WindowMemory.wrap(mem).address, name());
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public SharedMemory sharedQuery(int r) {
        try {
            checkLive();
            if (shared == null) {
                throw fail(ErrorClass.ERR_RMA_FLAVOR,
                        "shared_query needs a window from allocate or allocateShared (MPI-4.1); this one is " + flavor);
            }
            if (r == PROC_NULL) {
                for (SharedMemory s : shared) {
                    if (s.size() > 0) {
                        return s;
                    }
                }
                return shared[0];
            }
            if (r < 0 || r >= groupSize) {
                throw fail(ErrorClass.ERR_RANK,
                        "shared_query: rank " + r + " is not in the window's group of size " + groupSize);
            }
            return shared[r];
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    // ------------------------------------------------------------------ info, free

    /** The window's info: the engine's keys (as chosen at creation, and what it decided), then the user's. */
    @Override
    public Info info() {
        Info i = config.toInfo(anyPacketPeer ? "packet" : mixedPeers ? "mixed" : "direct");
        RdmaLane lane = rdma;
        i.set("jrma_rdma_peers", Integer.toString(lane == null ? 0 : lane.peers()));
        i.set("jrma_rdma_mapped", Integer.toString(lane == null ? 0 : lane.mappedPeers()));
        i.set("jrma_rdma_atomics", Boolean.toString(atomics != null));
        Lanes l = lanes;
        i.set("jrma_peer_lanes", l == null ? "" : l.describe());
        addUserInfo(i);
        return i;
    }

    @Override
    public void free() {
        try {
            checkLive();
            epochs.checkFreeable();
            packets.drain();
            ctrl.barrier();
            markFreed();
            segments.close();
            slots = null;
            if (router.unregister(worldRanks[rank])) {
                job.agent().unregister(windowId);
                job.shared().remove(WindowFactory.routerKey(windowId));
            }
            ctrl.barrier();
            ctrl.free();
            job.agent().awaitCycleEnd(); // a duty cycle still serving this rank's slots ends before they are unmapped
            releaseMemory();
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    /**
     * Maps the shared segment {@code name} of {@code size} bytes once for this window (several peers or regions
     * may lie in one); unmapped at free.
     *
     * @throws RmaException when it cannot be mapped (it is gone, or too small)
     */
    ShmSegment mapShared(String name, long size) {
        ShmSegment seg = segments.map(name, size);
        if (seg == null) {
            throw fail(ErrorClass.ERR_WIN, "the window was freed");
        }
        return seg;
    }

    /** Records a segment this window created or mapped at creation, so {@link #mapShared} finds it. */
    void addSegment(ShmSegment seg) {
        segments.add(seg);
    }

    /**
     * Where the transport maps, in this process, the memory at {@code remote} that world rank {@code worldRank}
     * registered with {@code key} ({@link RemoteMemory#pointer}), kept until free; 0 when it does not.
     */
    long mapPeer(int worldRank, byte[] key, long remote) {
        long h = key == null ? 0 : rdmaMemory.attach(worldRank, key);
        long p = h == 0 ? 0 : rdmaMemory.pointer(h, remote);
        if (p != 0) {
            synchronized (mappedPeers) {
                mappedPeers.add(h);
            }
        } else if (h != 0) {
            rdmaMemory.detach(h);
        }
        return p;
    }

    private void releaseMemory() {
        if (rdma != null) {
            rdma.release();
        }
        synchronized (mappedPeers) {
            for (long h : mappedPeers) {
                rdmaMemory.detach(h);
            }
            mappedPeers.clear();
        }
        if (atomics != null) {
            atomics.release();
        }
        if (rdmaRegistration != null) {
            rdmaMemory.unregister(rdmaRegistration); // every peer passed the barrier of free: none reaches it now
        }
        target.release();
        packets.release();
        memory.release();
        segments.unmapAll();
        WindowFactory.retire(this);
    }

    /** Undoes a creation that failed after this window was registered (collectively: every rank calls it). */
    void abandon() {
        markFreed();
        segments.close();
        slots = null;
        if (router.unregister(worldRanks[rank])) {
            job.agent().unregister(windowId);
            job.shared().remove(WindowFactory.routerKey(windowId));
        }
        if (ctrl != null) {
            ctrl.free();
        }
        job.agent().awaitCycleEnd();
        releaseMemory();
    }
}

package io.jrma.sync;

import io.jrma.ErrorClass;
import io.jrma.Group;
import io.jrma.LockType;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.mem.IntSlots;
import io.jrma.core.wire.PacketType;
import java.util.function.BooleanSupplier;

/**
 * The epoch state machine of one rank's window and the synchronization algorithms: fence by completion
 * counting, PSCW matched by groups, passive-target locks. Access and exposure epochs are separate fields;
 * every synchronization call begins with a named check that raises {@code ERR_RMA_SYNC} with the current and
 * expected state.
 *
 * <p>Fence, post, complete and start/wait are <em>signals</em> to peers: on the direct path the origin
 * increments the counter in the peer's {@link TargetState} itself (after its direct operations, so the
 * peer's acquire of the counter sees them); on the packet path a FENCE/POST/COMPLETE packet follows the queued
 * operations to that peer and its progress agent increments the same counter after applying them.
 *
 * <p>Passive-target locks on the direct path are acquired lazily, at the first operation to the target (as
 * MPICH does), except on the calling rank itself, where MPI requires the lock to be held when lock returns.
 * With {@code jrma.lock.coalesce=false} (info {@code jrma_lock_coalesce}) lock and lock_all acquire at once on
 * both paths (the packet path sends the request as a packet of its own and waits for the grant).
 *
 * <p>Threads: transitions are made under {@link #lock}, except a passive-target lock or unlock of one target
 * while passive-target access is open: its claim is the target's mode word (a compare-and-set), and the access
 * state stays {@code LOCK} after the last unlock, meaning no epoch while no target is locked. The fields read on
 * the operation fast path are volatile or atomic.
 */
final class Epochs {
    /** Access epoch states. */
    enum Access { NONE, FENCE, PSCW, LOCK, LOCK_ALL }

    /** Exposure epoch states. */
    enum Exposure { NONE, FENCE, POST }

    private static final int MODE_FENCE = Win.MODE_NOSTORE | Win.MODE_NOPUT | Win.MODE_NOPRECEDE | Win.MODE_NOSUCCEED;
    private static final int MODE_POST = Win.MODE_NOCHECK | Win.MODE_NOSTORE | Win.MODE_NOPUT;

    private final WindowImpl w;
    private final int n;
    private final EpochMutex lock = new EpochMutex();
    private static final Access[] ACCESSES = Access.values();
    /** {@link Access} ordinals, for the hot paths that test {@link #accessState} without mapping it to the enum. */
    private static final int A_NONE = 0, A_FENCE = 1, A_PSCW = 2, A_LOCK = 3, A_LOCK_ALL = 4;
    private static final Exposure[] EXPOSURES = Exposure.values();
    /**
     * The {@link Access} state by ordinal. An int, not the enum reference: a reference store into this (old)
     * object runs G1's card-marking barrier, whose StoreLoad fence costs as much as an atomic, and a passive-target
     * epoch stores the state twice.
     */
    private volatile int accessState;
    /**
     * Release-mode stores of {@link #accessState} for the passive-target calls: other threads of the rank read it
     * only when issuing operations, which MPI orders after the epoch's opening by the program's own
     * synchronization, so the StoreLoad fence of a volatile store (a locked instruction on x86) buys nothing there.
     */
    private static final java.lang.invoke.VarHandle ACCESS;

    static {
        if (Access.NONE.ordinal() != A_NONE || Access.FENCE.ordinal() != A_FENCE || Access.PSCW.ordinal() != A_PSCW
                || Access.LOCK.ordinal() != A_LOCK || Access.LOCK_ALL.ordinal() != A_LOCK_ALL) {
            throw new ExceptionInInitializerError("Access ordinals out of step with their int constants");
        }
        try {
            ACCESS = java.lang.invoke.MethodHandles.lookup().findVarHandle(Epochs.class, "accessState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** The {@link Exposure} state by ordinal (an int for the reason given at {@link #accessState}). */
    private volatile int exposureState;
    private volatile boolean opsSinceFence;
    private boolean[] startMember;
    private int[] startRanks = new int[0];
    private boolean startNoCheck;
    private int[] postRanks = new int[0];
    private final IntSlots lockMode;
    private final boolean[] lockNoCheck;
    private final IntSlots lockHeld;
    /**
     * Per target, on a window with {@link WindowImpl#mixedPeers}: operations to a direct peer travelled as packets
     * (private memory of a dynamic window or of a create window) and may not be complete at the target yet.
     */
    private final IntSlots packetsTo;
    private volatile boolean lockAllNoCheck;
    private int fenceEpoch;
    private final long[] postConsumed;
    private final long[] completeConsumed;

    Epochs(WindowImpl w) {
        this.w = w;
        this.n = w.groupSize;
        this.lockMode = new IntSlots(n);
        this.lockNoCheck = new boolean[n];
        this.lockHeld = new IntSlots(n);
        this.packetsTo = new IntSlots(n);
        this.postConsumed = new long[n];
        this.completeConsumed = new long[n];
    }

    Access access() {
        int a = accessState;
        return a == A_LOCK && !anyLocked() ? Access.NONE : ACCESSES[a];
    }

    /**
     * Whether some target is locked (or being locked) by this rank. {@link #accessState} stays {@code A_LOCK}
     * after the last unlock ("sticky"): with no target locked it means no access epoch, so that lock and unlock
     * need no epoch-wide bookkeeping (a count under the epoch mutex cost two atomics per epoch).
     */
    private boolean anyLocked() {
        for (int t = 0; t < n; t++) {
            if (lockMode.get(t) != 0) {
                return true;
            }
        }
        return false;
    }

    Exposure exposure() {
        return EXPOSURES[exposureState];
    }

    private void setAccess(Access a) {
        accessState = a.ordinal();
    }

    private void setExposure(Exposure e) {
        exposureState = e.ordinal();
    }

    private String state() {
        return "access epoch " + access() + ", exposure epoch " + exposure();
    }

    private void checkAssert(int assertion, int allowed, String call) {
        if ((assertion & ~allowed) != 0) {
            throw w.fail(ErrorClass.ERR_ASSERT, call + ": assert 0x" + Integer.toHexString(assertion)
                    + " has bits not allowed here (allowed: 0x" + Integer.toHexString(allowed) + ")");
        }
    }

    private int groupRank(int worldRank, String call) {
        for (int i = 0; i < n; i++) {
            if (w.worldRanks[i] == worldRank) {
                return i;
            }
        }
        throw w.fail(ErrorClass.ERR_GROUP, call + ": world rank " + worldRank + " is not in the window's group");
    }

    private int[] toWindowRanks(Group g, String call) {
        if (g == null) {
            throw w.fail(ErrorClass.ERR_GROUP, call + ": group is null");
        }
        int[] r = new int[g.size()];
        for (int i = 0; i < r.length; i++) {
            r[i] = groupRank(g.worldRank(i), call);
        }
        return r;
    }

    /** Whether access is allowed to open a new epoch kind (fence epochs end implicitly if nothing was issued). */
    private boolean accessFree() {
        int a = accessState;
        return a == A_NONE || (a == A_FENCE && !opsSinceFence) || (a == A_LOCK && !anyLocked());
    }

    // ------------------------------------------------------------------ the operation fast path

    void checkAccess(int t, String what) {
        int a = accessState;
        switch (a) {
            case A_FENCE:
                if (!opsSinceFence) {
                    opsSinceFence = true;
                }
                return;
            case A_PSCW:
                if (startMember[t]) {
                    return;
                }
                break;
            case A_LOCK:
                if (lockMode.get(t) > 0) {
                    return;
                }
                break;
            case A_LOCK_ALL:
                return;
            default:
                break;
        }
        throw w.fail(ErrorClass.ERR_RMA_SYNC, what + " to rank " + t + " outside an access epoch to it (" + state()
                + (a == A_LOCK ? "; rank " + t + " is not locked" : "") + ")");
    }

    /**
     * On the direct path in a lock_all epoch, takes the target's lock word the first time the epoch touches the
     * target ({@code lock} takes its target's word itself). The issuing thread that moves {@code lockHeld[t]}
     * from 0 to {@link #ACQUIRING} takes the word; others of the rank wait for it (no monitor: the epoch lock cost
     * as much as the lock word itself).
     */
    void ensureDirectLock(int t) {
        int a = accessState;
        if (a != A_LOCK && a != A_LOCK_ALL) {
            return;
        }
        int h = lockHeld.get(t);
        if (h == 1 || h == 2 || (a == A_LOCK_ALL ? lockAllNoCheck : lockNoCheck[t])) {
            return;
        }
        if (h == 0 && lockHeld.compareAndSet(t, 0, ACQUIRING)) {
            boolean exclusive = a == A_LOCK && lockMode.get(t) == LockType.EXCLUSIVE.mpiValue();
            try {
                acquireDirect(t, exclusive);
            } catch (RuntimeException | Error e) {
                lockHeld.set(t, 0);
                throw e;
            }
            return;
        }
        await(() -> lockHeld.get(t) != ACQUIRING); // another thread of the rank is taking it
        if (lockHeld.get(t) == 0) {
            ensureDirectLock(t); // its attempt failed (the job aborted): try, and fail, ourselves
        }
    }

    /** {@code lockHeld[t]} while an issuing thread takes the target's lock word. */
    private static final int ACQUIRING = 3;

    private void acquireDirect(int t, boolean exclusive) {
        LockWord lw = w.peers[t].target.lockWord;
        if (!exclusive && lw.tryEnterShared()) { // nobody holds or waits for it exclusively: one atomic
            lockHeld.lazySet(t, 2);
            return;
        }
        long ticket = lw.takeTicket();
        if (!lw.tryEnter(ticket, exclusive)) {
            w.counters.increment(Counter.LOCK_WAITS);
            await(() -> lw.tryEnter(ticket, exclusive), w.peers[t].target);
        }
        lockHeld.lazySet(t, exclusive ? 1 : 2); // read by the rank's issuing threads; the ticket RMWs fenced already
    }

    /**
     * Releases the lock word of {@code t} if this rank holds it. The release is an atomic add (a full fence), so
     * the epoch's direct stores are visible to whoever takes the lock next; when no word is held (never taken, or
     * MODE_NOCHECK) a full fence completes them instead, unless the caller has {@code fenced} already.
     */
    private void releaseDirect(int t, boolean fenced) {
        int held = lockHeld.get(t);
        if (held == 0) {
            if (!fenced) {
                java.lang.invoke.VarHandle.fullFence();
            }
            return;
        }
        LockWord lw = w.peers[t].target.lockWord;
        if (held == 1) {
            lw.releaseExclusive();
        } else {
            lw.releaseShared();
        }
        lockHeld.lazySet(t, 0);
    }

    private void await(BooleanSupplier done) {
        w.awaitSync(done);
    }

    /** Waits, sleeping on {@code state} (woken by its signals from any process) once spinning is over. */
    private void await(BooleanSupplier done, TargetState state) {
        w.awaitSync(done, state);
    }

    /**
     * An operation to direct peer {@code t} went as packets (or around them, counted by them): its synchronization
     * must complete them too, from now on ({@link #due}).
     */
    void notePackets(int t) {
        if (packetsTo.get(t) == 0) {
            packetsTo.set(t, 1);
        }
    }

    /**
     * Completes at direct peers the packets sent to them ({@link #notePackets}), before a flush returns, a lock
     * word is released or a signal is stored: the packets and the signal take different ways, so the packets
     * must be acknowledged first. {@code remote} false: flush_local (only local buffers must be free);
     * {@code targets} null: every rank. Callers test {@link WindowImpl#mixedPeers} first, so other windows pay
     * neither the call nor its array.
     */
    private void settle(boolean remote, int... targets) {
        int count = targets == null ? n : targets.length;
        int k = 0;
        int[] due = new int[count];
        for (int i = 0; i < count; i++) {
            int t = targets == null ? i : targets[i];
            if (due(t)) {
                due[k++] = t;
            }
        }
        if (k > 0) {
            w.packets.flush(java.util.Arrays.copyOf(due, k), remote);
        }
    }

    /** {@link #settle} at one target, without the arrays (a flush to one rank runs it per operation). */
    private void settle(boolean remote, int t) {
        if (due(t)) {
            w.packets.flush(t, remote);
        }
    }

    /**
     * Whether direct peer {@code t} may have packets to complete: once any went there, every settle asks the packet
     * path, which returns at once when all it sent is acknowledged. (Clearing the mark at a flush lost operations of
     * another thread of the rank: its packet was already marked, and its own flush, finding the mark cleared by the
     * first thread's, returned before the packet's reply; a fetch_and_op's result then arrived after the flush.)
     */
    private boolean due(int t) {
        return packetsTo.get(t) != 0 && w.peers[t].direct;
    }

    /** {@link #settle} at every rank. */
    private void settleAll(boolean remote) {
        settle(remote, (int[]) null);
    }

    /** Sends a FENCE/POST/COMPLETE signal to peer {@code p}: directly, or behind the queued packets. */
    private void signal(int p, int type, int aux) {
        Peer peer = w.peers[p];
        if (!peer.direct) {
            w.packets.signal(p, type, aux);
            return;
        }
        TargetState ts = peer.target;
        switch (type) {
            case PacketType.FENCE: ts.fenceArrived(aux & 1); break;
            case PacketType.POST: ts.postArrived(w.rank); break;
            default: ts.completeArrived(w.rank); break;
        }
    }

    // ------------------------------------------------------------------ fence

    void fence(int assertion) {
        checkAssert(assertion, MODE_FENCE, "fence");
        lock.lock();
        try {
            Access acc = access();
            Exposure exp = exposure();
            if (!(acc == Access.NONE || acc == Access.FENCE) || !(exp == Exposure.NONE || exp == Exposure.FENCE)) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC, "fence inside another epoch (" + state() + "; expected none or fence)");
            }
            if ((assertion & Win.MODE_NOPRECEDE) != 0 && opsSinceFence) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC, "fence asserted MODE_NOPRECEDE but operations were issued since the last fence");
            }
            int e = fenceEpoch++;
            if (w.rdma != null) { // the RDMA lane's puts are in place at their targets before the FENCE signals
                w.rdma.flushAll();
            }
            if (w.mixedPeers) { // every target has all of this rank's operations before any is signalled
                settleAll(true);
            }
            for (int p = 0; p < n; p++) {
                signal(p, PacketType.FENCE, e);
            }
            TargetState ts = w.target;
            await(() -> ts.fenceCount(e & 1) >= n && w.packets.pendingReplies() == 0, ts);
            ts.fenceConsume(e & 1, n);
            w.packets.checkAsyncErrors();
            // With every peer direct, each rank signalled after its own stores completed: the markers are the barrier.
            if ((assertion & Win.MODE_NOPRECEDE) == 0 && n > 1 && w.anyPacketPeer) {
                // Every operation targeting this rank is now applied here, but not yet everywhere: a rank that
                // leaves first could read another target (directly, or by a packet that overtakes the puts from a
                // third rank) before that target has applied them. The next epoch starts when all have.
                w.ctrl.barrier();
            }
            opsSinceFence = false;
            boolean end = (assertion & Win.MODE_NOSUCCEED) != 0;
            setAccess(end ? Access.NONE : Access.FENCE);
            setExposure(end ? Exposure.NONE : Exposure.FENCE);
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ PSCW

    void start(Group g, int assertion) {
        checkAssert(assertion, Win.MODE_NOCHECK, "start");
        lock.lock();
        try {
            if (!accessFree()) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC, "start inside another access epoch (" + state() + "; expected none)");
            }
            int[] ranks = toWindowRanks(g, "start");
            boolean noCheck = (assertion & Win.MODE_NOCHECK) != 0;
            if (!noCheck) {
                for (int t : ranks) {
                    long want = postConsumed[t] + 1;
                    TargetState ts = w.target;
                    await(() -> ts.posts(t) >= want, ts);
                    postConsumed[t] = want;
                }
            }
            boolean[] member = new boolean[n];
            for (int t : ranks) {
                member[t] = true;
            }
            startMember = member;
            startRanks = ranks;
            startNoCheck = noCheck;
            opsSinceFence = false;
            setAccess(Access.PSCW);
        } finally {
            lock.unlock();
        }
    }

    void complete() {
        lock.lock();
        try {
            if (access() != Access.PSCW) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC, "complete without start (" + state() + "; expected PSCW access)");
            }
            if (w.rdma != null) {
                w.rdma.flush(startRanks);
            }
            if (w.mixedPeers) {
                settle(true, startRanks);
            }
            for (int t : startRanks) {
                signal(t, PacketType.COMPLETE, 0);
            }
            await(() -> w.packets.pendingReplies() == 0);
            w.packets.awaitLocal(startRanks); // large puts sent from the user's buffers: out of them by now
            w.packets.checkAsyncErrors();
            setAccess(Access.NONE);
        } finally {
            lock.unlock();
        }
    }

    void post(Group g, int assertion) {
        checkAssert(assertion, MODE_POST, "post");
        lock.lock();
        try {
            Exposure e = exposure();
            if (!(e == Exposure.NONE || (e == Exposure.FENCE && !opsSinceFence))) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC, "post inside another exposure epoch (" + state() + "; expected none)");
            }
            int[] ranks = toWindowRanks(g, "post");
            if (e == Exposure.FENCE && accessState == A_FENCE) {
                setAccess(Access.NONE);
            }
            postRanks = ranks;
            setExposure(Exposure.POST);
            java.lang.invoke.VarHandle.fullFence();
            if ((assertion & Win.MODE_NOCHECK) == 0) {
                for (int o : ranks) {
                    signal(o, PacketType.POST, 0);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    void waitFor() {
        lock.lock();
        try {
            if (exposure() != Exposure.POST) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC, "wait without post (" + state() + "; expected PSCW exposure)");
            }
            TargetState ts = w.target;
            for (int o : postRanks) {
                long want = completeConsumed[o] + 1;
                await(() -> ts.completes(o) >= want, ts);
                completeConsumed[o] = want;
            }
            setExposure(Exposure.NONE);
        } finally {
            lock.unlock();
        }
    }

    boolean test() {
        lock.lock();
        try {
            if (exposure() != Exposure.POST) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC, "test without post (" + state() + "; expected PSCW exposure)");
            }
            w.job.agent().tryProgress();
            TargetState ts = w.target;
            for (int o : postRanks) {
                if (ts.completes(o) < completeConsumed[o] + 1) {
                    return false;
                }
            }
            for (int o : postRanks) {
                completeConsumed[o]++;
            }
            setExposure(Exposure.NONE);
            return true;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ passive target

    private boolean checkTarget(int t, String call) {
        if (t == Win.PROC_NULL) {
            return false;
        }
        if (t < 0 || t >= n) {
            throw w.fail(ErrorClass.ERR_RANK, call + ": rank " + t + " is not in the window's group of size " + n);
        }
        return true;
    }

    /** {@link #lockMode} of a target while {@code lock} takes it (no operation may use it yet). */
    private static final int CLAIMING = -1;

    void lock(LockType type, int t, int assertion) {
        if (type == null || (assertion & ~Win.MODE_NOCHECK) != 0 || t < 0 || t >= n || w.config.noLocks) {
            if (!checkLockArguments(type, t, assertion)) {
                return; // PROC_NULL
            }
        }
        // The target's mode word is this lock's claim: one compare-and-set, and no epoch mutex once passive-target
        // access is open (the epoch mutex and a locked-target count cost two atomics per lock and two per unlock;
        // Open MPI's osc/sm spends three atomics and two fences on lock/put/unlock, this path now three atomics).
        // Threads of the rank may lock different targets at once; a second lock of a target is an error.
        if (!lockMode.compareAndSet(t, 0, CLAIMING)) {
            throw lockStateError(t);
        }
        boolean noCheck = (assertion & Win.MODE_NOCHECK) != 0;
        boolean exclusive = type == LockType.EXCLUSIVE;
        try {
            if (accessState != A_LOCK) {
                openPassive(t);
            }
            lockNoCheck[t] = noCheck;
            if (!noCheck) {
                // coalesced (default): over packets the lock travels with the first operation, except on the
                // calling rank itself, where MPI requires it to be held when lock returns. A direct peer's lock
                // word is taken here, as Open MPI's osc/sm does: taking it at the first operation instead cost a
                // compare-and-set per epoch to elect the taking thread (JMH lock(SHARED)/put/unlock 39 -> 35 ns,
                // exclusive 43 -> 37; an epoch without operations pays the word, 19 -> 25 ns)
                if (w.peers[t].direct) {
                    acquireDirect(t, exclusive);
                } else {
                    w.packets.onLock(t, exclusive, t == w.rank || !w.config.coalesceLocks);
                }
            }
        } catch (RuntimeException | Error e) {
            lockNoCheck[t] = false;
            lockMode.set(t, 0);
            throw e;
        }
        lockMode.lazySet(t, type.mpiValue()); // operations of the rank's threads may use the target from now on
    }

    /** Opens passive-target access (under the epoch mutex: other kinds of epoch open and close under it). */
    private void openPassive(int t) {
        lock.lock();
        try {
            if (accessState != A_LOCK) {
                if (!accessFree()) {
                    throw w.fail(ErrorClass.ERR_RMA_SYNC, "lock inside another access epoch (" + state() + "; expected none or lock)");
                }
                opsSinceFence = false;
                ACCESS.setRelease(this, A_LOCK);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The argument checks of {@code lock}, off its hot path (which must stay small enough for the JIT to inline
     * it into the caller): throws for bad arguments; false for {@code PROC_NULL}.
     */
    private boolean checkLockArguments(LockType type, int t, int assertion) {
        if (type == null) {
            throw w.fail(ErrorClass.ERR_LOCKTYPE, "lock: lock type is null");
        }
        checkAssert(assertion, Win.MODE_NOCHECK, "lock");
        if (!checkTarget(t, "lock")) {
            return false;
        }
        if (w.config.noLocks) {
            throw w.fail(ErrorClass.ERR_RMA_SYNC, "lock on a window created with info no_locks=true");
        }
        return true;
    }

    private RmaException lockStateError(int t) {
        return w.fail(ErrorClass.ERR_RMA_SYNC, "lock: rank " + t + " is already locked by this rank");
    }

    void unlock(int t) {
        if (!checkTarget(t, "unlock")) {
            return;
        }
        // no epoch mutex (see lock): the target's mode word says whether this rank holds it; access stays "sticky"
        if (accessState != A_LOCK || lockMode.get(t) <= 0) {
            throw w.fail(ErrorClass.ERR_RMA_SYNC, "unlock of rank " + t + " which this rank has not locked (" + state() + ")");
        }
        if (w.peers[t].direct) {
            if (w.mixedPeers) {
                settle(true, t);
            }
            releaseDirect(t, false); // a full fence either way: the epoch's direct operations are complete
        } else {
            if (w.rdma != null) {
                w.rdma.flush(t); // before the unlock packet releases the target's lock
            }
            w.packets.unlock(new int[] {t}, !lockNoCheck[t]);
        }
        lockNoCheck[t] = false;
        lockMode.lazySet(t, 0); // after the release: the next lock of t by this rank finds it free
        w.packets.checkAsyncErrors();
    }

    void lockAll(int assertion) {
        checkAssert(assertion, Win.MODE_NOCHECK, "lock_all");
        if (w.config.noLocks) {
            throw w.fail(ErrorClass.ERR_RMA_SYNC, "lock_all on a window created with info no_locks=true");
        }
        lock.lock();
        try {
            if (!accessFree()) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC, "lock_all inside another access epoch (" + state() + "; expected none)");
            }
            boolean noCheck = (assertion & Win.MODE_NOCHECK) != 0;
            lockAllNoCheck = noCheck;
            opsSinceFence = false;
            setAccess(Access.LOCK_ALL);
            if (!noCheck) {
                boolean now = !w.config.coalesceLocks;
                int packetPeers = 0;
                for (int t = 0; t < n; t++) {
                    if (!w.peers[t].direct) {
                        packetPeers++;
                        w.packets.onLock(t, false, false);
                    } else if (now) {
                        acquireDirect(t, false);
                    }
                }
                if (now && packetPeers > 0) {
                    int[] ts = new int[packetPeers];
                    for (int t = 0, k = 0; t < n; t++) {
                        if (!w.peers[t].direct) {
                            ts[k++] = t;
                        }
                    }
                    w.packets.lockNow(ts);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    void unlockAll() {
        lock.lock();
        try {
            if (access() != Access.LOCK_ALL) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC, "unlock_all without lock_all (" + state() + ")");
            }
            if (w.mixedPeers) {
                settleAll(true);
            }
            java.lang.invoke.VarHandle.fullFence();
            int packetPeers = 0;
            for (int t = 0; t < n; t++) {
                if (w.peers[t].direct) {
                    releaseDirect(t, true);
                } else {
                    packetPeers++;
                }
            }
            if (packetPeers > 0) {
                int[] ts = new int[packetPeers];
                for (int t = 0, k = 0; t < n; t++) {
                    if (!w.peers[t].direct) {
                        ts[k++] = t;
                    }
                }
                if (w.rdma != null) {
                    w.rdma.flushAll();
                }
                w.packets.unlock(ts, !lockAllNoCheck);
            }
            setAccess(Access.NONE);
        } finally {
            lock.unlock();
        }
        w.packets.checkAsyncErrors();
    }

    private void checkPassive(int t, String call) {
        int a = accessState;
        if (a == A_LOCK_ALL || (a == A_LOCK && lockMode.get(t) > 0)) {
            return;
        }
        throw w.fail(ErrorClass.ERR_RMA_SYNC, call + " of rank " + t + " outside a passive-target epoch to it (" + state() + ")");
    }

    private void checkPassiveAny(String call) {
        int a = accessState;
        if (a != A_LOCK_ALL && (a != A_LOCK || !anyLocked())) {
            throw w.fail(ErrorClass.ERR_RMA_SYNC, call + " outside a passive-target epoch (" + state() + ")");
        }
    }

    void flush(int t) {
        if (!checkTarget(t, "flush")) {
            return;
        }
        checkPassive(t, "flush");
        if (w.peers[t].direct) {
            if (w.mixedPeers) {
                settle(true, t);
            }
            java.lang.invoke.VarHandle.fullFence(); // direct operations are complete when issued
        } else {
            if (w.rdma != null) {
                w.rdma.flush(t);
            }
            w.packets.flush(t, true);
        }
        w.packets.checkAsyncErrors();
    }

    void flushAll() {
        checkPassiveAny("flush_all");
        if (w.mixedPeers) {
            settleAll(true);
        }
        java.lang.invoke.VarHandle.fullFence();
        if (w.rdma != null) {
            w.rdma.flushAll();
        }
        if (w.anyPacketPeer) {
            w.packets.flush(lockedPacketTargets(), true);
        }
        w.packets.checkAsyncErrors();
    }

    void flushLocal(int t) {
        if (!checkTarget(t, "flush_local")) {
            return;
        }
        checkPassive(t, "flush_local");
        if (!w.peers[t].direct) {
            w.packets.flush(t, false);
        } else if (w.mixedPeers) {
            settle(false, t);
        }
        w.packets.checkAsyncErrors();
    }

    void flushLocalAll() {
        checkPassiveAny("flush_local_all");
        if (w.mixedPeers) {
            settleAll(false);
        }
        if (w.anyPacketPeer) {
            w.packets.flush(lockedPacketTargets(), false);
        }
        w.packets.checkAsyncErrors();
    }

    private int[] lockedPacketTargets() {
        int[] out = new int[n];
        int k = 0;
        boolean all = access() == Access.LOCK_ALL;
        for (int t = 0; t < n; t++) {
            if (!w.peers[t].direct && (all || lockMode.get(t) > 0)) {
                out[k++] = t;
            }
        }
        return java.util.Arrays.copyOf(out, k);
    }

    void checkFreeable() {
        Access a = access();
        Exposure e = exposure();
        boolean accessOk = a == Access.NONE || (a == Access.FENCE && !opsSinceFence);
        boolean exposureOk = e == Exposure.NONE || e == Exposure.FENCE;
        if (!accessOk || !exposureOk) {
            throw w.fail(ErrorClass.ERR_RMA_SYNC, "free with an epoch still open (" + state()
                    + (opsSinceFence ? ", operations issued since the last fence" : "") + ")");
        }
    }
}

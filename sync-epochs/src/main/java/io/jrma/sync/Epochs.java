package io.jrma.sync;

import io.jrma.ErrorClass;
import io.jrma.Group;
import io.jrma.LockType;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.mem.IntSlots;
import io.jrma.core.wire.PacketType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * The epoch state machine of one rank's window: the access and exposure states, the per-target lock state, the
 * checks every operation makes ({@link #checkAccess}, {@link #ensureDirectLock}) and what the synchronization
 * algorithms share (signals, settling packets, lock words). The algorithms live by MPI concept beside it:
 * {@link FenceEpochs} (fence by completion counting), {@link PscwEpochs} (PSCW matched by groups) and
 * {@link PassiveTarget} (locks and flushes). Access and exposure epochs are separate fields; every synchronization
 * call begins with a named check that raises {@code ERR_RMA_SYNC} with the current and expected state.
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

    final WindowImpl w;
    /** Ranks in the window's group. */
    final int n;
    /** The epoch mutex: transitions other than a passive-target lock or unlock of one target are made under it. */
    final EpochMutex lock = new EpochMutex();
    private static final Access[] ACCESSES = Access.values();
    /** {@link Access} ordinals, for the hot paths that test {@link #accessState} without mapping it to the enum. */
    static final int A_NONE = 0, A_FENCE = 1, A_PSCW = 2, A_LOCK = 3, A_LOCK_ALL = 4;
    private static final Exposure[] EXPOSURES = Exposure.values();
    /**
     * The {@link Access} state by ordinal. An int, not the enum reference: a reference store into this (old)
     * object runs G1's card-marking barrier, whose StoreLoad fence costs as much as an atomic, and a passive-target
     * epoch stores the state twice.
     */
    volatile int accessState;
    /**
     * Release-mode stores of {@link #accessState} for the passive-target calls: other threads of the rank read it
     * only when issuing operations, which MPI orders after the epoch's opening by the program's own
     * synchronization, so the StoreLoad fence of a volatile store (a locked instruction on x86) buys nothing there.
     */
    private static final VarHandle ACCESS;

    static {
        if (Access.NONE.ordinal() != A_NONE || Access.FENCE.ordinal() != A_FENCE || Access.PSCW.ordinal() != A_PSCW
                || Access.LOCK.ordinal() != A_LOCK || Access.LOCK_ALL.ordinal() != A_LOCK_ALL) {
            throw new ExceptionInInitializerError("Access ordinals out of step with their int constants");
        }
        try {
            ACCESS = MethodHandles.lookup().findVarHandle(Epochs.class, "accessState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** The {@link Exposure} state by ordinal (an int for the reason given at {@link #accessState}). */
    private volatile int exposureState;
    /** Whether operations were issued since the last fence (or since access opened). */
    volatile boolean opsSinceFence;
    /** Per target, whether it is in the group of the open PSCW access epoch ({@link PscwEpochs#start}). */
    boolean[] startMember;
    /** Per target: this rank's lock type on it ({@link LockType#mpiValue}), 0 when unlocked ({@link PassiveTarget}). */
    final IntSlots lockMode;
    /** Per target: locked with MODE_NOCHECK. */
    final boolean[] lockNoCheck;
    /** Per target: the target's lock word is held, exclusive (1) or shared (2), or being taken ({@link #ACQUIRING}). */
    final IntSlots lockHeld;
    /**
     * Per target, on a window with {@link WindowImpl#mixedPeers}: operations to a direct peer travelled as packets
     * (private memory of a dynamic window or of a create window) and may not be complete at the target yet.
     */
    private final IntSlots packetsTo;
    /** lock_all with MODE_NOCHECK. */
    volatile boolean lockAllNoCheck;

    Epochs(WindowImpl w) {
        this.w = w;
        this.n = w.groupSize;
        this.lockMode = new IntSlots(n);
        this.lockNoCheck = new boolean[n];
        this.lockHeld = new IntSlots(n);
        this.packetsTo = new IntSlots(n);
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
    boolean anyLocked() {
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

    void setAccess(Access a) {
        accessState = a.ordinal();
    }

    /**
     * Opens passive-target access with a release-mode store ({@link #ACCESS}: the rank's other threads read the
     * state only when issuing operations, which the program orders after the lock).
     */
    void setAccessLockRelease() {
        ACCESS.setRelease(this, A_LOCK);
    }

    void setExposure(Exposure e) {
        exposureState = e.ordinal();
    }

    String state() {
        return "access epoch " + access() + ", exposure epoch " + exposure();
    }

    void checkAssert(int assertion, int allowed, String call) {
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

    int[] toWindowRanks(Group g, String call) {
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
    boolean accessFree() {
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

    void acquireDirect(int t, boolean exclusive) {
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
    void releaseDirect(int t, boolean fenced) {
        int held = lockHeld.get(t);
        if (held == 0) {
            if (!fenced) {
                VarHandle.fullFence();
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

    void await(BooleanSupplier done) {
        w.awaitSync(done);
    }

    /** Waits, sleeping on {@code state} (woken by its signals from any process) once spinning is over. */
    void await(BooleanSupplier done, TargetState state) {
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
    void settle(boolean remote, int... targets) {
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
            w.packets.flush(Arrays.copyOf(due, k), remote);
        }
    }

    /** {@link #settle} at one target, without the arrays (a flush to one rank runs it per operation). */
    void settle(boolean remote, int t) {
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
    void settleAll(boolean remote) {
        settle(remote, (int[]) null);
    }

    /** Sends a FENCE/POST/COMPLETE signal to peer {@code p}: directly, or behind the queued packets. */
    void signal(int p, int type, int aux) {
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

    boolean checkTarget(int t, String call) {
        if (t == Win.PROC_NULL) {
            return false;
        }
        if (t < 0 || t >= n) {
            throw w.fail(ErrorClass.ERR_RANK, call + ": rank " + t + " is not in the window's group of size " + n);
        }
        return true;
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

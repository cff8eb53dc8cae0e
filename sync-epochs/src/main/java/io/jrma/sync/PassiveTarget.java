package io.jrma.sync;

import io.jrma.ErrorClass;
import io.jrma.LockType;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.core.mem.IntSlots;
import io.jrma.sync.Epochs.Access;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Passive-target synchronization: lock, unlock, lock_all, unlock_all and the flushes. Locks on the direct path are
 * the targets' lock words, taken by the origin (at lock on a single target, lazily at the first operation in a
 * lock_all epoch: {@link Epochs#ensureDirectLock}); on the packet path the lock travels with the first operation
 * and the unlock with the last (coalesced) unless {@code jrma.lock.coalesce=false}. A flush completes at the target
 * what this rank issued to it: a fence of memory for direct peers, the RDMA lane's flush, the packets' acks.
 *
 * <p>Threads: any of the rank's threads. A lock or unlock of one target while passive-target access is open takes
 * no epoch mutex: its claim is the target's mode word ({@link Epochs#lockMode}, a compare-and-set); lock_all and
 * unlock_all are made under the mutex.
 */
final class PassiveTarget {
    private final Epochs e;
    private final WindowImpl w;
    private final int n;
    /** {@link Epochs#lockMode}, the same slots. */
    private final IntSlots lockMode;
    /** {@link Epochs#lockNoCheck}, the same array. */
    private final boolean[] lockNoCheck;

    PassiveTarget(Epochs e) {
        this.e = e;
        this.w = e.w;
        this.n = e.n;
        this.lockMode = e.lockMode;
        this.lockNoCheck = e.lockNoCheck;
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
            if (e.accessState != Epochs.A_LOCK) {
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
                    e.acquireDirect(t, exclusive);
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
        e.lock.lock();
        try {
            if (e.accessState != Epochs.A_LOCK) {
                if (!e.accessFree()) {
                    throw w.fail(ErrorClass.ERR_RMA_SYNC,
                            "lock inside another access epoch (" + e.state() + "; expected none or lock)");
                }
                e.opsSinceFence = false;
                e.setAccessLockRelease();
            }
        } finally {
            e.lock.unlock();
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
        e.checkAssert(assertion, Win.MODE_NOCHECK, "lock");
        if (!e.checkTarget(t, "lock")) {
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
        if (!e.checkTarget(t, "unlock")) {
            return;
        }
        // no epoch mutex (see lock): the target's mode word says whether this rank holds it; access stays "sticky"
        if (e.accessState != Epochs.A_LOCK || lockMode.get(t) <= 0) {
            throw w.fail(ErrorClass.ERR_RMA_SYNC,
                    "unlock of rank " + t + " which this rank has not locked (" + e.state() + ")");
        }
        if (w.peers[t].direct) {
            if (w.mixedPeers) {
                e.settle(true, t);
            }
            e.releaseDirect(t, false); // a full fence either way: the epoch's direct operations are complete
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
        e.checkAssert(assertion, Win.MODE_NOCHECK, "lock_all");
        if (w.config.noLocks) {
            throw w.fail(ErrorClass.ERR_RMA_SYNC, "lock_all on a window created with info no_locks=true");
        }
        e.lock.lock();
        try {
            if (!e.accessFree()) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC,
                        "lock_all inside another access epoch (" + e.state() + "; expected none)");
            }
            boolean noCheck = (assertion & Win.MODE_NOCHECK) != 0;
            e.lockAllNoCheck = noCheck;
            e.opsSinceFence = false;
            e.setAccess(Access.LOCK_ALL);
            if (!noCheck) {
                boolean now = !w.config.coalesceLocks;
                int packetPeers = 0;
                for (int t = 0; t < n; t++) {
                    if (!w.peers[t].direct) {
                        packetPeers++;
                        w.packets.onLock(t, false, false);
                    } else if (now) {
                        e.acquireDirect(t, false);
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
            e.lock.unlock();
        }
    }

    void unlockAll() {
        e.lock.lock();
        try {
            if (e.access() != Access.LOCK_ALL) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC, "unlock_all without lock_all (" + e.state() + ")");
            }
            if (w.mixedPeers) {
                e.settleAll(true);
            }
            VarHandle.fullFence();
            int packetPeers = 0;
            for (int t = 0; t < n; t++) {
                if (w.peers[t].direct) {
                    e.releaseDirect(t, true);
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
                w.packets.unlock(ts, !e.lockAllNoCheck);
            }
            e.setAccess(Access.NONE);
        } finally {
            e.lock.unlock();
        }
        w.packets.checkAsyncErrors();
    }

    private void checkPassive(int t, String call) {
        int a = e.accessState;
        if (a == Epochs.A_LOCK_ALL || (a == Epochs.A_LOCK && lockMode.get(t) > 0)) {
            return;
        }
        throw w.fail(ErrorClass.ERR_RMA_SYNC,
                call + " of rank " + t + " outside a passive-target epoch to it (" + e.state() + ")");
    }

    private void checkPassiveAny(String call) {
        int a = e.accessState;
        if (a != Epochs.A_LOCK_ALL && (a != Epochs.A_LOCK || !e.anyLocked())) {
            throw w.fail(ErrorClass.ERR_RMA_SYNC, call + " outside a passive-target epoch (" + e.state() + ")");
        }
    }

    void flush(int t) {
        if (!e.checkTarget(t, "flush")) {
            return;
        }
        checkPassive(t, "flush");
        if (w.peers[t].direct) {
            if (w.mixedPeers) {
                e.settle(true, t);
            }
            VarHandle.fullFence(); // direct operations are complete when issued
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
            e.settleAll(true);
        }
        VarHandle.fullFence();
        if (w.rdma != null) {
            w.rdma.flushAll();
        }
        if (w.anyPacketPeer) {
            w.packets.flush(lockedPacketTargets(), true);
        }
        w.packets.checkAsyncErrors();
    }

    void flushLocal(int t) {
        if (!e.checkTarget(t, "flush_local")) {
            return;
        }
        checkPassive(t, "flush_local");
        if (!w.peers[t].direct) {
            w.packets.flush(t, false);
        } else if (w.mixedPeers) {
            e.settle(false, t);
        }
        w.packets.checkAsyncErrors();
    }

    void flushLocalAll() {
        checkPassiveAny("flush_local_all");
        if (w.mixedPeers) {
            e.settleAll(false);
        }
        if (w.anyPacketPeer) {
            w.packets.flush(lockedPacketTargets(), false);
        }
        w.packets.checkAsyncErrors();
    }

    private int[] lockedPacketTargets() {
        int[] out = new int[n];
        int k = 0;
        boolean all = e.access() == Access.LOCK_ALL;
        for (int t = 0; t < n; t++) {
            if (!w.peers[t].direct && (all || lockMode.get(t) > 0)) {
                out[k++] = t;
            }
        }
        return Arrays.copyOf(out, k);
    }
}

package io.jrma.sync;

import static io.jrma.core.wire.PacketType.F_LOCK_EXCLUSIVE;
import static io.jrma.core.wire.PacketType.F_LOCK_SHARED;
import static io.jrma.core.wire.PacketType.F_UNLOCK;
import static io.jrma.sync.PacketEncoding.appendControl;

import io.jrma.WinCounters.Counter;
import io.jrma.core.wire.PacketType;

/**
 * Passive-target locks on the packet path, origin side ({@link PacketOrigin}): a lock is not a message of its own
 * but a flag on the first packet sent to the target, and the unlock a flag on the last, so a single-operation epoch
 * is one packet and one reply; with jrma.lock.coalesce=false, lock sends a SYNC packet and waits for the grant, and
 * unlock is a SYNC packet after the operations. An unlock with everything acknowledged is a release that asks for
 * no ack (in-order delivery covers it).
 *
 * <p>Threads: the rank's threads; each target queue is guarded by its own monitor and waits happen outside it.
 */
final class PacketLocks {
    private final WindowImpl w;
    private final PacketOrigin origin;
    private final TargetQueue[] queues;

    PacketLocks(WindowImpl w, PacketOrigin origin, TargetQueue[] queues) {
        this.w = w;
        this.origin = origin;
        this.queues = queues;
    }

    /** Records a lock request; it travels on the first packet to the target ({@code now}: at once, acked). */
    void onLock(int t, boolean exclusive, boolean now) {
        TargetQueue q = queues[t];
        int want;
        synchronized (q) {
            q.lockFlags = exclusive ? F_LOCK_EXCLUSIVE : F_LOCK_SHARED;
            if (!now) {
                return;
            }
            appendControl(w, q, PacketType.SYNC, 0);
            want = origin.send(q, true, 0);
        }
        origin.awaitAck(q, want);
    }

    /**
     * Before an operation that reaches target {@code t} around the packets (the RDMA lane, {@link RdmaLane}) in a
     * passive-target epoch: returns once the target has granted this rank's lock. A lock recorded but not yet sent
     * (coalesced with the first operation) goes now as a packet of its own and is waited for; a lock sent with
     * packets not all acknowledged yet is waited for by a flush; otherwise (granted, no lock, or another kind of
     * epoch) nothing is done.
     */
    void awaitLockGranted(int t) {
        TargetQueue q = queues[t];
        int want = 0;
        boolean send;
        boolean flush;
        synchronized (q) {
            send = q.lockFlags != 0;
            flush = !send && q.lockSent && !q.allAcked();
            if (send) {
                appendControl(w, q, PacketType.SYNC, 0);
                want = origin.send(q, true, 0);
            }
        }
        if (send) {
            origin.awaitAck(q, want);
        } else if (flush) {
            origin.flush(t, true);
        }
    }

    /**
     * Sends the lock requests recorded for the targets (by {@link #onLock} without {@code now}) as packets of
     * their own, then waits until every target has granted them (jrma.lock.coalesce=false).
     */
    void lockNow(int[] targets) {
        int[] want = new int[targets.length];
        for (int i = 0; i < targets.length; i++) {
            TargetQueue q = queues[targets[i]];
            synchronized (q) {
                appendControl(w, q, PacketType.SYNC, 0);
                want[i] = origin.send(q, true, 0);
            }
        }
        for (int i = 0; i < targets.length; i++) {
            origin.awaitAck(queues[targets[i]], want[i]);
        }
    }

    /**
     * Ends passive-target epochs to the targets: sends what is queued with the unlock flag on its last packet
     * (or, with jrma.lock.coalesce=false, followed by an unlock packet of its own), then waits.
     */
    void unlock(int[] targets, boolean lockTaken) {
        int[] want = new int[targets.length];
        boolean[] wait = new boolean[targets.length];
        for (int i = 0; i < targets.length; i++) {
            TargetQueue q = queues[targets[i]];
            synchronized (q) {
                boolean hasOpen = q.open != null && q.open.count() > 0;
                if (!lockTaken || (!q.lockSent && !hasOpen)) {
                    // no lock travelled (MODE_NOCHECK, or nothing was ever sent): complete like a flush
                    q.lockFlags = 0;
                    wait[i] = origin.flushLocked(q, true);
                    want[i] = q.flushWant;
                    continue;
                }
                if (hasOpen && !w.config.coalesceLocks) {
                    appendControl(w, q, PacketType.SYNC, 0);
                    q.getIndex = -1; // the unlock packet stays last: no GET moves behind it to carry the flag
                    want[i] = origin.send(q, true, F_UNLOCK);
                    wait[i] = true;
                } else if (hasOpen) {
                    want[i] = origin.send(q, true, F_UNLOCK);
                    wait[i] = true;
                } else if (!q.allAcked() || w.config.alwaysAck) {
                    appendControl(w, q, PacketType.SYNC, 0);
                    want[i] = origin.send(q, true, F_UNLOCK);
                    wait[i] = true;
                } else {
                    appendControl(w, q, PacketType.SYNC, 0);
                    origin.send(q, false, F_UNLOCK);
                    q.releasedAt = (int) q.sent; // in-order delivery: the release needs no ack of its own
                    w.counters.increment(Counter.ACKS_ELIDED);
                }
                q.lockSent = false;
            }
        }
        for (int i = 0; i < targets.length; i++) {
            if (wait[i]) {
                origin.awaitAck(queues[targets[i]], want[i]);
            }
        }
    }
}

package io.jrma.sync;

import static io.jrma.core.wire.PacketType.F_ACK_BY_RING;
import static io.jrma.core.wire.PacketType.F_ACK_REQUIRED;
import static io.jrma.sync.PacketEncoding.appendControl;

import io.jrma.ErrorClass;
import io.jrma.WinCounters.Counter;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import io.jrma.core.wire.RingAck;
import io.jrma.spi.transport.Transport;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;
import org.agrona.MutableDirectBuffer;

/**
 * The origin side of the packet path (MPICH's RMA design): every operation is encoded at issue time as a
 * wire-ready packet in a per-target off-heap queue; a synchronization call sends the queue as one batch.
 * <ul>
 *   <li>lazy issue by default; eager issue, issue at flush_local and a bound on queued operations as info keys;</li>
 *   <li>a lock is not a message: its flag rides on the first packet sent to the target, and the unlock flag
 *       on the last, so a single-operation epoch is one packet and one reply (jrma.lock.coalesce=false turns
 *       this off: lock sends a SYNC packet and waits for the grant, unlock is a SYNC packet after the
 *       operations);</li>
 *   <li>acknowledgements are requested only when they carry information: a flush or unlock with nothing
 *       outstanding sends nothing (or, for unlock, a fire-and-forget release);</li>
 *   <li>over a shared-memory ring the ack may be no packet at all: the target publishes how far it applied the
 *       ring, and a flush waits for that position ({@link RingAck}, jrma.shm.ringAcks);</li>
 *   <li>a GET is moved to the tail of the batch so its data reply also carries the flush/unlock ack;
 *       get_accumulate, fetch_and_op and compare_and_swap are never moved (ordered with accumulates);</li>
 *   <li>flush_local waits only for data replies: puts are packed at issue, so their buffers are free, except a
 *       large contiguous put from a direct buffer over a transport that carries payloads by reference (TCP, the
 *       shared-memory rings), which is sent from the user's buffer; flush_local and complete wait until its batch
 *       has left (in the kernel, in the ring).</li>
 * </ul>
 *
 * <p>This class issues, sends batches, flushes and waits; how packets are built is {@link PacketEncoding}, the lock
 * and unlock flags are {@link PacketLocks}, and the replies that complete operations are {@link OriginReplies}.
 *
 * <p>Threads: the rank's threads issue and synchronize (each queue is guarded by its own monitor; waits happen
 * outside it); the progress agent delivers replies through {@link OriginReplies#onReply}.
 */
final class PacketOrigin {
    private final WindowImpl w;
    private final TargetQueue[] queues;
    /** The operations waiting for data replies, and the replies (progress agent). */
    final OriginReplies replies;
    private final PacketLocks locks;

    PacketOrigin(WindowImpl w) {
        this.w = w;
        this.queues = new TargetQueue[w.groupSize];
        for (int t = 0; t < queues.length; t++) {
            queues[t] = new TargetQueue(w, t);
        }
        this.replies = new OriginReplies(w, queues);
        this.locks = new PacketLocks(w, this, queues);
    }

    // ------------------------------------------------------------------ issue

    /** The largest operation the packet path carries (1 GiB less room for headers). */
    static final long MAX_BYTES = PacketHeader.MAX_PACKET_LENGTH - 65536;

    void issue(OpArgs a, CompletionRequest r) {
        if (a.bytes > MAX_BYTES) {
            throw w.fail(ErrorClass.ERR_COUNT,
                    OpArgs.kindName(a.kind) + " of " + a.bytes
                    + " bytes exceeds the packet path's limit of 1 GiB per operation");
        }
        TargetQueue q = queues[a.target];
        boolean data = a.kind != OpArgs.PUT && a.kind != OpArgs.ACC;
        synchronized (q) {
            q.opsSinceFlush++;
            int seq = 0;
            if (data) {
                PendingOp p = a.kind == OpArgs.GET
                        ? new PendingOp(a.kind, a.target, a.origin.base, a.origin.offset,
                        a.originCount, a.originLayout, r)
                        : new PendingOp(a.kind, a.target, a.result.base, a.result.offset,
                        a.resultCount, a.resultLayout, r);
                if (a.kind == OpArgs.GET) {
                    p.into = PacketEncoding.largeDirect(w, q, a);
                }
                seq = replies.register(q, p);
            }
            int index = q.open().count();
            // a request-based put copies: its request completes at issue, when the buffer is the user's again
            ByteBuffer ext = r == null && a.kind == OpArgs.PUT ? PacketEncoding.largeDirect(w, q, a) : null;
            PacketEncoding.encode(w, q, a, seq, ext);
            if (a.kind == OpArgs.GET) {
                q.getIndex = index;
            }
            if (w.config.eager || q.open.count() >= w.config.maxPendingOps || a.bytes >= w.config.eagerBytes) {
                send(q, false, 0);
            }
        }
        if (r != null && !data) {
            r.complete();
        }
    }

    /**
     * Whether an operation to target {@code t} may be done now around the queue, complete at issue (cross memory
     * attach, a request slot: {@link Operations}): nothing is queued for the target or unacknowledged by it, so no
     * packet can land after it; and, unless {@code anyway} (a large copy, a call that waits for its result at once),
     * it is the first operation since the target's last flush and that flush covered at most one (a latency-bound
     * loop: one system call or slot round trip beats a round trip through the rings, while a stream of small
     * operations is cheaper per operation as one batch; a stream after such a loop pays one of them before it is
     * queued again). On true the operation is counted for the next flush.
     */
    boolean bypass(int t, boolean anyway) {
        TargetQueue q = queues[t];
        if (q.quietNow() && (anyway || q.lastFlushOps <= 1 && q.opsSinceFlush == 0)) {
            // the common latency-bound case without the monitor (two locked instructions of a ~0.6 us kernel copy);
            // the counts only pace the latency-bound rule, so a racing thread's update lost here costs nothing else
            q.opsSinceFlush++;
            return true;
        }
        synchronized (q) {
            if (q.open != null && q.open.count() > 0 || !q.allAcked()
                    || !anyway && (q.lastFlushOps > 1 || q.opsSinceFlush > 0)) {
                return false;
            }
            q.opsSinceFlush++;
            return true;
        }
    }

    /** The operation {@link #bypass} let through failed and goes as a packet after all: it is counted there. */
    void bypassFailed(int t) {
        TargetQueue q = queues[t];
        synchronized (q) {
            q.opsSinceFlush--;
        }
    }

    /**
     * Sends the open batch (caller holds q's monitor). With {@code ack}, the last packet asks for an ack that
     * covers every packet sent so far; returns the ack value to wait for.
     */
    int send(TargetQueue q, boolean ack, int lastFlags) {
        Batch b = q.open;
        if (b == null || b.count() == 0) {
            return q.ackedNow();
        }
        if (ack && w.config.alwaysAck
                && PacketType.hasDataReply(PacketHeader.type(b.buffer(), b.offsetAt(b.count() - 1)))) {
            appendControl(w, q, PacketType.SYNC, 0); // jrma.acks=always: the ack comes in a reply of its own
        }
        Transport transport = w.job.transportFor(b.dstRank()); // looked up once per batch
        MutableDirectBuffer buf = b.buffer();
        if (q.lockFlags != 0) {
            int first = b.offsetAt(0);
            PacketHeader.addFlags(buf, first, q.lockFlags);
            if (PacketHeader.type(buf, first) != PacketType.SYNC) {
                w.counters.increment(Counter.PACKETS_COALESCED);
            }
            q.lockFlags = 0;
            q.lockSent = true;
        }
        int n = b.count();
        if (ack && !w.config.alwaysAck && q.getIndex >= 0 && q.getIndex < n - 1
                && !PacketType.hasDataReply(PacketHeader.type(buf, b.offsetAt(n - 1)))) {
            b.moveToTail(q.getIndex);
        }
        int last = b.offsetAt(n - 1);
        int lastType = PacketHeader.type(buf, last);
        if (lastFlags != 0) {
            PacketHeader.addFlags(buf, last, lastFlags);
            if (lastType != PacketType.SYNC) {
                w.counters.increment(Counter.PACKETS_COALESCED);
            }
        }
        q.sent += n;
        int want = (int) q.sent;
        q.sentPublished = want; // release: precedes the hand-off of the batch whose ack may carry it
        if (ack) {
            PacketHeader.addFlags(buf, last, F_ACK_REQUIRED);
            PacketHeader.aux(buf, last, want);
            if (transport.acksThroughMemory(b.dstRank())) {
                // the target may answer by the ring's applied position instead of an ACK packet
                PacketHeader.addFlags(buf, last, F_ACK_BY_RING);
                RingAck t = new RingAck(want);
                b.ringAck(t);
                q.ringAcks.add(t);
                q.ringAcksWaiting = q.ringAcks.size();
            }
            if (PacketType.hasDataReply(lastType)) {
                w.counters.increment(Counter.ACKS_PIGGYBACKED);
            }
        }
        w.counters.add(Counter.PACKETS_SENT, n);
        w.counters.increment(Counter.BATCHES_SENT);
        q.inFlight.add(b);
        q.open = null;
        q.getIndex = -1;
        while (!transport.send(b)) {
            w.job.agent().tryProgress();
        }
        return want;
    }

    /** Sends whatever is queued for {@code t} without asking for an ack (a request is being waited on). */
    void kick(int t) {
        TargetQueue q = queues[t];
        synchronized (q) {
            send(q, false, 0);
        }
    }

    // ------------------------------------------------------------------ synchronization

    void signal(int t, int type, int aux) {
        TargetQueue q = queues[t];
        synchronized (q) {
            appendControl(w, q, type, aux);
            send(q, false, 0);
        }
    }

    /** Records a lock request; it travels on the first packet to the target ({@link PacketLocks#onLock}). */
    void onLock(int t, boolean exclusive, boolean now) {
        locks.onLock(t, exclusive, now);
    }

    /** Returns once target {@code t} granted this rank's lock ({@link PacketLocks#awaitLockGranted}). */
    void awaitLockGranted(int t) {
        locks.awaitLockGranted(t);
    }

    /** Sends the recorded lock requests at once and waits for the grants ({@link PacketLocks#lockNow}). */
    void lockNow(int[] targets) {
        locks.lockNow(targets);
    }

    /** Ends passive-target epochs to the targets ({@link PacketLocks#unlock}). */
    void unlock(int[] targets, boolean lockTaken) {
        locks.unlock(targets, lockTaken);
    }

    /**
     * flush ({@code remote}) or flush_local to one target: {@link #flush(int[], boolean)} without its arrays
     * (a put + flush loop over the rings allocated 72 of its ~110 bytes per operation there).
     */
    void flush(int t, boolean remote) {
        TargetQueue q = queues[t];
        // flushLocked's elided case, without the monitor (see bypass)
        if (remote && !w.config.alwaysAck && q.quietNow()) {
            q.lastFlushOps = q.opsSinceFlush;
            q.opsSinceFlush = 0;
            w.counters.increment(Counter.ACKS_ELIDED);
            return;
        }
        int want;
        boolean wait;
        synchronized (q) {
            wait = flushLocked(q, remote);
            want = q.flushWant;
        }
        if (wait) {
            awaitFlushed(q, remote, want);
        }
    }

    /** Waits for what {@link #flushLocked} sent: the ack {@code want} (remote), or local completion. */
    private void awaitFlushed(TargetQueue q, boolean remote, int want) {
        if (remote) {
            awaitAck(q, want);
        } else {
            // replies counts the data operations every thread of the rank queued: one another thread issued after
            // this flush sent the queue sits in the open batch until that thread synchronizes (lazy issue), and
            // that thread may be waiting for this one; so send such a batch rather than wait for it
            await(() -> {
                if (q.replies.get() == 0 && !externalPendingLocked(q)) {
                    return true;
                }
                Batch b = q.open;
                if (b != null && b.count() > 0) {
                    synchronized (q) {
                        send(q, false, 0);
                    }
                }
                return false;
            });
        }
    }

    /**
     * One target's part of a flush under its monitor: remote, sends what is queued asking for an ack (or a bare
     * SYNC asking for one if sent packets are unacked), eliding it if everything is acknowledged already; local,
     * sends what local completion waits for. Returns whether to wait (the ack value is left in flushWant).
     */
    boolean flushLocked(TargetQueue q, boolean remote) {
        q.lastFlushOps = q.opsSinceFlush;
        q.opsSinceFlush = 0;
        if (remote) {
            boolean hasOpen = q.open != null && q.open.count() > 0;
            if (!hasOpen && q.allAcked() && !w.config.alwaysAck) {
                w.counters.increment(Counter.ACKS_ELIDED);
                return false;
            }
            if (!hasOpen) {
                appendControl(w, q, PacketType.SYNC, 0);
            }
            q.flushWant = send(q, true, 0);
            return true;
        }
        if (q.replies.get() > 0 || q.externalPending()) {
            send(q, false, 0);
            return true;
        }
        if (q.open != null && q.open.count() > 0 && w.config.sendOnFlushLocal) {
            send(q, false, 0); // issue mode flush_local: the queue leaves, asking for no ack
        }
        w.counters.increment(Counter.ACKS_ELIDED);
        return false;
    }

    /** flush ({@code remote}) or flush_local to the targets. */
    void flush(int[] targets, boolean remote) {
        int[] want = new int[targets.length];
        boolean[] wait = new boolean[targets.length];
        for (int i = 0; i < targets.length; i++) {
            TargetQueue q = queues[targets[i]];
            synchronized (q) {
                wait[i] = flushLocked(q, remote);
                want[i] = q.flushWant;
            }
        }
        for (int i = 0; i < targets.length; i++) {
            if (wait[i]) {
                awaitFlushed(queues[targets[i]], remote, want[i]);
            }
        }
    }

    private static boolean externalPendingLocked(TargetQueue q) {
        synchronized (q) {
            return q.externalPending();
        }
    }

    /**
     * Waits until no payload sent from a user buffer to these targets may still be read (MPI_Win_complete's
     * local completion). The batches holding them were sent already.
     */
    void awaitLocal(int[] targets) {
        for (int t : targets) {
            TargetQueue q = queues[t];
            if (externalPendingLocked(q)) {
                synchronized (q) {
                    send(q, false, 0);
                }
                await(() -> !externalPendingLocked(q));
            }
        }
    }

    /**
     * Spins on a ring acknowledgement before the ordinary wait: the target's applied position usually passes
     * within a ring round trip (0.4-0.8 us between JVMs here), which driving the progress agent and timing the
     * wait would lengthen by a fifth, as on the direct path ({@link WindowImpl#UNTIMED_SPINS}).
     */
    static final int RING_ACK_SPINS = 256;

    void awaitAck(TargetQueue q, int want) {
        // with data replies outstanding the ack rides on the last of them, which only progress reads from the ring
        // (spinning here first held an 8-byte get + flush between JVMs at 8 us: 256 pauses without reading it)
        if (q.ringAcksWaiting > 0 && q.replies.get() == 0) {
            RingAck t = null;
            synchronized (q) {
                for (RingAck r : q.ringAcks) {
                    if (r.want == want) {
                        t = r;
                    }
                }
            }
            // nothing but the target makes it true (no reply to read if none was written): no progress needed
            for (int i = 0; t != null && i < RING_ACK_SPINS; i++) {
                if (q.acked - want >= 0 || t.done()) {
                    q.acknowledged(want); // retires the ticket
                    return;
                }
                Thread.onSpinWait();
            }
        }
        // acks arrive after every earlier reply from that target; so does a ring ack (RingAck.done)
        await(() -> q.acknowledged(want));
    }

    private void await(BooleanSupplier done) {
        w.awaitReplies(done);
    }

    /** How many data replies this rank still waits for ({@link OriginReplies}). */
    int pendingReplies() {
        return replies.pendingReplies();
    }

    /** Throws (once) the first error a target reported for an operation without a data reply. */
    void checkAsyncErrors() {
        replies.checkAsyncErrors();
    }

    /** Sends everything still queued and waits until every batch is consumed (before free). */
    void drain() {
        for (TargetQueue q : queues) {
            synchronized (q) {
                send(q, false, 0);
            }
        }
        await(() -> {
            for (TargetQueue q : queues) {
                synchronized (q) {
                    for (Batch b : q.inFlight) {
                        if (!b.isConsumed()) {
                            return false;
                        }
                    }
                }
            }
            return replies.pendingReplies() == 0;
        });
    }

    void release() {
        for (TargetQueue q : queues) {
            synchronized (q) {
                q.inFlight.clear();
                q.free.clear();
                q.open = null;
            }
        }
    }
}

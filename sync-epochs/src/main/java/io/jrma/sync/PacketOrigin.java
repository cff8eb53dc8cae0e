package io.jrma.sync;

import static io.jrma.core.wire.PacketType.F_ACK_BY_RING;
import static io.jrma.core.wire.PacketType.F_ACK_REQUIRED;
import static io.jrma.core.wire.PacketType.F_CONTIG;
import static io.jrma.core.wire.PacketType.F_DYNAMIC;
import static io.jrma.core.wire.PacketType.F_LOCK_EXCLUSIVE;
import static io.jrma.core.wire.PacketType.F_LOCK_SHARED;
import static io.jrma.core.wire.PacketType.F_PIGGYBACK_ACK;
import static io.jrma.core.wire.PacketType.F_UNLOCK;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Flavor;
import io.jrma.RmaException;
import io.jrma.WinCounters.Counter;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.mem.Memory;
import io.jrma.core.op.OpCode;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import io.jrma.core.wire.RingAck;
import io.jrma.spi.Transport;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.agrona.DirectBuffer;
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
 * <p>Threads: the rank's threads issue and synchronize (each queue is guarded by its own monitor; waits happen
 * outside it); the progress agent delivers replies through {@link #onReply}.
 */
final class PacketOrigin {
    private final WindowImpl w;
    private final TargetQueue[] queues;
    private final ConcurrentHashMap<Integer, PendingOp> pending = new ConcurrentHashMap<>();
    private final AtomicInteger nextSeq = new AtomicInteger(1);
    private final AtomicInteger pendingReplies = new AtomicInteger();
    private volatile RmaException asyncError;

    PacketOrigin(WindowImpl w) {
        this.w = w;
        this.queues = new TargetQueue[w.groupSize];
        for (int t = 0; t < queues.length; t++) {
            queues[t] = new TargetQueue(w, t);
        }
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
                seq = nextSeq.getAndIncrement();
                if (seq == 0) {
                    seq = nextSeq.getAndIncrement();
                }
                PendingOp p = a.kind == OpArgs.GET
                        ? new PendingOp(a.kind, a.target, a.origin.base, a.origin.offset,
                        a.originCount, a.originLayout, r)
                        : new PendingOp(a.kind, a.target, a.result.base, a.result.offset,
                        a.resultCount, a.resultLayout, r);
                if (a.kind == OpArgs.GET) {
                    p.into = largeDirect(q, a);
                }
                pending.put(seq, p);
                q.replies.incrementAndGet();
                pendingReplies.incrementAndGet();
                w.counters.increment(Counter.PENDING_OPS);
            }
            int index = q.open().count();
            // a request-based put copies: its request completes at issue, when the buffer is the user's again
            ByteBuffer ext = r == null && a.kind == OpArgs.PUT ? largeDirect(q, a) : null;
            encode(q, a, seq, ext);
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
     * The origin bytes of a large contiguous put or get whose origin buffer is a direct ByteBuffer, as a view of
     * exactly those bytes, when the transport to the target carries payloads by reference (TCP, the shared-memory
     * rings); else null (the bytes are copied). A put's view is sent from where it is (gathered into the socket,
     * copied into the ring): the buffer is the user's
     * until local completion in MPI's rules, so the only cost is that flush_local, complete and the request-less
     * local completion points wait until the batch is consumed ({@link TargetQueue#external}). A get's view is
     * where its reply may be read to ({@link PendingOp#into}).
     */
    private ByteBuffer largeDirect(TargetQueue q, OpArgs a) {
        ByteBuffer bb = a.origin.direct;
        if (bb == null || a.bytes < PacketTarget.EXTERNAL_MIN || !a.originLayout.isContiguous()
                || !w.job.transportFor(q.dst()).carriesExternal()) {
            return null;
        }
        long from = a.origin.offset + a.originLayout.trueLb() - Buffers.address(bb);
        if (from < 0 || from + a.bytes > bb.capacity()) {
            return null; // (argument checking has refused this already)
        }
        return bb.duplicate().clear().limit((int) (from + a.bytes)).position((int) from);
    }

    private void encode(TargetQueue q, OpArgs a, int seq, ByteBuffer ext) {
        Batch b = q.open();
        MutableDirectBuffer buf = b.buffer();
        int at = q.writePos;
        boolean contig = a.targetLayout.isContiguous();
        int layoutLen = contig ? 0 : a.targetLayout.encodedLength();
        long payload;
        switch (a.kind) {
            case OpArgs.GET: payload = 0; break;
            case OpArgs.CAS: payload = 2L * a.elem.size(); break;
            case OpArgs.GET_ACC: case OpArgs.FOP: payload = a.op == OpCode.NO_OP ? 0 : a.bytes; break;
            default: payload = a.bytes; break;
        }
        int length = Math.toIntExact(PacketHeader.HEADER_LENGTH + layoutLen + payload);
        int inline = ext == null ? length : PacketHeader.HEADER_LENGTH + layoutLen;
        buf.checkLimit(at + inline);
        int type;
        switch (a.kind) {
            case OpArgs.PUT: type = PacketType.PUT; break;
            case OpArgs.GET: type = PacketType.GET; break;
            case OpArgs.ACC: type = PacketType.ACC; break;
            case OpArgs.CAS: type = PacketType.CAS; break;
            default: type = PacketType.GET_ACC; break;
        }
        int flags = (contig ? F_CONTIG : 0) | (w.flavor == Flavor.DYNAMIC ? F_DYNAMIC : 0);
        long off = contig ? a.targetOffset + a.targetLayout.trueLb() : a.targetOffset;
        long count = contig ? a.bytes : a.targetCount;
        PacketHeader.write(buf, at, length, type, flags, w.windowId, w.worldRanks[w.rank], q.dst(), seq, off,
                a.elem == null ? 0 : a.elem.id(), a.op == null ? 0 : a.op.id(), 0, count, layoutLen);
        if (!contig) {
            a.targetLayout.encode(buf, at + PacketHeader.HEADER_LENGTH);
        }
        long p = buf.addressOffset() + at + PacketHeader.HEADER_LENGTH + layoutLen;
        if (a.kind == OpArgs.CAS) {
            int es = a.elem.size();
            Memory.copy(a.compare.base, a.compare.offset, null, p, es);
            Memory.copy(a.origin.base, a.origin.offset, null, p + es, es);
        } else if (ext != null) {
            b.addExternal(at, ext);
            q.external = b;
            q.writePos = at + inline;
            w.counters.add(Counter.BYTES_PUT, a.bytes);
            w.counters.increment(Counter.PAYLOADS_IN_PLACE);
            return;
        } else if (payload > 0) {
            TypeLayout.copy(a.origin.base, a.origin.offset, a.originCount, a.originLayout, null, p, payload,
                    Datatype.BYTE.layout());
        }
        b.add(at);
        q.writePos = at + length;
        w.counters.add(a.kind == OpArgs.GET ? Counter.BYTES_GOT : Counter.BYTES_PUT, a.bytes);
    }

    /** Appends a packet with no operation (SYNC, FENCE, POST, COMPLETE). Caller holds q's monitor. */
    private void appendControl(TargetQueue q, int type, int aux) {
        Batch b = q.open();
        int at = q.writePos;
        b.buffer().checkLimit(at + PacketHeader.HEADER_LENGTH);
        PacketHeader.write(b.buffer(), at, PacketHeader.HEADER_LENGTH, type, 0, w.windowId, w.worldRanks[w.rank],
                q.dst(), 0, 0, 0, 0, aux, 0, 0);
        b.add(at);
        q.writePos = at + PacketHeader.HEADER_LENGTH;
    }

    /**
     * Sends the open batch (caller holds q's monitor). With {@code ack}, the last packet asks for an ack that
     * covers every packet sent so far; returns the ack value to wait for.
     */
    private int send(TargetQueue q, boolean ack, int lastFlags) {
        Batch b = q.open;
        if (b == null || b.count() == 0) {
            return q.ackedNow();
        }
        if (ack && w.config.alwaysAck
                && PacketType.hasDataReply(PacketHeader.type(b.buffer(), b.offsetAt(b.count() - 1)))) {
            appendControl(q, PacketType.SYNC, 0); // jrma.acks=always: the ack comes in a reply of its own
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
            appendControl(q, type, aux);
            send(q, false, 0);
        }
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
            appendControl(q, PacketType.SYNC, 0);
            want = send(q, true, 0);
        }
        awaitAck(q, want);
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
                appendControl(q, PacketType.SYNC, 0);
                want = send(q, true, 0);
            }
        }
        if (send) {
            awaitAck(q, want);
        } else if (flush) {
            flush(t, true);
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
                appendControl(q, PacketType.SYNC, 0);
                want[i] = send(q, true, 0);
            }
        }
        for (int i = 0; i < targets.length; i++) {
            awaitAck(queues[targets[i]], want[i]);
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
                    wait[i] = flushLocked(q, true);
                    want[i] = q.flushWant;
                    continue;
                }
                if (hasOpen && !w.config.coalesceLocks) {
                    appendControl(q, PacketType.SYNC, 0);
                    q.getIndex = -1; // the unlock packet stays last: no GET moves behind it to carry the flag
                    want[i] = send(q, true, F_UNLOCK);
                    wait[i] = true;
                } else if (hasOpen) {
                    want[i] = send(q, true, F_UNLOCK);
                    wait[i] = true;
                } else if (!q.allAcked() || w.config.alwaysAck) {
                    appendControl(q, PacketType.SYNC, 0);
                    want[i] = send(q, true, F_UNLOCK);
                    wait[i] = true;
                } else {
                    appendControl(q, PacketType.SYNC, 0);
                    send(q, false, F_UNLOCK);
                    q.releasedAt = (int) q.sent; // in-order delivery: the release needs no ack of its own
                    w.counters.increment(Counter.ACKS_ELIDED);
                }
                q.lockSent = false;
            }
        }
        for (int i = 0; i < targets.length; i++) {
            if (wait[i]) {
                awaitAck(queues[targets[i]], want[i]);
            }
        }
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
    private boolean flushLocked(TargetQueue q, boolean remote) {
        q.lastFlushOps = q.opsSinceFlush;
        q.opsSinceFlush = 0;
        if (remote) {
            boolean hasOpen = q.open != null && q.open.count() > 0;
            if (!hasOpen && q.allAcked() && !w.config.alwaysAck) {
                w.counters.increment(Counter.ACKS_ELIDED);
                return false;
            }
            if (!hasOpen) {
                appendControl(q, PacketType.SYNC, 0);
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

    private void awaitAck(TargetQueue q, int want) {
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

    int pendingReplies() {
        return pendingReplies.get();
    }

    /** Throws (once) the first error a target reported for an operation without a data reply. */
    void checkAsyncErrors() {
        RmaException e = asyncError;
        if (e != null) {
            asyncError = null;
            throw new RmaException(e.errorClass(), e.getMessage().substring(e.errorClass().name().length() + 2), e);
        }
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
            return pendingReplies.get() == 0;
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

    // ------------------------------------------------------------------ replies (progress agent)

    /** Handles one reply packet from window rank {@code from}. Agent thread only. */
    void onReply(MutableDirectBuffer buf, int at, int from, ByteBuffer placed) {
        w.counters.increment(Counter.REPLIES_RECEIVED);
        TargetQueue q = queues[from];
        int type = PacketHeader.type(buf, at);
        int flags = PacketHeader.flags(buf, at);
        int seq = PacketHeader.seq(buf, at);
        int length = PacketHeader.length(buf, at);
        long payloadAddr = buf.addressOffset() + at + PacketHeader.HEADER_LENGTH;
        int payloadLen = length - PacketHeader.HEADER_LENGTH;
        if (type == PacketType.ERROR) {
            ErrorClass ec = ErrorClass.of((int) PacketHeader.targetOffset(buf, at));
            byte[] msg = new byte[payloadLen];
            buf.getBytes(at + PacketHeader.HEADER_LENGTH, msg);
            RmaException e = new RmaException(ec, "window " + w.name() + ": rank " + from + " rejected an operation: "
                    + new String(msg, StandardCharsets.UTF_8));
            PendingOp p = seq != 0 ? pending.remove(seq) : null;
            if (p != null) {
                finishPending(q, p);
                if (p.request != null) {
                    p.request.fail(e);
                }
            }
            if (p == null || p.request == null) {
                asyncError = asyncError == null ? e : asyncError;
            }
            if (seq == -1) {
                q.acked = (int) q.sent; // the rest of the batch was dropped: nothing more will be acked
                for (Iterator<PendingOp> it = pending.values().iterator(); it.hasNext();) {
                    PendingOp o = it.next();
                    if (o.target == from) {
                        it.remove();
                        finishPending(q, o);
                        if (o.request != null) {
                            o.request.fail(e);
                        }
                    }
                }
            }
        } else if (type != PacketType.ACK) {
            PendingOp p = pending.remove(seq);
            long expected = p == null ? 0 : p.count * p.layout.size();
            boolean wrongPlace = placed != null && (p == null || !samePlace(placed, p.into, payloadLen));
            if (p != null && (payloadLen != expected || wrongPlace)) {
                finishPending(q, p);
                RmaException e = new RmaException(ErrorClass.ERR_INTERN,
                        "window " + w.name() + ": reply from rank " + from
                        + " carries " + payloadLen + " bytes for an operation expecting " + expected
                        + (wrongPlace ? ", placed at the wrong origin bytes" : ""));
                if (p.request != null) {
                    p.request.fail(e);
                }
                asyncError = asyncError == null ? e : asyncError;
            } else if (p != null) {
                if (payloadLen > 0 && placed == null) { // (a placed payload is where it belongs already)
                    if (p.kind == OpArgs.CAS || p.kind == OpArgs.FOP) {
                        Memory.copy(null, payloadAddr, p.base, p.offset, payloadLen);
                    } else {
                        TypeLayout.copy(null, payloadAddr, payloadLen, Datatype.BYTE.layout(), p.base,
                                p.offset, p.count, p.layout);
                    }
                }
                finishPending(q, p);
                if (p.request != null) {
                    p.request.complete();
                }
            }
        }
        if (type == PacketType.ACK || (flags & F_PIGGYBACK_ACK) != 0) {
            int ack = PacketHeader.aux(buf, at);
            // acks only move forward and never past what was sent (wrap-safe): a stale, corrupt or foreign
            // ack is ignored rather than letting a flush return before its operations completed
            if (ack - q.acked > 0 && sentSnapshot(q) - ack >= 0) {
                q.acked = ack; // release: the data copied above is visible to the waiter
            }
        }
    }

    /**
     * Where the transport may read the payload of the reply whose header is at {@code at} (from window rank
     * {@code from}) before delivering it: the origin bytes of the pending get it answers, when that get asked for
     * it ({@link PendingOp#into}) and the reply carries exactly its bytes; else null (the reply takes the ordinary
     * way and is checked there). Agent thread only, like {@link #onReply}, which completes the get.
     */
    ByteBuffer replyPlacement(DirectBuffer buf, int at, int from) {
        PendingOp p = pending.get(PacketHeader.seq(buf, at));
        if (p == null || p.into == null || p.kind != OpArgs.GET || p.target != from
                || (long) PacketHeader.length(buf, at) - PacketHeader.HEADER_LENGTH != p.into.remaining()) {
            return null;
        }
        w.counters.increment(Counter.PAYLOADS_PLACED);
        return p.into.duplicate();
    }

    /** Whether {@code placed} is the whole of {@code into} ({@code length} bytes). */
    private static boolean samePlace(ByteBuffer placed, ByteBuffer into, int length) {
        return into != null && placed.remaining() == length && into.remaining() == length
                && Buffers.address(placed) + placed.position() == Buffers.address(into) + into.position();
    }

    /** q.sent as published to the agent (no monitor: the agent must never wait for a sending thread). */
    private static int sentSnapshot(TargetQueue q) {
        return q.sentPublished;
    }

    private void finishPending(TargetQueue q, PendingOp p) {
        q.replies.decrementAndGet();
        pendingReplies.decrementAndGet();
        w.counters.add(Counter.PENDING_OPS, -1);
    }
}

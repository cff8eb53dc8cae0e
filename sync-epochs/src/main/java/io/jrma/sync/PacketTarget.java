package io.jrma.sync;

import static io.jrma.core.wire.PacketType.F_ACK_BY_RING;
import static io.jrma.core.wire.PacketType.F_ACK_REQUIRED;
import static io.jrma.core.wire.PacketType.F_CONTIG;
import static io.jrma.core.wire.PacketType.F_DYNAMIC;
import static io.jrma.core.wire.PacketType.F_LOCK_EXCLUSIVE;
import static io.jrma.core.wire.PacketType.F_LOCK_SHARED;
import static io.jrma.core.wire.PacketType.F_UNLOCK;

import io.jrma.ErrorClass;
import io.jrma.Flavor;
import io.jrma.RmaException;
import io.jrma.WinCounters.Counter;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import io.jrma.shm.window.OpSlots;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The target side of the packet path for one rank's window: decodes each packet, validates every field
 * against the window before touching memory (a bad packet gets an ERROR reply and is counted, never applied),
 * applies it, and replies. It is also the lock manager: lock requests take a ticket in the window's
 * {@link LockWord} (the same word direct-path origins take), and a batch whose lock is not yet granted waits,
 * together with everything after it from the same origin, until {@link #poll()} finds the lock granted —
 * FIFO, so neither readers nor writers starve.
 *
 * <p>A large contiguous GET is answered from the window memory itself when the transport to the origin gathers
 * payloads by reference (TCP, the shared-memory rings): the reply's payload is written into the socket or the
 * ring from the window, with no copy into the reply batch. Those bytes must not change until they have left
 * (in the kernel, in the ring), so a packet from that
 * origin that would end its access (an unlock, a fence, a complete) waits, like a packet waiting for a lock,
 * until that reply batch is consumed: nobody else can be granted access to the window before the data left.
 *
 * <p>This class decodes, orders (locks, waits for replies that carry window memory) and dispatches; the operations
 * are checked and applied by {@link TargetOperations}, and replies are written and sent by {@link TargetReplies}.
 *
 * <p>Threads: only the progress agent calls {@link #onBatch} and {@link #poll}.
 */
final class PacketTarget {
    private static final int BLOCKED = -1;
    /** GET replies of at least this many bytes go out from the window memory (when the transport can). */
    static final long EXTERNAL_MIN = 32 << 10;

    private final WindowImpl w;
    private final ArrayDeque<Batch>[] blocked;
    private final int[] holding;
    private final long[] ticket;
    private final boolean[] waitingExclusive;
    private final boolean[] waiting;
    private int waitingCount;
    private final TargetReplies replies;
    private final TargetOperations ops;
    /** Per origin: a packet ending an access waits for its reply carrying window memory to be consumed. */
    private final boolean[] waitingReply;
    private int waitingReplyCount;

    @SuppressWarnings("unchecked")
    PacketTarget(WindowImpl w) {
        this.w = w;
        int n = w.groupSize;
        blocked = new ArrayDeque[n];
        for (int i = 0; i < n; i++) {
            blocked[i] = new ArrayDeque<>();
        }
        holding = new int[n];
        ticket = new long[n];
        waitingExclusive = new boolean[n];
        waiting = new boolean[n];
        replies = new TargetReplies(w);
        ops = new TargetOperations(w, replies);
        waitingReply = new boolean[n];
    }

    WindowImpl window() {
        return w;
    }

    private int groupRank(int world) {
        int[] wr = w.worldRanks;
        for (int i = 0; i < wr.length; i++) {
            if (wr[i] == world) {
                return i;
            }
        }
        return -1;
    }

    void onBatch(Batch b) {
        MutableDirectBuffer buf = b.buffer();
        for (int i = 0; i < b.count(); i++) {
            int at = b.offsetAt(i);
            if (at < 0 || (long) at + PacketHeader.HEADER_LENGTH > buf.capacity()) {
                w.counters.increment(Counter.PACKETS_REJECTED);
                b.markConsumed(); // cannot even read a header: nobody to answer
                return;
            }
        }
        int first = b.offsetAt(0);
        int origin = groupRank(PacketHeader.src(buf, first));
        if (origin < 0) {
            w.counters.increment(Counter.PACKETS_REJECTED);
            b.markConsumed();
            return;
        }
        if (PacketType.isReply(PacketHeader.type(buf, first))) {
            for (int i = 0; i < b.count(); i++) {
                int at = b.offsetAt(i);
                int len = PacketHeader.length(buf, at);
                ByteBuffer ext = b.externalAt(i); // a payload the transport read into place already
                long inline = ext == null ? len : (long) len - ext.remaining();
                if (PacketType.isReply(PacketHeader.type(buf, at)) && inline >= PacketHeader.HEADER_LENGTH
                        && (long) at + inline <= buf.capacity()) {
                    w.packets.replies.onReply(buf, at, origin, ext);
                }
            }
            b.markConsumed();
            return;
        }
        if (!blocked[origin].isEmpty()) {
            blocked[origin].add(b);
            return;
        }
        process(b, origin);
    }

    /** Processes from b.resumeIndex; returns false if it blocked on a lock (then b heads blocked[origin]). */
    private boolean process(Batch b, int origin) {
        current = b;
        try {
            for (int i = b.resumeIndex; i < b.count(); i++) {
                placed = b.externalAt(i);
                int r = packet(b.buffer(), b.offsetAt(i), origin);
                if (r == BLOCKED) {
                    b.resumeIndex = i;
                    blocked[origin].addFirst(b);
                    return false;
                }
                if (r < 0) {
                    break; // malformed: the rest of the batch is dropped (an ERROR reply said so)
                }
            }
            b.markConsumed();
            return true;
        } finally {
            placed = null;
            current = null;
            replies.flushReplies(origin);
        }
    }

    /** The batch {@link #process} is working through (its ack may be elided). */
    private Batch current;

    /**
     * The payload of the packet being processed, already written into the window by the transport
     * ({@link #placement}), or null.
     */
    private ByteBuffer placed;

    /**
     * Where the transport may write the payload of the packet whose header is at {@code at} before it delivers the
     * packet (see {@link io.jrma.core.wire.BatchReceiver#placement}): the window bytes it will be applied to, when it
     * is a contiguous PUT into this window's memory (for a dynamic window: inside one region attached as a
     * ByteBuffer) that {@link #packet} would apply at once: nothing of its origin
     * waits ahead of it, it takes no lock and releases none. Every field is checked as
     * {@link TargetOperations#operation} checks it; anything else (or anything invalid) gets null and takes the
     * ordinary way, which answers it. For a GET reply to this rank, the origin buffer of the get it answers, if that
     * get asked for it ({@link OriginReplies#replyPlacement}). Agent thread only.
     */
    ByteBuffer placement(DirectBuffer buf, int at) {
        int type = PacketHeader.type(buf, at);
        if (PacketHeader.version(buf, at) != PacketHeader.VERSION || PacketHeader.windowId(buf, at) != w.windowId
                || PacketHeader.dst(buf, at) != w.worldRanks[w.rank]) {
            return null;
        }
        if (type == PacketType.GET_RESP) { // the answer to this rank's get: into the get's origin buffer
            int from = groupRank(PacketHeader.src(buf, at));
            return from < 0 ? null : w.packets.replies.replyPlacement(buf, at, from);
        }
        if (type != PacketType.PUT) {
            return null;
        }
        int flags = PacketHeader.flags(buf, at);
        boolean dynamic = w.flavor == Flavor.DYNAMIC;
        if ((flags & F_CONTIG) == 0 || (flags & (F_LOCK_SHARED | F_LOCK_EXCLUSIVE | F_UNLOCK)) != 0
                || ((flags & F_DYNAMIC) != 0) != dynamic || PacketHeader.layoutLength(buf, at) != 0) {
            return null;
        }
        int origin = groupRank(PacketHeader.src(buf, at));
        if (origin < 0 || !blocked[origin].isEmpty() || waitingReply[origin]) {
            return null;
        }
        long count = PacketHeader.targetCount(buf, at);
        long off = PacketHeader.targetOffset(buf, at);
        if (count <= 0 || count != (long) PacketHeader.length(buf, at) - PacketHeader.HEADER_LENGTH) {
            return null;
        }
        ByteBuffer dst = ops.windowBytes(dynamic, off, count);
        if (dst != null) {
            w.counters.increment(Counter.PAYLOADS_PLACED);
        }
        return dst;
    }

    /** Whether an origin posted a request into this rank's slots ({@link OpSlots#posted}). */
    boolean hasInput() {
        OpSlots s = w.slots;
        return s != null && s.posted();
    }

    int poll() {
        OpSlots s = w.slots;
        int work = s == null ? 0 : s.serve();
        if (waitingCount == 0 && waitingReplyCount == 0) {
            return work;
        }
        if (waitingReplyCount > 0) {
            for (int o = 0; o < waitingReply.length; o++) {
                if (waitingReply[o] && replies.externalConsumed(o)) {
                    waitingReply[o] = false;
                    waitingReplyCount--;
                    work++;
                    while (!blocked[o].isEmpty()) {
                        Batch b = blocked[o].pollFirst();
                        if (!process(b, o)) {
                            break;
                        }
                    }
                }
            }
        }
        LockWord lw = w.target.lockWord;
        for (int o = 0; o < waiting.length; o++) {
            if (waiting[o] && lw.tryEnter(ticket[o], waitingExclusive[o])) {
                waiting[o] = false;
                waitingCount--;
                holding[o] = waitingExclusive[o] ? 1 : 2;
                work++;
                while (!blocked[o].isEmpty()) {
                    Batch b = blocked[o].pollFirst();
                    if (!process(b, o)) {
                        break;
                    }
                }
            }
        }
        return work;
    }

    // ------------------------------------------------------------------ one packet

    /** Returns 0 when done, BLOCKED when waiting for a lock, -2 when the batch must be dropped. */
    private int packet(MutableDirectBuffer buf, int at, int origin) {
        int length = PacketHeader.length(buf, at);
        long inline = placed == null ? length : (long) length - placed.remaining();
        if (length < PacketHeader.HEADER_LENGTH || inline < PacketHeader.HEADER_LENGTH || at + inline > buf.capacity()
                || PacketHeader.version(buf, at) != PacketHeader.VERSION || PacketHeader.windowId(buf, at) != w.windowId
                || PacketHeader.dst(buf, at) != w.worldRanks[w.rank]) {
            replies.reject(origin, -1, 0, ErrorClass.ERR_INTERN, "malformed packet header (length " + length
                    + ", version " + (length >= 8 ? PacketHeader.version(buf, at) : -1)
                    + ", window " + PacketHeader.windowId(buf, at)
                    + ", destination " + PacketHeader.dst(buf, at) + "); rest of batch dropped");
            if (holding[origin] != 0) {
                release(origin);
            }
            return -2;
        }
        int flags = PacketHeader.flags(buf, at);
        if (replies.mayHoldWindowMemory(origin) && endsAccess(buf, at, flags) && !replies.externalSent(origin)) {
            waitingReply[origin] = true;
            waitingReplyCount++;
            return BLOCKED;
        }
        int lockFlags = flags & (F_LOCK_SHARED | F_LOCK_EXCLUSIVE);
        if (lockFlags != 0) {
            if (holding[origin] != 0 || lockFlags == (F_LOCK_SHARED | F_LOCK_EXCLUSIVE)) {
                replies.reject(origin, PacketHeader.seq(buf, at), 0, ErrorClass.ERR_RMA_SYNC,
                        "lock request from rank " + origin + " which already holds a lock");
                PacketHeader.clearFlags(buf, at, lockFlags);
            } else {
                boolean excl = lockFlags == F_LOCK_EXCLUSIVE;
                LockWord lw = w.target.lockWord;
                PacketHeader.clearFlags(buf, at, lockFlags); // the lock is requested once, even if we resume
                long t;
                if (!excl && lw.tryEnterShared()) {
                    t = -1; // entered without a ticket
                } else if (!lw.tryEnter(t = lw.takeTicket(), excl)) {
                    ticket[origin] = t;
                    waitingExclusive[origin] = excl;
                    waiting[origin] = true;
                    waitingCount++;
                    w.counters.increment(Counter.LOCK_WAITS);
                    return BLOCKED;
                }
                holding[origin] = excl ? 1 : 2;
            }
        }
        int type = PacketHeader.type(buf, at);
        int seq = PacketHeader.seq(buf, at);
        boolean replied = false;
        try {
            replied = apply(buf, at, length, type, origin);
            w.counters.increment(Counter.PACKETS_APPLIED);
        } catch (RmaException e) {
            replies.reject(origin, seq, 0, e.errorClass(), e.getMessage());
            replied = true; // an ack requested by this packet rides on the ERROR reply
        } catch (RuntimeException e) {
            replies.reject(origin, seq, 0, ErrorClass.ERR_INTERN, String.valueOf(e));
            replied = true;
        }
        if ((flags & F_UNLOCK) != 0) {
            if (holding[origin] == 0) {
                replies.reject(origin, 0, 0, ErrorClass.ERR_RMA_SYNC,
                        "unlock from rank " + origin + " which holds no lock");
            } else {
                release(origin);
            }
        }
        if ((flags & F_ACK_REQUIRED) != 0) {
            if (!replied && (flags & F_ACK_BY_RING) != 0 && current != null && current.mayElideAck()
                    && replies.noneOpen() && replies.repliesWritten(origin)) {
                // applied while the ring record is read, nothing owed to the origin in this batch and every earlier
                // reply in the ring: the ring's applied position is the ack (RingAck), which the origin takes only
                // once it has read the replies written before it
                current.ackElided();
                w.counters.increment(Counter.ACKS_BY_RING);
            } else if (replied) {
                replies.piggybackAck(PacketHeader.aux(buf, at));
            } else {
                replies.replyHeader(origin, PacketType.ACK, 0, PacketHeader.aux(buf, at), 0);
            }
        }
        return 0;
    }

    /** Whether this packet ends the origin's access to the window (after which others may write it). */
    private static boolean endsAccess(MutableDirectBuffer buf, int at, int flags) {
        int type = PacketHeader.type(buf, at);
        return (flags & F_UNLOCK) != 0 || type == PacketType.FENCE || type == PacketType.COMPLETE;
    }

    private void release(int origin) {
        LockWord lw = w.target.lockWord;
        if (holding[origin] == 1) {
            lw.releaseExclusive();
        } else {
            lw.releaseShared();
        }
        holding[origin] = 0;
    }

    /** Applies a request; returns true if it wrote a data reply. Throws RmaException on invalid input. */
    private boolean apply(MutableDirectBuffer buf, int at, int length, int type, int origin) {
        switch (type) {
            case PacketType.SYNC:
                return false;
            case PacketType.FENCE:
                w.target.fenceArrived(PacketHeader.aux(buf, at) & 1);
                return false;
            case PacketType.POST:
                w.target.postArrived(origin);
                return false;
            case PacketType.COMPLETE:
                w.target.completeArrived(origin);
                return false;
            case PacketType.PUT: case PacketType.GET: case PacketType.ACC: case PacketType.GET_ACC: case PacketType.CAS:
                return ops.operation(buf, at, length, type, origin, placed);
            default:
                throw new RmaException(ErrorClass.ERR_ARG, "unknown packet type " + type);
        }
    }
}

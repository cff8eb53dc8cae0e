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
import io.jrma.core.dt.BasicType;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.mem.BulkCopy;
import io.jrma.core.mem.Memory;
import io.jrma.core.op.AccumulateKernel;
import io.jrma.core.op.OpCode;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import io.jrma.shm.window.OpSlots;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
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
    private final ArrayDeque<Batch> replyInFlight = new ArrayDeque<>();
    private final ArrayDeque<Batch> replyFree = new ArrayDeque<>();
    private Batch reply;
    private int replyPos;
    /** {@link #reply} carries window memory by reference. */
    private boolean replyExternal;
    /** Per origin: the last reply batch sent that carries window memory by reference, until seen consumed. */
    private final Batch[] externalReply;
    /** Per origin: a packet ending an access waits for {@link #externalReply} to be consumed. */
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
        externalReply = new Batch[n];
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
            flushReplies(origin);
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
     * waits ahead of it, it takes no lock and releases none. Every field is checked as {@link #operation} checks it;
     * anything else (or anything invalid) gets null and takes the ordinary way, which answers it. For a GET reply
     * to this rank, the origin buffer of the get it answers, if that get asked for it
     * ({@link OriginReplies#replyPlacement}). Agent thread only.
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
        ByteBuffer dst = windowBytes(dynamic, off, count);
        if (dst != null) {
            w.counters.increment(Counter.PAYLOADS_PLACED);
        }
        return dst;
    }

    /**
     * Window bytes [off, off + count) as a ByteBuffer view (for a dynamic window, {@code off} is an address inside
     * a region attached as a ByteBuffer), or null when they are not all in the window or have no such view.
     */
    private ByteBuffer windowBytes(boolean dynamic, long off, long count) {
        if (count <= 0 || off < 0 || off > Long.MAX_VALUE - count) {
            return null;
        }
        if (dynamic) {
            return w.regions.view(off, off + count);
        }
        if (w.memory.buffer == null || off > w.memory.length - count || off + count > Integer.MAX_VALUE) {
            return null;
        }
        return w.memory.buffer.duplicate().clear().limit((int) (off + count)).position((int) off);
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
                if (waitingReply[o] && externalReply[o].isConsumed()) {
                    waitingReply[o] = false;
                    waitingReplyCount--;
                    externalReply[o] = null;
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
            reject(origin, -1, 0, ErrorClass.ERR_INTERN, "malformed packet header (length " + length + ", version "
                    + (length >= 8 ? PacketHeader.version(buf, at) : -1) + ", window " + PacketHeader.windowId(buf, at)
                    + ", destination " + PacketHeader.dst(buf, at) + "); rest of batch dropped");
            if (holding[origin] != 0) {
                release(origin);
            }
            return -2;
        }
        int flags = PacketHeader.flags(buf, at);
        if ((replyExternal || externalReply[origin] != null) && endsAccess(buf, at, flags) && !externalSent(origin)) {
            waitingReply[origin] = true;
            waitingReplyCount++;
            return BLOCKED;
        }
        int lockFlags = flags & (F_LOCK_SHARED | F_LOCK_EXCLUSIVE);
        if (lockFlags != 0) {
            if (holding[origin] != 0 || lockFlags == (F_LOCK_SHARED | F_LOCK_EXCLUSIVE)) {
                reject(origin, PacketHeader.seq(buf, at), 0, ErrorClass.ERR_RMA_SYNC,
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
            reject(origin, seq, 0, e.errorClass(), e.getMessage());
            replied = true; // an ack requested by this packet rides on the ERROR reply
        } catch (RuntimeException e) {
            reject(origin, seq, 0, ErrorClass.ERR_INTERN, String.valueOf(e));
            replied = true;
        }
        if ((flags & F_UNLOCK) != 0) {
            if (holding[origin] == 0) {
                reject(origin, 0, 0, ErrorClass.ERR_RMA_SYNC, "unlock from rank " + origin + " which holds no lock");
            } else {
                release(origin);
            }
        }
        if ((flags & F_ACK_REQUIRED) != 0) {
            if (!replied && (flags & F_ACK_BY_RING) != 0 && current != null && current.mayElideAck()
                    && (reply == null || reply.count() == 0) && repliesWritten(origin)) {
                // applied while the ring record is read, nothing owed to the origin in this batch and every earlier
                // reply in the ring: the ring's applied position is the ack (RingAck), which the origin takes only
                // once it has read the replies written before it
                current.ackElided();
                w.counters.increment(Counter.ACKS_BY_RING);
            } else if (replied) {
                PacketHeader.addFlags(reply.buffer(), reply.offsetAt(reply.count() - 1), F_PIGGYBACK_ACK);
                PacketHeader.aux(reply.buffer(), reply.offsetAt(reply.count() - 1), PacketHeader.aux(buf, at));
            } else {
                replyHeader(origin, PacketType.ACK, 0, PacketHeader.aux(buf, at), 0);
            }
        }
        return 0;
    }

    /**
     * Whether every reply handed to a transport for {@code origin} is consumed: all in the ring, none waiting there
     * for space (a GET reply of megabytes outgrows the ring), so that an ack given through the ring cannot overtake
     * it. (Replies to other origins do not matter: the origin's RingAck waits only for what the target wrote to it.)
     */
    private boolean repliesWritten(int origin) {
        int to = w.worldRanks[origin];
        for (Batch b : replyInFlight) {
            if (b.dstRank() == to && !b.isConsumed()) {
                return false;
            }
        }
        return true;
    }

    /** Whether this packet ends the origin's access to the window (after which others may write it). */
    private static boolean endsAccess(MutableDirectBuffer buf, int at, int flags) {
        int type = PacketHeader.type(buf, at);
        return (flags & F_UNLOCK) != 0 || type == PacketType.FENCE || type == PacketType.COMPLETE;
    }

    /** Sends pending replies; whether every reply that carries window memory to {@code origin} has left. */
    private boolean externalSent(int origin) {
        flushReplies(origin);
        Batch b = externalReply[origin];
        if (b == null || b.isConsumed()) {
            externalReply[origin] = null;
            return true;
        }
        return false;
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
                return operation(buf, at, length, type, origin);
            default:
                throw new RmaException(ErrorClass.ERR_ARG, "unknown packet type " + type);
        }
    }

    private boolean operation(MutableDirectBuffer buf, int at, int length, int type, int origin) {
        int flags = PacketHeader.flags(buf, at);
        int layoutLen = PacketHeader.layoutLength(buf, at);
        long count = PacketHeader.targetCount(buf, at);
        long off = PacketHeader.targetOffset(buf, at);
        if (layoutLen < 0 || layoutLen > length - PacketHeader.HEADER_LENGTH || count < 0) {
            throw new RmaException(ErrorClass.ERR_COUNT,
                    "layout length " + layoutLen + " / count " + count + " invalid for a packet of "
                    + length + " bytes");
        }
        boolean contig = (flags & F_CONTIG) != 0;
        TypeLayout layout = contig ? null : TypeLayout.decode(buf, at + PacketHeader.HEADER_LENGTH, layoutLen);
        long bytes;
        long lo;
        long hi;
        try {
            bytes = contig ? count : Math.multiplyExact(count, layout.size());
            lo = contig ? off : Math.addExact(off, layout.dataLow(count));
            hi = contig ? Math.addExact(off, count) : Math.addExact(off, layout.dataHigh(count));
        } catch (ArithmeticException e) {
            throw new RmaException(ErrorClass.ERR_RMA_RANGE,
                    "target range overflows (offset " + off + ", count " + count + ")");
        }
        boolean dynamic = (flags & F_DYNAMIC) != 0;
        if (dynamic != (w.flavor == Flavor.DYNAMIC)) {
            throw new RmaException(ErrorClass.ERR_RMA_FLAVOR, "packet addressing (" + (dynamic ? "absolute" : "offset")
                    + ") does not match window flavor " + w.flavor);
        }
        if (bytes > 0) {
            if (dynamic ? !w.regions.contains(lo, hi) : (lo < 0 || hi > w.memory.length)) {
                throw new RmaException(ErrorClass.ERR_RMA_RANGE,
                        PacketType.name(type) + " from rank " + origin + ": target bytes ["
                        + (dynamic ? "0x" + Long.toHexString(lo) + ", 0x" + Long.toHexString(hi)
                        : lo + ", " + hi) + ") are outside "
                        + (dynamic ? "the attached memory (" + w.regions.describe() + ")"
                        : "the window of " + w.memory.length + " bytes"));
            }
        }
        long base = (dynamic ? 0 : w.memory.address) + off;
        int payloadLen = length - PacketHeader.HEADER_LENGTH - layoutLen;
        long payload = buf.addressOffset() + at + PacketHeader.HEADER_LENGTH + layoutLen;
        BasicType elem = null;
        OpCode op = null;
        if (type == PacketType.ACC || type == PacketType.GET_ACC || type == PacketType.CAS) {
            elem = BasicType.ofId(PacketHeader.elemType(buf, at));
            if (elem == null) {
                throw new RmaException(ErrorClass.ERR_TYPE,
                        "unknown element type id " + PacketHeader.elemType(buf, at));
            }
            if (bytes % elem.size() != 0 || (layout != null && layout.elementType() != elem)) {
                throw new RmaException(ErrorClass.ERR_TYPE, "target layout is not made of " + elem);
            }
            if (type != PacketType.CAS) {
                op = OpCode.ofId(PacketHeader.op(buf, at));
                if (op == null || !AccumulateKernel.isValid(op, elem)) {
                    throw new RmaException(ErrorClass.ERR_OP,
                            "op id " + PacketHeader.op(buf, at) + " is not valid for " + elem);
                }
            }
        }
        int seq = PacketHeader.seq(buf, at);
        TypeLayout packed = Datatype.BYTE.layout();
        switch (type) {
            case PacketType.PUT:
                expect(payloadLen, bytes);
                if (placed != null) { // the transport wrote it there: check it is exactly these bytes
                    if (!contig || placed.remaining() != bytes
                    || BufferUtil.address(placed) + placed.position() != base) {
                        throw new RmaException(ErrorClass.ERR_INTERN, "payload placed at the wrong window bytes");
                    }
                } else if (contig) {
                    BulkCopy.copy(payload, base, bytes);
                } else {
                    TypeLayout.copy(null, payload, bytes, packed, null, base, count, layout);
                }
                return false;
            case PacketType.GET: {
                expect(payloadLen, 0);
                ByteBuffer from = contig && bytes >= EXTERNAL_MIN && (flags & F_UNLOCK) == 0
                        && w.job.transportFor(w.worldRanks[origin]).carriesExternal()
                        ? windowBytes(dynamic, off, bytes) : null;
                if (from != null) {
                    // sent from the window; an unlock in this packet would release it before the reply left: copy then
                    replyHeader(origin, PacketType.GET_RESP, seq, 0, bytes, from);
                    return true;
                }
                long dst = replyHeader(origin, PacketType.GET_RESP, seq, 0, bytes);
                if (contig) {
                    BulkCopy.copy(base, dst, bytes);
                } else {
                    TypeLayout.copy(null, base, count, layout, null, dst, bytes, packed);
                }
                return true;
            }
            case PacketType.ACC: {
                expect(payloadLen, bytes);
                int es = elem.size();
                OpCode o = op;
                BasicType e = elem;
                if (contig) {
                    AccumulateKernel.accumulate(op, elem, null, payload, null, base, bytes / es, w.target.elementLocks);
                } else {
                    TypeLayout.zip(packed.cursor(bytes), layout.cursor(count),
                            (p, t, len) -> AccumulateKernel.accumulate(o, e, null, payload + p, null, base + t,
                            len / es, w.target.elementLocks));
                }
                return false;
            }
            case PacketType.GET_ACC: {
                expect(payloadLen, op == OpCode.NO_OP ? 0 : bytes);
                long dst = replyHeader(origin, PacketType.GET_ACC_RESP, seq, 0, bytes);
                int es = elem.size();
                OpCode o = op;
                BasicType e = elem;
                if (contig) {
                    AccumulateKernel.getAccumulate(op, elem, null, payload, null, base, null, dst, bytes / es,
                            w.target.elementLocks);
                } else {
                    TypeLayout.zip(packed.cursor(bytes), layout.cursor(count),
                            (p, t, len) -> AccumulateKernel.getAccumulate(o, e, null, payload + p, null, base + t, null,
                            dst + p, len / es, w.target.elementLocks));
                }
                return true;
            }
            default: { // CAS
                int es = elem.size();
                expect(payloadLen, 2L * es);
                if (bytes != es) {
                    throw new RmaException(ErrorClass.ERR_COUNT,
                            "compare_and_swap on " + bytes + " bytes, expected one " + elem);
                }
                long dst = replyHeader(origin, PacketType.CAS_RESP, seq, 0, es);
                AccumulateKernel.compareAndSwap(elem, null, payload, null, payload + es, null, base, null, dst,
                        w.target.elementLocks);
                return true;
            }
        }
    }

    private static void expect(long payloadLen, long want) {
        if (payloadLen != want) {
            throw new RmaException(ErrorClass.ERR_COUNT, "payload of " + payloadLen + " bytes, expected " + want);
        }
    }

    // ------------------------------------------------------------------ replies

    private void reject(int origin, int seq, int flags, ErrorClass ec, String message) {
        w.counters.increment(Counter.PACKETS_REJECTED);
        byte[] msg = message.getBytes(StandardCharsets.UTF_8);
        int len = Math.min(msg.length, 4096);
        long dst = replyHeader(origin, PacketType.ERROR, seq, 0, len);
        MutableDirectBuffer rb = reply.buffer();
        int rat = reply.offsetAt(reply.count() - 1);
        rb.putLong(rat + PacketHeader.TARGET_OFFSET_OFFSET, ec.code());
        Memory.copy(msg, Memory.arrayBase(byte[].class), null, dst, len);
        if ((flags & F_ACK_REQUIRED) != 0) {
            PacketHeader.addFlags(rb, rat, F_PIGGYBACK_ACK);
        }
    }

    /** Whether reply batch {@code b} carried window memory by reference (a large GET's data). */
    private static boolean carriesWindowMemory(Batch b) {
        for (int i = 0; i < b.count(); i++) {
            if (b.externalAt(i) != null) {
                return true;
            }
        }
        return false;
    }

    /** Appends a reply header with room for {@code payload} bytes; returns the payload address. */
    private long replyHeader(int origin, int type, int seq, int aux, long payload) {
        return replyHeader(origin, type, seq, aux, payload, null);
    }

    /**
     * As above; with {@code external} (its remaining bytes, {@code payload} of them), the payload is that memory,
     * sent by reference: no room is made for it and the reply batch is marked as carrying window memory.
     */
    private long replyHeader(int origin, int type, int seq, int aux, long payload, ByteBuffer external) {
        if (reply == null) {
            while (!replyInFlight.isEmpty() && replyInFlight.peekFirst().isConsumed()) {
                Batch b = replyInFlight.pollFirst();
                if (!carriesWindowMemory(b)) {
                    b.clear();
                    replyFree.add(b);
                } // else dropped: externalReply may still name it, and a cleared, reused batch would read as unsent
            }
            reply = replyFree.isEmpty() ? new Batch(new ExpandableDirectByteBuffer(1024)) : replyFree.poll();
            reply.address(w.worldRanks[w.rank], w.worldRanks[origin]);
            replyPos = 0;
        }
        int length = Math.toIntExact(PacketHeader.HEADER_LENGTH + payload);
        int inline = external == null ? length : PacketHeader.HEADER_LENGTH;
        MutableDirectBuffer rb = reply.buffer();
        rb.checkLimit(replyPos + inline);
        PacketHeader.write(rb, replyPos, length, type, 0, w.windowId, w.worldRanks[w.rank], w.worldRanks[origin], seq,
                0, 0, 0, aux, 0, 0);
        if (external == null) {
            reply.add(replyPos);
        } else {
            reply.addExternal(replyPos, external);
            replyExternal = true;
        }
        long addr = rb.addressOffset() + replyPos + PacketHeader.HEADER_LENGTH;
        replyPos += inline;
        return addr;
    }

    private void flushReplies(int origin) {
        if (reply == null || reply.count() == 0) {
            return;
        }
        Batch b = reply;
        reply = null;
        if (replyExternal) {
            replyExternal = false;
            externalReply[origin] = b;
        }
        replyInFlight.add(b);
        while (!w.job.transportFor(b.dstRank()).send(b)) {
            w.job.agent().tryProgress();
        }
    }
}

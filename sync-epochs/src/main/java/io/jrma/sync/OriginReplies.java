package io.jrma.sync;

import static io.jrma.core.wire.PacketType.F_PIGGYBACK_ACK;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.WinCounters.Counter;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.mem.Memory;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The replies an origin receives on the packet path ({@link PacketOrigin}): the operations waiting for their data
 * (get, get_accumulate, fetch_and_op, compare_and_swap: {@link PendingOp}, by sequence number), the data, ACK and
 * ERROR replies that complete them and move each target's acknowledged position, and the first error a target
 * reported for an operation without a data reply (thrown at the next synchronization call).
 *
 * <p>Threads: the rank's threads register operations (at issue, under their target queue's monitor) and read the
 * counts; only the progress agent calls {@link #onReply} and {@link #replyPlacement}.
 */
final class OriginReplies {
    private final WindowImpl w;
    private final TargetQueue[] queues;
    private final ConcurrentHashMap<Integer, PendingOp> pending = new ConcurrentHashMap<>();
    private final AtomicInteger nextSeq = new AtomicInteger(1);
    private final AtomicInteger pendingReplies = new AtomicInteger();
    private volatile RmaException asyncError;

    OriginReplies(WindowImpl w, TargetQueue[] queues) {
        this.w = w;
        this.queues = queues;
    }

    /**
     * Registers an operation that waits for a data reply from queue {@code q}'s target; returns its sequence number
     * (never 0, which marks a packet without a reply). Caller holds q's monitor.
     */
    int register(TargetQueue q, PendingOp p) {
        int seq = nextSeq.getAndIncrement();
        if (seq == 0) {
            seq = nextSeq.getAndIncrement();
        }
        pending.put(seq, p);
        q.replies.incrementAndGet();
        pendingReplies.incrementAndGet();
        w.counters.increment(Counter.PENDING_OPS);
        return seq;
    }

    /** How many data replies this rank still waits for, to every target. */
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

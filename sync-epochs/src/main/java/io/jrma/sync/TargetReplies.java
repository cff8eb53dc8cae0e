package io.jrma.sync;

import static io.jrma.core.wire.PacketType.F_ACK_REQUIRED;
import static io.jrma.core.wire.PacketType.F_PIGGYBACK_ACK;

import io.jrma.ErrorClass;
import io.jrma.WinCounters.Counter;
import io.jrma.core.mem.Memory;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The replies a target sends on the packet path ({@link PacketTarget}): the reply batch being filled while a batch
 * of requests is applied (data replies, ACKs, ERROR replies), sent when that batch is done, and the reply batches
 * in flight, reused once consumed. A large GET's reply may carry window memory by reference; the last such batch
 * sent to each origin is kept until it is consumed, since that origin's end of access must wait for it.
 *
 * <p>Threads: the progress agent only.
 */
final class TargetReplies {
    /** Longest error message an ERROR reply carries (bytes; the rest is cut). */
    private static final int MAX_ERROR_MESSAGE = 4096;
    /** Initial capacity of a reply batch's buffer (it grows as needed). */
    private static final int REPLY_BATCH_BYTES = 1024;

    private final WindowImpl w;
    private final ArrayDeque<Batch> replyInFlight = new ArrayDeque<>();
    private final ArrayDeque<Batch> replyFree = new ArrayDeque<>();
    private Batch reply;
    private int replyPos;
    /** {@link #reply} carries window memory by reference. */
    private boolean replyExternal;
    /** Per origin: the last reply batch sent that carries window memory by reference, until seen consumed. */
    private final Batch[] externalReply;

    TargetReplies(WindowImpl w) {
        this.w = w;
        this.externalReply = new Batch[w.groupSize];
    }

    /** Whether no reply is being filled (nothing owed to an origin in the batch being applied). */
    boolean noneOpen() {
        return reply == null || reply.count() == 0;
    }

    /** Marks the last reply written as also carrying the ack {@code ack} (a packet's requested ack rides on it). */
    void piggybackAck(int ack) {
        MutableDirectBuffer rb = reply.buffer();
        int last = reply.offsetAt(reply.count() - 1);
        PacketHeader.addFlags(rb, last, F_PIGGYBACK_ACK);
        PacketHeader.aux(rb, last, ack);
    }

    /** Whether a reply to {@code origin} carrying window memory is being filled or may not have left yet. */
    boolean mayHoldWindowMemory(int origin) {
        return replyExternal || externalReply[origin] != null;
    }

    /**
     * Whether the reply batch carrying window memory to {@code origin}, which an end of access waits for, is
     * consumed now (then it is forgotten). Only when {@link #externalSent} said it had not left.
     */
    boolean externalConsumed(int origin) {
        if (externalReply[origin].isConsumed()) {
            externalReply[origin] = null;
            return true;
        }
        return false;
    }

    /**
     * Whether every reply handed to a transport for {@code origin} is consumed: all in the ring, none waiting there
     * for space (a GET reply of megabytes outgrows the ring), so that an ack given through the ring cannot overtake
     * it. (Replies to other origins do not matter: the origin's RingAck waits only for what the target wrote to it.)
     */
    boolean repliesWritten(int origin) {
        int to = w.worldRanks[origin];
        for (Batch b : replyInFlight) {
            if (b.dstRank() == to && !b.isConsumed()) {
                return false;
            }
        }
        return true;
    }

    /** Sends pending replies; whether every reply that carries window memory to {@code origin} has left. */
    boolean externalSent(int origin) {
        flushReplies(origin);
        Batch b = externalReply[origin];
        if (b == null || b.isConsumed()) {
            externalReply[origin] = null;
            return true;
        }
        return false;
    }

    void reject(int origin, int seq, int flags, ErrorClass ec, String message) {
        w.counters.increment(Counter.PACKETS_REJECTED);
        byte[] msg = message.getBytes(StandardCharsets.UTF_8);
        int len = Math.min(msg.length, MAX_ERROR_MESSAGE);
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
    long replyHeader(int origin, int type, int seq, int aux, long payload) {
        return replyHeader(origin, type, seq, aux, payload, null);
    }

    /**
     * As above; with {@code external} (its remaining bytes, {@code payload} of them), the payload is that memory,
     * sent by reference: no room is made for it and the reply batch is marked as carrying window memory.
     */
    long replyHeader(int origin, int type, int seq, int aux, long payload, ByteBuffer external) {
        if (reply == null) {
            while (!replyInFlight.isEmpty() && replyInFlight.peekFirst().isConsumed()) {
                Batch b = replyInFlight.pollFirst();
                if (!carriesWindowMemory(b)) {
                    b.clear();
                    replyFree.add(b);
                } // else dropped: externalReply may still name it, and a cleared, reused batch would read as unsent
            }
            reply = replyFree.isEmpty() ? new Batch(new ExpandableDirectByteBuffer(REPLY_BATCH_BYTES))
                    : replyFree.poll();
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

    void flushReplies(int origin) {
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

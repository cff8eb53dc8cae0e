package io.jrma.core.wire;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.agrona.MutableDirectBuffer;

/**
 * A batch of wire-ready packets handed to a transport in one go: the packets stay where they were encoded
 * at issue time (an off-heap queue buffer owned by the sender) and are delivered in {@link #offsetAt(int)}
 * order, which may differ from the order they were written in (a GET moved to the tail).
 *
 * <p>Owned by the sender until {@link #send}; then by the transport and receiver until the receiver calls
 * {@link #markConsumed()}, after which the sender may reuse the buffer (local completion).
 * {@code consumed} is the only field written by a thread other than the owner: a volatile store (release)
 * that publishes "these bytes are no longer read".
 *
 * <p>A packet may carry its payload by reference ({@link #addExternal}): its header (and layout) are in the
 * buffer and its payload is a region of other off-heap memory, which the transport gathers into the stream
 * when it writes the packet. Only a transport that says so ({@code Transport.carriesExternal()}) is
 * given such packets; the memory must not change until the batch is consumed.
 */
public final class Batch {
    private final MutableDirectBuffer buffer;
    private int[] offsets = new int[8];
    /** Per delivery index: the payload carried by reference, or null (the array is null until one is added). */
    private ByteBuffer[] external;
    private int count;
    private int srcRank;
    private int dstRank;
    private volatile boolean consumed;
    /** Opaque per-batch state for the receiver (e.g. where it stopped while blocked on a lock). */
    public int resumeIndex;
    /** Sender side: where a transport that acknowledges through memory reports how far the batch got. */
    private RingAck ringAck;
    /** Receiver side: the transport lets the receiver elide an ack requested by {@link PacketType#F_ACK_BY_RING}. */
    private boolean mayElideAck;
    /** Receiver side: the receiver did elide it (the transport must then acknowledge through memory). */
    private boolean ackElided;

    public Batch(MutableDirectBuffer buffer) {
        this.buffer = buffer;
    }

    public MutableDirectBuffer buffer() {
        return buffer;
    }

    /** Adds a packet that starts at {@code offset} of the buffer (its length is in its header). */
    public void add(int offset) {
        if (count == offsets.length) {
            offsets = Arrays.copyOf(offsets, count * 2);
            if (external != null) {
                external = Arrays.copyOf(external, count * 2);
            }
        }
        offsets[count++] = offset;
    }

    /**
     * Adds a packet whose header (and layout) start at {@code offset} and whose payload is {@code payload}'s
     * remaining bytes, sent from where they are: the header's length counts them, the buffer does not hold them.
     */
    public void addExternal(int offset, ByteBuffer payload) {
        add(offset);
        if (external == null) {
            external = new ByteBuffer[offsets.length];
        }
        external[count - 1] = payload;
    }

    /** The payload of packet {@code i} carried by reference (position to limit), or null if it is inline. */
    public ByteBuffer externalAt(int i) {
        return external == null ? null : external[i];
    }

    public int count() {
        return count;
    }

    public int offsetAt(int i) {
        return offsets[i];
    }

    /** Moves packet {@code i} to the end of the delivery order (the others keep their order). */
    public void moveToTail(int i) {
        int off = offsets[i];
        System.arraycopy(offsets, i + 1, offsets, i, count - i - 1);
        offsets[count - 1] = off;
        if (external != null) {
            ByteBuffer e = external[i];
            System.arraycopy(external, i + 1, external, i, count - i - 1);
            external[count - 1] = e;
        }
    }

    /** Prepares the batch for delivery from {@code src} to {@code dst} (world ranks). */
    public void address(int src, int dst) {
        this.srcRank = src;
        this.dstRank = dst;
        this.consumed = false;
        this.resumeIndex = 0;
    }

    public int srcRank() {
        return srcRank;
    }

    public int dstRank() {
        return dstRank;
    }

    /** Called by the receiver when it will not read the buffer again. */
    public void markConsumed() {
        consumed = true; // release: the receiver's reads of buffer happen-before the sender's reuse
    }

    public boolean isConsumed() {
        return consumed;
    }

    /** Sender: asks the transport to report the batch's ring position to {@code t} (null: do not). */
    public void ringAck(RingAck t) {
        this.ringAck = t;
    }

    public RingAck ringAck() {
        return ringAck;
    }

    /**
     * Transport, before delivery: whether the receiver may elide an ack this batch asks for by
     * {@link PacketType#F_ACK_BY_RING} (it is being read from a ring that acknowledges through memory, and nothing
     * read before it is still waiting). Also clears {@link #ackElided}.
     */
    public void mayElideAck(boolean may) {
        this.mayElideAck = may;
        this.ackElided = false;
    }

    public boolean mayElideAck() {
        return mayElideAck;
    }

    /** Receiver: it applied the batch at once and sent no ack; the transport acknowledges through memory. */
    public void ackElided() {
        this.ackElided = true;
    }

    public boolean isAckElided() {
        return ackElided;
    }

    /** Empties the batch for reuse by its owner (only after {@link #isConsumed()}). */
    public void clear() {
        ringAck = null;
        mayElideAck = false;
        ackElided = false;
        if (external != null) {
            Arrays.fill(external, 0, count, null);
        }
        count = 0;
        consumed = false;
        resumeIndex = 0;
    }
}

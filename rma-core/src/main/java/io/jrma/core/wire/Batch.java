package io.jrma.core.wire;

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
 */
public final class Batch {
    private final MutableDirectBuffer buffer;
    private int[] offsets = new int[8];
    private int count;
    private int srcRank;
    private int dstRank;
    private volatile boolean consumed;
    /** Opaque per-batch state for the receiver (e.g. where it stopped while blocked on a lock). */
    public int resumeIndex;

    public Batch(MutableDirectBuffer buffer) {
        this.buffer = buffer;
    }

    public MutableDirectBuffer buffer() {
        return buffer;
    }

    /** Adds a packet that starts at {@code offset} of the buffer (its length is in its header). */
    public void add(int offset) {
        if (count == offsets.length) {
            offsets = java.util.Arrays.copyOf(offsets, count * 2);
        }
        offsets[count++] = offset;
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

    /** Empties the batch for reuse by its owner (only after {@link #isConsumed()}). */
    public void clear() {
        count = 0;
        consumed = false;
        resumeIndex = 0;
    }
}

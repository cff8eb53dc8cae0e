package io.jrma.transport.shm;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of shared-memory rings: each ring end keeps its own set, and the transport sums them. Values only
 * grow. Counters with a single writer (the holder of an outbound ring's lock, or the progress agent for the
 * inbound side) are bumped with {@link #add} (a plain read and an ordered store, no locked instruction on the
 * hot path); the others atomically.
 *
 * <p>Thread-safe for readers; writers as above.
 */
final class ShmCounters {
    /** Batches whose every packet is in a ring. */
    final AtomicLong batchesSent = new AtomicLong();
    /** Ring records written (whole packets, or pieces of a large one). */
    final AtomicLong recordsSent = new AtomicLong();
    /** Packet bytes written into rings. */
    final AtomicLong bytesSent = new AtomicLong();
    /** Requests refused because a ring was full (the origin drives progress and retries). */
    final AtomicLong refused = new AtomicLong();
    /** Doorbells rung: a receiver was asleep in its selector when records arrived. */
    final AtomicLong doorbells = new AtomicLong();
    /** Batches handed to the window engine from rings. */
    final AtomicLong batchesReceived = new AtomicLong();
    /** Ring records read. */
    final AtomicLong recordsReceived = new AtomicLong();
    /** Packet bytes read from rings. */
    final AtomicLong bytesReceived = new AtomicLong();
    /** Batches the engine kept (waiting for a lock), so they were copied out of the ring. */
    final AtomicLong batchesCopiedOut = new AtomicLong();
    /** Packets too large for a record, gathered from pieces. */
    final AtomicLong packetsAssembled = new AtomicLong();
    /** Packets too large for a record whose payload was copied from the ring straight to its destination. */
    final AtomicLong packetsPlaced = new AtomicLong();
    /** Records or batches rejected (malformed, or claiming ranks of another JVM). */
    final AtomicLong rejected = new AtomicLong();
    /** Control-plane messages received. */
    final AtomicLong controlReceived = new AtomicLong();
    /** Records acknowledged through the ring's applied position instead of an ACK packet. */
    final AtomicLong ringAcks = new AtomicLong();

    /** Single-writer increment: readers see every value in order, without a locked add. */
    static void add(AtomicLong c, long delta) {
        c.lazySet(c.get() + delta);
    }

    /** Adds every counter of this set to {@code total}. */
    void addTo(ShmCounters total) {
        total.batchesSent.addAndGet(batchesSent.get());
        total.recordsSent.addAndGet(recordsSent.get());
        total.bytesSent.addAndGet(bytesSent.get());
        total.refused.addAndGet(refused.get());
        total.doorbells.addAndGet(doorbells.get());
        total.batchesReceived.addAndGet(batchesReceived.get());
        total.recordsReceived.addAndGet(recordsReceived.get());
        total.bytesReceived.addAndGet(bytesReceived.get());
        total.batchesCopiedOut.addAndGet(batchesCopiedOut.get());
        total.packetsAssembled.addAndGet(packetsAssembled.get());
        total.packetsPlaced.addAndGet(packetsPlaced.get());
        total.rejected.addAndGet(rejected.get());
        total.controlReceived.addAndGet(controlReceived.get());
        total.ringAcks.addAndGet(ringAcks.get());
    }

    @Override
    public String toString() {
        return "shm[batches sent " + batchesSent + ", records sent " + recordsSent + ", bytes sent " + bytesSent
                + ", refused " + refused + ", doorbells " + doorbells + ", batches received " + batchesReceived
                + ", records received " + recordsReceived + ", bytes received " + bytesReceived + ", copied out "
                + batchesCopiedOut + ", assembled " + packetsAssembled + ", placed " + packetsPlaced + ", rejected "
                + rejected + ", control " + controlReceived
                + ", ring acks " + ringAcks + "]";
    }
}

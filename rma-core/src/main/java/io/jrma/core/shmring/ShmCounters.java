package io.jrma.core.shmring;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of one JVM's shared-memory rings (all peers together). Values only grow.
 *
 * <p>Thread-safe.
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
    /** Records or batches rejected (malformed, or claiming ranks of another JVM). */
    final AtomicLong rejected = new AtomicLong();

    @Override
    public String toString() {
        return "shm[batches sent " + batchesSent + ", records sent " + recordsSent + ", bytes sent " + bytesSent
                + ", refused " + refused + ", doorbells " + doorbells + ", batches received " + batchesReceived
                + ", records received " + recordsReceived + ", bytes received " + bytesReceived + ", copied out "
                + batchesCopiedOut + ", assembled " + packetsAssembled + ", rejected " + rejected + "]";
    }
}

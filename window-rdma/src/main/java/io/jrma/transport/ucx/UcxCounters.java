package io.jrma.transport.ucx;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the ucx transport counted ({@link UcxTransport#counters()}): packets sent and received as UCP messages, the
 * RDMA lane's and atomic domain's operations on registered memory, and how the idle progress thread slept.
 *
 * <p>Threads: any.
 */
final class UcxCounters {
    final AtomicLong batchesSent = new AtomicLong();
    final AtomicLong packetsSent = new AtomicLong();
    final AtomicLong bytesSent = new AtomicLong();
    /** Sends refused by back-pressure ({@link UcxParams#SEND_QUEUE_BYTES}). */
    final AtomicLong refused = new AtomicLong();
    final AtomicLong batchesReceived = new AtomicLong();
    final AtomicLong bytesReceived = new AtomicLong();
    /** Messages rejected: no whole packet header, or ranks their sender may not speak for. */
    final AtomicLong rejected = new AtomicLong();
    /** Operations on peers' registered memory (put, get, atomics), and the bytes they moved. */
    final AtomicLong rdmaOps = new AtomicLong();
    final AtomicLong rdmaBytes = new AtomicLong();
    /** Times the doorbell thread woke the sleeping progress thread for a UCX event. */
    final AtomicLong doorbells = new AtomicLong();
    /** Sleeps of the progress thread with the event descriptor armed, and attempts UCX found events pending for. */
    final AtomicLong sleeps = new AtomicLong();
    final AtomicLong armBusy = new AtomicLong();

    /** Counts one operation on registered memory. */
    void countRdma(long bytes) {
        rdmaOps.incrementAndGet();
        rdmaBytes.addAndGet(bytes);
    }

    @Override
    public String toString() {
        return "batches_sent=" + batchesSent + " packets_sent=" + packetsSent + " bytes_sent=" + bytesSent
                + " refused=" + refused + " batches_received=" + batchesReceived + " bytes_received=" + bytesReceived
                + " rejected=" + rejected + " rdma_ops=" + rdmaOps + " rdma_bytes=" + rdmaBytes
                + " sleeps=" + sleeps + " arm_busy=" + armBusy + " doorbells=" + doorbells;
    }
}

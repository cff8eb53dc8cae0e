package io.jrma.sync;

import io.jrma.core.wire.Batch;
import io.jrma.core.wire.RingAck;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import org.agrona.ExpandableDirectByteBuffer;

/**
 * The packet queue and counters of one origin for one target ({@link PacketOrigin}): the batch being filled, the
 * batches in flight and free, what was sent and acknowledged (as packets or through a ring's applied position).
 *
 * <p>Fields guarded by the queue's monitor unless volatile or atomic; the origin's threads and its progress agent.
 */
final class TargetQueue {
    /** Bytes a new batch buffer starts with (it grows as packets need). */
    private static final int BATCH_INITIAL_BYTES = 4096;

    private final WindowImpl w;
    final int t;
    /**
     * The batch being filled (written under the monitor; volatile for {@link #quietNow}, which reads it without:
     * {@link PacketOrigin#send} publishes {@code sentPublished} before it clears this, so a reader that sees it
     * cleared sees the batch counted as sent).
     */
    volatile Batch open;
    int getIndex = -1;
    int lockFlags;
    boolean lockSent;
    long sent;
    /** (int) sent, published before the batch is handed over, so acks for it are never ignored. */
    volatile int sentPublished;
    volatile int acked;
    /** The ack value reached through ring acknowledgements ({@link RingAck}); written under the monitor. */
    volatile int ringAcked;
    /** Batches asking to be acknowledged through memory, oldest first (guarded by the monitor). */
    final ArrayDeque<RingAck> ringAcks = new ArrayDeque<>();
    volatile int ringAcksWaiting;
    final AtomicInteger replies = new AtomicInteger();
    final ArrayDeque<Batch> inFlight = new ArrayDeque<>();
    final ArrayDeque<Batch> free = new ArrayDeque<>();

    TargetQueue(WindowImpl w, int t) {
        this.w = w;
        this.t = t;
    }

    /**
     * Operations issued to the target since the last flush of it, by packets or around them (monitor; also
     * updated without it by the quiet cases of bypass and flush: it only paces the latency-bound rule).
     */
    int opsSinceFlush;
    /** How many operations the last flush of the target covered (as opsSinceFlush). */
    int lastFlushOps;

    int dst() {
        return w.worldRanks[t];
    }

    Batch open() {
        if (open == null) {
            while (!inFlight.isEmpty() && inFlight.peekFirst().isConsumed()) {
                Batch b = inFlight.pollFirst();
                if (b == external) {
                    external = null;
                }
                b.clear();
                free.push(b); // LIFO: the buffer written out last is reused first, still in cache
            }
            open = free.isEmpty() ? new Batch(new ExpandableDirectByteBuffer(BATCH_INITIAL_BYTES)) : free.pop();
            open.address(w.worldRanks[w.rank], dst());
            writePos = 0;
        }
        return open;
    }

    int writePos;
    /**
     * The last batch holding a payload sent from the user's buffer ({@link PacketEncoding#largeDirect}), until it is
     * seen consumed: local completion waits for it.
     */
    Batch external;

    /** Whether a payload sent from a user buffer may still be read (caller holds the monitor). */
    boolean externalPending() {
        if (external != null && external != open && external.isConsumed()) {
            external = null;
        }
        return external != null;
    }

    /** The ack value the last {@link PacketOrigin#flushLocked} asked for (guarded by the monitor). */
    int flushWant;

    /** Value of {@code sent} after a release that needed no ack, when everything before it was acked. */
    int releasedAt = -1;

    /** The later of the acks received as packets and through memory. */
    int ackedNow() {
        int a = acked;
        int r = ringAcked;
        return r - a > 0 ? r : a;
    }

    /**
     * Without the monitor: true when nothing is queued and every packet sent has been acknowledged (as packets
     * or through memory), as far as this thread can tell. Operations this thread issued before are seen (program
     * order); those another thread is issuing at the same time may not be, which MPI allows: they are not ordered
     * before the call. False when unsure (an ack-less release, a batch being filled): the caller then decides
     * under the monitor.
     */
    boolean quietNow() {
        Batch b = open; // first: see open's javadoc
        return (b == null || b.count() == 0) && sentPublished == ackedNow();
    }

    /** Whether every packet sent has been acknowledged (an ack-less release counts as acknowledged). */
    boolean allAcked() {
        return (int) sent == ackedNow() || (int) sent == releasedAt;
    }

    /**
     * Whether acks up to {@code want} have arrived, as a packet or through memory (the tickets that completed
     * are retired here, oldest first: one ring, applied in order).
     */
    boolean acknowledged(int want) {
        if (acked - want >= 0 || ringAcked - want >= 0) {
            return true;
        }
        if (ringAcksWaiting == 0) {
            return false;
        }
        synchronized (this) {
            RingAck t;
            while ((t = ringAcks.peek()) != null) {
                if (acked - t.want < 0 && !t.done()) {
                    break;
                }
                ringAcks.poll();
                if (acked - t.want < 0 && t.want - ringAcked > 0) {
                    ringAcked = t.want;
                }
            }
            ringAcksWaiting = ringAcks.size();
        }
        return acked - want >= 0 || ringAcked - want >= 0;
    }
}

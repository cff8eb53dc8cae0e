package io.jrma.transport.shm;

import static io.jrma.transport.shm.RingFileDescriptor.APPLIED_OFFSET;
import static io.jrma.transport.shm.RingFileDescriptor.ASLEEP_OFFSET;
import static io.jrma.transport.shm.RingFileDescriptor.MSG_CONTROL;
import static io.jrma.transport.shm.RingFileDescriptor.MSG_PACKETS;
import static io.jrma.transport.shm.RingFileDescriptor.MSG_PART;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.RingAck;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

/**
 * The sending end of the ring from this JVM to one other JVM of the host. Packets are copied once, from the
 * origin's queue buffer into the ring ({@code tryClaim}, copy, {@code commit}), so a batch is locally complete
 * as soon as its last packet is in the ring. A payload the batch carries by reference (a large put from the
 * user's direct buffer, a large GET reply from window memory) is copied into the ring from where it lies.
 * Whole packets share a record up to the ring's largest record; a larger packet is cut into
 * {@link RingFileDescriptor#MSG_PART} records.
 *
 * <p>What does not fit waits in a FIFO of batches (the rest of a batch begun, and replies, which are never
 * refused because the progress agent that sends them cannot wait for itself); later batches go behind it, so
 * the order per sender and receiver is the order of {@link #offer}. A request offered while the ring is full
 * is refused and nothing of it is taken.
 *
 * <p>Threads: any thread may {@link #offer}; the progress agent calls {@link #drain}. One lock makes this
 * JVM the ring's single producer; nobody waits for the progress agent while holding it.
 */
final class OutboundRing {
    /** {@link #offer} results. */
    static final int SENT = 0;
    static final int TAKEN = 1;
    static final int REFUSED = 2;

    /**
     * A batch (partly) waiting for ring space: the next packet and the bytes of it already sent; or a control
     * message ({@code control} not null, {@code batch} null).
     */
    private static final class Pending {
        final Batch batch;
        final byte[] control;
        int packet;
        int partSent;

        Pending(Batch batch) {
            this.batch = batch;
            this.control = null;
        }

        Pending(byte[] control) {
            this.batch = null;
            this.control = control;
        }

        /** How far it got into the ring (grows with every record written; 0: nothing yet). */
        int progress() {
            return packet + partSent;
        }
    }

    final int peerJvm;
    private final RingBuffer ring;
    private final AtomicBuffer header;
    private final int maxRecord;
    private final Runnable doorbell;
    final ShmCounters counters;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private volatile int pendingCount;
    private boolean closed;
    /** The rings to and from the peer as a batch's {@link io.jrma.core.wire.RingAck} sees them; null: none. */
    private volatile RingAck.Mark mark;

    OutboundRing(int peerJvm, RingFiles.Mapped file, Runnable doorbell) {
        this.peerJvm = peerJvm;
        this.ring = new OneToOneRingBuffer(file.ring);
        this.header = file.header;
        this.maxRecord = ring.maxMsgLength();
        this.doorbell = doorbell;
        this.counters = new ShmCounters();
        if (maxRecord < PacketHeader.HEADER_LENGTH) {
            throw new IllegalArgumentException("ring of " + ring.capacity() + " bytes cannot hold a packet header");
        }
    }

    /**
     * Writes {@code b} into the ring, or as much as fits with the rest left to {@link #drain}.
     *
     * @param reply whether {@code b} holds replies (never refused)
     * @return {@link #SENT} (all in the ring; the batch is consumed), {@link #TAKEN} (the rest follows) or
     *     {@link #REFUSED} (a request and the ring is full; nothing was taken)
     */
    int offer(Batch b, boolean reply) {
        return offer(new Pending(b), reply);
    }

    /** Lets batches be acknowledged through memory: {@code replies} is the ring from the same peer. */
    void acknowledgeThrough(InboundRing replies) {
        mark = new RingAck.Mark() {
            @Override
            public long applied() {
                return header.getLongVolatile(APPLIED_OFFSET);
            }

            @Override
            public long repliesWritten() {
                return replies.producerPosition();
            }

            @Override
            public long repliesRead() {
                return replies.consumerPosition();
            }
        };
    }

    /** Whether batches to the peer may ask to be acknowledged through memory. */
    boolean acksThroughMemory() {
        return mark != null;
    }

    /** Whether a control message of {@code length} bytes fits one record of this ring. */
    boolean fitsControl(int length) {
        return length <= maxRecord;
    }

    /**
     * Writes a control-plane message (at most {@link #fitsControl} bytes) into the ring, behind what waits for
     * space; never refused, like a reply: what does not fit now waits for {@link #drain}.
     */
    void offerControl(byte[] message) {
        offer(new Pending(message), true);
    }

    private int offer(Pending p, boolean neverRefused) {
        int result;
        boolean wrote;
        lock.lock();
        try {
            if (closed) {
                throw new RmaException(ErrorClass.ERR_PROC_ABORTED,
                        "the shared-memory ring to JVM " + peerJvm + " is closed");
            }
            wrote = pendingCount > 0 && drainLocked() > 0;
            if (!pending.isEmpty()) {
                if (!neverRefused) {
                    result = REFUSED;
                } else {
                    pending.add(p);
                    pendingCount = pending.size();
                    result = TAKEN;
                }
            } else {
                boolean done = write(p);
                wrote |= p.progress() != 0;
                if (done) {
                    result = SENT;
                } else if (p.progress() == 0 && !neverRefused) {
                    result = REFUSED;
                } else {
                    pending.add(p);
                    pendingCount = pending.size();
                    result = TAKEN;
                }
            }
        } finally {
            lock.unlock();
        }
        if (result == REFUSED) {
            counters.refused.incrementAndGet();
        }
        if (wrote) {
            ringIfAsleep();
        }
        return result;
    }

    /** Writes waiting batches while the ring has room; returns records written. Progress agent. */
    int drain() {
        if (pendingCount == 0 || !lock.tryLock()) {
            return 0;
        }
        int work;
        try {
            work = closed ? 0 : drainLocked();
        } finally {
            lock.unlock();
        }
        if (work > 0) {
            ringIfAsleep();
        }
        return work;
    }

    /** No more writes: the ring is about to be unmapped (waits for a writer in progress). */
    void close() {
        lock.lock();
        try {
            closed = true;
            pending.clear();
            pendingCount = 0;
        } finally {
            lock.unlock();
        }
    }

    boolean hasPending() {
        return pendingCount > 0;
    }

    private int drainLocked() {
        int work = 0;
        Pending p;
        while ((p = pending.peek()) != null) {
            int before = p.progress();
            boolean done = write(p);
            work += p.progress() != before ? 1 : 0;
            if (!done) {
                break;
            }
            pending.poll();
        }
        pendingCount = pending.size();
        return work;
    }

    /** Writes what fits of {@code p}; returns true (and marks the batch consumed) when all of it is in the ring. */
    private boolean write(Pending p) {
        if (p.control != null) {
            int idx = ring.tryClaim(MSG_CONTROL, p.control.length);
            if (idx < 0) {
                return false;
            }
            ring.buffer().putBytes(idx, p.control);
            ring.commit(idx);
            ShmCounters.add(counters.recordsSent, 1);
            ShmCounters.add(counters.bytesSent, p.control.length);
            p.packet = 1; // its one record
            return true;
        }
        Batch b = p.batch;
        MutableDirectBuffer src = b.buffer();
        int n = b.count();
        AtomicBuffer rb = ring.buffer();
        while (p.packet < n) {
            int at = b.offsetAt(p.packet);
            int len = packetLength(src, at);
            if (p.partSent == 0 && len <= maxRecord) {
                int last = p.packet;
                int total = len;
                while (last + 1 < n) {
                    int next = packetLength(src, b.offsetAt(last + 1));
                    if (total + next > maxRecord) {
                        break;
                    }
                    total += next;
                    last++;
                }
                int idx = ring.tryClaim(MSG_PACKETS, total);
                if (idx < 0) {
                    return false;
                }
                for (int i = p.packet; i <= last; i++) {
                    int l = PacketHeader.length(src, b.offsetAt(i));
                    putPacketBytes(rb, idx, b, i, 0, l);
                    idx += l;
                }
                ring.commit(idx - total);
                ShmCounters.add(counters.recordsSent, 1);
                ShmCounters.add(counters.bytesSent, total);
                p.packet = last + 1;
            } else {
                int piece = Math.min(maxRecord, len - p.partSent);
                int idx = ring.tryClaim(MSG_PART, piece);
                if (idx < 0) {
                    return false;
                }
                putPacketBytes(rb, idx, b, p.packet, p.partSent, piece);
                ring.commit(idx);
                ShmCounters.add(counters.recordsSent, 1);
                ShmCounters.add(counters.bytesSent, piece);
                p.partSent += piece;
                if (p.partSent == len) {
                    p.packet++;
                    p.partSent = 0;
                }
            }
        }
        ShmCounters.add(counters.batchesSent, 1);
        RingAck t = b.ringAck();
        if (t != null) {
            RingAck.Mark m = mark;
            if (m == null) {
                throw new RmaException(ErrorClass.ERR_INTERN,
                        "a batch asks to be acknowledged through a ring that cannot");
            }
            t.written(m, ring.producerPosition()); // single producer under the lock: the end of its last record
        }
        b.markConsumed(); // local completion: every byte is in the ring, the origin may reuse its buffer
        return true;
    }

    /**
     * Copies bytes {@code [from, from + n)} of packet {@code i} of {@code b} to {@code idx} of the ring: its header
     * (and layout) from the batch's buffer, and a payload carried by reference ({@link Batch#externalAt}: the
     * user's put buffer, the window bytes a GET reply answers with) straight from where it lies, so such a payload
     * is copied once on this side, into the ring.
     */
    private static void putPacketBytes(AtomicBuffer rb, int idx, Batch b, int i, int from, int n) {
        MutableDirectBuffer src = b.buffer();
        int at = b.offsetAt(i);
        ByteBuffer ext = b.externalAt(i);
        int inline = ext == null ? n + from : PacketHeader.length(src, at) - ext.remaining();
        if (from < inline) {
            int k = Math.min(n, inline - from);
            rb.putBytes(idx, src, at + from, k);
            idx += k;
            from += k;
            n -= k;
        }
        if (n > 0) {
            rb.putBytes(idx, ext, ext.position() + from - inline, n);
        }
    }

    private static int packetLength(MutableDirectBuffer src, int at) {
        int len = PacketHeader.length(src, at);
        if (len < PacketHeader.HEADER_LENGTH || len > PacketHeader.MAX_PACKET_LENGTH) {
            throw new RmaException(ErrorClass.ERR_INTERN, "a batch handed to the shared-memory ring holds a packet of "
                    + len + " bytes at offset " + at);
        }
        return len;
    }

    /**
     * After records were committed: if the receiver announced it may sleep in its selector, take the
     * announcement (so one doorbell per sleep) and ring. The full fence orders the commit (a release store)
     * before the load of the flag; the receiver stores the flag before it looks at the ring (Dekker), so one
     * of the two sees the other.
     */
    void ringIfAsleep() {
        VarHandle.fullFence();
        if (header.getIntVolatile(ASLEEP_OFFSET) != 0 && header.compareAndSetInt(ASLEEP_OFFSET, 1, 0)) {
            counters.doorbells.incrementAndGet();
            doorbell.run();
        }
    }
}

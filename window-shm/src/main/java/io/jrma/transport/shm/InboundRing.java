package io.jrma.transport.shm;

import static io.jrma.transport.shm.RingFileDescriptor.APPLIED_OFFSET;
import static io.jrma.transport.shm.RingFileDescriptor.ASLEEP_OFFSET;
import static io.jrma.transport.shm.RingFileDescriptor.MSG_CONTROL;
import static io.jrma.transport.shm.RingFileDescriptor.MSG_PACKETS;
import static io.jrma.transport.shm.RingFileDescriptor.MSG_PART;

import io.jrma.core.mem.Memory;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBuffer;

/**
 * The receiving end of the ring from one other JVM of the host. A record of whole packets is handed to the
 * window engine where it lies in the ring (no copy): the batch is a view of the record, dispatched at once in
 * the progress agent's duty cycle. If the engine consumes it there (the common case) the record is released;
 * if it keeps it (operations waiting for a lock) the record is copied out, the view re-pointed at the copy,
 * and the ring moves on, so one waiting origin never holds up the others behind it in the ring. Pieces of a
 * large packet are copied where the window engine places its payload (window memory for a PUT it would apply at
 * once, the origin buffer of a large get for its reply; {@link Sink#placement}), the header into a buffer of its
 * own, and the packet is delivered with its payload by reference; otherwise they are gathered into a buffer of
 * their own before delivery.
 *
 * <p>Acknowledgement through memory ({@link io.jrma.core.wire.RingAck}): a record of whole packets read while
 * nothing copied out before it still waits may have its requested ack elided by the engine; if the engine
 * consumed it and did so, the position after the record is published in the file header
 * ({@link RingFileDescriptor#APPLIED_OFFSET}), after the window memory was written, and the sender's flush sees it.
 *
 * <p>Threads: the progress agent only (the thread running its duty cycle).
 */
final class InboundRing implements ControlledMessageHandler {
    /** Where delivered batches go: validation and dispatch to the engine (the transport). */
    interface Sink {
        /** Checks and dispatches {@code b} (addressed by the caller); false if it was rejected (then consumed). */
        boolean deliver(InboundRing from, Batch b);

        /**
         * Where the payload of the packet whose header is at {@code at} (the first piece of a large packet, still
         * in the ring) may be copied as its pieces arrive, or null: {@link io.jrma.core.wire.BatchReceiver#placement}
         * for a packet from {@code from}. Asked only when nothing delivered earlier from this ring is still held.
         */
        ByteBuffer placement(InboundRing from, DirectBuffer header, int at);

        /** A record that cannot be parsed (counted, dropped). */
        void reject(InboundRing from, String why);

        /**
         * The ring itself is corrupt (a record header claims bytes the sender never wrote): it is read no more, and
         * what comes after cannot be found; counted, and the job cannot go on.
         */
        void corrupt(InboundRing from, String why);

        /** A control-plane message (a copy of the record: the ring moves on when the call returns). */
        void control(InboundRing from, ByteBuffer message);
    }

    private record Held(Batch batch, ByteBuffer copy, int length) {
    }

    private static final int READ_LIMIT = 64;
    /** Records at least this large free their ring space as soon as they are handled ({@link Action#COMMIT}). */
    static final int COMMIT_BYTES = 4096;
    private static final int KEEP_ASSEMBLY = 16 << 20;
    /** Assembly buffers at least this large go back to the OS when freed, not at some GC. */
    private static final int RELEASE_AT_ONCE_BYTES = 1 << 20;
    private static final byte[] NOTHING = new byte[0];

    final int peerJvm;
    private final RingBuffer ring;
    private final AtomicBuffer header;
    private final Sink sink;
    final ShmCounters counters;
    private final long heldLimit;
    private final int mask;
    /** Ring position where the current read started (the consumer position then; only this thread moves it). */
    private long readFrom;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private long heldBytes;
    private UnsafeBuffer spareView;
    private Batch spare;

    private ByteBuffer assembly;
    private int assemblyLength;
    private int assembled;
    /** A record of this ring was rejected: no more acknowledgements through memory ({@link #reject}). */
    private boolean rejectedAny;
    /** The payload's destination of the packet being assembled when it is placed (else null), and its header. */
    private ByteBuffer placedPayload;
    private ByteBuffer placedHeader;
    /** A record header was found corrupt ({@link #outOfBounds}): the ring is read no more. */
    private boolean broken;
    /** The sender's producer position as last read by {@link #outOfBounds}. */
    private long producedSeen;
    /** The ring's memory (record headers are read here by {@link #checkUnfinished}). */
    private final AtomicBuffer records;
    /** Consumer position whose record header said "being written" when last looked at, or -1. */
    private long unfinishedAt = -1;
    /** The sender's producer position when that header was first seen unfinished. */
    private long unfinishedProduced;

    InboundRing(int peerJvm, RingFiles.Mapped file, Sink sink, long heldLimit) {
        this.peerJvm = peerJvm;
        this.ring = new OneToOneRingBuffer(file.ring);
        this.records = file.ring;
        this.header = file.header;
        this.sink = sink;
        this.counters = new ShmCounters();
        this.heldLimit = heldLimit;
        this.mask = ring.capacity() - 1;
    }

    /** Frees copies the engine is done with, then reads records; returns work done. */
    int poll() {
        if (broken) {
            return 0;
        }
        int work = reclaim();
        if (heldBytes > heldLimit) {
            return work; // back-pressure: the sender's ring fills until the waiting packets are applied
        }
        readFrom = ring.consumerPosition();
        int read = ring.controlledRead(this, READ_LIMIT);
        if (read == 0 && !broken) {
            checkUnfinished();
        }
        return work + read;
    }

    /**
     * Agrona's reader stops at a record whose header says it is still being written (a length of zero or below) and
     * waits for it, for ever if the header is broken: a stalled peer, with no word said. The sender is one producer
     * under one lock that commits each record before it claims the next, so once the sender has claimed more of the
     * ring after such a header was seen, the header can no longer be one it is writing: the ring is corrupt, and the
     * job ends with the reason. A sender that stopped (descheduled, SIGSTOP, killed mid-record) claims nothing more,
     * so it is never taken for a corrupt ring here.
     */
    private void checkUnfinished() {
        long consumer = ring.consumerPosition();
        long produced = ring.producerPosition(); // read before the header: a later claim makes its commit visible
        if (produced <= consumer) {
            unfinishedAt = -1;
            return;
        }
        int length = records.getIntVolatile(RecordDescriptor.lengthOffset((int) (consumer & mask)));
        if (length > 0) {
            unfinishedAt = -1;
            return;
        }
        if (unfinishedAt != consumer) {
            unfinishedAt = consumer;
            unfinishedProduced = produced;
            return;
        }
        if (produced != unfinishedProduced) {
            broken = true;
            sink.corrupt(this, "the record at ring position " + consumer + " still says it is being written (length "
                    + length + ") after the sender went on to write up to position " + produced);
        }
    }

    /**
     * Ring position just past the record whose message starts at buffer index {@code index} ({@code length}
     * bytes), read in the current {@link #poll}: as the sender's producer position stood after committing it.
     */
    private long endPosition(int index, int length) {
        int start = index - RecordDescriptor.HEADER_LENGTH;
        long delta = (start - ((int) readFrom & mask)) & mask; // one read never passes the end of the buffer
        return readFrom + delta + BitUtil.align(length + RecordDescriptor.HEADER_LENGTH, RecordDescriptor.ALIGNMENT);
    }

    /** The position the receiver of this ring has published as applied (tests, diagnostics). */
    long applied() {
        return header.getLongVolatile(APPLIED_OFFSET);
    }

    /** Position up to which the peer has claimed records (any thread). */
    long producerPosition() {
        return ring.producerPosition();
    }

    /**
     * Position up to which records have been read and handled (any thread; moves after each read, and after each
     * record of {@link #COMMIT_BYTES} or more).
     */
    long consumerPosition() {
        return ring.consumerPosition();
    }

    /** Whether a record may be waiting (also a claimed, not yet committed one). */
    boolean hasInput() {
        return ring.producerPosition() != ring.consumerPosition();
    }

    /** Announces (or withdraws) that the receiver's progress thread may sleep in its selector. */
    void asleep(boolean asleep) {
        // a full fence: the flag is visible before we look at the ring
        header.putIntVolatile(ASLEEP_OFFSET, asleep ? 1 : 0);
    }

    boolean isAsleep() {
        return header.getIntVolatile(ASLEEP_OFFSET) != 0;
    }

    private int reclaim() {
        int work = 0;
        Held h;
        while ((h = held.peek()) != null && h.batch().isConsumed()) {
            held.poll();
            heldBytes -= h.length();
            if (h.copy() != assembly) {
                free(h.copy());
            }
            work++;
        }
        return work;
    }

    @Override
    public Action onMessage(int type, MutableDirectBuffer buffer, int index, int length) {
        String bad = outOfBounds(index, length);
        if (bad != null) {
            broken = true;
            sink.corrupt(this, bad);
            return Action.ABORT; // the consumer position stays before it: nothing past the sender's bytes is read
        }
        ShmCounters.add(counters.recordsReceived, 1);
        ShmCounters.add(counters.bytesReceived, length);
        if (type == MSG_PACKETS) {
            packets(buffer, index, length);
        } else if (type == MSG_PART) {
            part(buffer, index, length);
        } else if (type == MSG_CONTROL) {
            byte[] copy = new byte[length];
            buffer.getBytes(index, copy);
            sink.control(this, ByteBuffer.wrap(copy));
        } else {
            reject("record of unknown type " + type);
        }
        if (heldBytes > heldLimit) {
            return Action.BREAK; // this record is done, read no more
        }
        // a large record's space goes back to the sender at once, not after the whole read: while this side copies
        // out one piece of a large packet the sender copies in the next, instead of waiting for a full ring to empty.
        // A record ending at the end of the buffer ends the read (BREAK, which commits it too): Agrona 2.6 keeps the
        // read's first contiguous length after a COMMIT, so reading on would look at the trailer for a record.
        if (length < COMMIT_BYTES) {
            return Action.CONTINUE;
        }
        int end = index - RecordDescriptor.HEADER_LENGTH
                + BitUtil.align(length + RecordDescriptor.HEADER_LENGTH, RecordDescriptor.ALIGNMENT);
        return end >= ring.capacity() ? Action.BREAK : Action.COMMIT;
    }

    /**
     * Why the record whose message Agrona hands over at {@code index} ({@code length} bytes) cannot be one the sender
     * wrote, or null: Agrona trusts the length in a record header, so a corrupt one (a flipped bit, a broken sender)
     * would have the receiver read past the ring's buffer, or past the sender's producer position, which then
     * jumps ahead of everything the sender writes later: the ring would stay silent for the rest of the job. An
     * honest record lies inside the buffer and ends at or before the producer position (read after Agrona's).
     */
    private String outOfBounds(int index, int length) {
        if (length < 0 || (long) index + length > ring.capacity()) {
            return "a record of " + length + " bytes at " + index + " overruns the ring of "
                    + ring.capacity() + " bytes";
        }
        long end = endPosition(index, length);
        // (the producer position is read again only when a record ends past the last one seen)
        if (end > producedSeen) {
            producedSeen = ring.producerPosition();
            if (end > producedSeen) {
                return "a record ends at position " + end + ", past the " + producedSeen + " the sender has written";
            }
        }
        return null;
    }

    private void packets(MutableDirectBuffer ringBuffer, int index, int length) {
        if (assembled != 0) {
            reject("whole packets inside the pieces of a large packet");
            assembled = 0;
        }
        UnsafeBuffer view = spareView != null ? spareView : new UnsafeBuffer(NOTHING);
        Batch b = spare != null ? spare : new Batch(view);
        spare = null;
        spareView = null;
        b.clear();
        view.wrap(ringBuffer.addressOffset() + index, length);
        if (!frame(b, view, length)) {
            keepSpare(b, view);
            return;
        }
        b.mayElideAck(held.isEmpty() && !rejectedAny);
        sink.deliver(this, b);
        if (b.isConsumed()) {
            if (b.isAckElided()) {
                // release: the window memory written while applying it is visible to whoever sees the position
                header.putLongOrdered(APPLIED_OFFSET, endPosition(index, length));
                ShmCounters.add(counters.ringAcks, 1);
            }
            keepSpare(b, view);
            return;
        }
        b.mayElideAck(false); // it waits: its ack, when applied later, travels as a packet
        ByteBuffer copy = ByteBuffer.allocateDirect(length); // still wanted: out of the ring before it moves on
        view.getBytes(0, copy, 0, length);
        view.wrap(copy, 0, length);
        held.add(new Held(b, copy, length));
        heldBytes += length;
        ShmCounters.add(counters.batchesCopiedOut, 1);
    }

    /**
     * Counts and drops a record that cannot be parsed. From then on this ring acknowledges nothing through memory:
     * a sender that wrote it is broken, and the pieces of a large packet dropped halfway may already be in window
     * memory, so no applied position may claim that what it sent before is in place.
     */
    private void reject(String why) {
        rejectedAny = true;
        placedPayload = null;
        placedHeader = null;
        sink.reject(this, why);
    }

    private void keepSpare(Batch b, UnsafeBuffer view) {
        b.mayElideAck(false);
        view.wrap(NOTHING); // the record is released next: nothing may read it through this view
        spare = b;
        spareView = view;
    }

    /** Rebuilds packet offsets from their lengths; false if the record is not whole packets (rejected). */
    private boolean frame(Batch b, MutableDirectBuffer buf, int length) {
        int off = 0;
        while (off < length) {
            if (off + PacketHeader.HEADER_LENGTH > length) {
                reject("a record ends inside a packet header");
                return false;
            }
            int plen = buf.getInt(off + PacketHeader.LENGTH_OFFSET);
            if (plen < PacketHeader.HEADER_LENGTH || (long) off + plen > length) {
                reject("a packet of " + plen + " bytes at offset " + off + " of a record of " + length);
                return false;
            }
            b.add(off);
            off += plen;
        }
        if (b.count() == 0) {
            reject("an empty record");
            return false;
        }
        b.address(PacketHeader.src(buf, 0), PacketHeader.dst(buf, 0));
        return true;
    }

    private void part(MutableDirectBuffer ringBuffer, int index, int length) {
        if (assembled == 0) {
            if (length < PacketHeader.HEADER_LENGTH) {
                reject("the first piece of a packet is shorter than its header");
                return;
            }
            int plen = ringBuffer.getInt(index + PacketHeader.LENGTH_OFFSET);
            if (plen < PacketHeader.HEADER_LENGTH || plen > PacketHeader.MAX_PACKET_LENGTH || plen < length) {
                reject("a packet in pieces claims " + plen + " bytes");
                return;
            }
            assemblyLength = plen;
            placedPayload = null;
            if (held.isEmpty()) { // nothing from this ring waits ahead of it: the engine may place it
                ByteBuffer dst = sink.placement(this, ringBuffer, index);
                if (dst != null && dst.remaining() == plen - PacketHeader.HEADER_LENGTH) {
                    placedPayload = dst;
                    placedHeader = ByteBuffer.allocateDirect(PacketHeader.HEADER_LENGTH);
                }
            }
            if (placedPayload == null && (assembly == null || assembly.capacity() < plen)) {
                assembly = ByteBuffer.allocateDirect(plen);
            }
        } else if (assembled + length > assemblyLength) {
            reject("pieces overrun their packet of " + assemblyLength + " bytes");
            assembled = 0;
            return;
        }
        if (placedPayload != null) {
            int from = index;
            int n = length;
            if (assembled < PacketHeader.HEADER_LENGTH) { // (the first piece holds the whole header)
                int k = Math.min(n, PacketHeader.HEADER_LENGTH - assembled);
                ringBuffer.getBytes(from, placedHeader, assembled, k);
                from += k;
                n -= k;
                assembled += k;
            }
            ringBuffer.getBytes(from, placedPayload,
                    placedPayload.position() + assembled - PacketHeader.HEADER_LENGTH, n);
            assembled += n;
        } else {
            ringBuffer.getBytes(index, assembly, assembled, length);
            assembled += length;
        }
        if (assembled < assemblyLength) {
            return;
        }
        assembled = 0;
        if (placedPayload != null) {
            deliverPlaced();
            return;
        }
        UnsafeBuffer view = new UnsafeBuffer(assembly, 0, assemblyLength);
        Batch b = new Batch(view);
        b.add(0);
        b.address(PacketHeader.src(view, 0), PacketHeader.dst(view, 0));
        ShmCounters.add(counters.packetsAssembled, 1);
        sink.deliver(this, b);
        if (!b.isConsumed()) {
            held.add(new Held(b, assembly, assemblyLength));
            heldBytes += assemblyLength;
            assembly = null; // the engine still reads it: the next large packet gets a new buffer
        } else if (assembly.capacity() > KEEP_ASSEMBLY) {
            free(assembly);
            assembly = null;
        }
    }

    /** Delivers a packet whose payload is in place: its header in a buffer of its own, the payload by reference. */
    private void deliverPlaced() {
        ByteBuffer payload = placedPayload;
        ByteBuffer hdr = placedHeader;
        placedPayload = null;
        placedHeader = null;
        UnsafeBuffer view = new UnsafeBuffer(hdr, 0, PacketHeader.HEADER_LENGTH);
        Batch b = new Batch(view);
        b.addExternal(0, payload);
        b.address(PacketHeader.src(view, 0), PacketHeader.dst(view, 0));
        ShmCounters.add(counters.packetsPlaced, 1);
        sink.deliver(this, b);
        if (!b.isConsumed()) { // (the engine keeps it: its header with it; the payload is where it belongs)
            held.add(new Held(b, hdr, PacketHeader.HEADER_LENGTH));
            heldBytes += PacketHeader.HEADER_LENGTH;
        }
    }

    private static void free(ByteBuffer b) {
        if (b.capacity() >= RELEASE_AT_ONCE_BYTES) {
            Memory.release(b); // large buffers go back to the OS now, not at some GC
        }
    }

    /** Drops everything still held (the job ended). */
    void close() {
        held.clear();
        heldBytes = 0;
        if (assembly != null) {
            free(assembly);
            assembly = null;
        }
    }
}

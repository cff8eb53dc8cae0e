package io.jrma.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The receiving end of a ring alone, over a real ring file in /dev/shm, with records written by hand through
 * Agrona and a recording sink in place of the transport: where the pieces of a large packet go when the sink
 * places them, and that a rejected record ends acknowledgement through memory on that ring.
 */
class InboundRingTest {
    private static final int CAPACITY = 64 << 10;
    private Path file;
    private RingFiles.Mapped mapped;
    private OneToOneRingBuffer writer;
    private final Sink sink = new Sink();
    private InboundRing in;

    /** Records what the ring hands over; places large PUT payloads where {@link #place} says. */
    static final class Sink implements InboundRing.Sink {
        final List<Batch> delivered = new ArrayList<>();
        final List<Boolean> mayElide = new ArrayList<>();
        ByteBuffer place;
        int placementsAsked;
        int rejected;
        /** Set by a test that breaks the ring on purpose: then the reason is kept instead of failing the test. */
        boolean corruptExpected;
        String corruptWhy;

        @Override
        public boolean deliver(InboundRing from, Batch b) {
            delivered.add(b);
            mayElide.add(b.mayElideAck());
            b.markConsumed();
            return true;
        }

        @Override
        public ByteBuffer placement(InboundRing from, DirectBuffer header, int at) {
            placementsAsked++;
            return place == null ? null : place.duplicate();
        }

        @Override
        public void reject(InboundRing from, String why) {
            rejected++;
        }

        @Override
        public void corrupt(InboundRing from, String why) {
            if (!corruptExpected) {
                throw new AssertionError("ring corrupt: " + why);
            }
            corruptWhy = why;
        }

        @Override
        public void control(InboundRing from, ByteBuffer message) {
        }
    }

    @BeforeEach
    void map() {
        file = Path.of("/dev/shm", RingFiles.prefix(ProcessHandle.current().pid()) + "inbound-test-"
                + System.nanoTime());
        mapped = RingFiles.create(file, CAPACITY, ProcessHandle.current().pid(), 0, 1);
        writer = new OneToOneRingBuffer(mapped.ring);
        in = new InboundRing(0, mapped, sink, 64 << 20);
    }

    @AfterEach
    void unmap() {
        RingFiles.deleteQuietly(file);
        mapped.unmap();
    }

    /** A PUT packet of {@code payload} bytes, each byte a function of its index. */
    private static UnsafeBuffer put(int payload) {
        UnsafeBuffer p = new UnsafeBuffer(ByteBuffer.allocateDirect(PacketHeader.HEADER_LENGTH + payload));
        PacketHeader.write(p, 0, PacketHeader.HEADER_LENGTH + payload, PacketType.PUT, PacketType.F_CONTIG, 7, 0, 1,
                3, 4096, 0, 0, 0, payload, 0);
        for (int k = 0; k < payload; k++) {
            p.putByte(PacketHeader.HEADER_LENGTH + k, (byte) (k * 7 + k / 251));
        }
        return p;
    }

    private void write(int type, UnsafeBuffer src, int from, int length) {
        assertTrue(writer.write(type, src, from, length), "the ring has room");
    }

    @Test
    @Timeout(30)
    void piecesOfALargePacketAreCopiedWhereTheSinkPlacesThem() {
        int payload = 20_000;
        UnsafeBuffer p = put(payload);
        ByteBuffer window = ByteBuffer.allocateDirect(payload + 128);
        for (int k = 0; k < window.capacity(); k++) {
            window.put(k, (byte) 0x5a);
        }
        sink.place = window.duplicate().position(64).limit(64 + payload).slice();
        // pieces of 100 bytes (the header and 48 payload bytes), then 8000, 8000 and the rest
        int total = PacketHeader.HEADER_LENGTH + payload;
        int[] cuts = {100, 8000, 8000, total - 16_100};
        int at = 0;
        for (int c : cuts) {
            write(RingFileDescriptor.MSG_PART, p, at, c);
            at += c;
        }
        in.poll();
        assertEquals(1, sink.placementsAsked, "asked once, at the first piece");
        assertEquals(1, sink.delivered.size());
        Batch b = sink.delivered.get(0);
        assertNotNull(b.externalAt(0), "delivered with its payload by reference");
        assertEquals(payload, b.externalAt(0).remaining());
        for (int k = 0; k < PacketHeader.HEADER_LENGTH; k++) {
            assertEquals(p.getByte(k), b.buffer().getByte(k), "header byte " + k);
        }
        for (int k = 0; k < payload; k++) {
            assertEquals(p.getByte(PacketHeader.HEADER_LENGTH + k), window.get(64 + k), "payload byte " + k);
        }
        for (int k = 0; k < 64; k++) {
            assertEquals(0x5a, window.get(k), "byte " + k + " before the placed payload");
            assertEquals(0x5a, window.get(64 + payload + k), "byte " + k + " after the placed payload");
        }
        assertEquals(1, in.counters.packetsPlaced.get());
        assertEquals(0, in.counters.packetsAssembled.get());

        sink.place = null; // the sink declines: the same packet is gathered and delivered whole
        at = 0;
        for (int c : cuts) {
            write(RingFileDescriptor.MSG_PART, p, at, c);
            at += c;
        }
        in.poll();
        assertEquals(2, sink.delivered.size());
        Batch whole = sink.delivered.get(1);
        assertSame(null, whole.externalAt(0));
        for (int k = 0; k < total; k++) {
            assertEquals(p.getByte(k), whole.buffer().getByte(k), "gathered byte " + k);
        }
        assertEquals(1, in.counters.packetsAssembled.get());
        assertEquals(0, sink.rejected);
    }

    @Test
    @Timeout(30)
    void aHeaderLeftBeingWrittenWhileTheSenderWritesOnIsACorruptRingNotAStall() {
        sink.corruptExpected = true;
        UnsafeBuffer small = put(8);
        int len = PacketHeader.HEADER_LENGTH + 8;
        write(RingFileDescriptor.MSG_PACKETS, small, 0, len);
        in.poll();
        assertEquals(1, sink.delivered.size());

        // the next record's header is broken into "being written" (a negative length, as Agrona marks a claim)
        long at = writer.producerPosition();
        write(RingFileDescriptor.MSG_PACKETS, small, 0, len);
        int header = (int) (at & (CAPACITY - 1));
        mapped.ring.putIntVolatile(header, -len);
        for (int i = 0; i < 5; i++) {
            in.poll(); // a sender that is slow or stopped mid-record: nothing to say yet
        }
        assertEquals(1, sink.delivered.size());
        assertEquals(null, sink.corruptWhy, "a header still being written is not corrupt while the sender is on it");

        write(RingFileDescriptor.MSG_PACKETS, small, 0, len); // the sender claims past it: it cannot be writing it
        in.poll();
        in.poll();
        assertNotNull(sink.corruptWhy, "the stalled record was not reported");
        assertTrue(sink.corruptWhy.contains("ring position " + at), sink.corruptWhy);
        assertEquals(1, sink.delivered.size(), "nothing after the broken record was delivered");
        assertEquals(0, in.poll(), "a corrupt ring is read no more");
    }

    @Test
    @Timeout(30)
    void afterARejectedRecordNothingIsAcknowledgedThroughMemory() {
        UnsafeBuffer small = put(8);
        write(RingFileDescriptor.MSG_PACKETS, small, 0, PacketHeader.HEADER_LENGTH + 8);
        in.poll();
        assertEquals(List.of(true), sink.mayElide, "a record read with nothing held may be acknowledged by position");

        // a large packet whose pieces overrun it: its first pieces were placed, then the record is rejected
        int payload = 20_000;
        UnsafeBuffer p = put(payload);
        sink.place = ByteBuffer.allocateDirect(payload);
        write(RingFileDescriptor.MSG_PART, p, 0, 8000);
        write(RingFileDescriptor.MSG_PART, p, 8000, 8000);
        write(RingFileDescriptor.MSG_PART, p, 0, 8000); // 24,000 bytes of a 20,052-byte packet
        in.poll();
        assertEquals(1, sink.rejected);
        assertEquals(1, sink.delivered.size(), "the broken packet was not delivered");

        write(RingFileDescriptor.MSG_PACKETS, small, 0, PacketHeader.HEADER_LENGTH + 8);
        in.poll();
        assertEquals(2, sink.delivered.size());
        assertFalse(sink.mayElide.get(1), "after a rejected record the ring's applied position acknowledges nothing:"
                + " it could claim the half-placed packet before it");
    }
}

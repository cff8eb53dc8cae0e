package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import io.jrma.testsupport.fuzz.FuzzCampaign;
import io.jrma.testsupport.fuzz.PatternPackets;
import io.jrma.transport.shm.RingFileDescriptor;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Fuzz campaign against the framing of the shared-memory rings: a fuzzer writes records of its own into JVM 0's
 * real ring to JVM 1 ({@link FuzzRig}): honest records of packets, records of unknown types, garbage records, and
 * the pieces of a large packet with lies in them (a first piece shorter than a header, a length beyond any packet,
 * pieces that overrun their packet, whole packets in the middle of a packet's pieces); then one record that ends the
 * session: an undecodable control message, or a record header in the ring itself bit-flipped or claiming more bytes
 * than the ring holds. JVM 1 must deliver every honest packet intact, reject and count each lie, and end each session
 * with an abort naming the cause with ERR_INTERN, never with an exception in its progress agent, a read outside the
 * ring, or a hang.
 *
 * <p>{@code jrma.fuzz.records} records (20,000 by default; long mode {@code -Djrma.fuzz.records=1000000}); seed
 * {@code jrma.fuzz.seed} (34), printed.
 */
class RingRecordFuzzTest {
    /** Records of the quick mode. */
    static final long DEFAULT_RECORDS = 20_000;
    private static final int WINDOW = 888;

    enum End { BAD_CONTROL, HUGE_RECORD, FLIPPED_RECORD_HEADER }

    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // the long mode; the quick mode takes seconds
    void everyBadRecordIsRejectedAndEndsTheSessionCleanly() throws Exception {
        FuzzCampaign<End> campaign = new FuzzCampaign<>("RingRecordFuzzTest", "jrma.fuzz.records", DEFAULT_RECORDS,
                "records", End.class);
        campaign.announce();
        Random rnd = campaign.random();
        long records = 0;
        long sessions = 0;
        long honest = 0;
        long lies = 0;
        long t0 = System.nanoTime();
        while (records < campaign.size()) {
            try (FuzzRig rig = new FuzzRig(true, Map.of())) {
                long[] r = session(rig, rnd, campaign);
                records += r[0];
                honest += r[1];
                lies += r[2];
            }
            sessions++;
        }
        campaign.report(String.format("%d records in %d sessions: %d honest packets delivered, %d lies rejected",
                records, sessions, honest, lies), t0);
    }

    /** Returns {records written, honest packets, lies}. */
    private static long[] session(FuzzRig rig, Random rnd, FuzzCampaign<End> campaign) throws Exception {
        PatternPackets.Receiver receiver = new PatternPackets.Receiver();
        rig.jobs[1].agent().register(WINDOW, receiver);
        rig.jobs[0].start();
        rig.jobs[1].start();
        UnsafeBuffer buf = new UnsafeBuffer(ByteBuffer.allocateDirect(256 << 10));
        int n = 1 + rnd.nextInt(1000);
        long honest = 0;
        long lies = 0;
        long rejectedBefore = rig.shm[1].rejected();
        for (int i = 0; i < n; i++) {
            int kind = rnd.nextInt(9);
            switch (kind) {
                case 0, 1, 2 -> { // an honest record of 1..4 packets
                    int at = 0;
                    int packets = 1 + rnd.nextInt(4);
                    for (int p = 0; p < packets; p++) {
                        at += packet(buf, at, rnd.nextInt(), rnd.nextInt(300));
                    }
                    rig.injectRecord(RingFileDescriptor.MSG_PACKETS, buf, 0, at);
                    honest += packets;
                }
                case 3 -> { // an honest packet in pieces
                    int len = packet(buf, 0, rnd.nextInt(), (8 << 10) + rnd.nextInt(64 << 10));
                    pieces(rig, rnd, buf, len);
                    honest++;
                }
                case 4 -> { // a record of an unknown type
                    int len = rnd.nextInt(200);
                    random(buf, rnd, len);
                    rig.injectRecord(RingFileDescriptor.MSG_CONTROL + 1 + rnd.nextInt(1000), buf, 0, len);
                    lies++;
                }
                case 5 -> { // garbage where packets should be: a record ending inside a packet, or a bad length
                    int len = rnd.nextInt(300);
                    random(buf, rnd, len);
                    if (len >= 4) {
                        buf.putInt(0, rnd.nextBoolean() ? rnd.nextInt(PacketHeader.HEADER_LENGTH)
                                : len + 1 + rnd.nextInt(999));
                    }
                    rig.injectRecord(RingFileDescriptor.MSG_PACKETS, buf, 0, len);
                    lies++;
                }
                case 6 -> { // a first piece shorter than a packet header, or claiming an impossible length
                    int len = rnd.nextBoolean() ? rnd.nextInt(PacketHeader.HEADER_LENGTH)
                    : PacketHeader.HEADER_LENGTH + 16;
                    random(buf, rnd, len);
                    if (len >= PacketHeader.HEADER_LENGTH) {
                        buf.putInt(0, rnd.nextBoolean() ? PacketHeader.MAX_PACKET_LENGTH + 1 + rnd.nextInt(1 << 20)
                                : rnd.nextInt(len));
                    }
                    rig.injectRecord(RingFileDescriptor.MSG_PART, buf, 0, len);
                    lies++;
                }
                case 7 -> { // pieces that overrun their packet
                    int len = packet(buf, 0, rnd.nextInt(), 4 << 10);
                    rig.injectRecord(RingFileDescriptor.MSG_PART, buf, 0, 1024);
                    rig.injectRecord(RingFileDescriptor.MSG_PART, buf, 1024, len); // (len - 1024 were left)
                    lies++;
                }
                default -> { // a packet's first piece, then whole packets: the piece is dropped, the packets delivered
                    int len = packet(buf, 0, rnd.nextInt(), 4 << 10);
                    rig.injectRecord(RingFileDescriptor.MSG_PART, buf, 0, 1 + rnd.nextInt(len - 1));
                    int plen = packet(buf, 0, rnd.nextInt(), rnd.nextInt(100));
                    rig.injectRecord(RingFileDescriptor.MSG_PACKETS, buf, 0, plen);
                    lies++;
                    honest++;
                }
            }
        }
        rig.doorbell();
        long wantHonest = honest;
        long wantRejected = rejectedBefore + lies;
        until(() -> receiver.packets() == wantHonest && rig.shm[1].rejected() == wantRejected, rig);
        assertEquals(wantHonest, receiver.packets(), "honest packets delivered");
        assertEquals(0, receiver.corrupt(), "honest packets delivered corrupt");
        assertEquals(wantRejected, rig.shm[1].rejected(), "lies rejected");
        assertFalse(rig.jobs[1].isAborted(), () -> "aborted before the last record: " + rig.jobs[1].abortReason());
        if (lies > 0) {
            RmaException last = rig.shm[1].lastRejection();
            assertNotNull(last, "no rejection kept");
            assertEquals(ErrorClass.ERR_INTERN, last.errorClass(), last.getMessage());
        }
        End end = End.values()[rnd.nextInt(End.values().length)];
        campaign.ended(end);
        switch (end) {
            case BAD_CONTROL -> {
                int len = rnd.nextInt(64);
                random(buf, rnd, len);
                rig.injectRecord(RingFileDescriptor.MSG_CONTROL, buf, 0, len);
            }
            case HUGE_RECORD -> {
                int len = packet(buf, 0, 1, 100);
                int claim = rnd.nextBoolean() ? Integer.MAX_VALUE - rnd.nextInt(64) : (1 << 24) + rnd.nextInt(1 << 24);
                rig.injectRawRecord(buf, len, honestLength -> claim);
            }
            default -> {
                // an honest record whose length field suffers a bit flip that makes it claim more than was written
                int len = packet(buf, 0, 1, 100);
                int bit = 8 + rnd.nextInt(22);
                rig.injectRawRecord(buf, len, honestLength -> honestLength ^ (1 << bit));
            }
        }
        rig.doorbell();
        until(() -> rig.jobs[1].isAborted(), rig);
        RmaException why = rig.jobs[1].abortReason();
        assertNotNull(why, "the session ended with " + end + " but JVM 1 goes on");
        assertEquals(ErrorClass.ERR_INTERN, why.errorClass(), end + ": " + why.getMessage());
        assertNull(rig.jobs[1].agent().lastError(), "an exception escaped into JVM 1's progress agent");
        return new long[] {n + 1, honest, lies};
    }

    private static void until(BooleanSupplier done, FuzzRig rig) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            rig.doorbell();
            Thread.sleep(1);
        }
    }

    private static void pieces(FuzzRig rig, Random rnd, UnsafeBuffer buf, int len) throws Exception {
        int piece = 1024 + rnd.nextInt(8 << 10);
        for (int at = 0; at < len; at += piece) {
            rig.injectRecord(RingFileDescriptor.MSG_PART, buf, at, Math.min(piece, len - at));
        }
    }

    private static void random(UnsafeBuffer buf, Random rnd, int len) {
        for (int i = 0; i < len; i++) {
            buf.putByte(i, (byte) rnd.nextInt());
        }
    }

    /** Writes an honest packet from rank 0 to rank 1 of window {@link #WINDOW} (byte k is seq + k); its length. */
    static int packet(UnsafeBuffer buf, int at, int seq, int payload) {
        int len = PacketHeader.HEADER_LENGTH + payload;
        PacketHeader.write(buf, at, len, PacketType.PUT, PacketType.F_CONTIG, WINDOW, 0, 1, seq, 0,
                0, 0, 0, payload, 0);
        PatternPackets.fill(buf, at, seq, len);
        return len;
    }
}

package io.jrma.testsupport.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import java.nio.ByteBuffer;
import java.util.Map;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** The campaigns' seed, size and tally, and the packet pattern that tells an intact packet from a bent one. */
class FuzzSupportTest {
    private static final int PAYLOAD = 40;
    private static final int SEQ = 7;
    private static final int WINDOW = 3;

    enum End { A, B }

    @Test
    void aCampaignReadsItsSizeAndSeedAndTalliesTheEnds() {
        FuzzCampaign<End> c = new FuzzCampaign<>("T", "jrma.fuzz.testSupportNeverSet", 123, "things", End.class);
        assertEquals(123, c.size());
        assertEquals(FuzzCampaign.DEFAULT_SEED, c.seed());
        assertEquals(c.random().nextLong(), c.random().nextLong(), "the same seed gives the same inputs");
        c.ended(End.A);
        c.ended(End.A);
        c.ended(End.B);
        assertEquals(Map.of(End.A, 2L, End.B, 1L), c.ends());
    }

    @Test
    void aFilledPacketIsIntactAndOneBentByteIsSeen() {
        int len = PacketHeader.HEADER_LENGTH + PAYLOAD;
        UnsafeBuffer buf = new UnsafeBuffer(ByteBuffer.allocateDirect(len));
        PacketHeader.write(buf, 0, len, PacketType.PUT, PacketType.F_CONTIG, WINDOW, 0, 1, SEQ, 0, 0, 0, 0, PAYLOAD, 0);
        PatternPackets.fill(buf, 0, SEQ, len);
        assertTrue(PatternPackets.intact(buf, 0));
        buf.putByte(len - 1, (byte) (buf.getByte(len - 1) + 1));
        assertFalse(PatternPackets.intact(buf, 0));
        ByteBuffer heap = ByteBuffer.allocate(len);
        PatternPackets.fill(heap, 0, SEQ, len);
        assertEquals(PatternPackets.at(SEQ, len - 1), heap.get(len - 1));
    }
}

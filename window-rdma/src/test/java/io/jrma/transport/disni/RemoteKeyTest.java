package io.jrma.transport.disni;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The remote key's bytes on the wire: round trip, exact layout, and refusal of every corruption. */
class RemoteKeyTest {
    private static final long ADDRESS = 0x7f12_3456_7000L;
    private static final long LENGTH = 1 << 20;
    private static final int RKEY = 0x8001_2345;
    private static final long SEED = 31;

    @Test
    void aKeyRoundTrips() {
        RemoteKey k = new RemoteKey(ADDRESS, LENGTH, RKEY);
        assertEquals(k, RemoteKey.decode(k.encode()));
    }

    @Test
    void theBytesAreTheDocumentedLayout() {
        byte[] b = new RemoteKey(ADDRESS, LENGTH, RKEY).encode();
        assertEquals(RemoteKey.ENCODED_LENGTH, b.length);
        ByteBuffer bb = ByteBuffer.wrap(b);
        assertEquals('D', b[0]);
        assertEquals('K', b[1]);
        assertEquals(RemoteKey.VERSION, b[RemoteKey.VERSION_OFFSET]);
        assertEquals(0, b[RemoteKey.VERSION_OFFSET + 1]);
        assertEquals(RKEY, bb.getInt(RemoteKey.RKEY_OFFSET));
        assertEquals(ADDRESS, bb.getLong(RemoteKey.ADDRESS_OFFSET));
        assertEquals(LENGTH, bb.getLong(RemoteKey.LENGTH_OFFSET));
    }

    @Test
    void everySingleFlippedBitIsRefused() {
        byte[] good = new RemoteKey(ADDRESS, LENGTH, RKEY).encode();
        for (int bit = 0; bit < good.length * Byte.SIZE; bit++) {
            byte[] bad = good.clone();
            bad[bit / Byte.SIZE] ^= (byte) (1 << (bit % Byte.SIZE));
            RmaException e = assertThrows(RmaException.class, () -> RemoteKey.decode(bad), "bit " + bit);
            assertEquals(ErrorClass.ERR_ARG, e.errorClass());
        }
    }

    @Test
    void randomBytesAndWrongLengthsAreRefused() {
        Random rnd = new Random(SEED);
        for (int i = 0; i < 1000; i++) {
            byte[] junk = new byte[RemoteKey.ENCODED_LENGTH];
            rnd.nextBytes(junk);
            assertThrows(RmaException.class, () -> RemoteKey.decode(junk));
        }
        byte[] good = new RemoteKey(ADDRESS, LENGTH, RKEY).encode();
        assertTrue(msg(() -> RemoteKey.decode(Arrays.copyOf(good, good.length - 1))).contains("length is 27"));
        assertTrue(msg(() -> RemoteKey.decode(Arrays.copyOf(good, good.length + 1))).contains("length is 29"));
        assertTrue(msg(() -> RemoteKey.decode(null)).contains("null"));
    }

    @Test
    void aNewerVersionIsRefusedByName() {
        byte[] b = new RemoteKey(ADDRESS, LENGTH, RKEY).encode();
        b[RemoteKey.VERSION_OFFSET] = 2;
        assertTrue(msg(() -> RemoteKey.decode(b)).contains("version is 2"), "version checked before the checksum");
    }

    @Test
    void aRegionThatIsNoRegionIsRefusedEvenWithAGoodChecksum() {
        assertTrue(msg(() -> RemoteKey.decode(new RemoteKey(ADDRESS, 0, RKEY).encode())).contains("not a region"));
        assertTrue(msg(() -> RemoteKey.decode(new RemoteKey(-16, 32, RKEY).encode())).contains("not a region"));
    }

    @Test
    void coversChecksBothEnds() {
        RemoteKey k = new RemoteKey(ADDRESS, LENGTH, RKEY);
        assertTrue(k.covers(ADDRESS, LENGTH));
        assertTrue(k.covers(ADDRESS + LENGTH - 8, 8));
        assertFalse(k.covers(ADDRESS + LENGTH - 8, 9));
        assertFalse(k.covers(ADDRESS - 1, 8));
        assertFalse(k.covers(ADDRESS, -1));
        assertFalse(k.covers(Long.MAX_VALUE, 8));
    }

    private static String msg(Runnable r) {
        return assertThrows(RmaException.class, r::run).getMessage();
    }
}

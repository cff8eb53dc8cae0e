package io.jrma.core.dt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.ByteOrder;
import java.util.Random;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** Round trips and rejection of malformed input by {@link TypeLayoutCodec}. */
class TypeLayoutCodecTest {

    private static final Datatype[] SAMPLES = {
        Datatype.INT,
        Datatype.LONG_INT,
        Datatype.contiguous(0, Datatype.INT),
        Datatype.vector(3, 2, -4, Datatype.DOUBLE),
        Datatype.resized(Datatype.hindexed(new long[] {1, 2}, new long[] {-8, 16}, Datatype.SHORT), -100, 400),
        Datatype.struct(new long[] {1, 2, 1}, new long[] {0, 8, 24},
                new Datatype[] {Datatype.CHAR, Datatype.DOUBLE, Datatype.INT}),
        Datatype.subarray(new long[] {4, 5}, new long[] {2, 3}, new long[] {1, 2}, Datatype.Order.C,
                Datatype.DOUBLE_COMPLEX),
    };

    private static UnsafeBuffer encode(TypeLayout l, int at) {
        UnsafeBuffer b = new UnsafeBuffer(new byte[at + l.encodedLength() + 8]);
        l.encode(b, at);
        return b;
    }

    private static void rejects(String fragment, UnsafeBuffer b, int index, int available) {
        RmaException e = assertThrows(RmaException.class, () -> TypeLayout.decode(b, index, available));
        assertEquals(ErrorClass.ERR_TYPE, e.errorClass());
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    @Test
    void roundTrip() {
        for (Datatype t : SAMPLES) {
            TypeLayout l = t.layout();
            UnsafeBuffer b = encode(l, 5);
            assertEquals(TypeLayoutCodec.encodedLength(l.blockCount(), l.runCount()), l.encodedLength());
            TypeLayout d = TypeLayout.decode(b, 5, l.encodedLength());
            assertEquals(l, d);
            assertEquals(l.hashCode(), d.hashCode());
            assertEquals(l.trueLb(), d.trueLb());
            assertEquals(l.trueUb(), d.trueUb());
            assertEquals(l.isContiguous(), d.isContiguous());
            assertEquals(l.elementType(), d.elementType());
        }
    }

    @Test
    void littleEndianHeader() {
        TypeLayout l = Datatype.vector(3, 2, 4, Datatype.INT).layout();
        UnsafeBuffer b = encode(l, 0);
        assertEquals(TypeLayoutCodec.VERSION, b.getByte(TypeLayoutCodec.VERSION_OFFSET));
        assertEquals(3, b.getInt(TypeLayoutCodec.BLOCK_COUNT_OFFSET, ByteOrder.LITTLE_ENDIAN));
        assertEquals(1, b.getInt(TypeLayoutCodec.RUN_COUNT_OFFSET, ByteOrder.LITTLE_ENDIAN));
        assertEquals(24, b.getLong(TypeLayoutCodec.SIZE_OFFSET, ByteOrder.LITTLE_ENDIAN));
        assertEquals(40, b.getLong(TypeLayoutCodec.EXTENT_OFFSET, ByteOrder.LITTLE_ENDIAN));
        assertEquals(BasicType.INT.id(), b.getInt(TypeLayoutCodec.HEADER_LENGTH + 3 * 16, ByteOrder.LITTLE_ENDIAN));
    }

    @Test
    void rejectsTruncated() {
        TypeLayout l = SAMPLES[5].layout();
        UnsafeBuffer b = encode(l, 0);
        for (int n = 0; n < l.encodedLength(); n++) {
            rejects("truncated", b, 0, n);
        }
        rejects("outside the buffer", b, 0, b.capacity() + 1);
        rejects("outside the buffer", b, -1, 10);
        rejects("outside the buffer", b, 3, -1);
    }

    @Test
    void rejectsEachBadField() {
        TypeLayout l = SAMPLES[5].layout(); // blocks (0,2) (8,20); runs CHAR x1, DOUBLE x2, INT x1
        int len = l.encodedLength();
        int blocks = TypeLayoutCodec.HEADER_LENGTH;
        int runs = blocks + 2 * TypeLayoutCodec.BLOCK_ENTRY_LENGTH;
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        UnsafeBuffer b = encode(l, 0);
        b.putByte(TypeLayoutCodec.VERSION_OFFSET, (byte) 9);
        rejects("version 9", b, 0, len);
        b = encode(l, 0);
        b.putInt(TypeLayoutCodec.RESERVED1_OFFSET, 7, le);
        rejects("reserved", b, 0, len);
        b = encode(l, 0);
        b.putInt(TypeLayoutCodec.BLOCK_COUNT_OFFSET, -1, le);
        rejects("block count -1", b, 0, len);
        b = encode(l, 0);
        b.putInt(TypeLayoutCodec.RUN_COUNT_OFFSET, TypeLayout.MAX_RUNS + 1, le);
        rejects("run count " + (TypeLayout.MAX_RUNS + 1), b, 0, len);
        b = encode(l, 0);
        b.putInt(TypeLayoutCodec.BLOCK_COUNT_OFFSET, 1000, le);
        rejects("truncated", b, 0, len);
        b = encode(l, 0);
        b.putLong(TypeLayoutCodec.SIZE_OFFSET, -5, le);
        rejects("negative size -5", b, 0, len);
        b = encode(l, 0);
        b.putLong(TypeLayoutCodec.SIZE_OFFSET, 23, le);
        rejects("size is 23", b, 0, len);
        b = encode(l, 0);
        b.putLong(TypeLayoutCodec.LB_OFFSET, Long.MAX_VALUE, le);
        rejects("overflows", b, 0, len);
        b = encode(l, 0);
        b.putLong(blocks + 8, -2, le);
        rejects("non-positive length -2", b, 0, len);
        b = encode(l, 0);
        b.putLong(blocks + 16, Long.MAX_VALUE - 3, le);
        rejects("overflows", b, 0, len);
        b = encode(l, 0);
        b.putLong(blocks + 16, 2, le);
        rejects("not merged", b, 0, len);
        b = encode(l, 0);
        b.putInt(runs, 31, le);
        rejects("unknown basic type id 31", b, 0, len);
        b = encode(l, 0);
        b.putInt(runs + 16, BasicType.CHAR.id(), le);
        rejects("not merged", b, 0, len);
        b = encode(l, 0);
        b.putInt(runs + 4, 1, le);
        rejects("reserved", b, 0, len);
        b = encode(l, 0);
        b.putLong(runs + 8, 0, le);
        rejects("non-positive element count 0", b, 0, len);
        b = encode(l, 0);
        b.putLong(runs + 16 + 8, Long.MAX_VALUE / 4, le);
        rejects("overflows", b, 0, len);
        b = encode(l, 0);
        b.putLong(runs + 16 + 8, 3, le);
        rejects("hold 30 bytes", b, 0, len);
    }

    @Test
    void fuzzGarbageAndMutations() {
        Random rnd = new Random(42);
        for (int iter = 0; iter < 200_000; iter++) {
            UnsafeBuffer b;
            int len;
            if (iter % 2 == 0) {
                byte[] bytes = new byte[rnd.nextInt(200)];
                rnd.nextBytes(bytes);
                if (bytes.length > 0 && rnd.nextBoolean()) {
                    bytes[0] = 1;
                    for (int i = 1; i < Math.min(4, bytes.length); i++) {
                        bytes[i] = 0;
                    }
                }
                b = new UnsafeBuffer(bytes);
                len = bytes.length;
            } else {
                TypeLayout l = SAMPLES[rnd.nextInt(SAMPLES.length)].layout();
                b = encode(l, 0);
                len = l.encodedLength();
                for (int m = rnd.nextInt(3); m >= 0; m--) {
                    int at = rnd.nextInt(len);
                    b.putByte(at, (byte) (rnd.nextBoolean() ? rnd.nextInt() : b.getByte(at) ^ (1 << rnd.nextInt(8))));
                }
                len = rnd.nextInt(4) == 0 ? rnd.nextInt(len + 1) : len;
            }
            try {
                TypeLayout d = TypeLayout.decode(b, 0, len);
                // Anything accepted must be self-consistent and re-encode to the same bytes.
                UnsafeBuffer again = encode(d, 0);
                assertEquals(d, TypeLayout.decode(again, 0, d.encodedLength()));
                long sum = 0;
                for (int i = 0; i < d.blockCount(); i++) {
                    sum += d.blockLength(i);
                }
                assertEquals(d.size(), sum);
            } catch (RmaException e) {
                assertEquals(ErrorClass.ERR_TYPE, e.errorClass(), e.getMessage());
            } catch (RuntimeException e) {
                fail("decode threw " + e, e);
            }
        }
    }
}

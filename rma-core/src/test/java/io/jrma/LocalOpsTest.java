package io.jrma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** The local operations of the public API: {@link Datatype#pack}, {@link Datatype#unpack}, {@link Op#reduceLocal}. */
class LocalOpsTest {

    private static ByteBuffer direct(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void packAndUnpackAVectorAtAnOffset() {
        Datatype every2nd = Datatype.vector(3, 1, 2, Datatype.INT).commit(); // ints 0, 2, 4; extent 5 ints
        int[] src = new int[20];
        for (int i = 0; i < src.length; i++) {
            src[i] = 100 + i;
        }
        ByteBuffer packed = direct(64);
        assertEquals(24, every2nd.pack(src, 4 * 3, 2, packed, 8)); // origin at int 3; instances at 3 and 8
        int[] got = new int[6];
        for (int i = 0; i < 6; i++) {
            got[i] = packed.getInt(8 + 4 * i);
        }
        assertArrayEquals(new int[] {103, 105, 107, 108, 110, 112}, got);

        long[] back = new long[10]; // a long[] viewed as bytes: the datatype decides the layout
        assertEquals(24, every2nd.unpack(packed, 8, 24, back, 0, 2));
        ByteBuffer view = ByteBuffer.allocate(80).order(ByteOrder.LITTLE_ENDIAN);
        view.asLongBuffer().put(back);
        assertEquals(103, view.getInt(0));
        assertEquals(0, view.getInt(4));
        assertEquals(105, view.getInt(8));
        assertEquals(108, view.getInt(20));
        assertEquals(112, view.getInt(36));
    }

    @Test
    void unpackStopsAtTheShorterSide() {
        byte[] packed = {1, 2, 3, 4, 5, 6, 7};
        short[] out = {-1, -1, -1, -1, -1};
        assertEquals(7, Datatype.SHORT.unpack(packed, 0, 7, out, 2, 4)); // 3.5 shorts from short index 1
        assertArrayEquals(new short[] {-1, 0x0201, 0x0403, 0x0605, (short) 0xFF07}, out);
    }

    @Test
    void outOfRangeWritesNothing() {
        long[] src = {1, 2, 3};
        byte[] small = new byte[16];
        RmaException e = assertThrows(RmaException.class, () -> Datatype.LONG.pack(src, 0, 3, small, 0));
        assertEquals(ErrorClass.ERR_BUFFER, e.errorClass(), e.getMessage());
        assertArrayEquals(new byte[16], small);
        e = assertThrows(RmaException.class, () -> Datatype.LONG.pack(src, 8, 3, new byte[64], 0));
        assertEquals(ErrorClass.ERR_BUFFER, e.errorClass(), e.getMessage());
        long[] dst = new long[2];
        e = assertThrows(RmaException.class, () -> Datatype.LONG.unpack(new byte[24], 0, 24, dst, 0, 3));
        assertEquals(ErrorClass.ERR_BUFFER, e.errorClass(), e.getMessage());
        e = assertThrows(RmaException.class, () -> Datatype.vector(2, 1, 2, Datatype.INT).pack(src, 0, 1, small, 0));
        assertEquals(ErrorClass.ERR_TYPE, e.errorClass(), "uncommitted: " + e.getMessage());
    }

    @Test
    void reduceLocalOnContiguousAndStridedData() {
        long[] in = {1, 2, 3, 4, 5, 6};
        long[] io = {10, 20, 30, 40, 50, 60};
        Op.SUM.reduceLocal(in, 8, io, 8, 4, Datatype.LONG);
        assertArrayEquals(new long[] {10, 22, 33, 44, 55, 60}, io);
        Datatype pairs = Datatype.vector(2, 1, 3, Datatype.DOUBLE).commit(); // doubles 0 and 3
        double[] a = {5, -1, -1, 7, -1, -1};
        double[] b = {4, 9, 9, 8, 9, 9};
        Op.MIN.reduceLocal(a, 0, b, 0, 1, pairs);
        assertArrayEquals(new double[] {4, 9, 9, 7, 9, 9}, b);
    }

    @Test
    void reduceLocalMinlocOnPaddedPairs() {
        // DOUBLE_INT: value at 0, index at 8, extent 16 (4 bytes of padding that must stay untouched)
        ByteBuffer in = direct(32);
        ByteBuffer io = direct(32);
        for (int i = 0; i < 2; i++) {
            in.putDouble(16 * i, i == 0 ? 1.5 : 7.0).putInt(16 * i + 8, 3);
            io.putDouble(16 * i, i == 0 ? 2.5 : 7.0).putInt(16 * i + 8, 1);
            io.putInt(16 * i + 12, 0xCAFE);
        }
        Op.MINLOC.reduceLocal(in, 0, io, 0, 2, Datatype.DOUBLE_INT);
        assertEquals(1.5, io.getDouble(0));
        assertEquals(3, io.getInt(8));
        assertEquals(7.0, io.getDouble(16));
        assertEquals(1, io.getInt(24), "tie keeps the smaller index");
        assertEquals(0xCAFE, io.getInt(12));
        assertEquals(0xCAFE, io.getInt(28));
    }

    @Test
    void reduceLocalRejectsInvalidPairs() {
        RmaException e = assertThrows(RmaException.class,
                () -> Op.BAND.reduceLocal(new double[1], 0, new double[1], 0, 1, Datatype.DOUBLE));
        assertEquals(ErrorClass.ERR_OP, e.errorClass(), e.getMessage());
        Datatype mixed = Datatype.struct(new long[] {1, 1}, new long[] {0, 8},
                new Datatype[] {Datatype.LONG, Datatype.DOUBLE}).commit();
        e = assertThrows(RmaException.class, () -> Op.SUM.reduceLocal(new byte[16], 0, new byte[16], 0, 1, mixed));
        assertEquals(ErrorClass.ERR_TYPE, e.errorClass(), e.getMessage());
        long[] io = {1, 2};
        e = assertThrows(RmaException.class, () -> Op.SUM.reduceLocal(new long[3], 0, io, 0, 3, Datatype.LONG));
        assertEquals(ErrorClass.ERR_BUFFER, e.errorClass(), e.getMessage());
        assertArrayEquals(new long[] {1, 2}, io);
    }
}

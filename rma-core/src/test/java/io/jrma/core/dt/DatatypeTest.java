package io.jrma.core.dt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.mem.Memory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Bounds, sizes, names, errors and flattening of the {@link Datatype} constructors. */
class DatatypeTest {

    private static void bounds(Datatype t, long size, long lb, long extent, long trueLb, long trueExtent) {
        assertEquals(size, t.size(), "size of " + t);
        assertEquals(lb, t.lb(), "lb of " + t);
        assertEquals(extent, t.extent(), "extent of " + t);
        assertEquals(lb + extent, t.ub(), "ub of " + t);
        assertEquals(trueLb, t.trueLb(), "trueLb of " + t);
        assertEquals(trueExtent, t.trueExtent(), "trueExtent of " + t);
        assertEquals(lb, t.layout().lb());
        assertEquals(extent, t.layout().extent());
    }

    /** Blocks of one instance as {offset, length} pairs. */
    private static long[][] blocks(Datatype t) {
        TypeLayout l = t.layout();
        long[][] r = new long[l.blockCount()][];
        for (int i = 0; i < r.length; i++) {
            r[i] = new long[] {l.blockOffset(i), l.blockLength(i)};
        }
        return r;
    }

    private static List<long[]> cursor(TypeLayout l, long count) {
        List<long[]> r = new ArrayList<>();
        BlockCursor c = l.cursor(count);
        while (c.next()) {
            r.add(new long[] {c.offset(), c.length()});
        }
        assertFalse(c.next());
        return r;
    }

    private static void fails(ErrorClass ec, String fragment, Executable e) {
        RmaException x = assertThrows(RmaException.class, e);
        assertEquals(ec, x.errorClass(), x.getMessage());
        assertTrue(x.getMessage().contains(fragment), x.getMessage());
    }

    @Test
    void predefinedTypes() {
        for (BasicType b : BasicType.values()) {
            Datatype t;
            try {
                t = (Datatype) Datatype.class.getField(b.name()).get(null);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
            assertTrue(t.isPredefined() && t.isCommitted());
            assertEquals(b.size(), t.size());
            assertEquals(b.extent(), t.extent());
            assertEquals(0, t.lb());
            assertSame(b, t.elementType());
            assertEquals(b.name(), t.name());
        }
        assertSame(Datatype.SHORT, Datatype.INT16);
        assertSame(Datatype.INT, Datatype.INT32);
        assertSame(Datatype.LONG, Datatype.INT64);
        assertSame(Datatype.LONG, Datatype.AINT);
        assertSame(Datatype.LONG, Datatype.OFFSET);
        assertSame(Datatype.LONG, Datatype.COUNT);
        bounds(Datatype.LONG_INT, 12, 0, 16, 0, 12);
        assertTrue(Datatype.INT.layout().isContiguous());
        assertFalse(Datatype.LONG_INT.layout().isContiguous());
    }

    @Test
    void contiguousAndVector() {
        Datatype c = Datatype.contiguous(5, Datatype.INT);
        bounds(c, 20, 0, 20, 0, 20);
        assertTrue(c.layout().isContiguous());
        assertFalse(c.isCommitted());
        assertSame(c, c.commit());
        assertTrue(c.isCommitted());
        // vector(3, 2, 4, INT): blocks at 0, 16, 32 of 8 bytes: extent ((3-1)*4+2)*4 = 40.
        Datatype v = Datatype.vector(3, 2, 4, Datatype.INT);
        bounds(v, 24, 0, 40, 0, 40);
        assertArrayEquals(new long[][] {{0, 8}, {16, 8}, {32, 8}}, blocks(v));
        assertSame(BasicType.INT, v.elementType());
        // stride == blocklength: fully contiguous, one block
        Datatype vc = Datatype.vector(4, 3, 3, Datatype.DOUBLE);
        assertTrue(vc.layout().isContiguous());
        bounds(vc, 96, 0, 96, 0, 96);
        // negative stride vector(2, 1, -3, INT): copies at 0 and -12
        Datatype vn = Datatype.vector(2, 1, -3, Datatype.INT);
        bounds(vn, 8, -12, 16, -12, 16);
        assertEquals(0, Datatype.contiguous(0, Datatype.INT).extent());
        assertNull(Datatype.contiguous(0, Datatype.INT).elementType());
    }

    @Test
    void hvectorWithNegativeStride() {
        // hvector(3, 2, -16, INT): blocks at 0, -16, -32, each 8 bytes long
        Datatype h = Datatype.hvector(3, 2, -16, Datatype.INT);
        bounds(h, 24, -32, 40, -32, 40);
        assertArrayEquals(new long[][] {{0, 8}, {-16, 8}, {-32, 8}}, blocks(h));
        assertEquals(-32, h.layout().dataLow(1));
        assertEquals(8, h.layout().dataHigh(1));
        // two instances: the second is shifted by extent 40
        assertEquals(-32, h.layout().dataLow(2));
        assertEquals(48, h.layout().dataHigh(2));
        // hvector whose blocks touch: one block
        Datatype t = Datatype.hvector(1L << 40, 1, 4, Datatype.INT);
        assertEquals(1, t.layout().blockCount());
        assertEquals(4L << 40, t.size());
    }

    @Test
    void indexedFamily() {
        Datatype i = Datatype.indexed(new long[] {3, 1}, new long[] {4, 0}, Datatype.INT);
        bounds(i, 16, 0, 28, 0, 28);
        assertArrayEquals(new long[][] {{16, 12}, {0, 4}}, blocks(i));
        Datatype hi = Datatype.hindexed(new long[] {2, 0, 1}, new long[] {-8, 100, 8}, Datatype.SHORT);
        bounds(hi, 6, -8, 18, -8, 18);
        Datatype ib = Datatype.indexedBlock(2, new long[] {1, 5}, Datatype.DOUBLE);
        bounds(ib, 32, 8, 48, 8, 48);
        Datatype hb = Datatype.hindexedBlock(1, new long[] {4, 0}, Datatype.INT);
        bounds(hb, 8, 0, 8, 0, 8);
        assertArrayEquals(new long[][] {{4, 4}, {0, 4}}, blocks(hb)); // type-map order kept, not merged
    }

    @Test
    void subarrayCAndFortran() {
        // 4x5 array of ints, 2x3 sub-box starting at (1, 2)
        Datatype c = Datatype.subarray(new long[] {4, 5}, new long[] {2, 3}, new long[] {1, 2},
                Datatype.Order.C, Datatype.INT);
        bounds(c, 24, 0, 80, 28, 32);
        assertArrayEquals(new long[][] {{28, 12}, {48, 12}}, blocks(c));
        Datatype f = Datatype.subarray(new long[] {4, 5}, new long[] {2, 3}, new long[] {1, 2},
                Datatype.Order.FORTRAN, Datatype.INT);
        // Fortran: element (i, j) at (i + 4j) * 4; start (1,2) -> 36; columns 16 bytes apart
        bounds(f, 24, 0, 80, 36, 40);
        assertArrayEquals(new long[][] {{36, 8}, {52, 8}, {68, 8}}, blocks(f));
        // whole array: contiguous
        Datatype w = Datatype.subarray(new long[] {3, 3}, new long[] {3, 3}, new long[] {0, 0},
                Datatype.Order.C, Datatype.DOUBLE);
        assertTrue(w.layout().isContiguous());
    }

    @Test
    void resizedPropagates() {
        Datatype r = Datatype.resized(Datatype.INT, -4, 16);
        bounds(r, 4, -4, 16, 0, 4);
        Datatype c = Datatype.contiguous(3, r);
        // copies at 0, 16, 32: lb -4, ub 32 + 12 = 44
        bounds(c, 12, -4, 48, 0, 36);
        assertArrayEquals(new long[][] {{0, 4}, {16, 4}, {32, 4}}, blocks(c));
        Datatype dense = Datatype.resized(Datatype.LONG_INT, 0, 12);
        assertTrue(dense.layout().isContiguous());
        Datatype empty = Datatype.resized(Datatype.contiguous(0, Datatype.INT), 0, 8);
        bounds(Datatype.contiguous(3, empty), 0, 0, 24, 0, 0);
    }

    @Test
    void structOfMixedTypes() {
        // { char c; double d[2]; int i; } without padding rules: displacements as given, no epsilon
        Datatype s = Datatype.struct(new long[] {1, 2, 1}, new long[] {0, 8, 24},
                new Datatype[] {Datatype.CHAR, Datatype.DOUBLE, Datatype.INT});
        bounds(s, 22, 0, 28, 0, 28);
        assertNull(s.elementType());
        TypeLayout l = s.layout();
        assertEquals(3, l.runCount());
        assertEquals(BasicType.DOUBLE, l.runType(1));
        assertEquals(2, l.runElements(1));
        assertArrayEquals(new long[][] {{0, 2}, {8, 20}}, blocks(s));
        Datatype same = Datatype.struct(new long[] {1, 1}, new long[] {4, 0},
                new Datatype[] {Datatype.INT, Datatype.contiguous(1, Datatype.INT)});
        assertSame(BasicType.INT, same.elementType());
        assertEquals(1, same.layout().runCount());
        assertEquals(2, same.layout().runElements(0));
    }

    @Test
    void namesAndCommit() {
        Datatype v = Datatype.vector(2, 1, 2, Datatype.INT);
        assertTrue(v.name().contains("vector"));
        v.setName("column");
        assertEquals("column", v.name());
        fails(ErrorClass.ERR_TYPE, "column is not committed", () -> v.requireCommitted("origin"));
        v.commit().requireCommitted("origin");
        Datatype.INT.requireCommitted("target");
        assertTrue(v.toString().contains("column"));
    }

    @Test
    void errors() {
        fails(ErrorClass.ERR_COUNT, "-1", () -> Datatype.contiguous(-1, Datatype.INT));
        fails(ErrorClass.ERR_COUNT, "blocklength = -2", () -> Datatype.vector(1, -2, 1, Datatype.INT));
        fails(ErrorClass.ERR_COUNT, "blocklengths[1] = -3",
                () -> Datatype.indexed(new long[] {1, -3}, new long[] {0, 1}, Datatype.INT));
        fails(ErrorClass.ERR_ARG, "length 1", () -> Datatype.hindexed(new long[] {1, 2}, new long[] {0}, Datatype.INT));
        fails(ErrorClass.ERR_ARG, "null", () -> Datatype.indexedBlock(1, null, Datatype.INT));
        fails(ErrorClass.ERR_TYPE, "null", () -> Datatype.contiguous(1, null));
        fails(ErrorClass.ERR_TYPE, "types[1]", () -> Datatype.struct(new long[] {1, 1}, new long[] {0, 4},
                new Datatype[] {Datatype.INT, null}));
        fails(ErrorClass.ERR_ARG, "types has length", () -> Datatype.struct(new long[] {1}, new long[] {0},
                new Datatype[0]));
        fails(ErrorClass.ERR_ARG, "sizes[0] = 0", () -> Datatype.subarray(new long[] {0}, new long[] {1},
                new long[] {0}, Datatype.Order.C, Datatype.INT));
        fails(ErrorClass.ERR_ARG, "subsizes[1] = 6", () -> Datatype.subarray(new long[] {4, 5}, new long[] {1, 6},
                new long[] {0, 0}, Datatype.Order.C, Datatype.INT));
        fails(ErrorClass.ERR_ARG, "starts[0] = 3", () -> Datatype.subarray(new long[] {4}, new long[] {2},
                new long[] {3}, Datatype.Order.FORTRAN, Datatype.INT));
        fails(ErrorClass.ERR_ARG, "starts[0] = -1", () -> Datatype.subarray(new long[] {4}, new long[] {2},
                new long[] {-1}, Datatype.Order.FORTRAN, Datatype.INT));
        fails(ErrorClass.ERR_ARG, "at least one", () -> Datatype.subarray(new long[0], new long[0],
                new long[0], Datatype.Order.C, Datatype.INT));
        fails(ErrorClass.ERR_ARG, "overflows", () -> Datatype.contiguous(Long.MAX_VALUE / 2, Datatype.INT));
        fails(ErrorClass.ERR_ARG, "overflows", () -> Datatype.resized(Datatype.INT, Long.MAX_VALUE, 1));
        fails(ErrorClass.ERR_ARG, "non-contiguous blocks", () -> Datatype.vector(1L << 40, 1, 2, Datatype.INT));
        fails(ErrorClass.ERR_ARG, "runs", () -> Datatype.contiguous(1L << 40,
                Datatype.struct(new long[] {1, 1}, new long[] {0, 4}, new Datatype[] {Datatype.INT, Datatype.FLOAT})));
        fails(ErrorClass.ERR_ARG, "null", () -> Datatype.contiguous(1, Datatype.INT).setName(null));
    }

    @Test
    void cursorMergesAcrossInstances() {
        // resized so that instances touch: block [4, 8) extent 4 -> contiguous
        Datatype r = Datatype.resized(Datatype.INT, 4, 4);
        List<long[]> c = cursor(r.layout(), 3);
        assertEquals(1, c.size());
        assertArrayEquals(new long[] {0, 12}, c.get(0));
        // blocks [0,4) and [8,12), extent 12: the second block of instance i touches the first of i+1
        Datatype s = Datatype.hindexedBlock(1, new long[] {0, 8}, Datatype.INT);
        Datatype rs = Datatype.resized(s, 0, 12);
        List<long[]> c2 = cursor(rs.layout(), 3);
        assertEquals(4, c2.size());
        assertArrayEquals(new long[] {0, 4}, c2.get(0));
        assertArrayEquals(new long[] {8, 8}, c2.get(1));
        assertArrayEquals(new long[] {20, 8}, c2.get(2));
        assertArrayEquals(new long[] {32, 4}, c2.get(3));
        assertTrue(cursor(Datatype.INT.layout(), 0).isEmpty());
        assertTrue(cursor(Datatype.contiguous(0, Datatype.INT).layout(), 5).isEmpty());
        // huge count of a contiguous type: one block, O(1)
        List<long[]> big = cursor(Datatype.INT.layout(), 1L << 50);
        assertArrayEquals(new long[] {0, 4L << 50}, big.get(0));
        fails(ErrorClass.ERR_COUNT, "-1", () -> Datatype.INT.layout().cursor(-1));
    }

    @Test
    void zipSplitsAtShorterBlock() {
        TypeLayout a = Datatype.vector(2, 3, 4, Datatype.INT).layout();   // (0,12) (16,12)
        TypeLayout b = Datatype.vector(3, 2, 3, Datatype.INT).layout();   // (0,8) (12,8) (24,8)
        List<long[]> runs = new ArrayList<>();
        TypeLayout.zip(a.cursor(1), b.cursor(1), (x, y, n) -> runs.add(new long[] {x, y, n}));
        assertArrayEquals(new long[][] {{0, 0, 8}, {8, 12, 4}, {16, 16, 4}, {20, 24, 8}}, runs.toArray(new long[0][]));
    }

    @Test
    void signatureMatching() {
        TypeLayout ints = Datatype.contiguous(6, Datatype.INT).layout();
        TypeLayout v = Datatype.vector(3, 2, 5, Datatype.INT).layout();
        assertTrue(ints.signatureMatches(1, v, 1));
        assertFalse(Datatype.INT.layout().signatureMatches(1L << 62, ints, 0));
        assertTrue(Datatype.INT.layout().signatureMatches(6L << 40, ints, 1L << 40));
        assertFalse(Datatype.INT.layout().signatureMatches(Long.MAX_VALUE, Datatype.INT.layout(), Long.MAX_VALUE - 1));
        assertFalse(Datatype.INT.layout().signatureMatches(6, Datatype.FLOAT.layout(), 6));
        assertTrue(Datatype.INT.layout().signatureMatches(0, Datatype.FLOAT.layout(), 0));
        Datatype s = Datatype.struct(new long[] {1, 2}, new long[] {0, 8},
                new Datatype[] {Datatype.INT, Datatype.DOUBLE});
        Datatype s2 = Datatype.struct(new long[] {1, 1, 1, 2}, new long[] {0, 8, 16, 24},
                new Datatype[] {Datatype.INT, Datatype.DOUBLE, Datatype.DOUBLE, s});
        // s2 = INT D D (INT D D) (INT D D) = three copies of s
        assertTrue(s.layout().signatureMatches(3, s2.layout(), 1));
        assertTrue(s2.layout().signatureMatches(2, s.layout(), 6));
        assertFalse(s.layout().signatureMatches(2, s2.layout(), 1));
        assertFalse(s.layout().signatureMatches(3, Datatype.INT.layout(), 15));
    }

    @Test
    void copyBetweenLayouts() {
        byte[] src = new byte[64];
        for (int i = 0; i < src.length; i++) {
            src[i] = (byte) i;
        }
        byte[] dst = new byte[64];
        long base = Memory.arrayBase(byte[].class);
        TypeLayout v = Datatype.vector(2, 1, 2, Datatype.INT).layout();   // ints at 0 and 8, extent 12
        TypeLayout c = Datatype.INT.layout();
        TypeLayout.copy(src, base, 2, v, dst, base, 4, c);
        assertArrayEquals(new byte[] {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23},
                Arrays.copyOf(dst, 16));
        byte[] dst2 = new byte[8];
        TypeLayout.copy(src, base + 4, 2, c, dst2, base, 2, c);
        assertArrayEquals(new byte[] {4, 5, 6, 7, 8, 9, 10, 11}, dst2);
    }
}

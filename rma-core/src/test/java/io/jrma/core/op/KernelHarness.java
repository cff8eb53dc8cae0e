package io.jrma.core.op;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrma.ErrorClass;
import io.jrma.Op;
import io.jrma.RmaException;
import io.jrma.core.dt.BasicType;
import io.jrma.core.mem.Memory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

/**
 * Runs the kernels on generated data in off-heap (or heap) memory surrounded by guard bytes and compares
 * with {@link ReferenceModel}.
 */
final class KernelHarness {
    static final long BYTES = Memory.arrayBase(byte[].class);
    private static final int GUARD = 16;

    enum Mode { ACCUMULATE, GET_ACCUMULATE, REDUCE_LOCAL }

    /** An (op, type) combination. */
    record OpType(OpCode op, BasicType t) {
        @Override
        public String toString() {
            return op + "/" + t;
        }
    }

    private KernelHarness() {
    }

    /** The (op, type) pairs of the MPI table, written out independently of the implementation. */
    static boolean expectedValid(OpCode op, BasicType t) {
        String k = t.kind().name();
        switch (op) {
            case SUM: case PROD: return List.of("SIGNED", "UNSIGNED", "FLOAT", "COMPLEX").contains(k);
            case MIN: case MAX: return List.of("SIGNED", "UNSIGNED", "FLOAT").contains(k);
            case LAND: case LOR: case LXOR: return List.of("SIGNED", "UNSIGNED", "LOGICAL").contains(k);
            case BAND: case BOR: case BXOR: return List.of("SIGNED", "UNSIGNED", "BYTE").contains(k);
            case MINLOC: case MAXLOC: return k.equals("PAIR");
            default: return true;
        }
    }

    static List<OpType> pairs(boolean valid) {
        List<OpType> out = new ArrayList<>();
        for (OpCode op : OpCode.values()) {
            for (BasicType t : BasicType.values()) {
                if (expectedValid(op, t) == valid) {
                    out.add(new OpType(op, t));
                }
            }
        }
        return out;
    }

    static long align8(long address) {
        return (address + 7) & ~7L;
    }

    private static byte guardByte(int i) {
        return (byte) (0xA5 ^ (i * 31));
    }

    /**
     * Runs one kernel on {@code count} generated elements and checks target, result and guard bytes
     * against the model.
     */
    static void check(Mode mode, OpCode op, BasicType t, int count, int dstMis, int srcMis, long seed,
                      boolean heapDst) {
        Random r = new Random(seed);
        int size = t.size();
        int len = count * size;
        byte[] src = new byte[len];
        byte[] dst = new byte[len];
        byte[] expected = new byte[len];
        for (int i = 0; i < count; i++) {
            byte[] s = ReferenceModel.randomElement(t, r);
            byte[] d = r.nextInt(8) == 0 ? s.clone() : ReferenceModel.randomElement(t, r); // some ties
            System.arraycopy(s, 0, src, i * size, size);
            System.arraycopy(d, 0, dst, i * size, size);
            System.arraycopy(ReferenceModel.combine(op, t, d, s), 0, expected, i * size, size);
        }
        int regionLen = len + 2 * GUARD;
        byte[] region = new byte[regionLen];
        for (int i = 0; i < regionLen; i++) {
            region[i] = guardByte(i);
        }
        int pos = GUARD - 8 + dstMis; // element run starts 8..15 bytes into the region
        System.arraycopy(dst, 0, region, pos, len);

        long srcMem = Memory.allocate(len + 16);
        long dstMem = Memory.allocate(regionLen + 8);
        long resMem = Memory.allocate(len + 16);
        try {
            long s = align8(srcMem) + srcMis;
            Memory.copy(src, BYTES, null, s, len);
            long regionAddr = align8(dstMem);
            Object dstBase = heapDst ? region : null;
            long dstOff = heapDst ? BYTES + pos : regionAddr + pos;
            if (!heapDst) {
                Memory.copy(region, BYTES, null, regionAddr, regionLen);
            }
            long res = align8(resMem) + ((srcMis + 3) & 7);
            String what = mode + " " + op + " on " + t + " count " + count + " dstMis " + dstMis + " srcMis "
                + srcMis + " seed " + seed + (heapDst ? " heap" : " off-heap");
            switch (mode) {
                case ACCUMULATE:
                    AccumulateKernel.accumulate(op, t, null, s, dstBase, dstOff, count);
                    break;
                case REDUCE_LOCAL:
                    AccumulateKernel.reduceLocal(op, t, null, s, dstBase, dstOff, count);
                    break;
                default:
                    if (op == OpCode.NO_OP) {
                        AccumulateKernel.getAccumulate(op, t, null, 0, dstBase, dstOff, null, res, count);
                    } else {
                        AccumulateKernel.getAccumulate(op, t, null, s, dstBase, dstOff, null, res, count);
                    }
                    byte[] result = new byte[len];
                    Memory.copy(null, res, result, BYTES, len);
                    assertArrayEquals(dst, result, what + ": result must hold the old target values");
                    break;
            }
            byte[] after = region;
            if (!heapDst) {
                after = new byte[regionLen];
                Memory.copy(null, regionAddr, after, BYTES, regionLen);
            }
            for (int i = 0; i < regionLen; i++) {
                if ((i < pos || i >= pos + len) && after[i] != guardByte(i)) {
                    fail(what + ": guard byte " + (i - pos) + " relative to the target changed");
                }
            }
            byte[] srcAfter = new byte[len];
            Memory.copy(null, s, srcAfter, BYTES, len);
            assertArrayEquals(src, srcAfter, what + ": source must not change");
            for (int i = 0; i < count; i++) {
                byte[] e = Arrays.copyOfRange(expected, i * size, (i + 1) * size);
                byte[] a = Arrays.copyOfRange(after, pos + i * size, pos + (i + 1) * size);
                if (!ReferenceModel.same(t, e, a)) {
                    HexFormat h = HexFormat.of();
                    fail(what + ": element " + i + " dst " + h.formatHex(dst, i * size, (i + 1) * size) + " src "
                        + h.formatHex(src, i * size, (i + 1) * size) + " expected " + h.formatHex(e) + " actual "
                        + h.formatHex(a));
                }
            }
        } finally {
            Memory.free(srcMem);
            Memory.free(dstMem);
            Memory.free(resMem);
        }
    }

    /** Every kernel rejects an invalid pair with ERR_OP, naming op and type, and writes nothing. */
    static void checkInvalid(OpCode op, BasicType t) {
        assertTrue(!Op.of(op).isValidFor(t));
        long mem = Memory.allocate(64);
        try {
            Memory.fill(mem, 64, (byte) 0x11);
            List<Runnable> calls = List.of(
                () -> AccumulateKernel.check(op, t),
                () -> AccumulateKernel.accumulate(op, t, null, mem, null, mem + 32, 1),
                () -> AccumulateKernel.getAccumulate(op, t, null, mem, null, mem + 32, null, mem + 16, 1),
                () -> AccumulateKernel.reduceLocal(op, t, null, mem, null, mem + 32, 1));
            for (Runnable call : calls) {
                RmaException e = assertThrows(RmaException.class, call::run);
                assertEquals(ErrorClass.ERR_OP, e.errorClass());
                assertTrue(e.getMessage().contains(op.name()) && e.getMessage().contains(t.name()), e.getMessage());
            }
            for (int i = 0; i < 64; i++) {
                assertEquals((byte) 0x11, Memory.getBytePlain(mem + i), "memory written by a rejected call");
            }
        } finally {
            Memory.free(mem);
        }
    }

    /**
     * Compare-and-swap of one element at misalignment {@code mis} (off-heap or heap), with a compare value
     * equal to the old one when {@code match}.
     */
    static void checkCas(BasicType t, int mis, long seed, boolean match, boolean heapDst) {
        Random r = new Random(seed);
        int size = t.size();
        byte[] old = ReferenceModel.randomElement(t, r);
        byte[] cmp = match ? old.clone() : ReferenceModel.randomElement(t, r);
        byte[] val = ReferenceModel.randomElement(t, r);
        boolean equal = Arrays.equals(old, cmp);
        byte[] region = new byte[32];
        for (int i = 0; i < 32; i++) {
            region[i] = guardByte(i);
        }
        int pos = 8 + mis;
        System.arraycopy(old, 0, region, pos, size);
        long mem = Memory.allocate(32 + 8 + 64);
        try {
            long base = align8(mem);
            long regionAddr = base + 64;
            Memory.copy(cmp, BYTES, null, base + 1, size);
            Memory.copy(val, BYTES, null, base + 17, size);
            Memory.copy(region, BYTES, null, regionAddr, 32);
            Object dstBase = heapDst ? region : null;
            long dstOff = heapDst ? BYTES + pos : regionAddr + pos;
            byte[] result = new byte[size + 3];
            boolean swapped = AccumulateKernel.compareAndSwap(t, null, base + 1, null, base + 17, dstBase, dstOff,
                result, BYTES + 3);
            String what = "CAS " + t + " mis " + mis + " seed " + seed + (heapDst ? " heap" : "");
            assertEquals(equal, swapped, what);
            assertArrayEquals(old, Arrays.copyOfRange(result, 3, 3 + size), what + ": result is the old value");
            byte[] after = region;
            if (!heapDst) {
                after = new byte[32];
                Memory.copy(null, regionAddr, after, BYTES, 32);
            }
            byte[] expected = region.clone();
            for (int i = 0; i < 32; i++) {
                expected[i] = guardByte(i);
            }
            System.arraycopy(equal ? val : old, 0, expected, pos, size);
            assertArrayEquals(expected, after, what + ": target and its neighbours");
        } finally {
            Memory.free(mem);
        }
    }
}

package io.jrma.core.op;


import io.jrma.core.dt.BasicType;
import io.jrma.core.mem.Memory;

/**
 * The arithmetic of the reduction ops on single elements, without any concern for atomicity.
 *
 * <p>Elements of at most 8 bytes are handled as "bits": the element's bytes read little-endian into the low
 * bytes of a {@code long}, zero-extended (so the bits of a 2-byte element are in {@code 0..0xFFFF}). The
 * wider elements ({@link BasicType#LONG_INT}, {@link BasicType#DOUBLE_INT}, {@link BasicType#DOUBLE_COMPLEX})
 * are combined directly in memory by {@link #applyWide}.
 *
 * <p>All methods assume the (op, type) pair has been validated. Stateless; any thread.
 */
final class ElementMath {
    private ElementMath() {
    }

    /** The mask of the low {@code size} bytes of a long (size 1..8). */
    static long mask(int size) {
        return size >= 8 ? -1L : (1L << (size << 3)) - 1;
    }

    /** Reads the bits of an element of {@code size} (1, 2, 4 or 8) bytes, zero-extended. Plain read. */
    static long read(Object base, long offset, int size) {
        switch (size) {
            case 1: return Memory.getBytePlain(base, offset) & 0xFFL;
            case 2: return Memory.getShortPlain(base, offset) & 0xFFFFL;
            case 4: return Memory.getIntPlain(base, offset) & 0xFFFF_FFFFL;
            default: return Memory.getLongPlain(base, offset);
        }
    }

    /** Writes the low {@code size} (1, 2, 4 or 8) bytes of {@code bits}, and no other byte. Plain write. */
    static void write(Object base, long offset, int size, long bits) {
        switch (size) {
            case 1: Memory.putBytePlain(base, offset, (byte) bits); break;
            case 2: Memory.putShortPlain(base, offset, (short) bits); break;
            case 4: Memory.putIntPlain(base, offset, (int) bits); break;
            default: Memory.putLongPlain(base, offset, bits); break;
        }
    }

    /**
     * The new bits of an element of at most 8 bytes: {@code dst op src}.
     *
     * @param op a validated op
     * @param t a type of size at most 8 for which {@code op} is valid
     * @param dst the current (target) bits, zero-extended
     * @param src the origin bits, zero-extended
     * @return the combined bits, zero-extended
     */
    static long combine(OpCode op, BasicType t, long dst, long src) {
        if (op == OpCode.REPLACE) {
            return src;
        }
        if (op == OpCode.NO_OP) {
            return dst;
        }
        switch (t.kind()) {
            case FLOAT:
                return t.size() == 4 ? floatOp(op, dst, src) : doubleOp(op, dst, src);
            case COMPLEX:
                return floatComplexOp(op, dst, src);
            case PAIR:
                return pairOp(op, t, dst, src);
            default:
                return integralOp(op, t, dst, src);
        }
    }

    /** SIGNED, UNSIGNED, BYTE and LOGICAL kinds. */
    private static long integralOp(OpCode op, BasicType t, long a, long b) {
        long m = mask(t.size());
        switch (op) {
            case SUM: return (a + b) & m;
            case PROD: return (a * b) & m;
            case MIN: return less(t, b, a) ? b : a;
            case MAX: return less(t, a, b) ? b : a;
            case LAND: return (a != 0 && b != 0) ? 1 : 0;
            case LOR: return (a != 0 || b != 0) ? 1 : 0;
            case LXOR: return ((a != 0) != (b != 0)) ? 1 : 0;
            case BAND: return a & b;
            case BOR: return a | b;
            case BXOR: return a ^ b;
            default: throw new AssertionError(op + " on " + t);
        }
    }

    /** Whether bits {@code x} are less than bits {@code y} as values of integer type {@code t}. */
    private static boolean less(BasicType t, long x, long y) {
        if (t.kind() == BasicType.Kind.SIGNED) {
            int sh = 64 - (t.size() << 3);
            return (x << sh) >> sh < (y << sh) >> sh;
        }
        return Long.compareUnsigned(x, y) < 0;
    }

    private static long floatOp(OpCode op, long a, long b) {
        float x = Float.intBitsToFloat((int) a);
        float y = Float.intBitsToFloat((int) b);
        float r;
        switch (op) {
            case SUM: r = x + y; break;
            case PROD: r = x * y; break;
            case MIN: r = Math.min(x, y); break;
            case MAX: r = Math.max(x, y); break;
            default: throw new AssertionError(op + " on FLOAT");
        }
        return Float.floatToRawIntBits(r) & 0xFFFF_FFFFL;
    }

    private static long doubleOp(OpCode op, long a, long b) {
        double x = Double.longBitsToDouble(a);
        double y = Double.longBitsToDouble(b);
        double r;
        switch (op) {
            case SUM: r = x + y; break;
            case PROD: r = x * y; break;
            case MIN: r = Math.min(x, y); break;
            case MAX: r = Math.max(x, y); break;
            default: throw new AssertionError(op + " on DOUBLE");
        }
        return Double.doubleToRawLongBits(r);
    }

    /** FLOAT_COMPLEX: real part in the low 4 bytes, imaginary part in the high 4 bytes. */
    private static long floatComplexOp(OpCode op, long a, long b) {
        float ar = Float.intBitsToFloat((int) a);
        float ai = Float.intBitsToFloat((int) (a >>> 32));
        float br = Float.intBitsToFloat((int) b);
        float bi = Float.intBitsToFloat((int) (b >>> 32));
        float re;
        float im;
        if (op == OpCode.SUM) {
            re = ar + br;
            im = ai + bi;
        } else if (op == OpCode.PROD) {
            re = ar * br - ai * bi;
            im = ar * bi + ai * br;
        } else {
            throw new AssertionError(op + " on FLOAT_COMPLEX");
        }
        return (Float.floatToRawIntBits(re) & 0xFFFF_FFFFL) | ((long) Float.floatToRawIntBits(im) << 32);
    }

    /** The 8-byte pairs SHORT_INT, INT_INT, FLOAT_INT: value in the low bytes, index in the high 4 bytes. */
    private static long pairOp(OpCode op, BasicType t, long a, long b) {
        double va;
        double vb;
        switch (t) {
            case SHORT_INT: va = (short) a; vb = (short) b; break;
            case INT_INT: va = (int) a; vb = (int) b; break;
            case FLOAT_INT: va = Float.intBitsToFloat((int) a); vb = Float.intBitsToFloat((int) b); break;
            default: throw new AssertionError(op + " on " + t);
        }
        return takeSource(op, va, vb, (int) (a >>> 32), (int) (b >>> 32)) ? b : a;
    }

    /**
     * The MINLOC/MAXLOC choice: whether the source pair replaces the target pair. The source wins if its
     * value is strictly better, or equal with a smaller index; NaN compares unordered, so keeps the target.
     */
    static boolean takeSource(OpCode op, double dstValue, double srcValue, int dstIndex, int srcIndex) {
        if (op == OpCode.MINLOC) {
            return srcValue < dstValue || (srcValue == dstValue && srcIndex < dstIndex);
        }
        if (op == OpCode.MAXLOC) {
            return srcValue > dstValue || (srcValue == dstValue && srcIndex < dstIndex);
        }
        throw new AssertionError(op + " on a pair type");
    }

    /** As {@link #takeSource(OpCode, double, double, int, int)} for long values (exact). */
    static boolean takeSource(OpCode op, long dstValue, long srcValue, int dstIndex, int srcIndex) {
        if (op == OpCode.MINLOC) {
            return srcValue < dstValue || (srcValue == dstValue && srcIndex < dstIndex);
        }
        if (op == OpCode.MAXLOC) {
            return srcValue > dstValue || (srcValue == dstValue && srcIndex < dstIndex);
        }
        throw new AssertionError(op + " on a pair type");
    }

    /**
     * Applies {@code op} to one element of a type wider than 8 bytes (LONG_INT, DOUBLE_INT: 8-byte value and
     * int index at 8; DOUBLE_COMPLEX: real and imaginary doubles), non-atomically. Reads the source before
     * anything is written; writes only the element's {@code t.size()} bytes of the target.
     *
     * @param hasResult whether to store the old target element at {@code (resBase, resOff)}
     */
    static void applyWide(OpCode op, BasicType t, Object srcBase, long srcOff, Object dstBase, long dstOff,
                          boolean hasResult, Object resBase, long resOff) {
        long s0 = 0;
        long s1 = 0;
        boolean pair = t.kind() == BasicType.Kind.PAIR;
        if (op != OpCode.NO_OP) {
            s0 = Memory.getLongPlain(srcBase, srcOff);
            s1 = pair ? Memory.getIntPlain(srcBase, srcOff + 8) : Memory.getLongPlain(srcBase, srcOff + 8);
        }
        long d0 = Memory.getLongPlain(dstBase, dstOff);
        long d1 = pair ? Memory.getIntPlain(dstBase, dstOff + 8) : Memory.getLongPlain(dstBase, dstOff + 8);
        if (hasResult) {
            putWide(pair, resBase, resOff, d0, d1);
        }
        switch (op) {
            case NO_OP:
                return;
            case REPLACE:
                putWide(pair, dstBase, dstOff, s0, s1);
                return;
            case MINLOC:
            case MAXLOC: {
                boolean take = t == BasicType.LONG_INT
                    ? takeSource(op, d0, s0, (int) d1, (int) s1)
                    : takeSource(op, Double.longBitsToDouble(d0), Double.longBitsToDouble(s0), (int) d1, (int) s1);
                if (take) {
                    putWide(pair, dstBase, dstOff, s0, s1);
                }
                return;
            }
            case SUM:
            case PROD: {
                double ar = Double.longBitsToDouble(d0);
                double ai = Double.longBitsToDouble(d1);
                double br = Double.longBitsToDouble(s0);
                double bi = Double.longBitsToDouble(s1);
                double re;
                double im;
                if (op == OpCode.SUM) {
                    re = ar + br;
                    im = ai + bi;
                } else {
                    re = ar * br - ai * bi;
                    im = ar * bi + ai * br;
                }
                Memory.putDoublePlain(dstBase, dstOff, re);
                Memory.putDoublePlain(dstBase, dstOff + 8, im);
                return;
            }
            default:
                throw new AssertionError(op + " on " + t);
        }
    }

    private static void putWide(boolean pair, Object base, long off, long w0, long w1) {
        Memory.putLongPlain(base, off, w0);
        if (pair) {
            Memory.putIntPlain(base, off + 8, (int) w1);
        } else {
            Memory.putLongPlain(base, off + 8, w1);
        }
    }
}

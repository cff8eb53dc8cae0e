package io.jrma.core.op;

import io.jrma.core.dt.BasicType;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;

/**
 * A deliberately straightforward model of the reduction ops on single elements held in byte arrays
 * (little-endian), written independently of the kernels: signed integers with long math, unsigned integers
 * with BigInteger, floats with Java float/double arithmetic. Also generates "interesting" element values.
 */
final class ReferenceModel {
    private ReferenceModel() {
    }

    static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The element {@code dst op src}, both of {@code t.size()} bytes. */
    static byte[] combine(OpCode op, BasicType t, byte[] dst, byte[] src) {
        if (op == OpCode.REPLACE) {
            return src.clone();
        }
        if (op == OpCode.NO_OP) {
            return dst.clone();
        }
        switch (t.kind()) {
            case SIGNED: return signed(op, t, dst, src);
            case UNSIGNED: return unsigned(op, t, dst, src);
            case BYTE: return bytewise(op, dst, src);
            case LOGICAL: return logical(op, dst[0] != 0, src[0] != 0);
            case FLOAT: return t.size() == 4 ? floats(op, dst, src) : doubles(op, dst, src);
            case COMPLEX: return complex(op, t, dst, src);
            case PAIR: return pair(op, t, dst, src);
            default: throw new AssertionError(t);
        }
    }

    private static long signedValue(byte[] b) {
        ByteBuffer bb = le(b);
        switch (b.length) {
            case 1: return bb.get(0);
            case 2: return bb.getShort(0);
            case 4: return bb.getInt(0);
            default: return bb.getLong(0);
        }
    }

    private static byte[] lowBytes(long v, int size) {
        byte[] out = new byte[size];
        for (int i = 0; i < size; i++) {
            out[i] = (byte) (v >>> (8 * i));
        }
        return out;
    }

    private static byte[] logical(OpCode op, boolean a, boolean b, int size) {
        boolean r;
        switch (op) {
            case LAND: r = a && b; break;
            case LOR: r = a || b; break;
            case LXOR: r = a ^ b; break;
            default: throw new AssertionError(op);
        }
        return lowBytes(r ? 1 : 0, size);
    }

    private static byte[] logical(OpCode op, boolean a, boolean b) {
        return logical(op, a, b, 1);
    }

    private static byte[] signed(OpCode op, BasicType t, byte[] d, byte[] s) {
        long a = signedValue(d);
        long b = signedValue(s);
        int size = t.size();
        switch (op) {
            case SUM: return lowBytes(a + b, size);
            case PROD: return lowBytes(a * b, size);
            case MIN: return lowBytes(Math.min(a, b), size);
            case MAX: return lowBytes(Math.max(a, b), size);
            case BAND: return lowBytes(a & b, size);
            case BOR: return lowBytes(a | b, size);
            case BXOR: return lowBytes(a ^ b, size);
            default: return logical(op, a != 0, b != 0, size);
        }
    }

    private static BigInteger unsignedValue(byte[] b) {
        byte[] be = new byte[b.length + 1];
        for (int i = 0; i < b.length; i++) {
            be[b.length - i] = b[i];
        }
        return new BigInteger(be);
    }

    private static byte[] unsigned(OpCode op, BasicType t, byte[] d, byte[] s) {
        BigInteger a = unsignedValue(d);
        BigInteger b = unsignedValue(s);
        BigInteger modulus = BigInteger.ONE.shiftLeft(8 * t.size());
        BigInteger r;
        switch (op) {
            case SUM: r = a.add(b).mod(modulus); break;
            case PROD: r = a.multiply(b).mod(modulus); break;
            case MIN: r = a.min(b); break;
            case MAX: r = a.max(b); break;
            case BAND: r = a.and(b); break;
            case BOR: r = a.or(b); break;
            case BXOR: r = a.xor(b); break;
            default: return logical(op, a.signum() != 0, b.signum() != 0, t.size());
        }
        return lowBytes(r.longValue(), t.size());
    }

    private static byte[] bytewise(OpCode op, byte[] d, byte[] s) {
        switch (op) {
            case BAND: return new byte[] {(byte) (d[0] & s[0])};
            case BOR: return new byte[] {(byte) (d[0] | s[0])};
            case BXOR: return new byte[] {(byte) (d[0] ^ s[0])};
            default: throw new AssertionError(op);
        }
    }

    private static byte[] floats(OpCode op, byte[] d, byte[] s) {
        float a = le(d).getFloat(0);
        float b = le(s).getFloat(0);
        float r;
        switch (op) {
            case SUM: r = a + b; break;
            case PROD: r = a * b; break;
            case MIN: r = Math.min(a, b); break;
            case MAX: r = Math.max(a, b); break;
            default: throw new AssertionError(op);
        }
        byte[] out = new byte[4];
        le(out).putFloat(0, r);
        return out;
    }

    private static byte[] doubles(OpCode op, byte[] d, byte[] s) {
        double a = le(d).getDouble(0);
        double b = le(s).getDouble(0);
        double r;
        switch (op) {
            case SUM: r = a + b; break;
            case PROD: r = a * b; break;
            case MIN: r = Math.min(a, b); break;
            case MAX: r = Math.max(a, b); break;
            default: throw new AssertionError(op);
        }
        byte[] out = new byte[8];
        le(out).putDouble(0, r);
        return out;
    }

    private static byte[] complex(OpCode op, BasicType t, byte[] d, byte[] s) {
        boolean dbl = t == BasicType.DOUBLE_COMPLEX;
        int half = dbl ? 8 : 4;
        double ar = dbl ? le(d).getDouble(0) : le(d).getFloat(0);
        double ai = dbl ? le(d).getDouble(half) : le(d).getFloat(half);
        double br = dbl ? le(s).getDouble(0) : le(s).getFloat(0);
        double bi = dbl ? le(s).getDouble(half) : le(s).getFloat(half);
        byte[] out = new byte[t.size()];
        if (dbl) {
            double re = op == OpCode.SUM ? ar + br : ar * br - ai * bi;
            double im = op == OpCode.SUM ? ai + bi : ar * bi + ai * br;
            le(out).putDouble(0, re).putDouble(8, im);
        } else {
            // float arithmetic, step by step, as the type demands
            float xr = (float) ar;
            float xi = (float) ai;
            float yr = (float) br;
            float yi = (float) bi;
            float re = op == OpCode.SUM ? xr + yr : xr * yr - xi * yi;
            float im = op == OpCode.SUM ? xi + yi : xr * yi + xi * yr;
            le(out).putFloat(0, re).putFloat(4, im);
        }
        return out;
    }

    private static byte[] pair(OpCode op, BasicType t, byte[] d, byte[] s) {
        int idxOff = t.pairIndexOffset();
        int di = le(d).getInt(idxOff);
        int si = le(s).getInt(idxOff);
        int cmp; // sign of (src value - dst value), or 2 if unordered
        switch (t) {
            case SHORT_INT: cmp = Integer.compare(le(s).getShort(0), le(d).getShort(0)); break;
            case INT_INT: cmp = Integer.compare(le(s).getInt(0), le(d).getInt(0)); break;
            case LONG_INT: cmp = Long.compare(le(s).getLong(0), le(d).getLong(0)); break;
            case FLOAT_INT: cmp = numericCompare(le(s).getFloat(0), le(d).getFloat(0)); break;
            case DOUBLE_INT: cmp = numericCompare(le(s).getDouble(0), le(d).getDouble(0)); break;
            default: throw new AssertionError(t);
        }
        boolean better = op == OpCode.MINLOC ? cmp == -1 : cmp == 1;
        return better || (cmp == 0 && si < di) ? s.clone() : d.clone();
    }

    private static int numericCompare(double x, double y) {
        if (x < y) {
            return -1;
        }
        if (x > y) {
            return 1;
        }
        return x == y ? 0 : 2;
    }

    /** Whether two elements are equal, treating any NaN as equal to any NaN in float components. */
    static boolean same(BasicType t, byte[] expected, byte[] actual) {
        if (Arrays.equals(expected, actual)) {
            return true;
        }
        ByteBuffer e = le(expected);
        ByteBuffer a = le(actual);
        switch (t) {
            case FLOAT: return Float.isNaN(e.getFloat(0)) && Float.isNaN(a.getFloat(0));
            case DOUBLE: return Double.isNaN(e.getDouble(0)) && Double.isNaN(a.getDouble(0));
            case FLOAT_COMPLEX: return sameF(e.getFloat(0), a.getFloat(0)) && sameF(e.getFloat(4), a.getFloat(4));
            case DOUBLE_COMPLEX:
                return sameD(e.getDouble(0), a.getDouble(0)) && sameD(e.getDouble(8), a.getDouble(8));
            case FLOAT_INT: return sameF(e.getFloat(0), a.getFloat(0)) && e.getInt(4) == a.getInt(4);
            case DOUBLE_INT: return sameD(e.getDouble(0), a.getDouble(0)) && e.getInt(8) == a.getInt(8);
            default: return false;
        }
    }

    private static boolean sameF(float x, float y) {
        return Float.floatToRawIntBits(x) == Float.floatToRawIntBits(y) || (Float.isNaN(x) && Float.isNaN(y));
    }

    private static boolean sameD(double x, double y) {
        return Double.doubleToRawLongBits(x) == Double.doubleToRawLongBits(y) || (Double.isNaN(x) && Double.isNaN(y));
    }

    private static final float[] FLOATS = {0f, -0f, 1f, -1f, 2.5f, -3.75f, Float.NaN, Float.POSITIVE_INFINITY,
        Float.NEGATIVE_INFINITY, Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_NORMAL,
        Float.intBitsToFloat(0x7fc0_0123), 1e-3f};
    private static final double[] DOUBLES = {0d, -0d, 1d, -1d, 2.5d, -3.75d, Double.NaN,
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE,
        Double.MIN_NORMAL, Double.longBitsToDouble(0x7ff8_0000_0000_1234L), 1e-300};

    private static long integral(Random r, int size) {
        int bits = 8 * size;
        switch (r.nextInt(8)) {
            case 0: return 0;
            case 1: return 1;
            case 2: return -1;
            case 3: return r.nextInt(7) - 3;
            case 4: return 1L << (bits - 1); // signed minimum / unsigned midpoint
            case 5: return bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
            default: return r.nextLong();
        }
    }

    private static float someFloat(Random r) {
        switch (r.nextInt(3)) {
            case 0: return FLOATS[r.nextInt(FLOATS.length)];
            case 1: return r.nextInt(9) - 4;
            default: return Float.intBitsToFloat(r.nextInt());
        }
    }

    private static double someDouble(Random r) {
        switch (r.nextInt(3)) {
            case 0: return DOUBLES[r.nextInt(DOUBLES.length)];
            case 1: return r.nextInt(9) - 4;
            default: return Double.longBitsToDouble(r.nextLong());
        }
    }

    /** An interesting element of {@code t}: edge values, small values (for ties), random bit patterns. */
    static byte[] randomElement(BasicType t, Random r) {
        byte[] out = new byte[t.size()];
        ByteBuffer b = le(out);
        switch (t.kind()) {
            case BYTE: case LOGICAL: case SIGNED: case UNSIGNED:
                return lowBytes(integral(r, t.size()), t.size());
            case FLOAT:
                if (t.size() == 4) {
                    b.putFloat(0, someFloat(r));
                } else {
                    b.putDouble(0, someDouble(r));
                }
                return out;
            case COMPLEX:
                if (t.size() == 8) {
                    b.putFloat(0, someFloat(r)).putFloat(4, someFloat(r));
                } else {
                    b.putDouble(0, someDouble(r)).putDouble(8, someDouble(r));
                }
                return out;
            case PAIR:
                r.nextBytes(out); // padding of SHORT_INT stays random
                int small = r.nextInt(5) - 2;
                boolean smallValue = r.nextBoolean();
                switch (t) {
                    case SHORT_INT: b.putShort(0, smallValue ? (short) small : (short) r.nextInt()); break;
                    case INT_INT: b.putInt(0, smallValue ? small : r.nextInt()); break;
                    case LONG_INT: b.putLong(0, smallValue ? small : r.nextLong()); break;
                    case FLOAT_INT: b.putFloat(0, smallValue ? small : someFloat(r)); break;
                    default: b.putDouble(0, smallValue ? small : someDouble(r)); break;
                }
                b.putInt(t.pairIndexOffset(), r.nextBoolean() ? r.nextInt(4) : r.nextInt());
                return out;
            default:
                throw new AssertionError(t);
        }
    }
}

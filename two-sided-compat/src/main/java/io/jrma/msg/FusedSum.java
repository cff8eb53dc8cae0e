package io.jrma.msg;

import io.jrma.Op;
import io.jrma.core.dt.BasicType;
import io.jrma.core.mem.Memory;

/**
 * The combine of a large shared reduction ({@link Reductions}) for the commonest case, {@link Op#SUM} of
 * {@code float}, {@code double}, {@code int} or {@code long}: the P contributions of a block summed in one pass over
 * up to four of them at a time ({@code dst[i] = ((s0[i] + s1[i]) + s2[i]) + s3[i]}, then {@code dst[i] + s4[i] + ...}),
 * in rank order, straight into the destination. The pairwise {@link Op#reduceLocal} passes it replaces load and
 * store the accumulator once per contribution, and the block had to be copied into it and out again; measured on
 * this 2-core machine (noisy), 64 Ki floats from 4 contributions: ~40 us in one pass against ~60 us in three, before
 * the two copies. Rank order keeps the floating-point result the pairwise passes give. Static; off-heap memory only.
 */
final class FusedSum {
    /** Contributions summed per pass. */
    static final int PER_PASS = 4;

    private FusedSum() {
    }

    /** Whether {@link #sum} handles {@code op} on {@code t}. */
    static boolean handles(Op op, BasicType t) {
        return op == Op.SUM && (t == BasicType.FLOAT || t == BasicType.DOUBLE || t == BasicType.INT
                || t == BasicType.LONG);
    }

    /**
     * {@code dst[i] = src[0][i] + src[1][i] + ... + src[p-1][i]} (in that order) for {@code n} elements of {@code t}
     * at the addresses {@code src[r] + at} and {@code dst}; {@code dst} may be one of the first {@link #PER_PASS}
     * sources (the same elements), not a later one: the first pass has overwritten it by then.
     */
    static void sum(BasicType t, long[] src, long at, int p, long dst, long n) {
        int k = Math.min(PER_PASS, p);
        pass(t, dst, src[0] + at, src[1] + at, k > 2 ? src[2] + at : 0, k > 3 ? src[3] + at : 0, k, n);
        for (int r = k; r < p; r += PER_PASS - 1) {
            int m = Math.min(PER_PASS - 1, p - r);
            pass(t, dst, dst, src[r] + at, m > 1 ? src[r + 1] + at : 0, m > 2 ? src[r + 2] + at : 0, m + 1, n);
        }
    }

    /** {@code dst[i] = a[i] + b[i] (+ c[i] (+ d[i]))} for {@code k} terms (2..4). */
    private static void pass(BasicType t, long dst, long a, long b, long c, long d, int k, long n) {
        switch (t) {
            case FLOAT: floats(dst, a, b, c, d, k, n); break;
            case DOUBLE: doubles(dst, a, b, c, d, k, n); break;
            case INT: ints(dst, a, b, c, d, k, n); break;
            default: longs(dst, a, b, c, d, k, n); break;
        }
    }

    private static void floats(long dst, long a, long b, long c, long d, int k, long n) {
        long end = n * Float.BYTES;
        if (k == 4) {
            for (long o = 0; o < end; o += Float.BYTES) {
                Memory.putFloatPlain(dst + o, Memory.getFloatPlain(a + o) + Memory.getFloatPlain(b + o)
                        + Memory.getFloatPlain(c + o) + Memory.getFloatPlain(d + o));
            }
        } else if (k == 3) {
            for (long o = 0; o < end; o += Float.BYTES) {
                Memory.putFloatPlain(dst + o, Memory.getFloatPlain(a + o) + Memory.getFloatPlain(b + o)
                        + Memory.getFloatPlain(c + o));
            }
        } else {
            for (long o = 0; o < end; o += Float.BYTES) {
                Memory.putFloatPlain(dst + o, Memory.getFloatPlain(a + o) + Memory.getFloatPlain(b + o));
            }
        }
    }

    private static void doubles(long dst, long a, long b, long c, long d, int k, long n) {
        long end = n * Double.BYTES;
        if (k == 4) {
            for (long o = 0; o < end; o += Double.BYTES) {
                Memory.putDoublePlain(dst + o, Memory.getDoublePlain(a + o) + Memory.getDoublePlain(b + o)
                        + Memory.getDoublePlain(c + o) + Memory.getDoublePlain(d + o));
            }
        } else if (k == 3) {
            for (long o = 0; o < end; o += Double.BYTES) {
                Memory.putDoublePlain(dst + o, Memory.getDoublePlain(a + o) + Memory.getDoublePlain(b + o)
                        + Memory.getDoublePlain(c + o));
            }
        } else {
            for (long o = 0; o < end; o += Double.BYTES) {
                Memory.putDoublePlain(dst + o, Memory.getDoublePlain(a + o) + Memory.getDoublePlain(b + o));
            }
        }
    }

    private static void ints(long dst, long a, long b, long c, long d, int k, long n) {
        long end = n * Integer.BYTES;
        if (k == 4) {
            for (long o = 0; o < end; o += Integer.BYTES) {
                Memory.putIntPlain(dst + o, Memory.getIntPlain(a + o) + Memory.getIntPlain(b + o)
                        + Memory.getIntPlain(c + o) + Memory.getIntPlain(d + o));
            }
        } else if (k == 3) {
            for (long o = 0; o < end; o += Integer.BYTES) {
                Memory.putIntPlain(dst + o, Memory.getIntPlain(a + o) + Memory.getIntPlain(b + o)
                        + Memory.getIntPlain(c + o));
            }
        } else {
            for (long o = 0; o < end; o += Integer.BYTES) {
                Memory.putIntPlain(dst + o, Memory.getIntPlain(a + o) + Memory.getIntPlain(b + o));
            }
        }
    }

    private static void longs(long dst, long a, long b, long c, long d, int k, long n) {
        long end = n * Long.BYTES;
        if (k == 4) {
            for (long o = 0; o < end; o += Long.BYTES) {
                Memory.putLongPlain(dst + o, Memory.getLongPlain(a + o) + Memory.getLongPlain(b + o)
                        + Memory.getLongPlain(c + o) + Memory.getLongPlain(d + o));
            }
        } else if (k == 3) {
            for (long o = 0; o < end; o += Long.BYTES) {
                Memory.putLongPlain(dst + o, Memory.getLongPlain(a + o) + Memory.getLongPlain(b + o)
                        + Memory.getLongPlain(c + o));
            }
        } else {
            for (long o = 0; o < end; o += Long.BYTES) {
                Memory.putLongPlain(dst + o, Memory.getLongPlain(a + o) + Memory.getLongPlain(b + o));
            }
        }
    }
}

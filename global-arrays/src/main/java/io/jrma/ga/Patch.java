package io.jrma.ga;

import java.util.Arrays;

/**
 * A rectangular patch {@code lo..hi} of a global array, bounds inclusive as in Global Arrays. Empty when
 * {@code hi[d] < lo[d]} in some dimension. Immutable (the accessors return copies).
 */
public final class Patch {
    private final int[] lo;
    private final int[] hi;

    public Patch(int[] lo, int[] hi) {
        this.lo = lo.clone();
        this.hi = hi.clone();
    }

    public int[] lo() {
        return lo.clone();
    }

    public int[] hi() {
        return hi.clone();
    }

    public int lo(int d) {
        return lo[d];
    }

    public int hi(int d) {
        return hi[d];
    }

    public int ndim() {
        return lo.length;
    }

    public boolean isEmpty() {
        for (int d = 0; d < lo.length; d++) {
            if (hi[d] < lo[d]) {
                return true;
            }
        }
        return false;
    }

    /** Number of elements. */
    public long size() {
        long n = 1;
        for (int d = 0; d < lo.length; d++) {
            n *= Math.max(0, hi[d] - lo[d] + 1);
        }
        return n;
    }

    /** Extents {@code hi - lo + 1} per dimension. */
    public int[] shape() {
        int[] s = new int[lo.length];
        for (int d = 0; d < lo.length; d++) {
            s[d] = Math.max(0, hi[d] - lo[d] + 1);
        }
        return s;
    }

    public boolean contains(int[] idx) {
        for (int d = 0; d < lo.length; d++) {
            if (idx[d] < lo[d] || idx[d] > hi[d]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Patch && Arrays.equals(lo, ((Patch) o).lo) && Arrays.equals(hi, ((Patch) o).hi);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(lo) * 31 + Arrays.hashCode(hi);
    }

    @Override
    public String toString() {
        return Arrays.toString(lo) + ".." + Arrays.toString(hi);
    }
}

package io.jrma.ga;

/**
 * One dimension of a distribution: which grid coordinate owns global index {@code i} and where it is stored
 * locally. Blocked (contiguous pieces given by {@code bounds}) or cyclic (blocks of {@code b} dealt round
 * robin over {@code p} coordinates; a coordinate's blocks are stored one after the other). Immutable.
 */
final class DimMap {
    final int n;
    final int p;
    /** Blocked: block k is [bounds[k], bounds[k+1]). Null when cyclic. */
    final int[] bounds;
    /** Cyclic block size; 0 when blocked. */
    final int b;

    private DimMap(int n, int p, int[] bounds, int b) {
        this.n = n;
        this.p = p;
        this.bounds = bounds;
        this.b = b;
    }

    static DimMap blocked(int n, int[] bounds) {
        return new DimMap(n, bounds.length - 1, bounds, 0);
    }

    static DimMap cyclic(int n, int b, int p) {
        return new DimMap(n, p, null, b);
    }

    boolean isBlocked() {
        return bounds != null;
    }

    /** Grid coordinate owning index {@code i}. */
    int coordOf(int i) {
        if (bounds != null) {
            int lo = 0;
            int hi = p - 1;
            while (lo < hi) { // last k with bounds[k] <= i (empty blocks skipped: bounds[k] == bounds[k+1])
                int mid = (lo + hi + 1) >>> 1;
                if (bounds[mid] <= i) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            return lo;
        }
        return (i / b) % p;
    }

    /** Local (packed, ghost-free) index of global index {@code i} at its owner. */
    int localIndex(int i) {
        if (bounds != null) {
            return i - bounds[coordOf(i)];
        }
        return (i / b / p) * b + i % b;
    }

    /** Number of indices coordinate {@code c} owns. */
    int localExtent(int c) {
        if (bounds != null) {
            return bounds[c + 1] - bounds[c];
        }
        int nblocks = (n + b - 1) / b;
        if (c >= nblocks) {
            return 0;
        }
        int owned = (nblocks - 1 - c) / p + 1; // blocks c, c+p, ... < nblocks
        int ext = owned * b;
        if ((nblocks - 1) % p == c) {
            ext -= nblocks * b - n; // the last block is short
        }
        return ext;
    }

    /**
     * Segments of {@code [lo, hi]} owned by coordinate {@code c}, in increasing order, as pairs
     * (start, length) appended to {@code out}; returns the number of segments. Their local indices are
     * consecutive (a coordinate's indices are stored in increasing global order).
     */
    int segments(int lo, int hi, int c, IntList out) {
        if (hi < lo) {
            return 0;
        }
        if (bounds != null) {
            int s = Math.max(lo, bounds[c]);
            int e = Math.min(hi, bounds[c + 1] - 1);
            if (s > e) {
                return 0;
            }
            out.add(s);
            out.add(e - s + 1);
            return 1;
        }
        int k0 = lo / b;
        int first = k0 + Math.floorMod(c - k0, p);
        int count = 0;
        for (int k = first; (long) k * b <= hi; k += p) {
            int s = Math.max(lo, k * b);
            int e = Math.min(hi, k * b + b - 1);
            out.add(s);
            out.add(e - s + 1);
            count++;
        }
        return count;
    }

    /** Coordinates that may own part of {@code [lo, hi]}: {first, last} (inclusive, may wrap for cyclic: all). */
    int firstCoord(int lo) {
        return bounds != null ? coordOf(lo) : 0;
    }

    int lastCoord(int hi) {
        return bounds != null ? coordOf(hi) : p - 1;
    }
}

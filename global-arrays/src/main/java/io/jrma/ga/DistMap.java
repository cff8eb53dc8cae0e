package io.jrma.ga;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A distribution resolved for given dimensions and rank count: pure index arithmetic. Immutable. */
final class DistMap {
    final int[] dims;
    final DimMap[] dm;
    final int[] grid;
    final int nranks;
    final int ndim;
    final boolean blocked;
    final int gridRanks;

    DistMap(int[] dims, DimMap[] dm, int[] grid, int nranks, boolean blocked) {
        this.dims = dims.clone();
        this.dm = dm;
        this.grid = grid.clone();
        this.nranks = nranks;
        this.ndim = dims.length;
        this.blocked = blocked;
        int p = 1;
        for (int g : grid) {
            p *= g;
        }
        this.gridRanks = p;
    }

    int rankOf(int[] coords) {
        int r = 0;
        for (int d = 0; d < ndim; d++) {
            r = r * grid[d] + coords[d];
        }
        return r;
    }

    /** Grid coordinates of {@code rank}, or null if it owns nothing by construction (outside the grid). */
    int[] coordsOf(int rank) {
        if (rank >= gridRanks) {
            return null;
        }
        int[] c = new int[ndim];
        for (int d = ndim - 1; d >= 0; d--) {
            c[d] = rank % grid[d];
            rank /= grid[d];
        }
        return c;
    }

    int owner(int[] idx) {
        int r = 0;
        for (int d = 0; d < ndim; d++) {
            r = r * grid[d] + dm[d].coordOf(idx[d]);
        }
        return r;
    }

    /** Interior (ghost-free) local extents of {@code rank}; all zero outside the grid. */
    int[] localDims(int rank) {
        int[] c = coordsOf(rank);
        int[] l = new int[ndim];
        if (c != null) {
            for (int d = 0; d < ndim; d++) {
                l[d] = dm[d].localExtent(c[d]);
            }
        }
        return l;
    }

    /** Blocked only: the patch of {@code rank} (empty if none). */
    Patch patchOf(int rank) {
        int[] lo = new int[ndim];
        int[] hi = new int[ndim];
        int[] c = coordsOf(rank);
        for (int d = 0; d < ndim; d++) {
            if (c == null) {
                lo[d] = 0;
                hi[d] = -1;
            } else {
                lo[d] = dm[d].bounds[c[d]];
                hi[d] = dm[d].bounds[c[d] + 1] - 1;
            }
        }
        return new Patch(lo, hi);
    }

    /** Rectangular pieces of the patch, each inside one block of one owner, grouped by owner. */
    List<Region> regions(int[] lo, int[] hi) {
        List<Region> out = new ArrayList<>();
        for (int d = 0; d < ndim; d++) {
            if (hi[d] < lo[d]) {
                return out;
            }
        }
        // per dimension: for each coordinate, its segments
        IntList[][] segs = new IntList[ndim][];
        for (int d = 0; d < ndim; d++) {
            segs[d] = new IntList[dm[d].p];
            for (int c = dm[d].firstCoord(lo[d]); c <= dm[d].lastCoord(hi[d]); c++) {
                IntList l = new IntList();
                dm[d].segments(lo[d], hi[d], c, l);
                segs[d][c] = l;
            }
        }
        int[] c = new int[ndim];
        for (int d = 0; d < ndim; d++) {
            c[d] = dm[d].firstCoord(lo[d]);
        }
        while (true) {
            boolean nonEmpty = true;
            for (int d = 0; d < ndim; d++) {
                nonEmpty &= segs[d][c[d]].size > 0;
            }
            if (nonEmpty) {
                int rank = rankOf(c);
                int[] k = new int[ndim];
                outer:
                while (true) {
                    int[] plo = new int[ndim];
                    int[] phi = new int[ndim];
                    for (int d = 0; d < ndim; d++) {
                        IntList l = segs[d][c[d]];
                        plo[d] = l.get(2 * k[d]);
                        phi[d] = plo[d] + l.get(2 * k[d] + 1) - 1;
                    }
                    out.add(new Region(rank, new Patch(plo, phi)));
                    for (int d = ndim - 1; d >= 0; d--) {
                        if (++k[d] < segs[d][c[d]].size / 2) {
                            continue outer;
                        }
                        k[d] = 0;
                    }
                    break;
                }
            }
            int d = ndim - 1;
            for (; d >= 0; d--) {
                if (++c[d] <= dm[d].lastCoord(hi[d])) {
                    break;
                }
                c[d] = dm[d].firstCoord(lo[d]);
            }
            if (d < 0) {
                return out;
            }
        }
    }

    /** Same distribution (so local layouts coincide, apart from ghosts). */
    boolean sameAs(DistMap o) {
        if (o == this) {
            return true;
        }
        if (!Arrays.equals(dims, o.dims) || !Arrays.equals(grid, o.grid) || blocked != o.blocked) {
            return false;
        }
        for (int d = 0; d < ndim; d++) {
            if (dm[d].b != o.dm[d].b || !Arrays.equals(dm[d].bounds, o.dm[d].bounds)) {
                return false;
            }
        }
        return true;
    }
}

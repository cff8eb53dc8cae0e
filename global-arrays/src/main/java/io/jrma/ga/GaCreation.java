package io.jrma.ga;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.Arrays;

/**
 * What creating a {@link GlobalArray} takes besides its windows: the creation arguments checked (communicator,
 * element type, dimensions, ghost widths against the distribution), every rank's storage block shaped (interior plus
 * two ghost widths per dimension, row-major strides), and the collective check that every rank passed the same
 * arguments (ERR_NOT_SAME otherwise).
 *
 * <p>Threads: the creating thread of each rank, during the collective creation.
 */
final class GaCreation {
    private GaCreation() {
    }

    /** Checks the creation arguments; returns the ghost widths to use (zeros when {@code ghosts} is null). */
    static int[] checkArguments(Comm comm, ElemType type, int[] dims, Distribution dist, int[] ghosts) {
        if (comm == null) {
            throw new RmaException(ErrorClass.ERR_COMM, "global array: communicator is null");
        }
        if (type == null || dist == null) {
            throw new RmaException(ErrorClass.ERR_ARG, "global array: element type and distribution must not be null");
        }
        if (dims == null || dims.length == 0) {
            throw new RmaException(ErrorClass.ERR_DIMS, "global array needs at least one dimension");
        }
        for (int d = 0; d < dims.length; d++) {
            if (dims[d] <= 0) {
                throw new RmaException(ErrorClass.ERR_DIMS, "global array dimension " + d + " is " + dims[d]);
            }
        }
        int n = dims.length;
        int[] g = ghosts == null ? new int[n] : ghosts.clone();
        if (g.length != n) {
            throw new RmaException(ErrorClass.ERR_ARG,
                    "ghost widths " + Arrays.toString(g) + " for " + n + " dimensions");
        }
        boolean anyGhost = false;
        for (int x : g) {
            if (x < 0) {
                throw new RmaException(ErrorClass.ERR_ARG, "negative ghost width " + Arrays.toString(g));
            }
            anyGhost |= x > 0;
        }
        if (anyGhost && !dist.isBlocked()) {
            throw new RmaException(ErrorClass.ERR_ARG,
                    "ghost cells need a block or irregular distribution, not " + dist);
        }
        return g;
    }

    /** Each rank's storage extents: its interior plus {@code 2 * g[d]} ghost cells per dimension (all 0 if empty). */
    static int[][] storeDims(DistMap map, int[] g, int nranks) {
        int n = g.length;
        int[][] storeDims = new int[nranks][];
        for (int r = 0; r < nranks; r++) {
            int[] l = map.localDims(r);
            boolean empty = false;
            for (int d = 0; d < n; d++) {
                empty |= l[d] == 0;
            }
            for (int d = 0; d < n; d++) {
                l[d] = empty ? 0 : l[d] + 2 * g[d];
            }
            storeDims[r] = l;
        }
        return storeDims;
    }

    /** The row-major element strides of each rank's storage block. */
    static long[][] storeStrides(int[][] storeDims) {
        long[][] strides = new long[storeDims.length][];
        for (int r = 0; r < storeDims.length; r++) {
            int[] l = storeDims[r];
            strides[r] = new long[l.length];
            long s = 1;
            for (int d = l.length - 1; d >= 0; d--) {
                strides[r][d] = s;
                s *= l[d];
            }
        }
        return strides;
    }

    /** Collective: throws ERR_NOT_SAME unless every rank created {@code ga} with the same arguments. */
    static void checkSame(GlobalArray ga, Distribution dist) {
        ElemType type = ga.type;
        int[] g = ga.ghosts;
        String name = ga.name;
        // every rank must have passed the same type, dims, distribution, ghosts
        long h = (type + Arrays.toString(ga.dims) + dist + Arrays.toString(g)).hashCode();
        long[] all = ga.allgather(h);
        for (long x : all) {
            if (x != h) {
                throw new RmaException(ErrorClass.ERR_NOT_SAME, "global array '" + name + "': ranks passed different "
                        + "element types, dimensions, distributions or ghost widths (this rank: " + type + " "
                        + Arrays.toString(ga.dims) + " " + dist + " ghosts " + Arrays.toString(g) + ")");
            }
        }
    }
}

package io.jrma.ga;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * How a global array is spread over the ranks of its communicator. Ranks form a process grid (row-major:
 * grid coordinates {@code (c0, .., cn-1)} are rank {@code c0 * p1 * .. + cn-1}); ranks beyond the grid's
 * product own nothing.
 * <ul>
 *   <li>{@link #block()}: each dimension cut into (nearly) equal contiguous pieces, the grid chosen like
 *       MPI_Dims_create, weighted by the array's extents;</li>
 *   <li>{@link #irregular(int[][])}: user-given block start indices per dimension (Global Arrays' "map");</li>
 *   <li>{@link #blockCyclic(int[], int[])}: blocks of a fixed size dealt round-robin over the grid in every
 *       dimension (ScaLAPACK style); each rank stores its blocks packed as one dense local array.</li>
 * </ul>
 * Immutable; a spec, resolved against the array's dimensions and the communicator's size at creation.
 */
public final class Distribution {
    enum Kind { BLOCK, IRREGULAR, BLOCK_CYCLIC }

    final Kind kind;
    final int[] grid;
    final int[][] map;
    final int[] blockSizes;

    private Distribution(Kind kind, int[] grid, int[][] map, int[] blockSizes) {
        this.kind = kind;
        this.grid = grid;
        this.map = map;
        this.blockSizes = blockSizes;
    }

    /** Block distribution with an automatically chosen process grid. */
    public static Distribution block() {
        return new Distribution(Kind.BLOCK, null, null, null);
    }

    /** Block distribution over the given process grid (product at most the communicator size). */
    public static Distribution block(int... grid) {
        return new Distribution(Kind.BLOCK, grid.clone(), null, null);
    }

    /**
     * Irregular distribution: {@code map[d]} lists the first index of each block in dimension {@code d}
     * (starting with 0, strictly increasing); the grid is {@code map[0].length x map[1].length x ..}.
     */
    public static Distribution irregular(int[][] map) {
        if (map == null) {
            throw new RmaException(ErrorClass.ERR_ARG, "irregular distribution: map is null");
        }
        int[][] m = new int[map.length][];
        for (int d = 0; d < map.length; d++) {
            if (map[d] == null) {
                throw new RmaException(ErrorClass.ERR_ARG, "irregular distribution: map[" + d + "] is null");
            }
            m[d] = map[d].clone();
        }
        return new Distribution(Kind.IRREGULAR, null, m, null);
    }

    /** Block-cyclic distribution with the given block size per dimension and an automatic grid. */
    public static Distribution blockCyclic(int... blockSizes) {
        return new Distribution(Kind.BLOCK_CYCLIC, null, null, blockSizes.clone());
    }

    /** Block-cyclic distribution with the given block sizes and process grid. */
    public static Distribution blockCyclic(int[] blockSizes, int[] grid) {
        return new Distribution(Kind.BLOCK_CYCLIC, grid == null ? null : grid.clone(), null, blockSizes.clone());
    }

    /** True for block and irregular distributions (each rank owns at most one rectangular patch). */
    public boolean isBlocked() {
        return kind != Kind.BLOCK_CYCLIC;
    }

    @Override
    public String toString() {
        switch (kind) {
            case BLOCK: return "block" + (grid == null ? "" : Arrays.toString(grid));
            case IRREGULAR: return "irregular" + Arrays.deepToString(map);
            default: return "blockCyclic" + Arrays.toString(blockSizes) + (grid == null ? "" : Arrays.toString(grid));
        }
    }

    /** Resolves this spec for an array of {@code dims} on {@code nranks} ranks. */
    DistMap resolve(int[] dims, int nranks) {
        int n = dims.length;
        int[] g;
        DimMap[] dm = new DimMap[n];
        switch (kind) {
            case IRREGULAR:
                if (map.length != n) {
                    throw new RmaException(ErrorClass.ERR_ARG,
                            "irregular map has " + map.length + " dimensions, array has " + n);
                }
                g = new int[n];
                for (int d = 0; d < n; d++) {
                    int[] m = map[d];
                    if (m.length == 0 || m[0] != 0) {
                        throw new RmaException(ErrorClass.ERR_ARG,
                                "irregular map[" + d + "] must start with 0: " + Arrays.toString(m));
                    }
                    for (int k = 1; k < m.length; k++) {
                        if (m[k] <= m[k - 1] || m[k] >= dims[d]) {
                            throw new RmaException(ErrorClass.ERR_ARG,
                                    "irregular map[" + d + "] must increase strictly within 0.."
                                    + (dims[d] - 1) + ": " + Arrays.toString(m));
                        }
                    }
                    int[] bounds = Arrays.copyOf(m, m.length + 1);
                    bounds[m.length] = dims[d];
                    dm[d] = DimMap.blocked(dims[d], bounds);
                    g[d] = m.length;
                }
                checkGrid(g, nranks);
                break;
            case BLOCK:
                g = grid != null ? checkGrid(grid.clone(), nranks, n) : autoGrid(dims, nranks);
                for (int d = 0; d < n; d++) {
                    int[] bounds = new int[g[d] + 1];
                    for (int k = 0; k <= g[d]; k++) {
                        bounds[k] = (int) ((long) k * dims[d] / g[d]);
                    }
                    dm[d] = DimMap.blocked(dims[d], bounds);
                }
                break;
            default:
                if (blockSizes.length != n) {
                    throw new RmaException(ErrorClass.ERR_ARG, "block-cyclic block sizes have " + blockSizes.length
                            + " dimensions, array has " + n);
                }
                int[] nblocks = new int[n];
                for (int d = 0; d < n; d++) {
                    if (blockSizes[d] <= 0) {
                        throw new RmaException(ErrorClass.ERR_ARG,
                                "block-cyclic block size " + blockSizes[d] + " in dimension " + d);
                    }
                    nblocks[d] = (dims[d] + blockSizes[d] - 1) / blockSizes[d];
                }
                g = grid != null ? checkGrid(grid.clone(), nranks, n) : autoGrid(nblocks, nranks);
                for (int d = 0; d < n; d++) {
                    dm[d] = DimMap.cyclic(dims[d], blockSizes[d], g[d]);
                }
                break;
        }
        return new DistMap(dims, dm, g, nranks, isBlocked());
    }

    private static int[] checkGrid(int[] g, int nranks, int n) {
        if (g.length != n) {
            throw new RmaException(ErrorClass.ERR_ARG, "process grid " + Arrays.toString(g) + " has " + g.length
                    + " dimensions, array has " + n);
        }
        return checkGrid(g, nranks);
    }

    private static int[] checkGrid(int[] g, int nranks) {
        long p = 1;
        for (int x : g) {
            if (x <= 0) {
                throw new RmaException(ErrorClass.ERR_ARG,
                        "process grid " + Arrays.toString(g) + " has a non-positive extent");
            }
            p *= x;
        }
        if (p > nranks) {
            throw new RmaException(ErrorClass.ERR_ARG, "process grid " + Arrays.toString(g) + " needs " + p
                    + " ranks, the communicator has " + nranks);
        }
        return g;
    }

    /**
     * MPI_Dims_create weighted by extents: prime factors of {@code nranks}, largest first, each to the dimension
     * with the most elements per grid cell (a factor that would leave empty cells everywhere is dropped).
     */
    static int[] autoGrid(int[] extents, int nranks) {
        int n = extents.length;
        int[] g = new int[n];
        Arrays.fill(g, 1);
        int p = nranks;
        List<Integer> factors = new ArrayList<>();
        for (int f = 2; (long) f * f <= p; f++) {
            while (p % f == 0) {
                factors.add(f);
                p /= f;
            }
        }
        if (p > 1) {
            factors.add(p);
        }
        factors.sort(Comparator.reverseOrder());
        for (int f : factors) {
            int best = -1;
            double bestLoad = 0;
            for (int d = 0; d < n; d++) {
                double load = (double) extents[d] / g[d];
                if ((long) g[d] * f <= extents[d] && load > bestLoad) {
                    best = d;
                    bestLoad = load;
                }
            }
            if (best >= 0) {
                g[best] *= f;
            }
        }
        return g;
    }
}

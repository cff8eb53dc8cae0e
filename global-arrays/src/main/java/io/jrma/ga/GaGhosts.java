package io.jrma.ga;

import static io.jrma.ga.GaTransfers.GET;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.ga.GaTransfers.Mode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The ghost-cell exchange of a {@link GlobalArray} (GA's ghosts layer): every rank gets the faces, edges and corners
 * around its block from their owners, one strided get per run of ghost cells, optionally wrapping periodic
 * dimensions. Belongs to its array and, like it, to one rank.
 */
final class GaGhosts {
    private final GlobalArray ga;
    private final String name;
    private final int[] dims;
    private final DistMap map;
    private final int[] ghosts;
    private final int me;
    private final Win win;
    private final ByteBuffer local;
    private final int[][] storeDims;
    private final long[][] storeStrides;

    GaGhosts(GlobalArray ga) {
        this.ga = ga;
        this.name = ga.name;
        this.dims = ga.dims;
        this.map = ga.map;
        this.ghosts = ga.ghosts;
        this.me = ga.me;
        this.win = ga.win;
        this.local = ga.local;
        this.storeDims = ga.storeDims;
        this.storeStrides = ga.storeStrides;
    }

    /** Collective: fills ghost cells; {@code periodic[d]} wraps dimension d (else out-of-array ghosts are kept). */
    void update(boolean... periodic) {
        ga.checkLive();
        int n = dims.length;
        if (periodic == null || periodic.length != n) {
            throw new RmaException(ErrorClass.ERR_ARG,
                    "updateGhosts on '" + name + "': periodic needs " + n + " flags");
        }
        ga.sync();
        int[] sd = storeDims[me];
        boolean owns = sd[0] > 0;
        boolean hasGhosts = false;
        for (int g : ghosts) {
            hasGhosts |= g > 0;
        }
        if (owns && hasGhosts) {
            Patch mine = map.patchOf(me);
            // per dimension and direction (-1, 0, +1): runs (global start, length, local storage start)
            List<List<int[]>> runs = new ArrayList<>();
            for (int d = 0; d < n; d++) {
                List<int[]> all = new ArrayList<>();
                for (int dir = -1; dir <= 1; dir++) {
                    List<int[]> rl = new ArrayList<>();
                    int g = ghosts[d];
                    int ext = mine.hi(d) - mine.lo(d) + 1;
                    int from;
                    int len;
                    int lstart;
                    if (dir == 0) {
                        from = mine.lo(d);
                        len = ext;
                        lstart = g;
                    } else if (dir < 0) {
                        from = mine.lo(d) - g;
                        len = g;
                        lstart = 0;
                    } else {
                        from = mine.hi(d) + 1;
                        len = g;
                        lstart = g + ext;
                    }
                    for (int j = 0; j < len; j++) {
                        int gi = from + j;
                        if (gi < 0 || gi >= dims[d]) {
                            if (!periodic[d]) {
                                continue;
                            }
                            gi = Math.floorMod(gi, dims[d]);
                        }
                        int[] lastRun = rl.isEmpty() ? null : rl.get(rl.size() - 1);
                        if (lastRun != null && lastRun[0] + lastRun[1] == gi && lastRun[2] + lastRun[1] == lstart + j) {
                            lastRun[1]++;
                        } else {
                            rl.add(new int[] {gi, 1, lstart + j, dir});
                        }
                    }
                    all.addAll(rl);
                }
                runs.add(all);
            }
            int[] ld = new int[n - 1];
            for (int d = 1; d < n; d++) {
                ld[d - 1] = sd[d];
            }
            int[] k = new int[n];
            int[] lo = new int[n];
            int[] hi = new int[n];
            outer:
            while (true) {
                boolean interior = true;
                long off = 0;
                for (int d = 0; d < n; d++) {
                    int[] run = runs.get(d).get(k[d]);
                    interior &= run[3] == 0;
                    lo[d] = run[0];
                    hi[d] = run[0] + run[1] - 1;
                    off += run[2] * storeStrides[me][d];
                }
                if (!interior) {
                    ga.transfers.transfer(GET, lo, hi, local, off, ld, 1, Mode.DEFERRED);
                }
                for (int d = n - 1; d >= 0; d--) {
                    if (++k[d] < runs.get(d).size()) {
                        continue outer;
                    }
                    k[d] = 0;
                }
                break;
            }
            win.flushLocalAll();
        }
        ga.sync();
    }
}

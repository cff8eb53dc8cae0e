package io.jrma.bench.micro;

import static io.jrma.bench.micro.FlushLockMicro.NC;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Win;

/**
 * Everything a rank of a {@link FlushLockMicro} job needs while measuring: its communicator, rank and size, and a
 * small window through which rank 0's decisions (iteration counts) reach every rank and every rank's counter deltas
 * reach rank 0. Used by the rank's thread; its calls are collective.
 */
final class MeasureRank {
    final Comm world;
    final int me;
    final int n;
    final Win stats;

    MeasureRank(Comm world) {
        this.world = world;
        this.me = world.rank();
        this.n = world.size();
        this.stats = Win.allocate(world, 8L * (n * NC + 1), 8, null);
    }

    /** Rank 0's value, on every rank (collective). */
    long bcast(long v) {
        stats.fence(0);
        if (me == 0) {
            long[] a = {v};
            for (int r = 0; r < n; r++) {
                stats.put(a, 1, Datatype.LONG, r, (long) n * NC);
            }
        }
        stats.fence(0);
        return stats.buffer().getLong(8 * n * NC);
    }

    /** Every rank's counter deltas, summed at rank 0 (collective; others get zeros). */
    long[] gather(long[] mine) {
        stats.fence(0);
        stats.put(mine, NC, Datatype.LONG, 0, (long) me * NC);
        stats.fence(0);
        long[] sum = new long[NC];
        if (me == 0) {
            for (int r = 0; r < n; r++) {
                for (int c = 0; c < NC; c++) {
                    sum[c] += stats.buffer().getLong(8 * (r * NC + c));
                }
            }
        }
        return sum;
    }
}

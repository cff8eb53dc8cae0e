package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Atomicity of the accumulate family under contention from every rank. */
class AtomicityTest {
    static final int K = 200;

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void accumulateSumIntoOneElement(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            Win w = Win.allocate(world, 64, 1, null);
            world.barrier();
            w.lockAll(0);
            for (int i = 0; i < K; i++) {
                w.accumulate(new long[] {me + 1}, 1, Datatype.LONG, 0, 0, Op.SUM);
                w.accumulate(new double[] {0.25}, 1, Datatype.DOUBLE, 0, 8, Op.SUM);
                w.accumulate(new int[] {-(me + 1)}, 1, Datatype.INT, 0, 16, Op.SUM);
                if (i % 3 == 0) {
                    // fetch_and_op on a second location, interleaved
                    w.fetchAndOp(new long[] {1}, new long[1], Datatype.LONG, 0, 24, Op.SUM);
                }
                if (i % 50 == 49) {
                    w.flush(0);
                }
            }
            w.unlockAll();
            for (int i = 0; i < K / 4; i++) {
                w.lock(LockType.SHARED, 0, 0);
                w.accumulate(new long[] {1}, 1, Datatype.LONG, 0, 32, Op.SUM);
                w.unlock(0);
            }
            world.barrier();
            if (me == 0) {
                w.sync();
                ByteBuffer b = w.buffer();
                long sumRanks = (long) n * (n + 1) / 2;
                assertEquals(K * sumRanks, b.getLong(0), "long SUM total");
                assertEquals(K * n * 0.25, b.getDouble(8), "double SUM total");
                assertEquals((int) (-K * sumRanks), b.getInt(16), "int SUM total");
                assertEquals((long) n * ((K + 2) / 3), b.getLong(24), "fetch_and_op SUM total");
                assertEquals((long) n * (K / 4), b.getLong(32), "shared-lock accumulate total");
            }
            world.barrier();
            w.free();
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void fetchAndOpTicketsAreDenseAndDistinct(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            // rank n-1 holds the counter; rank 0 collects the tickets
            Win w = Win.allocate(world, 8L * n * K + 8, 8, null);
            int counterDisp = n * K;
            world.barrier();
            long[] mineT = new long[K];
            w.lockAll(0);
            for (int i = 0; i < K; i++) {
                if (i % 2 == 0) {
                    long[] r = new long[1];
                    w.fetchAndOp(new long[] {1}, r, Datatype.LONG, n - 1, counterDisp, Op.SUM);
                    w.flushLocal(n - 1);
                    mineT[i] = r[0];
                } else {
                    mineT[i] = w.fetchAndAddLong(n - 1, counterDisp, 1);
                }
            }
            w.put(mineT, K, Datatype.LONG, 0, (long) me * K);
            w.unlockAll();
            world.barrier();
            if (me == 0) {
                w.sync();
                long[] all = new long[n * K];
                w.buffer().asLongBuffer().get(all);
                Arrays.sort(all);
                for (int i = 0; i < all.length; i++) {
                    assertEquals(i, all[i], "tickets must be 0.." + (n * K - 1) + " each once");
                }
            }
            if (me == n - 1) {
                w.sync();
                assertEquals((long) n * K, w.buffer().getLong(8 * counterDisp), "final counter");
            }
            world.barrier();
            w.free();
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void casSpinMutexProtectsNonAtomicUpdate(String path, int n) {
        int iters = 40;
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int owner = n / 2;
            // disp 0: mutex (0 = free, else holder+1); disp 1: counter; disp 2: critical-section occupancy
            Win w = Win.allocate(world, 24, 8, null);
            world.barrier();
            w.lockAll(0);
            for (int i = 0; i < iters; i++) {
                long spins = 0;
                while (w.compareAndSwapLong(owner, 0, 0, me + 1) != 0) {
                    if (++spins % 64 == 0) {
                        Thread.yield();
                    }
                }
                long[] occ = new long[1];
                w.fetchAndOp(new long[] {1}, occ, Datatype.LONG, owner, 2, Op.SUM);
                w.flush(owner);
                assertEquals(0, occ[0], "two ranks inside the critical section");
                long[] c = new long[1];
                w.get(c, 1, Datatype.LONG, owner, 1);
                w.flush(owner);
                w.put(new long[] {c[0] + 1}, 1, Datatype.LONG, owner, 1);
                w.flush(owner);
                w.fetchAndOp(new long[] {-1}, occ, Datatype.LONG, owner, 2, Op.SUM);
                w.flush(owner);
                long prev = w.compareAndSwapLong(owner, 0, me + 1, 0);
                assertEquals(me + 1, prev, "mutex released by its holder");
            }
            w.unlockAll();
            world.barrier();
            if (me == owner) {
                w.sync();
                assertEquals((long) n * iters, w.buffer().getLong(8), "no lost update under the CAS mutex");
                assertEquals(0, w.buffer().getLong(0), "mutex free at the end");
            }
            world.barrier();
            w.free();
        });
    }

    /** MINLOC/MAXLOC reference: smaller index on ties. */
    static boolean better(double v, int idx, double bv, int bidx, boolean min) {
        if (v == bv) {
            return idx < bidx;
        }
        return min ? v < bv : v > bv;
    }

    static double value(int rank, int i) {
        return ((rank * 7 + i * 13) % 11) - 5; // many ties across ranks
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void minlocMaxlocWithPairTypes(String path, int n) {
        int iters = 30;
        Ranks.run(path, n, world -> {
            int me = world.rank();
            // layout: INT_INT min @0, INT_INT max @8, DOUBLE_INT min @16, DOUBLE_INT max @32,
            //         LONG_INT min @48, LONG_INT max @64
            Win w = Win.allocate(world, 80, 1, null);
            ByteBuffer b = w.buffer();
            b.putInt(0, Integer.MAX_VALUE).putInt(4, Integer.MAX_VALUE);
            b.putInt(8, Integer.MIN_VALUE).putInt(12, Integer.MAX_VALUE);
            b.putDouble(16, Double.POSITIVE_INFINITY).putInt(24, Integer.MAX_VALUE);
            b.putDouble(32, Double.NEGATIVE_INFINITY).putInt(40, Integer.MAX_VALUE);
            b.putLong(48, Long.MAX_VALUE).putInt(56, Integer.MAX_VALUE);
            b.putLong(64, Long.MIN_VALUE).putInt(72, Integer.MAX_VALUE);
            world.barrier();
            int target = n - 1;
            w.lockAll(0);
            for (int i = 0; i < iters; i++) {
                int v = (int) value(me, i);
                int idx = me * 1000 + i;
                w.accumulate(new int[] {v, idx}, 1, Datatype.INT_INT, target, 0, Op.MINLOC);
                w.accumulate(new int[] {v, idx}, 1, Datatype.INT_INT, target, 8, Op.MAXLOC);
                ByteBuffer d = Ranks.direct(16);
                d.putDouble(0, v + 0.5).putInt(8, idx);
                w.accumulate(d, 1, Datatype.DOUBLE_INT, target, 16, Op.MINLOC);
                w.accumulate(d, 1, Datatype.DOUBLE_INT, target, 32, Op.MAXLOC);
                ByteBuffer l = Ranks.direct(16);
                l.putLong(0, v * 1_000_000_000_000L).putInt(8, idx);
                w.accumulate(l, 1, Datatype.LONG_INT, target, 48, Op.MINLOC);
                w.accumulate(l, 1, Datatype.LONG_INT, target, 64, Op.MAXLOC);
                if (i % 10 == 9) {
                    w.flush(target);
                }
            }
            w.unlockAll();
            world.barrier();
            if (me == target) {
                double minV = Double.POSITIVE_INFINITY;
                int minI = Integer.MAX_VALUE;
                double maxV = Double.NEGATIVE_INFINITY;
                int maxI = Integer.MAX_VALUE;
                for (int r = 0; r < n; r++) {
                    for (int i = 0; i < iters; i++) {
                        double v = value(r, i);
                        int idx = r * 1000 + i;
                        if (better(v, idx, minV, minI, true)) {
                            minV = v;
                            minI = idx;
                        }
                        if (better(v, idx, maxV, maxI, false)) {
                            maxV = v;
                            maxI = idx;
                        }
                    }
                }
                w.sync();
                assertEquals((int) minV, b.getInt(0), "INT_INT MINLOC value");
                assertEquals(minI, b.getInt(4), "INT_INT MINLOC index");
                assertEquals((int) maxV, b.getInt(8), "INT_INT MAXLOC value");
                assertEquals(maxI, b.getInt(12), "INT_INT MAXLOC index");
                assertEquals(minV + 0.5, b.getDouble(16), "DOUBLE_INT MINLOC value");
                assertEquals(minI, b.getInt(24), "DOUBLE_INT MINLOC index");
                assertEquals(maxV + 0.5, b.getDouble(32), "DOUBLE_INT MAXLOC value");
                assertEquals(maxI, b.getInt(40), "DOUBLE_INT MAXLOC index");
                assertEquals((long) minV * 1_000_000_000_000L, b.getLong(48), "LONG_INT MINLOC value");
                assertEquals(minI, b.getInt(56), "LONG_INT MINLOC index");
                assertEquals((long) maxV * 1_000_000_000_000L, b.getLong(64), "LONG_INT MAXLOC value");
                assertEquals(maxI, b.getInt(72), "LONG_INT MAXLOC index");
                assertTrue(minI < maxI || minI > maxI, "sanity");
            }
            world.barrier();
            w.free();
        });
    }

    /**
     * Default accumulate_ordering (rar,raw,war,waw): accumulate-family operations from one origin to the same
     * target location take effect in program order, without any flush in between.
     */
    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void accumulateOrderingSameLocation(String path, int n) {
        int iters = 50;
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            Win w = Win.allocate(world, 8L * n, 8, null);
            world.barrier();
            w.lockAll(0);
            long[][] seen = new long[iters][1];
            long[][] fetched = new long[iters][1];
            for (int i = 0; i < iters; i++) {
                w.accumulate(new long[] {10L * i}, 1, Datatype.LONG, t, me, Op.REPLACE);
                w.getAccumulate(null, 0, Datatype.LONG, seen[i], 1, Datatype.LONG, t, me, 1, Datatype.LONG, Op.NO_OP);
                w.fetchAndOp(new long[] {1}, fetched[i], Datatype.LONG, t, me, Op.SUM);
            }
            w.flush(t);
            for (int i = 0; i < iters; i++) {
                assertEquals(10L * i, seen[i][0], "get_accumulate(NO_OP) after accumulate(REPLACE), iteration " + i);
                assertEquals(10L * i, fetched[i][0], "fetch_and_op after accumulate(REPLACE), iteration " + i);
            }
            long[] last = new long[1];
            w.getAccumulate(null, 0, Datatype.LONG, last, 1, Datatype.LONG, t, me, 1, Datatype.LONG, Op.NO_OP);
            w.unlockAll();
            assertEquals(10L * (iters - 1) + 1, last[0], "final value");
            world.barrier();
            w.free();
        });
    }
}

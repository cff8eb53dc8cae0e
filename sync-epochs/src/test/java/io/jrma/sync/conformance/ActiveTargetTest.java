package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Datatype;
import io.jrma.Group;
import io.jrma.Op;
import io.jrma.Win;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** PSCW on subgroups and fence with asserts. */
class ActiveTargetTest {

    static Group ofParity(Group g, int n, int parity) {
        int[] r = new int[(n + 1 - parity) / 2];
        for (int i = 0; i < r.length; i++) {
            r[i] = 2 * i + parity;
        }
        return g.incl(r);
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(60)
    void afterAFenceEveryRankSeesEveryPutOfTheEpochAtEveryTarget(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            for (int iter = 0; iter < 30; iter++) {
                try (Win w = Win.allocate(world, 4L * n, 4, null)) {
                    w.fence(Win.MODE_NOPRECEDE);
                    for (int t = 0; t < n; t++) {
                        w.put(new int[] {100 * iter + me}, 1, Datatype.INT, t, me);
                    }
                    w.fence(0);
                    // a third rank's puts into the neighbor must be there, whatever path reads them
                    int[] got = new int[n];
                    w.get(got, n, Datatype.INT, (me + 1) % n, 0);
                    w.fence(Win.MODE_NOSUCCEED);
                    for (int r = 0; r < n; r++) {
                        assertEquals(100 * iter + r, got[r], "iteration " + iter + ": slot " + r + " of rank "
                                + (me + 1) % n + " read by " + me);
                    }
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void pscwEvenExposeToOdd(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            Win w = Win.allocate(world, 8L * n, 8, null);
            ByteBuffer b = w.buffer();
            for (int i = 0; i < n; i++) {
                b.putLong(8 * i, -1);
            }
            world.barrier();
            Group even = ofParity(w.group(), n, 0);
            Group odd = ofParity(w.group(), n, 1);
            // round 1: even ranks expose to odd ranks; odd ranks put their rank into every even rank
            if (me % 2 == 0) {
                w.post(odd, 0);
                w.waitFor();
                for (int i = 0; i < n; i++) {
                    assertEquals(i % 2 == 1 ? 10L * i + me : -1L, b.getLong(8 * i), "round 1 slot " + i + " at " + me);
                }
            } else {
                w.start(even, 0);
                for (int t = 0; t < n; t += 2) {
                    w.put(new long[] {10L * me + t}, 1, Datatype.LONG, t, me);
                }
                w.complete();
            }
            // round 2: odd ranks expose to even ranks (test() polling); evens accumulate and get
            if (me % 2 == 1) {
                w.post(even, Win.MODE_NOSTORE);
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (!w.test()) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("test() never completed the exposure epoch");
                    }
                    Thread.onSpinWait();
                }
                for (int i = 0; i < n; i++) {
                    long exp = i % 2 == 0 ? -1L + 100 + i : -1L;
                    assertEquals(exp, b.getLong(8 * i), "round 2 slot " + i + " at " + me);
                }
            } else {
                w.start(odd, 0);
                long[][] got = new long[n][1];
                for (int t = 1; t < n; t += 2) {
                    w.accumulate(new long[] {100 + me}, 1, Datatype.LONG, t, me, Op.SUM);
                    w.get(got[t], 1, Datatype.LONG, t, t);
                }
                w.complete();
                for (int t = 1; t < n; t += 2) {
                    // slot t of odd rank t is never written
                    assertEquals(-1L, got[t][0], "get from " + t);
                }
            }
            world.barrier();
            w.free();
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void pscwOverlappingAccessAndExposure(String path, int n) {
        // every rank is both origin (to right neighbour) and target (of left neighbour), many rounds
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            Win w = Win.allocate(world, 8, 8, null);
            world.barrier();
            Group tg = w.group().incl(t);
            Group og = w.group().incl(o);
            for (int round = 1; round <= 20; round++) {
                w.post(og, 0);
                w.start(tg, 0);
                w.accumulate(new long[] {round}, 1, Datatype.LONG, t, 0, Op.SUM);
                w.complete();
                w.waitFor();
                assertEquals((long) round * (round + 1) / 2, w.buffer().getLong(0), "round " + round);
            }
            world.barrier();
            w.free();
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void fenceWithAsserts(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            Win w = Win.allocate(world, 32, 8, null);
            ByteBuffer b = w.buffer();
            b.putLong(0, me).putLong(8, 0).putLong(16, 0).putLong(24, 0);
            // sequence 1: NOPRECEDE first
            w.fence(Win.MODE_NOPRECEDE);
            w.put(new long[] {1000 + me}, 1, Datatype.LONG, t, 1);
            w.fence(Win.MODE_NOSTORE); // no local stores since the last fence
            assertEquals(1000 + o, b.getLong(8), "put from epoch 1");
            // epoch with gets only: nobody puts into any window, nobody stored locally
            long[] got = new long[2];
            w.fence(Win.MODE_NOPUT | Win.MODE_NOSTORE);
            w.get(got, 2, Datatype.LONG, t, 0);
            w.fence(Win.MODE_NOSUCCEED | Win.MODE_NOPUT);
            assertEquals(t, got[0], "get word 0");
            assertEquals(1000 + me, got[1], "get word 1");
            // local store between sequences
            b.putLong(16, 7);
            // sequence 2: accumulate then put into a fresh word
            w.fence(Win.MODE_NOPRECEDE);
            w.accumulate(new long[] {me + 1}, 1, Datatype.LONG, t, 2, Op.SUM);
            w.fence(Win.MODE_NOSTORE);
            w.put(new long[] {-me}, 1, Datatype.LONG, t, 3);
            w.fence(Win.MODE_NOSUCCEED | Win.MODE_NOSTORE);
            assertEquals(7 + o + 1, b.getLong(16), "accumulate after local store");
            assertEquals(-o, b.getLong(24), "put in the last epoch");
            world.barrier();
            w.free();
        });
    }
}

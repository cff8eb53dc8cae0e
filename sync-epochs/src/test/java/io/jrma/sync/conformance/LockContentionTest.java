package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Passive-target lock semantics under contention. */
class LockContentionTest {
    static final int EPOCHS = 40;

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void exclusiveLockGetPutNoLostUpdate(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            Win w = Win.allocate(world, 8, 8, null);
            world.barrier();
            for (int i = 0; i < EPOCHS; i++) {
                int t = (me + i) % n; // every rank's counter is hammered by everyone
                w.lock(LockType.EXCLUSIVE, t, 0);
                long[] c = new long[1];
                w.get(c, 1, Datatype.LONG, t, 0);
                if (i % 2 == 0) {
                    w.flush(t);
                } else {
                    w.flushLocal(t);
                }
                w.put(new long[] {c[0] + 1}, 1, Datatype.LONG, t, 0);
                w.unlock(t);
            }
            world.barrier();
            w.sync();
            assertEquals(EPOCHS, w.buffer().getLong(0), "counter at rank " + me + " (n x EPOCHS / n)");
            world.barrier();
            w.free();
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void sharedReadersExclusiveWriters(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            // rank 0: words a and b; writers keep a == b with two separate puts inside an exclusive epoch
            Win w = Win.allocate(world, 16, 8, null);
            world.barrier();
            int writes = 0;
            for (int i = 0; i < EPOCHS; i++) {
                if ((i + me) % 3 == 0) {
                    w.lock(LockType.EXCLUSIVE, 0, 0);
                    long[] a = new long[1];
                    w.get(a, 1, Datatype.LONG, 0, 0);
                    w.flush(0);
                    w.put(new long[] {a[0] + 1}, 1, Datatype.LONG, 0, 0);
                    w.flush(0);
                    Thread.yield(); // widen the window in which a reader could see a != b
                    w.put(new long[] {a[0] + 1}, 1, Datatype.LONG, 0, 1);
                    w.unlock(0);
                    writes++;
                } else {
                    w.lock(LockType.SHARED, 0, 0);
                    long[] ab = new long[2];
                    w.get(ab, 2, Datatype.LONG, 0, 0);
                    w.unlock(0);
                    assertEquals(ab[0], ab[1], "shared reader saw a half-done exclusive epoch");
                }
            }
            long[] total = {writes};
            Win sum = Win.allocate(world, 8, 8, null);
            world.barrier();
            sum.lockAll(0);
            sum.accumulate(total, 1, Datatype.LONG, 0, 0, Op.SUM);
            sum.unlockAll();
            world.barrier();
            if (me == 0) {
                w.sync();
                sum.sync();
                long expected = sum.buffer().getLong(0);
                assertEquals(expected, w.buffer().getLong(0), "a = number of exclusive epochs");
                assertEquals(expected, w.buffer().getLong(8), "b = number of exclusive epochs");
            }
            world.barrier();
            sum.free();
            w.free();
        });
    }

    static Stream<Arguments> starvationCases() {
        List<Arguments> out = new ArrayList<>();
        for (String p : Ranks.PATHS) {
            for (int n : Ranks.SIZES) {
                for (LockType victim : LockType.values()) {
                    out.add(Arguments.of(p, n, victim));
                }
            }
        }
        return out.stream();
    }

    /**
     * Ranks 0..n-2 hammer exclusive locks on rank 0 until told to stop; rank n-1 must still complete a bounded
     * number of its own epochs (shared or exclusive) on rank 0 in bounded time.
     */
    @ParameterizedTest(name = "{0} n={1} victim={2}")
    @MethodSource("starvationCases")
    @Timeout(30)
    void noStarvation(String path, int n, LockType victimType) {
        int victimEpochs = 20;
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int victim = n - 1;
            // rank 0: word 0 = stop flag, word 1 = hammer count, word 2 = victim count
            Win w = Win.allocate(world, 24, 8, null);
            world.barrier();
            if (me != victim) {
                long epochs = 0;
                while (true) {
                    w.lock(LockType.EXCLUSIVE, 0, 0);
                    long[] f = new long[2];
                    w.get(f, 2, Datatype.LONG, 0, 0);
                    w.flush(0);
                    w.put(new long[] {f[1] + 1}, 1, Datatype.LONG, 0, 1);
                    w.unlock(0);
                    epochs++;
                    if (f[0] != 0) {
                        break;
                    }
                    assertTrue(epochs < 2_000_000, "hammer never saw the stop flag");
                }
            } else {
                // let the hammers get going first
                Thread.sleep(20);
                long t0 = System.nanoTime();
                for (int i = 0; i < victimEpochs; i++) {
                    w.lock(victimType, 0, 0);
                    long[] c = new long[1];
                    w.get(c, 1, Datatype.LONG, 0, 2);
                    w.flush(0);
                    if (victimType == LockType.EXCLUSIVE) {
                        w.put(new long[] {c[0] + 1}, 1, Datatype.LONG, 0, 2);
                    } else {
                        w.accumulate(new long[] {1}, 1, Datatype.LONG, 0, 2, Op.SUM);
                    }
                    w.unlock(0);
                }
                long ms = (System.nanoTime() - t0) / 1_000_000;
                w.lock(LockType.EXCLUSIVE, 0, 0);
                w.put(new long[] {1}, 1, Datatype.LONG, 0, 0);
                w.unlock(0);
                assertTrue(ms < 8_000, "victim needed " + ms + " ms for " + victimEpochs + " epochs");
            }
            world.barrier();
            if (me == 0) {
                w.sync();
                assertEquals(victimEpochs, w.buffer().getLong(16), "victim's epochs all applied");
            }
            world.barrier();
            w.free();
        });
    }
}

package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Asynchronous progress: passive-target operations to a rank that computes without calling jrma complete
 * while it computes.
 */
class ProgressTest {
    static volatile long sink;

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(30)
    void passiveTargetCompletesWhileTargetComputes(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            long originStart = 0;
            long originDone = 0;
            Win w = Win.allocate(world, 40, 8, null);
            Ranks.assertPath(w, path);
            w.buffer().putLong(16, 4242);
            world.barrier();
            if (me == 1) {
                long end = System.nanoTime() + 300_000_000L;
                long x = 1;
                while (System.nanoTime() < end) { // compute, no jrma calls
                    for (int i = 0; i < 1000; i++) {
                        x = x * 6364136223846793005L + 1442695040888963407L;
                    }
                }
                sink = x;
                w.buffer().putLong(24, System.nanoTime()); // end of the computation (monotonic clock: host-wide)
                w.sync();
            } else if (me == 0) {
                Thread.sleep(20); // make sure rank 1 is computing
                originStart = System.nanoTime();
                w.lock(LockType.EXCLUSIVE, 1, 0);
                w.put(new long[] {77}, 1, Datatype.LONG, 1, 0);
                w.accumulate(new long[] {5}, 1, Datatype.LONG, 1, 1, Op.SUM);
                w.unlock(1);
                w.lock(LockType.SHARED, 1, 0);
                long[] got = new long[3];
                w.get(got, 3, Datatype.LONG, 1, 0);
                w.unlock(1);
                w.lockAll(0);
                long fa = w.fetchAndAddLong(1, 1, 1);
                w.unlockAll();
                originDone = System.nanoTime();
                assertEquals(77, got[0], "put then get");
                assertEquals(5, got[1], "accumulate then get");
                assertEquals(4242, got[2], "target's initial data");
                assertEquals(5, fa, "fetch-and-add");
            }
            world.barrier();
            if (me == 1) {
                w.sync();
                assertEquals(6, w.buffer().getLong(8), "final accumulate value");
            }
            world.barrier();
            if (me == 0) {
                long[] busy = new long[1];
                w.lock(LockType.SHARED, 1, 0);
                w.get(busy, 1, Datatype.LONG, 1, 3);
                w.unlock(1);
                assertTrue(originDone < busy[0],
                        "rank 0's epochs to rank 1 finished " + (originDone - busy[0]) / 1_000_000
                        + " ms after rank 1 stopped computing (started " + (busy[0] - originStart) / 1_000_000
                        + " ms before the end of the computation)");
            }
            world.barrier();
            w.free();
        });
    }
}

package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Datatype;
import io.jrma.Op;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Several threads of one rank issue accumulates and flushes on one window inside one lock_all epoch. */
class MultiThreadedRankTest {
    static final int THREADS = 4;
    static final int K = 100;

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(40)
    void threadsAccumulateAndFlush(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            // word 0: long SUM from everyone; word 1: double SUM; word 2+: per-thread tickets counter
            Win w = Win.allocate(world, 8 * 4, 8, null);
            Ranks.assertPath(w, path);
            world.barrier();
            w.lockAll(0);
            AtomicReference<Throwable> err = new AtomicReference<>();
            List<Thread> ts = new ArrayList<>();
            for (int th = 0; th < THREADS; th++) {
                final int tid = th;
                Thread t = new Thread(() -> {
                    try {
                        for (int i = 0; i < K; i++) {
                            int target = (me + tid + i) % n;
                            w.accumulate(new long[] {1}, 1, Datatype.LONG, target, 0, Op.SUM);
                            w.accumulate(new double[] {0.5}, 1, Datatype.DOUBLE, target, 1, Op.SUM);
                            long[] r = new long[1];
                            w.getAccumulate(new long[] {2}, 1, Datatype.LONG, r, 1, Datatype.LONG, target, 2, 1,
                                    Datatype.LONG, Op.SUM);
                            switch (i % 4) {
                                case 0 -> w.flush(target);
                                case 1 -> w.flushAll();
                                case 2 -> w.flushLocal(target);
                                default -> w.flushLocalAll();
                            }
                            if (r[0] % 2 != 0 || r[0] < 0) {
                                throw new AssertionError("get_accumulate result " + r[0] + " is not a sum of 2s");
                            }
                        }
                    } catch (Throwable e) {
                        err.compareAndSet(null, e);
                    }
                }, "rank" + me + "-worker" + th);
                ts.add(t);
                t.start();
            }
            for (Thread t : ts) {
                t.join();
            }
            if (err.get() != null) {
                throw new AssertionError("worker thread failed", err.get());
            }
            w.unlockAll();
            world.barrier();
            w.sync();
            // each target receives, over all ranks and threads, n * THREADS * K / n updates (targets rotate)
            long total = (long) THREADS * K;
            long[] counts = new long[n];
            for (int r = 0; r < n; r++) {
                for (int th = 0; th < THREADS; th++) {
                    for (int i = 0; i < K; i++) {
                        counts[(r + th + i) % n]++;
                    }
                }
            }
            assertEquals(counts[me], w.buffer().getLong(0),
                    "long SUM at rank " + me + " (total per rank " + total + ")");
            assertEquals(counts[me] * 0.5, w.buffer().getDouble(8), "double SUM at rank " + me);
            assertEquals(counts[me] * 2, w.buffer().getLong(16), "get_accumulate SUM at rank " + me);
            world.barrier();
            w.free();
        });
    }

    /**
     * One thread of a rank keeps issuing gets, without a synchronization call of its own, while another flushes
     * locally; then the first waits for the second. A local flush must not wait for a get another thread queued
     * after the flush sent the queue: under lazy issue that get stays queued until its thread synchronizes, so the
     * rank deadlocked (found by the soak, docs/soak.md, in its two-thread lock_all rounds over JVMs).
     */
    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(60)
    void localFlushDoesNotWaitForAnotherThreadsLaterGets(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            ByteBuffer mem = Ranks.direct(64);
            mem.putLong(0, 1000 + me);
            Win w = Win.create(world, mem, 8, null); // private memory: packets between JVMs
            world.barrier();
            w.lockAll(0);
            AtomicBoolean issuing = new AtomicBoolean(true);
            AtomicReference<Throwable> err = new AtomicReference<>();
            Thread flusher = new Thread(() -> {
                try {
                    for (int i = 0; issuing.get(); i++) {
                        if (i % 2 == 0) {
                            w.flushLocal(t);
                        } else {
                            w.flushLocalAll();
                        }
                    }
                } catch (Throwable e) {
                    err.compareAndSet(null, e);
                }
            }, "rank" + me + "-flusher");
            flusher.start();
            long[][] got = new long[4000][1];
            for (long[] g : got) {
                w.get(g, 1, Datatype.LONG, t, 0);
            }
            issuing.set(false);
            flusher.join();
            if (err.get() != null) {
                throw new AssertionError("flushing thread failed", err.get());
            }
            w.unlockAll();
            for (long[] g : got) {
                assertEquals(1000 + t, g[0], "get from rank " + t);
            }
            world.barrier();
            w.free();
        });
    }
}

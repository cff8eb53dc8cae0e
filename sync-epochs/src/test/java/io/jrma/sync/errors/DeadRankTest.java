package io.jrma.sync.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.RmaException;
import io.jrma.Win;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A rank that throws while the others wait in fence, in lock (a lock the dead rank holds) or in a barrier: the
 * job ends within seconds with a JobFailedException naming that rank, the waiters get ERR_PROC_ABORTED.
 */
class DeadRankTest {
    private static final long FAST_MS = 15_000;

    @FunctionalInterface
    interface Waiter {
        void run(Comm world, Win w) throws Exception;
    }

    private static void deadRank(String path, int nranks, int dead, Waiter beforeDeath, Waiter others) {
        ConcurrentHashMap<Integer, ErrorClass> waitersGot = new ConcurrentHashMap<>();
        long t0 = System.nanoTime();
        Jrma.JobFailedException e = assertThrows(Jrma.JobFailedException.class, () ->
                Jrma.job(nranks).param("jrma.path", path).timeout(Duration.ofSeconds(45)).run(world -> {
                    Win w = Win.allocate(world, 64, 8, null);
                    world.barrier();
                    if (world.rank() == dead) {
                        beforeDeath.run(world, w);
                        Thread.sleep(300); // let the others block
                        throw new IllegalStateException("rank " + dead + " dies on purpose");
                    }
                    try {
                        others.run(world, w);
                    } catch (RmaException x) {
                        waitersGot.put(world.rank(), x.errorClass());
                        throw x;
                    }
                }));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < FAST_MS, "the job should end within seconds, took " + ms + " ms");
        assertEquals(dead, e.failedRank(), e.getMessage());
        assertTrue(e.getMessage().contains("rank " + dead), e.getMessage());
        assertTrue(e.getCause() instanceof IllegalStateException, "cause: " + e.getCause());
        assertEquals(nranks - 1, waitersGot.size(), "every waiter failed with an exception: " + waitersGot);
        waitersGot.forEach((r, c) -> assertEquals(ErrorClass.ERR_PROC_ABORTED, c, "rank " + r));
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void othersInFence(String path) {
        deadRank(path, 3, 2, (world, w) -> { }, (world, w) -> {
            w.fence(0);
            w.put(new long[] {1}, 1, Datatype.LONG, 2, world.rank());
            w.fence(0);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void othersInBarrier(String path) {
        deadRank(path, 4, 1, (world, w) -> { }, (world, w) -> world.barrier());
    }

    /** Rank 1 holds an exclusive lock on rank 2 and dies; rank 0 waits for that lock; rank 2 waits in a barrier. */
    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void othersInLockHeldByDeadRank(String path) {
        deadRank(path, 3, 1, (world, w) -> {
            w.lock(LockType.EXCLUSIVE, 2, 0);
            w.put(new long[] {11}, 1, Datatype.LONG, 2, 0);
            w.flush(2); // the lock is really held now, on both paths
            world.barrier();
        }, (world, w) -> {
            world.barrier();
            if (world.rank() == 0) {
                w.lock(LockType.EXCLUSIVE, 2, 0);
                w.put(new long[] {22}, 1, Datatype.LONG, 2, 1);
                w.flush(2); // blocks: rank 1 holds the lock
                w.unlock(2);
            }
            world.barrier();
        });
    }
}

package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.RmaException;
import io.jrma.Win;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Passive-target lock and unlock take no epoch-wide mutex: the target's mode word is the claim, and the access
 * state stays "lock" after the last unlock, meaning no epoch. Every epoch rule must still hold around that: no
 * operation or flush once every target is unlocked, other epoch kinds open again, a second lock of a target is
 * refused and leaves the first intact, a refused lock leaves nothing claimed, and threads of a rank lock and
 * unlock different targets at once.
 */
class PassiveTargetStateTest {

    private static void assertSync(Runnable call, String what) {
        RmaException e = assertThrows(RmaException.class, call::run, what);
        assertEquals(ErrorClass.ERR_RMA_SYNC, e.errorClass(), what + ": " + e.getMessage());
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(30)
    void epochRulesHoldAroundLockAndUnlock(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            Win w = Win.allocate(world, 64, 8, null);
            w.lock(LockType.SHARED, t, 0);
            w.put(new long[] {me}, 1, Datatype.LONG, t, me % 8, 1, Datatype.LONG);
            assertSync(() -> w.lock(LockType.EXCLUSIVE, t, 0), "a second lock of a locked target");
            w.put(new long[] {me}, 1, Datatype.LONG, t, me % 8, 1, Datatype.LONG); // the first lock is intact
            w.unlock(t);
            // every target unlocked: no access epoch, whatever the state word says
            assertSync(() -> w.put(new long[] {1}, 1, Datatype.LONG, t, 0, 1, Datatype.LONG), "put after unlock");
            assertSync(w::flushAll, "flush_all after unlock");
            assertSync(() -> w.flush(t), "flush after unlock");
            assertSync(() -> w.unlock(t), "a second unlock");
            RmaException e = assertThrows(RmaException.class,
                    () -> w.put(new long[] {1}, 1, Datatype.LONG, t, 0, 1, Datatype.LONG));
            assertTrue(e.getMessage().contains("access epoch NONE"),
                    "the state is reported as no epoch: " + e.getMessage());
            // other epoch kinds open again; a lock inside them is refused and claims nothing
            w.lockAll(0);
            assertSync(() -> w.lock(LockType.SHARED, t, 0), "lock inside lock_all");
            w.unlockAll();
            w.fence(0);
            w.put(new long[] {1}, 1, Datatype.LONG, t, 0, 1, Datatype.LONG);
            assertSync(() -> w.lock(LockType.SHARED, t, 0), "lock inside a fence epoch with operations");
            w.fence(Win.MODE_NOSUCCEED);
            w.lock(LockType.EXCLUSIVE, t, 0); // the refused locks left the target free
            w.put(new long[] {7 + me}, 1, Datatype.LONG, t, 1, 1, Datatype.LONG);
            w.unlock(t);
            world.barrier();
            w.lock(LockType.SHARED, me, 0);
            long[] got = new long[1];
            w.get(got, 1, Datatype.LONG, me, 1, 1, Datatype.LONG);
            w.unlock(me);
            assertEquals(7 + (me + n - 1) % n, got[0], "the exclusive epoch's put");
            world.barrier();
            w.free();
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(60)
    void threadsOfARankLockDifferentTargetsAtOnce(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int rounds = 300;
            Win w = Win.allocate(world, 8L * n, 8, null);
            world.barrier();
            AtomicReference<Throwable> err = new AtomicReference<>();
            List<Thread> ts = new ArrayList<>();
            for (int th = 0; th < n; th++) {
                final int target = th; // one thread per target: no two threads of the rank lock the same one
                Thread x = new Thread(() -> {
                    try {
                        for (int i = 0; i < rounds; i++) {
                            w.lock(i % 2 == 0 ? LockType.EXCLUSIVE : LockType.SHARED, target, 0);
                            w.accumulate(new long[] {1}, 1, Datatype.LONG, target, me, Op.SUM);
                            w.unlock(target);
                        }
                    } catch (Throwable e) {
                        err.compareAndSet(null, e);
                    }
                }, "rank" + me + "-locker" + th);
                ts.add(x);
                x.start();
            }
            for (Thread x : ts) {
                try {
                    x.join();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
            if (err.get() != null) {
                throw new AssertionError("a locking thread failed", err.get());
            }
            world.barrier();
            for (int o = 0; o < n; o++) {
                assertEquals(rounds, w.buffer().getLong(8 * o), "accumulates from rank " + o);
            }
            assertSync(() -> w.put(new long[] {1}, 1, Datatype.LONG, 0, 0, 1, Datatype.LONG),
                    "no epoch once all threads unlocked");
            world.barrier();
            w.free();
        });
    }
}

package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The epoch mutex: mutual exclusion under contention, re-entry, owner checks, wake-up of parked waiters. */
class EpochMutexTest {

    @Test
    @Timeout(60)
    void contendingThreadsNeverOverlapAndLoseNoUpdate() throws Exception {
        EpochMutex m = new EpochMutex();
        int threads = 4;
        int rounds = 20_000;
        long[] counter = {0};
        AtomicBoolean inside = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    for (int r = 0; r < rounds; r++) {
                        m.lock();
                        try {
                            if (!inside.compareAndSet(false, true)) {
                                throw new AssertionError("two threads inside the mutex");
                            }
                            counter[0]++; // plain: only the mutex orders these
                            if ((r & 1023) == 0) {
                                Thread.yield(); // let others pile up and park
                            }
                            inside.set(false);
                        } finally {
                            m.unlock();
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            ts.add(t);
            t.start();
        }
        for (Thread t : ts) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        m.lock();
        try {
            assertEquals((long) threads * rounds, counter[0]);
        } finally {
            m.unlock();
        }
    }

    @Test
    void reentryNeedsAsManyUnlocksAndOthersMayNotUnlock() throws Exception {
        EpochMutex m = new EpochMutex();
        m.lock();
        m.lock();
        assertTrue(m.isHeldByCurrentThread());
        AtomicReference<Throwable> other = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                m.unlock();
            } catch (Throwable e) {
                other.set(e);
            }
        });
        t.start();
        t.join();
        assertTrue(other.get() instanceof IllegalMonitorStateException, "a non-owner's unlock: " + other.get());
        m.unlock();
        assertTrue(m.isHeldByCurrentThread(), "one hold left");
        m.unlock();
        assertFalse(m.isHeldByCurrentThread());
        assertThrows(IllegalMonitorStateException.class, m::unlock, "unlock of a free mutex");
    }

    @Test
    @Timeout(30)
    void aParkedWaiterGetsTheMutexSoonAfterALongHoldAndKeepsItsInterrupt() throws Exception {
        EpochMutex m = new EpochMutex();
        m.lock();
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        long[] gotAt = {0};
        Thread waiter = new Thread(() -> {
            started.countDown();
            m.lock(); // parks: the hold below lasts far longer than the spin
            gotAt[0] = System.nanoTime();
            interruptedAfter.set(Thread.currentThread().isInterrupted());
            m.unlock();
        });
        waiter.start();
        started.await();
        Thread.sleep(50);
        waiter.interrupt(); // must neither end the wait nor get lost
        Thread.sleep(50);
        assertTrue(waiter.isAlive(), "the waiter must still wait while the mutex is held");
        long releasedAt = System.nanoTime();
        m.unlock();
        waiter.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(waiter.isAlive(), "the waiter never got the mutex");
        assertTrue(interruptedAfter.get(), "the interrupt status was lost");
        long ms = TimeUnit.NANOSECONDS.toMillis(gotAt[0] - releasedAt);
        assertTrue(ms < 1_000, "the waiter took " + ms + " ms to get a released mutex (bound: one park, "
                + TimeUnit.NANOSECONDS.toMillis(EpochMutex.MAX_PARK_NS) + " ms, plus scheduling)");
    }
}

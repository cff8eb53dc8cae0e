package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.mem.Memory;
import io.jrma.core.os.Futex;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.WaitPolicy;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The sleeper protocol of a window's synchronization state: a signal nobody waits for leaves the wake
 * sequence alone (no atomic, no system call), and a waiter asleep on it is woken by the next signal at once,
 * long before its own timeout.
 */
class TargetStateTest {
    private static final long SEQ = 24;
    private static final long SLEEPERS = 28;

    @Test
    void aSignalWithoutSleepersLeavesTheWakeSequenceAlone() {
        TargetState ts = new TargetState(2);
        try {
            int before = Memory.getIntVolatile(null, ts.address() + SEQ);
            ts.fenceArrived(0);
            ts.postArrived(1);
            ts.lockWord.releaseShared(); // readers -1: a release with nobody asleep
            assertEquals(before, Memory.getIntVolatile(null, ts.address() + SEQ));
            int seen = ts.prepareSleep();
            assertEquals(1, Memory.getIntVolatile(null, ts.address() + SLEEPERS));
            ts.completeArrived(0); // now a sleeper is counted: the sequence moves, so a late futex wait returns
            assertTrue(Memory.getIntVolatile(null, ts.address() + SEQ) != seen);
            ts.cancelSleep();
            assertEquals(0, Memory.getIntVolatile(null, ts.address() + SLEEPERS));
        } finally {
            ts.release();
        }
    }

    /**
     * A sleeper that counted itself before its last look at the state is woken by a signal that comes at any
     * moment after that look: before its futex wait (the wait returns at once, the sequence moved) or during it.
     * Each sleep asks for 10 s, so a lost wake-up fails the round.
     */
    @Test
    @Timeout(60)
    void aSleeperIsWokenByTheNextSignalWhereverItIs() throws Exception {
        Assumptions.assumeTrue(Futex.available(), "futex waits need Linux and JNA");
        TargetState ts = new TargetState(2);
        try {
            for (int round = 0; round < 40; round++) {
                long want = round + 1;
                AtomicLong wokenAt = new AtomicLong(-1);
                Thread sleeper = new Thread(() -> {
                    while (ts.fenceCount(0) < want) {
                        int seen = ts.prepareSleep();
                        if (ts.fenceCount(0) >= want) {
                            ts.cancelSleep();
                            break;
                        }
                        ts.sleep(seen, 10_000_000_000L);
                    }
                    wokenAt.set(System.nanoTime());
                });
                sleeper.start();
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (Memory.getIntVolatile(null, ts.address() + SLEEPERS) == 0) {
                    assertTrue(System.nanoTime() < deadline, "the sleeper never counted itself");
                    Thread.onSpinWait();
                }
                if (round % 4 == 1) {
                    Thread.sleep(5); // well inside its futex wait
                } else if (round % 4 == 2) {
                    for (int i = 0; i < round * 50; i++) {
                        Thread.onSpinWait(); // around the moment it enters the wait
                    }
                }
                long signalledAt = System.nanoTime();
                ts.fenceArrived(0);
                sleeper.join(5_000);
                assertTrue(wokenAt.get() > 0, "round " + round + ": the sleeper slept through the signal");
                assertTrue(wokenAt.get() - signalledAt < 2_000_000_000L, "round " + round + ": woken "
                        + (wokenAt.get() - signalledAt) / 1_000_000 + " ms after the signal");
            }
        } finally {
            ts.release();
        }
    }

    /** The same through the waiting policy the window engine uses: no spinning, parks of up to 10 s. */
    @Test
    @Timeout(30)
    void aWaitThatWentToSleepEndsAtTheSignal() throws Exception {
        Assumptions.assumeTrue(Futex.available(), "futex waits need Linux and JNA");
        TargetState ts = new TargetState(2);
        Job job = new Job(2, Map.of());
        WaitPolicy sleepy = new WaitPolicy(0, 0, 10_000_000_000L);
        AtomicLong wokenAt = new AtomicLong(-1);
        try {
            Thread waiter = new Thread(() -> {
                sleepy.await(job, () -> ts.fenceCount(1) >= 1, ts, false);
                wokenAt.set(System.nanoTime());
            });
            waiter.start();
            Thread.sleep(1_500); // by now its parks have grown to about a second each
            long signalledAt = System.nanoTime();
            ts.fenceArrived(1);
            waiter.join(15_000);
            assertTrue(wokenAt.get() > 0, "the wait never ended");
            assertTrue(wokenAt.get() - signalledAt < 300_000_000L, "woken " + (wokenAt.get() - signalledAt) / 1_000_000
                    + " ms after the signal (a timed park, not the wake-up)");
        } finally {
            ts.release();
        }
    }
}

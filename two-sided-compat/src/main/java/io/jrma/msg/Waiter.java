package io.jrma.msg;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread waits for messages: it spins (each round drives the messenger's progress), then yields, then
 * parks for intervals growing from 1 µs to a ceiling, as Lockless MPI and TMPI do when ranks may outnumber
 * cores. Any round that found work starts over with spinning. Every yield or park round (and every 256th spin)
 * checks the job, so a wait never outlives a failed rank. When every peer of the messenger stores into this
 * rank's inbox directly, a park is a sleep on the inbox's futex word instead, which the next message or credit
 * ends at once (a timed park alone would sleep out Linux's timer slack, ~50 µs, on every wait that gets there).
 *
 * <p>A waiter may also spin for a time ({@code spinNs}) whatever the round count: the collectives' waiter spins
 * that long before it yields (see {@link Collectives}), since a yield or a park on a loaded core hands the core
 * away for a scheduler slice, which then sits in the critical path of every rank waiting for this one.
 *
 * <p>One per wait call ({@link #reset} makes it reusable for the next); used by one thread.
 */
final class Waiter {
    private final int spins;
    private final int yields;
    private final long maxParkNs;
    private final long spinNs;
    private long round;
    private long parkNs = 1_000;
    /** When the current spin phase began (nanoTime), 0 until the first idle round that uses it. */
    private long spinStart;
    /** Spin rounds, for checking the job now and then. */
    private long ticks;

    Waiter(int spins, int yields, long maxParkNs) {
        this(spins, yields, maxParkNs, 0);
    }

    Waiter(int spins, int yields, long maxParkNs, long spinNs) {
        this.spins = spins;
        this.yields = yields;
        this.maxParkNs = Math.max(1_000, maxParkNs);
        this.spinNs = Math.max(0, spinNs);
    }

    /** Starts a new wait. */
    void reset() {
        round = 0;
        parkNs = 1_000;
        spinStart = 0;
    }

    /** Whether the spin phase lasts on: fewer than {@code spins} rounds, or less than {@code spinNs} spent spinning. */
    private boolean spinning() {
        if (round <= spins) {
            return true;
        }
        if (spinNs == 0) {
            return false;
        }
        long now = System.nanoTime();
        if (spinStart == 0) {
            spinStart = now;
        }
        if (now - spinStart < spinNs) {
            round = spins; // stay in the spin phase; yields count from its end
            return true;
        }
        return false;
    }

    /** Idles once after a progress round that did {@code work} units of work. */
    void idle(int work, Messenger m) {
        work += m.progressOthers(); // MPI's progress rule: the rank's other communicators' operations too
        if (work > 0) {
            round = 0;
            parkNs = 1_000;
            spinStart = 0;
            return;
        }
        round++;
        if (spinning()) {
            Thread.onSpinWait();
            if ((++ticks & 255) == 0) {
                m.checkLive();
            }
        } else if (round <= spins + yields) {
            Thread.yield();
            m.checkLive();
        } else {
            m.checkLive();
            if (!m.sleep(parkNs)) { // woken by the next message or credit when every peer stores directly
                LockSupport.parkNanos(parkNs);
            }
            parkNs = Math.min(maxParkNs, parkNs * 2);
        }
    }
}

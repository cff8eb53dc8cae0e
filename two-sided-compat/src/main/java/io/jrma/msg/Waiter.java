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
 * <p>One per wait call; used by one thread.
 */
final class Waiter {
    private final int spins;
    private final int yields;
    private final long maxParkNs;
    private long round;
    private long parkNs = 1_000;

    Waiter(int spins, int yields, long maxParkNs) {
        this.spins = spins;
        this.yields = yields;
        this.maxParkNs = Math.max(1_000, maxParkNs);
    }

    /** Idles once after a progress round that did {@code work} units of work. */
    void idle(int work, Messenger m) {
        work += m.progressOthers(); // MPI's progress rule: the rank's other communicators' operations too
        if (work > 0) {
            round = 0;
            parkNs = 1_000;
            return;
        }
        round++;
        if (round <= spins) {
            Thread.onSpinWait();
            if ((round & 255) == 0) {
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

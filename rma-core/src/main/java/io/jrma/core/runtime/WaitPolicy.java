package io.jrma.core.runtime;

import io.jrma.RmaException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How a thread waits inside the library: it spins (driving the progress agent), then yields, then parks for
 * growing intervals, as Lockless MPI and TMPI do when ranks may outnumber cores. Every round checks whether
 * the job was aborted, so a wait never outlives a failed rank.
 *
 * <p>Immutable; any thread.
 */
public final class WaitPolicy {
    /** Spin rounds between two looks at the clock (a look costs ~20 ns; a round, 40 ns to a system call). */
    private static final int CLOCK_EVERY = 64;

    private final long spins;
    private final long yields;
    private final long maxParkNs;
    private final long spinNs;

    public WaitPolicy(long spins, long yields, long maxParkNs) {
        this(spins, yields, maxParkNs, Long.MAX_VALUE);
    }

    /**
     * {@code spinNs} bounds the spinning phase in time as well as in rounds: a round that polls a TCP connection is a
     * read system call (1-2 µs), so 2,000 rounds held a core for milliseconds, while the peer that would answer waited
     * for one (2 cores under load).
     */
    public WaitPolicy(long spins, long yields, long maxParkNs, long spinNs) {
        this.spins = spins;
        this.yields = yields;
        this.maxParkNs = Math.max(1_000, maxParkNs);
        this.spinNs = spinNs <= 0 ? Long.MAX_VALUE : spinNs;
    }

    /**
     * Waits until {@code done} is true, driving progress meanwhile.
     *
     * @throws RmaException if the job is aborted while waiting
     */
    public void await(Job job, BooleanSupplier done) {
        await(job, done, null);
    }

    /**
     * Waits until {@code done} is true, driving progress meanwhile; once it would park, it sleeps on
     * {@code sleeper} (when not null) so that a signal from any thread or process wakes it at once.
     *
     * @throws RmaException if the job is aborted while waiting
     */
    public void await(Job job, BooleanSupplier done, Sleeper sleeper) {
        await(job, done, sleeper, true);
    }

    /**
     * {@link #await(Job, BooleanSupplier, Sleeper)}; with {@code needsProgress} false the condition is
     * memory that other threads or processes store into (a window whose peers are all direct), so the waiter
     * only spins on it: a duty cycle of the agent costs a read syscall per TCP connection, several times a
     * direct-path signal's latency, and the progress thread keeps serving the transports meanwhile. Without
     * a progress thread ({@code jrma.progress=caller}) waiters always drive progress: a peer may be waiting
     * for this JVM to apply its packets to another window before it signals.
     */
    public void await(Job job, BooleanSupplier done, Sleeper sleeper, boolean needsProgress) {
        if (done.getAsBoolean()) {
            return;
        }
        boolean drive = job.callersProgress() && (needsProgress || !job.hasProgressThread());
        AtomicInteger spinning = job.agent().spinningCallers();
        boolean polling = drive;
        if (polling) {
            spinning.incrementAndGet(); // while we poll, the progress thread stays out of the selector
        }
        try {
            long round = 0;
            long parkNs = 1_000;
            long spinStart = 0;
            while (!done.getAsBoolean()) {
                int work = drive ? job.agent().tryProgress() : 0;
                if (work > 0) {
                    round = 0;
                    spinStart = 0;
                    parkNs = 1_000;
                    if (drive && !polling) { // work again after a park: poll again, the progress thread backs off
                        polling = true;
                        spinning.incrementAndGet();
                    }
                    continue;
                }
                round++;
                if (round <= spins) {
                    Thread.onSpinWait();
                    if ((round & (CLOCK_EVERY - 1)) == 1) {
                        long now = System.nanoTime();
                        if (spinStart == 0) {
                            spinStart = now;
                        } else if (now - spinStart > spinNs) {
                            round = spins; // spun long enough: yield from the next round on
                        }
                    }
                    if ((round & 1023) == 0) {
                        job.checkAborted();
                    }
                } else if (round <= spins + yields) {
                    Thread.yield();
                    job.checkAborted();
                } else {
                    job.checkAborted();
                    if (polling) {
                        polling = false;
                        if (spinning.decrementAndGet() == 0) { // parking: the progress thread watches the sockets again
                            job.agent().pollingStopped();
                            job.wakeProgressThread();
                        }
                    }
                    if (sleeper != null) {
                        int seen = sleeper.prepareSleep(); // counted as a sleeper before the last look
                        if (done.getAsBoolean()) {
                            sleeper.cancelSleep();
                            break;
                        }
                        sleeper.sleep(seen, parkNs);
                    } else {
                        // woken early by the progress agent when it does work (a reply may complete us)
                        job.agent().parking();
                        try {
                            if (done.getAsBoolean()) {
                                break;
                            }
                            LockSupport.parkNanos(parkNs);
                        } finally {
                            job.agent().unparked();
                        }
                    }
                    parkNs = Math.min(maxParkNs, parkNs * 2);
                }
            }
        } finally {
            if (polling) {
                job.agent().callerPolled();
                spinning.decrementAndGet();
            }
        }
    }
}

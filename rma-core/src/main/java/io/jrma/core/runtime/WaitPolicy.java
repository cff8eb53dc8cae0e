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
    private final long spins;
    private final long yields;
    private final long maxParkNs;

    public WaitPolicy(long spins, long yields, long maxParkNs) {
        this.spins = spins;
        this.yields = yields;
        this.maxParkNs = Math.max(1_000, maxParkNs);
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
            while (!done.getAsBoolean()) {
                int work = drive ? job.agent().tryProgress() : 0;
                if (work > 0) {
                    round = 0;
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

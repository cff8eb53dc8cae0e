package io.jrma.transport.ucx;

import java.util.concurrent.locks.LockSupport;

/**
 * The ucx transport's doorbell: a daemon thread that, while the progress thread sleeps with the worker's event
 * descriptor armed ({@code ucp_worker_arm}), polls the descriptor and wakes the sleeper when UCX has an event.
 *
 * <p>Threads: {@link #arm} and {@link #disarm} from the progress thread; {@link #stop} from any.
 */
final class UcxDoorbell {
    /** How long one poll of the descriptor lasts at most (the thread then looks whether it must stop). */
    private static final int POLL_MS = 100;

    /** The worker's event descriptor ({@link UcxWorker#eventFd}). */
    private final int eventFd;
    private final UcxCounters counters;
    /** Wakes the sleeping progress thread. */
    private final Runnable wake;
    private final Thread thread;
    /** Set by the progress thread once it armed the descriptor and is about to sleep; cleared by either thread. */
    private volatile boolean armed;
    private volatile boolean stopped;

    UcxDoorbell(int eventFd, UcxCounters counters, Runnable wake) {
        this.eventFd = eventFd;
        this.counters = counters;
        this.wake = wake;
        this.thread = new Thread(this::ring, "jrma-ucx-doorbell");
        thread.setDaemon(true);
        thread.start();
    }

    /** The progress thread armed the descriptor and is about to sleep: watch it. */
    void arm() {
        armed = true;
        LockSupport.unpark(thread);
    }

    /** Whether the descriptor is still armed (no event rang the doorbell yet). */
    boolean armed() {
        return armed;
    }

    /** The progress thread is awake again. */
    void disarm() {
        armed = false;
    }

    /** Ends the thread (within {@link #POLL_MS}). */
    void stop() {
        stopped = true;
        LockSupport.unpark(thread);
    }

    private void ring() {
        while (!stopped) {
            if (!armed) {
                LockSupport.park(this);
                continue;
            }
            if (Env.readable(eventFd, POLL_MS) && armed) {
                armed = false;
                counters.doorbells.incrementAndGet();
                wake.run();
            }
        }
    }
}

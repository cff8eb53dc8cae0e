package io.jrma.core.runtime;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * State shared by the members of one communicator in this JVM for control-plane collectives: an all-gather
 * of object references built on a generation barrier. The last rank to arrive publishes the gathered array,
 * bumps the generation (volatile store, release: publishes the array) and unparks the others, who wait on
 * the generation (acquire) spinning, then parking.
 *
 * <p>Thread-safe for one call per member at a time (MPI's collective rule).
 */
public final class CollectiveState {
    private final int size;
    private final Object[] slots;
    /** Threads that may be parked, published (volatile) so the releaser is sure to see and unpark them. */
    private final AtomicReferenceArray<Thread> waiting;
    private final AtomicInteger arrived = new AtomicInteger();
    private volatile Object[] published;
    private volatile long generation;

    public CollectiveState(int size) {
        this.size = size;
        this.slots = new Object[size];
        this.waiting = new AtomicReferenceArray<>(size);
    }

    public int size() {
        return size;
    }

    /** Every member contributes {@code value}; every member gets all values in rank order. */
    public Object[] allgather(Job job, int rank, Object value) {
        long gen = generation;
        slots[rank] = value;
        if (arrived.incrementAndGet() == size) {
            published = slots.clone();
            Arrays.fill(slots, null);
            arrived.set(0);
            generation = gen + 1; // release: published and the reset are visible to every waiter
            for (int i = 0; i < size; i++) {
                Thread t = waiting.get(i);
                if (t != null) {
                    LockSupport.unpark(t);
                }
            }
            return published;
        }
        waiting.set(rank, Thread.currentThread()); // before the waiter's re-checks of generation
        try {
            job.waitPolicy().await(job, () -> generation != gen);
        } finally {
            waiting.set(rank, null);
        }
        return published;
    }

    /** A barrier: {@link #allgather} of nothing. */
    public void barrier(Job job, int rank) {
        allgather(job, rank, null);
    }
}

package io.jrma.sync;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The reentrant mutex under which a rank's threads change its epoch state ({@link Epochs}).
 *
 * <p>Taking it uncontended is one compare-and-set of a {@code long} (the owner's thread id); giving it back is a
 * release store and a plain look at the waiter count. {@link java.util.concurrent.locks.ReentrantLock} costs
 * two more full fences per take and give-back on x86: its release is a volatile store, and it stores the owner
 * {@code Thread} as a reference, which under G1 runs the card-marking post-write barrier, whose StoreLoad fence
 * is taken whenever the lock and the thread sit in different heap regions (the usual case: an old lock, a
 * thread object allocated elsewhere). A passive-target epoch takes the mutex twice (lock, unlock), and MPI's
 * ordering needs none of those fences: the epoch's memory effects are published by the lock word and the
 * operations' own fences. (EpochBench, lock(SHARED)/put/unlock on the direct path: 36.8 ns before, 29.4 ns with
 * this mutex, the int epoch state of {@link Epochs} and a {@code lock} small enough to inline.)
 *
 * <p>The price is on the contended side, which is rare (threads of one rank synchronizing the same window at
 * the same time). The look at the waiter count after the release store may miss a waiter that counted itself
 * in just then (a store followed by a load of another location is not ordered without a fence), so a waiter
 * never sleeps unbounded: it parks for at most {@link #MAX_PARK_NS} between looks, and a missed wake-up costs
 * that much at worst. Waiters are not served in order.
 *
 * <p>Interrupts do not stop a waiter (as {@code ReentrantLock.lock}); the interrupt status is kept.
 */
final class EpochMutex {
    private static final int SPINS = 256;
    private static final long FIRST_PARK_NS = 20_000;
    static final long MAX_PARK_NS = 1_000_000;
    private static final VarHandle OWNER;
    private static final VarHandle WAITERS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            OWNER = l.findVarHandle(EpochMutex.class, "owner", long.class);
            WAITERS = l.findVarHandle(EpochMutex.class, "waiters", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through OWNER
    private volatile long owner;
    /** Re-entries of the owner beyond the first hold; touched by the owner only. */
    private int holds;
    @SuppressWarnings("unused") // through WAITERS
    private volatile int waiters;
    private final ConcurrentLinkedQueue<Thread> parked = new ConcurrentLinkedQueue<>();

    void lock() {
        long me = Thread.currentThread().getId();
        if (OWNER.compareAndSet(this, 0L, me)) {
            return;
        }
        if ((long) OWNER.getOpaque(this) == me) {
            holds++;
            return;
        }
        contended(me);
    }

    /**
     * Gives one hold back.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold the mutex
     */
    void unlock() {
        if ((long) OWNER.getOpaque(this) != Thread.currentThread().getId()) {
            throw new IllegalMonitorStateException("epoch mutex not held by " + Thread.currentThread().getName());
        }
        if (holds > 0) {
            holds--;
            return;
        }
        OWNER.setRelease(this, 0L);
        if ((int) WAITERS.getOpaque(this) != 0) {
            for (Thread t : parked) {
                LockSupport.unpark(t);
            }
        }
    }

    /** Whether the calling thread holds the mutex (assertions, tests). */
    boolean isHeldByCurrentThread() {
        return (long) OWNER.getOpaque(this) == Thread.currentThread().getId();
    }

    private boolean tryTake(long me) {
        return (long) OWNER.getOpaque(this) == 0L && OWNER.compareAndSet(this, 0L, me);
    }

    private void contended(long me) {
        for (int i = 0; i < SPINS; i++) {
            Thread.onSpinWait();
            if (tryTake(me)) {
                return;
            }
        }
        boolean interrupted = false;
        Thread self = Thread.currentThread();
        parked.add(self);
        WAITERS.getAndAdd(this, 1); // fenced: the look at the owner below follows it
        try {
            long park = FIRST_PARK_NS;
            while (!tryTake(me)) {
                LockSupport.parkNanos(this, park);
                if (Thread.interrupted()) {
                    interrupted = true;
                }
                park = Math.min(park * 2, MAX_PARK_NS);
            }
        } finally {
            WAITERS.getAndAdd(this, -1);
            parked.remove(self);
            if (interrupted) {
                self.interrupt();
            }
        }
    }
}

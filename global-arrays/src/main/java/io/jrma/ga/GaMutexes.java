package io.jrma.ga;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Op;
import io.jrma.RmaException;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * A set of mutexes shared by the ranks of a communicator (GA_Create_mutexes / ARMCI_Create_mutexes):
 * MCS queue locks on one window, so waiting ranks are served first come, first served and each spins on its
 * own memory only.
 *
 * <p>Window layout (longs, disp_unit 8): for mutex {@code m}, at every rank: {@code 3m} tail (meaningful at
 * the mutex's home rank {@code m % size}: the last rank in the queue, or -1), {@code 3m+1} next (the rank
 * queued behind this one, or -1), {@code 3m+2} blocked (1 while this rank waits). All accesses are RMA atomics
 * (fetch_and_op, compare_and_swap, accumulate REPLACE) in one lock_all epoch, completed with flush.
 *
 * <p>A mutex is held by a rank, not a thread; {@link #lock}/{@link #unlock} of the same mutex must not race
 * between threads of one rank.
 */
public final class GaMutexes implements AutoCloseable {
    private static final long NONE = -1;
    private final Comm comm;
    private final Win win;
    private final int count;
    private final int me;
    private final int nranks;
    private final boolean[] held;
    private volatile boolean freed;

    private GaMutexes(Comm comm, int count) {
        this.comm = comm;
        this.count = count;
        this.me = comm.rank();
        this.nranks = comm.size();
        this.held = new boolean[count];
        this.win = Win.allocate(comm, 24L * Math.max(count, 1), 8, null);
        ByteBuffer b = win.buffer();
        for (int m = 0; m < count; m++) {
            b.putLong(24 * m, NONE);
            b.putLong(24 * m + 8, NONE);
            b.putLong(24 * m + 16, 0);
        }
        win.sync();
        win.lockAll(Win.MODE_NOCHECK);
        comm.barrier();
    }

    /** Creates {@code count} mutexes; collective. */
    public static GaMutexes create(Comm comm, int count) {
        if (comm == null) {
            throw new RmaException(ErrorClass.ERR_COMM, "mutexes: communicator is null");
        }
        if (count < 0) {
            throw new RmaException(ErrorClass.ERR_COUNT, "mutexes: negative count " + count);
        }
        return new GaMutexes(comm, count);
    }

    public int count() {
        return count;
    }

    public Comm comm() {
        return comm;
    }

    /** Acquires mutex {@code m}, waiting in FIFO order behind earlier requesters. */
    public void lock(int m) {
        check(m);
        if (held[m]) {
            throw new RmaException(ErrorClass.ERR_RMA_SYNC, "mutex " + m + " is already held by rank " + me);
        }
        int home = m % nranks;
        long[] one = new long[1];
        // my queue node: next = -1, blocked = 1
        store(me, 3L * m + 1, NONE);
        store(me, 3L * m + 2, 1);
        win.fetchAndOp(new long[] {me}, one, Datatype.LONG, home, 3L * m, Op.REPLACE);
        win.flush(home);
        long pred = one[0];
        if (pred != NONE) {
            store((int) pred, 3L * m + 1, me); // link behind the predecessor, then wait for its hand-off
            Backoff bo = new Backoff();
            while (load(3L * m + 2) != 0) {
                bo.pause();
            }
        }
        held[m] = true;
    }

    /** Releases mutex {@code m}, handing it to the next rank in its queue. */
    public void unlock(int m) {
        check(m);
        if (!held[m]) {
            throw new RmaException(ErrorClass.ERR_RMA_SYNC, "mutex " + m + " is not held by rank " + me);
        }
        held[m] = false;
        int home = m % nranks;
        long next = load(3L * m + 1);
        if (next == NONE) {
            long old = win.compareAndSwapLong(home, 3L * m, me, NONE);
            if (old == me) {
                return; // nobody queued
            }
            Backoff bo = new Backoff();
            while ((next = load(3L * m + 1)) == NONE) { // a successor is linking itself in
                bo.pause();
            }
        }
        store((int) next, 3L * m + 2, 0);
    }

    /** Collective: frees the window. */
    public void free() {
        if (freed) {
            return;
        }
        win.unlockAll();
        comm.barrier();
        win.free();
        freed = true;
    }

    @Override
    public void close() {
        free();
    }

    private void check(int m) {
        if (freed) {
            throw new RmaException(ErrorClass.ERR_WIN, "mutexes were freed");
        }
        if (m < 0 || m >= count) {
            throw new RmaException(ErrorClass.ERR_ARG, "mutex " + m + " is not in 0.." + (count - 1));
        }
    }

    /** Atomic store (accumulate REPLACE) completed at the target. */
    private void store(int rank, long disp, long v) {
        win.accumulate(new long[] {v}, 1, Datatype.LONG, rank, disp, Op.REPLACE);
        win.flush(rank);
    }

    /** Atomic load of my own word (fetch_and_op NO_OP). */
    private long load(long disp) {
        long[] r = new long[1];
        win.fetchAndOp(r, r, Datatype.LONG, me, disp, Op.NO_OP);
        win.flush(me);
        return r[0];
    }

    /** Spin, then yield, then park: ranks are threads and may outnumber cores. */
    static final class Backoff {
        /** Pauses that spin before the waiter starts to yield. */
        private static final int SPINS = 64;
        /** Pauses (spins included) before the waiter starts to park. */
        private static final int YIELDS_UNTIL = 256;
        /** How much longer each further park is than the one before it. */
        private static final long PARK_STEP_NS = 1_000L;
        /** The longest park. */
        private static final long MAX_PARK_NS = 50_000L;

        private int n;

        void pause() {
            n++;
            if (n < SPINS) {
                Thread.onSpinWait();
            } else if (n < YIELDS_UNTIL) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(Math.min(MAX_PARK_NS, PARK_STEP_NS * (n - YIELDS_UNTIL + 1)));
            }
        }
    }
}

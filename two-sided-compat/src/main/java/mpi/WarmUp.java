package mpi;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * The warm-up {@link MPI#Init} runs before it returns ({@code jrma.mpi.warmup}): the loops users' programs and the OSU
 * benchmarks run through this package — ping-pongs of small, medium and large messages, windows of non-blocking sends,
 * every common collective, 8-byte put, get, accumulate, fetch_and_op and compare_and_swap with flush, lock and fence
 * epochs — between pairs of ranks. A JVM compiles its hot paths with C2 once they have run some ten thousand times, and
 * that compiling takes a few hundred milliseconds of CPU; without the warm-up both land in the program's first loop,
 * where on a small or loaded host an 8-byte ping-pong then costs tens of microseconds instead of a fraction of one (the
 * compiler threads take the cores the ranks wait on). Here they land in {@code Init}.
 *
 * <p>A first pass of {@link #FIRST_ROUNDS} rounds makes every loop pass C2's thresholds; then each rank sleeps while
 * its JVM's compilers are busy ({@link CompilationMXBean}), so that they have the cores; then single rounds follow, as
 * long as the last pass still made the compilers work (code recompiled after a deoptimization), up to {@link
 * #MAX_PASSES} passes. The time budget ({@code jrma.mpi.warmupMs}) ends every loop at its deadline, by agreement where
 * ranks run it together: a ping-pong carries the verdict of the rank that sends first in its first byte, a window of
 * sends in its answer, a collective loop in a MAX allreduce each iteration; a rank stops its own one-sided operations
 * alone (the target is passive). So a slow link (TCP between hosts) or an interpreted first round cannot stretch it.
 * Every decision to go on is collective, so every rank runs the same rounds. Everything runs on a duplicate of {@code
 * COMM_WORLD}, where no message of the program's can match, and on windows freed before {@code Init} returns.
 */
final class WarmUp {
    /** Ping-pongs of 8 bytes in one round. */
    private static final int SMALL = 500;
    /** Ping-pongs and one-sided operations of each medium kind in one round. */
    private static final int MEDIUM = 100;
    /** One-sided 8-byte operations of each kind in one round, on an allocate window. */
    private static final int RMA = 1_000;
    /** Allreduces, barriers and bcasts in one round. */
    private static final int COLL = 500;
    /** The other collectives (allgather, alltoall, reduce_scatter, reduce, gather, scatter) in one round. */
    private static final int COLL_OTHER = 150;
    /** Large messages and epochs in one round. */
    private static final int LARGE = 5;
    /** Messages in flight in one bandwidth window, as OSU's osu_bw. */
    private static final int WINDOW = 64;
    private static final int MEDIUM_BYTES = 4096;
    private static final int LARGE_BYTES = 1 << 17;
    private static final int WIN_BYTES = LARGE_BYTES;
    private static final int TAG = 1;
    /**
     * Rounds of the first pass: enough for the hot methods to pass C2's thresholds (some 10,000 calls), in rounds
     * short enough for the time budget, checked between rounds, to end it on time even while it is interpreted.
     */
    private static final int FIRST_ROUNDS = 16;
    /** Passes at most: the first, then single rounds that recompile what the first pass's code deoptimized. */
    private static final int MAX_PASSES = 3;
    /** A nap in which this JVM's compilers spent less than this (ms) counts as quiet. */
    private static final long QUIET_MS = 1;
    /** Consecutive quiet naps that end a wait for the compilers. */
    private static final int QUIET_ROUNDS = 2;
    private static final long NAP_NS = 10_000_000;
    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

    private final Intracomm comm;
    private final int rank;
    /** When the budget ends (System.nanoTime()); every loop stops at it, by agreement where ranks run it together. */
    private long deadline;
    private final long[] flag = new long[1];
    /** The ranks this one runs the pair loops with, in order, and whether it sends first to each. */
    private final int[] others;
    private final boolean[] first;
    private final ByteBuffer small = MPI.newByteBuffer(Long.BYTES);
    private final ByteBuffer medium = MPI.newByteBuffer(MEDIUM_BYTES);
    private final ByteBuffer large = MPI.newByteBuffer(LARGE_BYTES);
    private final ByteBuffer[] window = new ByteBuffer[WINDOW];
    private final Request[] requests = new Request[WINDOW];
    private final byte[] heap = new byte[Long.BYTES];
    private final DoubleBuffer dIn = MPI.newDoubleBuffer(1);
    private final DoubleBuffer dOut = MPI.newDoubleBuffer(1);
    private final double[] dArray = new double[1];
    private final LongBuffer src = MPI.newLongBuffer(1);
    private final LongBuffer cmp = MPI.newLongBuffer(1);
    private final LongBuffer res = MPI.newLongBuffer(1);
    /** A block of 8 bytes per rank, sent and received by the rooted and all-to-all collectives. */
    private final ByteBuffer blocksOut;
    private final ByteBuffer blocksIn;
    private final float[] floatsOut;
    private final float[] floatsIn = new float[1];
    private final int[] counts;

    private WarmUp(Intracomm comm) throws MPIException {
        this.comm = comm;
        this.rank = comm.getRank();
        int n = comm.getSize();
        // pairs (0,1), (2,3), ...; the last rank of an odd count pairs with rank 0 after rank 0's pair with rank 1
        if (n % 2 == 1 && rank == n - 1) {
            others = n == 1 ? new int[0] : new int[] {0};
            first = new boolean[] {false};
        } else if (n % 2 == 1 && rank == 0 && n > 1) {
            others = new int[] {1, n - 1};
            first = new boolean[] {true, true};
        } else {
            others = new int[] {rank ^ 1};
            first = new boolean[] {(rank & 1) == 0};
        }
        for (int i = 0; i < WINDOW; i++) {
            window[i] = MPI.newByteBuffer(MEDIUM_BYTES);
        }
        blocksOut = MPI.newByteBuffer(n * Long.BYTES);
        blocksIn = MPI.newByteBuffer(n * Long.BYTES);
        floatsOut = new float[n];
        counts = new int[n];
        Arrays.fill(counts, 1);
    }

    /**
     * Runs the warm-up on {@code world}'s ranks for at most {@code budgetMs}; returns the rounds run. Collective.
     */
    static int run(Intracomm world, long budgetMs) throws MPIException {
        Intracomm comm = (Intracomm) world.dup();
        try {
            WarmUp w = new WarmUp(comm);
            return w.rounds(budgetMs);
        } finally {
            comm.free();
        }
    }

    private int rounds(long budgetMs) throws MPIException {
        deadline = System.nanoTime() + budgetMs * 1_000_000L;
        ByteBuffer allocMem = MPI.newByteBuffer(WIN_BYTES);
        Win allocated = new Win(WIN_BYTES, 1, MPI.INFO_NULL, comm, allocMem, Win.FLAVOR_PRIVATE);
        ByteBuffer createdMem = MPI.newByteBuffer(WIN_BYTES);
        Win created = new Win(createdMem, WIN_BYTES, 1, MPI.INFO_NULL, comm);
        long[] verdict = new long[1];
        int pass = 0;
        try {
            while (true) {
                long before = jitMs();
                int rounds = pass == 0 ? FIRST_ROUNDS : 1;
                for (int r = 0; r < rounds && verdict[0] == 0; r++) {
                    round(allocated, created);
                    // the budget ends a pass between rounds too, on every rank at once (slow links: TCP hosts)
                    verdict[0] = agreedLate() ? 1 : 0;
                }
                verdict[0] = 0;
                awaitQuiet(deadline);
                long spent = jitMs() - before;
                pass++;
                // another pass while the last one still made the JIT compile (deoptimized code recompiled)
                boolean more = pass < MAX_PASSES && System.nanoTime() < deadline && spent > QUIET_MS * 10;
                verdict[0] = more ? 1 : 0;
                comm.allReduce(verdict, 1, MPI.LONG, MPI.MAX);
                if (verdict[0] == 0) {
                    // the warm-up's garbage collected now rather than in the program's first loop (a young
                    // collection of it measured 12 ms), then every rank leaves together
                    System.gc();
                    comm.barrier();
                    return pass;
                }
            }
        } finally {
            allocated.free();
            created.free();
        }
    }

    /** Total time this JVM's compilers have spent (ms), or 0 where the JVM does not say. */
    private static long jitMs() {
        return JIT != null && JIT.isCompilationTimeMonitoringSupported() ? JIT.getTotalCompilationTime() : 0;
    }

    /**
     * Sleeps while this JVM's compilers work, so that they have the cores, until they spent less than
     * {@link #QUIET_MS} in each of {@link #QUIET_ROUNDS} naps in a row, or until the deadline.
     */
    private static void awaitQuiet(long deadline) {
        int quiet = 0;
        while (quiet < QUIET_ROUNDS && System.nanoTime() < deadline) {
            long before = jitMs();
            LockSupport.parkNanos(NAP_NS);
            quiet = jitMs() - before < QUIET_MS ? quiet + 1 : 0;
        }
    }

    private void round(Win allocated, Win created) throws MPIException {
        for (int i = 0; i < others.length; i++) {
            pair(others[i], first[i], allocated, created);
        }
        collectives(allocated);
    }

    private void pair(int other, boolean first, Win allocated, Win created) throws MPIException {
        pingPong(small, Long.BYTES, SMALL, other, first);
        pingPongHeap(other, first);
        pingPong(medium, MEDIUM_BYTES, MEDIUM, other, first);
        pingPong(large, LARGE_BYTES, LARGE, other, first);
        bandwidth(other, first);
        oneSided(allocated, other, RMA);
        oneSided(created, other, MEDIUM);
    }

    /**
     * A ping-pong that ends at the deadline: the rank that sends first puts its verdict in the message's first byte,
     * the other echoes it, so both leave after the same iteration (a slow link cannot stretch the budget).
     */
    private void pingPong(ByteBuffer buf, int bytes, int iterations, int other, boolean first) throws MPIException {
        for (int i = 0; i < iterations; i++) {
            if (first) {
                buf.put(0, late());
                comm.send(buf, bytes, MPI.BYTE, other, TAG);
                comm.recv(buf, bytes, MPI.BYTE, other, TAG);
            } else {
                comm.recv(buf, bytes, MPI.BYTE, other, TAG);
                comm.send(buf, bytes, MPI.BYTE, other, TAG);
            }
            if (buf.get(0) != 0) {
                return;
            }
        }
    }

    private void pingPongHeap(int other, boolean first) throws MPIException {
        for (int i = 0; i < MEDIUM; i++) {
            if (first) {
                heap[0] = late();
                comm.send(heap, heap.length, MPI.BYTE, other, TAG);
                comm.recv(heap, heap.length, MPI.BYTE, other, TAG);
            } else {
                comm.recv(heap, heap.length, MPI.BYTE, other, TAG);
                comm.send(heap, heap.length, MPI.BYTE, other, TAG);
            }
            if (heap[0] != 0) {
                return;
            }
        }
    }

    /** 1 once the budget is spent, else 0: the verdict a message carries to the other rank of a pair. */
    private byte late() {
        return (byte) (System.nanoTime() - deadline >= 0 ? 1 : 0);
    }

    /** OSU's osu_bw loop: a window of non-blocking sends, answered by a short message. */
    private void bandwidth(int other, boolean first) throws MPIException {
        for (int i = 0; i < LARGE; i++) {
            for (int j = 0; j < WINDOW; j++) {
                requests[j] = first ? comm.iSend(window[j], MEDIUM_BYTES, MPI.BYTE, other, TAG)
                        : comm.iRecv(window[j], MEDIUM_BYTES, MPI.BYTE, other, TAG);
            }
            Request.waitAll(requests);
            if (first) {
                comm.recv(small, Long.BYTES, MPI.BYTE, other, TAG);
            } else {
                small.put(0, late()); // the answer carries the receiver's verdict: both stop after this window
                comm.send(small, Long.BYTES, MPI.BYTE, other, TAG);
            }
            if (small.get(0) != 0) {
                return;
            }
        }
    }

    /** Both ranks of the pair are origins at once, on their own halves of the other's window. */
    /**
     * Both ranks of the pair are origins at once, on their own halves of the other's window: the 8-byte operations
     * with flush inside a lock_all epoch, then inside a shared lock of the one target (OSU's {@code -s flush} epoch;
     * code compiled for one epoch kind only is thrown away at the first flush in the other), then lock/unlock.
     */
    private void oneSided(Win win, int other, int ops) throws MPIException {
        int base = rank < other ? 0 : WIN_BYTES / 2;
        win.lockAll(0);
        rmaOps(win, other, base, ops / 2);
        win.put(large, WIN_BYTES / 4, MPI.BYTE, other, base, WIN_BYTES / 4, MPI.BYTE);
        win.get(large, WIN_BYTES / 4, MPI.BYTE, other, base, WIN_BYTES / 4, MPI.BYTE);
        win.unlockAll();
        win.lock(MPI.LOCK_SHARED, other, 0);
        rmaOps(win, other, base, ops / 2);
        win.unlock(other);
        for (int i = 0; i < LARGE && late() == 0; i++) {
            win.lock(MPI.LOCK_SHARED, other, 0);
            win.put(small, Long.BYTES, MPI.BYTE, other, base, Long.BYTES, MPI.BYTE);
            win.unlock(other);
        }
    }

    /** The 8-byte operations, until the deadline: each rank is origin alone (passive target), so it stops alone. */
    private void rmaOps(Win win, int other, int base, int ops) throws MPIException {
        for (int i = 0; i < ops && late() == 0; i++) {
            win.put(small, Long.BYTES, MPI.BYTE, other, base, Long.BYTES, MPI.BYTE);
            win.flush(other);
            win.get(medium, Long.BYTES, MPI.BYTE, other, base + Long.BYTES, Long.BYTES, MPI.BYTE);
            win.flush(other);
            win.accumulate(small, 2, MPI.INT, other, base + 2 * Long.BYTES, 2, MPI.INT, MPI.SUM);
            win.flush(other);
            win.fetchAndOp(src, res, MPI.LONG, other, base / Long.BYTES + 3, MPI.SUM);
            win.flush(other);
            win.compareAndSwap(src, cmp, res, MPI.LONG, other, base / Long.BYTES + 4);
            win.flush(other);
        }
    }

    /** Whether any rank's budget is spent (a MAX allreduce: every rank gets the same answer). Collective. */
    private boolean agreedLate() throws MPIException {
        flag[0] = late();
        comm.allReduce(flag, 1, MPI.LONG, MPI.MAX);
        return flag[0] != 0;
    }

    private void collectives(Win win) throws MPIException {
        for (int i = 0; i < COLL && !agreedLate(); i++) {
            comm.allReduce(dIn, dOut, 1, MPI.DOUBLE, MPI.SUM);
            comm.allReduce(dArray, 1, MPI.DOUBLE, MPI.SUM);
            dArray[0] = 1;
            comm.barrier();
            comm.bcast(small, Long.BYTES, MPI.BYTE, 0);
        }
        for (int i = 0; i < COLL_OTHER && !agreedLate(); i++) {
            comm.allGather(blocksOut, Long.BYTES, MPI.BYTE, blocksIn, Long.BYTES, MPI.BYTE);
            comm.allToAll(blocksOut, Long.BYTES, MPI.BYTE, blocksIn, Long.BYTES, MPI.BYTE);
            comm.reduceScatter(floatsOut, floatsIn, counts, MPI.FLOAT, MPI.SUM);
            comm.reduce(dIn, dOut, 1, MPI.DOUBLE, MPI.SUM, 0);
            comm.gather(small, Long.BYTES, MPI.BYTE, blocksIn, Long.BYTES, MPI.BYTE, 0);
            comm.scatter(blocksOut, Long.BYTES, MPI.BYTE, small, Long.BYTES, MPI.BYTE, 0);
        }
        int next = (rank + 1) % comm.getSize();
        for (int i = 0; i < LARGE && !agreedLate(); i++) {
            win.fence(0);
            win.put(small, Long.BYTES, MPI.BYTE, next, 0, Long.BYTES, MPI.BYTE);
            win.fence(0);
        }
    }
}

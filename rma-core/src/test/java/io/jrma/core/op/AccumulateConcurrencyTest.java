package io.jrma.core.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.dt.BasicType;
import io.jrma.core.mem.Memory;
import java.util.Arrays;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many threads hammering the same off-heap element through each atomicity path (locked add, word CAS,
 * striped lock) must lose no update, and must never lose bytes of neighbours written by plain stores.
 */
class AccumulateConcurrencyTest {
    private static final int THREADS = 4;
    private static final int N = 200_000;

    private long mem;
    private long base; // 64-byte aligned: target area at base .. base+63
    private long srcArea; // base+64 .. : per-thread operands

    @BeforeEach
    void allocate() {
        mem = Memory.allocate(1024);
        Memory.fill(mem, 1024, (byte) 0);
        base = (mem + 63) & ~63L;
        srcArea = base + 128;
    }

    @AfterEach
    void free() {
        Memory.free(mem);
    }

    /** A thread body; {@code t} is the thread number. */
    interface Body {
        void run(int t) throws Exception;
    }

    /** Runs {@code body} in {@link #THREADS} threads started together, rethrowing the first failure. */
    static void inThreads(Body body) throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] threads = new Thread[THREADS];
        for (int i = 0; i < THREADS; i++) {
            int t = i;
            threads[i] = new Thread(() -> {
                try {
                    start.await();
                    body.run(t);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "hammer-" + i);
            threads[i].start();
        }
        for (Thread th : threads) {
            th.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("thread failed", failure.get());
        }
    }

    private void sumOnes(BasicType t, long dst, long one) throws Exception {
        inThreads(k -> {
            for (int i = 0; i < N; i++) {
                AccumulateKernel.accumulate(OpCode.SUM, t, null, one, null, dst, 1);
            }
        });
    }

    @Test
    @Timeout(60)
    void longSumAlignedUsesLockedAdd() throws Exception {
        Memory.putLongPlain(srcArea, 1);
        sumOnes(BasicType.LONG, base + 8, srcArea);
        assertEquals((long) THREADS * N, Memory.getLongPlain(base + 8));
    }

    @Test
    @Timeout(60)
    void intSumUnalignedUsesWordCas() throws Exception {
        Memory.putLongPlain(base, 0x1111_0000_0000_2222L); // neighbours around bytes 2..5
        Memory.putIntPlain(srcArea, 1);
        sumOnes(BasicType.INT, base + 2, srcArea);
        assertEquals(THREADS * N, Memory.getIntPlain(base + 2));
        assertEquals((short) 0x2222, Memory.getShortPlain(base));
        assertEquals((short) 0x1111, Memory.getShortPlain(base + 6));
    }

    @Test
    @Timeout(60)
    void shortSumStraddlingUsesStripedLock() throws Exception {
        Memory.putBytePlain(base + 6, (byte) 0x66);
        Memory.putBytePlain(base + 9, (byte) 0x99);
        Memory.putShortPlain(srcArea, (short) 1);
        sumOnes(BasicType.SHORT, base + 7, srcArea);
        assertEquals((short) (THREADS * N), Memory.getShortPlain(base + 7));
        assertEquals((byte) 0x66, Memory.getBytePlain(base + 6));
        assertEquals((byte) 0x99, Memory.getBytePlain(base + 9));
    }

    @Test
    @Timeout(60)
    void doubleSumUsesWordCas() throws Exception {
        Memory.putDoublePlain(srcArea, 1.0);
        sumOnes(BasicType.DOUBLE, base + 16, srcArea);
        assertEquals((double) THREADS * N, Memory.getDoublePlain(base + 16));
    }

    @Test
    @Timeout(60)
    void doubleComplexSumUsesStripedLock() throws Exception {
        Memory.putDoublePlain(srcArea, 1.0);
        Memory.putDoublePlain(srcArea + 8, 2.0);
        sumOnes(BasicType.DOUBLE_COMPLEX, base + 16, srcArea);
        assertEquals((double) THREADS * N, Memory.getDoublePlain(base + 16));
        assertEquals(2.0 * THREADS * N, Memory.getDoublePlain(base + 24));
    }

    @Test
    @Timeout(60)
    void doubleIntMinlocUsesStripedLock() throws Exception {
        long dst = base + 20; // 4-aligned, straddles words, 12 bytes
        Memory.putDoublePlain(dst, 0.0);
        Memory.putIntPlain(dst + 8, Integer.MAX_VALUE);
        Memory.putIntPlain(dst + 12, 0x7777_7777); // byte after the element
        inThreads(t -> {
            long src = srcArea + 16L * t;
            for (int i = 0; i < N; i++) {
                // strictly decreasing per thread; every thread also offers ties with a larger index
                Memory.putDoublePlain(src, -(4.0 * i + t));
                Memory.putIntPlain(src + 8, (i & 1) == 0 ? i * 4 + t : Integer.MAX_VALUE - t);
                AccumulateKernel.accumulate(OpCode.MINLOC, BasicType.DOUBLE_INT, null, src, null, dst, 1);
            }
        });
        // the global minimum -(4(N-1)+3) is offered once, by thread 3 at i = N-1 (odd: index MAX-3)
        assertEquals(-(4.0 * (N - 1) + 3), Memory.getDoublePlain(dst));
        assertEquals(Integer.MAX_VALUE - 3, Memory.getIntPlain(dst + 8));
        assertEquals(0x7777_7777, Memory.getIntPlain(dst + 12));
    }

    private void tickets(BasicType t, long dst) throws Exception {
        long[][] got = new long[THREADS][N];
        inThreads(k -> {
            long one = srcArea + 16L * k;
            long res = srcArea + 16L * k + 8;
            Memory.putLongPlain(one, 1);
            for (int i = 0; i < N; i++) {
                AccumulateKernel.getAccumulate(OpCode.SUM, t, null, one, null, dst, null, res, 1);
                got[k][i] = t.size() == 8 ? Memory.getLongPlain(res) : Memory.getIntPlain(res);
            }
        });
        long[] all = Arrays.stream(got).flatMapToLong(Arrays::stream).sorted().toArray();
        for (int i = 0; i < all.length; i++) {
            assertEquals(i, all[i], "tickets must be distinct and dense");
        }
        for (long[] mine : got) {
            for (int i = 1; i < N; i++) {
                assertTrue(mine[i] > mine[i - 1], "a thread's tickets increase");
            }
        }
    }

    @Test
    @Timeout(60)
    void fetchAndAddTicketsAreDistinctLong() throws Exception {
        tickets(BasicType.LONG, base + 8);
        assertEquals((long) THREADS * N, Memory.getLongPlain(base + 8));
    }

    @Test
    @Timeout(60)
    void fetchAndAddTicketsAreDistinctUnalignedInt() throws Exception {
        tickets(BasicType.INT, base + 1);
        assertEquals(THREADS * N, Memory.getIntPlain(base + 1));
    }

    @Test
    @Timeout(120)
    void casMutexProtectsPlainCounter() throws Exception {
        long lock = base + 3; // a BYTE lock inside a word: word-CAS path
        long counter = base + 16;
        inThreads(t -> {
            long zero = srcArea + 16L * t;
            long one = zero + 1;
            long res = zero + 2;
            Memory.putBytePlain(zero, (byte) 0);
            Memory.putBytePlain(one, (byte) 1);
            for (int i = 0; i < N; i++) {
                int spins = 0;
                while (!AccumulateKernel.compareAndSwap(BasicType.BYTE, null, zero, null, one, null, lock, null, res)) {
                    if (++spins % 64 == 0) {
                        Thread.yield();
                    } else {
                        Thread.onSpinWait();
                    }
                }
                Memory.putLongPlain(counter, Memory.getLongPlain(counter) + 1);
                AccumulateKernel.accumulate(OpCode.REPLACE, BasicType.BYTE, null, zero, null, lock, 1);
            }
        });
        assertEquals((long) THREADS * N, Memory.getLongPlain(counter));
        assertEquals(0, Memory.getBytePlain(lock));
    }

    @Test
    @Timeout(60)
    void neighbourBytesWrittenByPlainStoresAreNeverLost() throws Exception {
        // word 0: SHORT SUM at bytes 2..3 (word CAS); INT SUM at bytes 6..9 (straddles: striped lock);
        // word 8: BYTE SUM at byte 11 (word CAS). Thread 3 stores plainly to bytes 0,1,4,5,10,12..15.
        long[] plain = {0, 1, 4, 5, 10, 12, 13, 14, 15};
        Memory.putShortPlain(srcArea, (short) 1);
        Memory.putIntPlain(srcArea + 8, 1);
        Memory.putBytePlain(srcArea + 16, (byte) 1);
        inThreads(t -> {
            for (int i = 0; i < N; i++) {
                switch (t) {
                    case 0:
                        AccumulateKernel.accumulate(OpCode.SUM, BasicType.SHORT, null, srcArea, null, base + 2, 1);
                        break;
                    case 1:
                        AccumulateKernel.accumulate(OpCode.SUM, BasicType.INT, null, srcArea + 8, null, base + 6, 1);
                        break;
                    case 2:
                        AccumulateKernel.accumulate(OpCode.BAND, BasicType.BYTE, null, srcArea + 16, null,
                            base + 11, 1);
                        AccumulateKernel.accumulate(OpCode.BXOR, BasicType.BYTE, null, srcArea + 16, null,
                            base + 11, 1);
                        break;
                    default:
                        for (long p : plain) {
                            Memory.putBytePlain(base + p, (byte) (i + p));
                        }
                        break;
                }
            }
        });
        assertEquals((short) N, Memory.getShortPlain(base + 2));
        assertEquals(N, Memory.getIntPlain(base + 6));
        // (x & 1) ^ 1 applied N (even) times starting from 0: 0 -> 1 -> ... ends at 0 after an even count
        assertEquals((byte) (N % 2), Memory.getBytePlain(base + 11));
        for (long p : plain) {
            assertEquals((byte) (N - 1 + p), Memory.getBytePlain(base + p), "plain store to byte " + p + " lost");
        }
    }
}

package io.jrma.spi.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.spi.transport.RemoteMemory.AtomicOp;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The defaults of {@link RemoteMemory}: {@code fetchOp}'s AND, OR and XOR by compare-and-swap loops (on 8 and 4
 * bytes, also against a competing thread), and {@code fetchOps} one after the other, on a memory side whose words are
 * an array here.
 */
class RemoteMemoryDefaultsTest {
    /** Words addressed by index; 4-byte operations on the low half of a word, as a little-endian machine would. */
    static final class Words implements RemoteMemory {
        final AtomicLongArray words = new AtomicLongArray(4);

        @Override
        public Registration register(long address, long length) {
            return new Registration(1, new byte[0]);
        }

        @Override
        public void unregister(Registration registration) {
        }

        @Override
        public long attach(int worldRank, byte[] key) {
            return 1;
        }

        @Override
        public void detach(long handle) {
        }

        @Override
        public void put(int worldRank, long address, long length, long remote, long handle) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void get(int worldRank, long address, long length, long remote, long handle) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long fetchAdd(int worldRank, long value, int size, long remote, long handle) {
            while (true) {
                long old = read(remote, size);
                if (compareAndSwap(worldRank, old, old + value, size, remote, handle) == old) {
                    return old;
                }
            }
        }

        @Override
        public long swap(int worldRank, long value, int size, long remote, long handle) {
            while (true) {
                long old = read(remote, size);
                if (compareAndSwap(worldRank, old, value, size, remote, handle) == old) {
                    return old;
                }
            }
        }

        @Override
        public long compareAndSwap(int worldRank, long compare, long value, int size, long remote, long handle) {
            int i = (int) remote;
            while (true) {
                long w = words.get(i);
                long old = size == Long.BYTES ? w : (int) w;
                boolean match = size == Long.BYTES ? old == compare : (int) old == (int) compare;
                if (!match) {
                    return old;
                }
                long next = size == Long.BYTES ? value : (w & 0xFFFF_FFFF_0000_0000L) | (value & 0xFFFF_FFFFL);
                if (words.compareAndSet(i, w, next)) {
                    return old;
                }
            }
        }

        private long read(long remote, int size) {
            long w = words.get((int) remote);
            return size == Long.BYTES ? w : (int) w;
        }

        @Override
        public void flush(int worldRank) {
        }

        @Override
        public void flushAll() {
        }
    }

    @Test
    void bitwiseOpsByCompareAndSwapLoopsReturnTheOldValue() {
        Words m = new Words();
        m.words.set(0, 0b1100);
        assertEquals(0b1100, m.fetchOp(0, AtomicOp.OR, 0b1010, 0, Long.BYTES, 0, 1));
        assertEquals(0b1110, m.fetchOp(0, AtomicOp.AND, 0b0110, 0, Long.BYTES, 0, 1));
        assertEquals(0b0110, m.fetchOp(0, AtomicOp.XOR, -1L, 0, Long.BYTES, 0, 1));
        assertEquals(~0b0110L, m.words.get(0));
        // 4 bytes: the high half of the word stays, the old value comes sign-extended
        m.words.set(1, 0x1234_5678_8000_0001L);
        assertEquals((int) 0x8000_0001, m.fetchOp(0, AtomicOp.OR, 0x10, 0, Integer.BYTES, 1, 1));
        assertEquals(0x1234_5678_8000_0011L, m.words.get(1));
        assertEquals((int) 0x8000_0011, m.fetchOp(0, AtomicOp.XOR, 0xFFFF_FFFFL, 0, Integer.BYTES, 1, 1));
        assertEquals(0x1234_5678_7FFF_FFEEL, m.words.get(1));
        assertEquals(0x7FFF_FFEE, m.fetchOp(0, AtomicOp.AND, 0xF0, 0, Integer.BYTES, 1, 1));
        assertEquals(0x1234_5678_0000_00E0L, m.words.get(1));
    }

    @Test
    void fetchOpsDoesEveryOneAndReturnsTheirOldValues() {
        Words m = new Words();
        long[] results = new long[3];
        m.fetchOps(0, AtomicOp.ADD, new long[] {1, 2, 3}, null, Long.BYTES, new long[] {0, 1, 0}, 3, 1, results);
        assertArrayEquals(new long[] {0, 0, 1}, results);
        assertEquals(4, m.words.get(0));
        m.fetchOps(0, AtomicOp.CSWAP, new long[] {9, 9}, new long[] {4, 5}, Long.BYTES, new long[] {0, 1}, 2, 1,
                results);
        assertEquals(4, results[0]);
        assertEquals(2, results[1]);
        assertEquals(9, m.words.get(0), "matched: swapped");
        assertEquals(2, m.words.get(1), "did not match: left");
    }

    @Test
    @Timeout(30)
    void competingOrLoopsLoseNoBit() throws InterruptedException {
        Words m = new Words();
        int bits = 32;
        Thread[] ts = new Thread[2];
        for (int k = 0; k < ts.length; k++) {
            int first = k;
            ts[k] = new Thread(() -> {
                for (int b = first; b < bits; b += 2) {
                    m.fetchOp(0, AtomicOp.OR, 1L << b, 0, Long.BYTES, 2, 1);
                    m.fetchOp(0, AtomicOp.XOR, 1L << (b + bits), 0, Long.BYTES, 2, 1);
                }
            });
            ts[k].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        assertEquals(-1L, m.words.get(2), "every bit set by one of the two threads");
    }
}

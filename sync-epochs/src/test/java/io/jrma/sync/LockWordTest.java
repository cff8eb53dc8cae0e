package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.mem.Memory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The passive-target lock word: FIFO tickets for both kinds, and the ticketless shared entry taken when nobody
 * holds or waits for the lock exclusively.
 */
class LockWordTest {

    private static long words() {
        long a = Memory.allocate(LockWord.BYTES + 8);
        long aligned = (a + 7) & ~7L;
        Memory.fill(aligned, LockWord.BYTES, (byte) 0);
        return a;
    }

    private static LockWord at(long raw) {
        return new LockWord((raw + 7) & ~7L);
    }

    @Test
    void aSharedEntryWithoutTicketOnlyWhileNoWriterHoldsOrWaits() {
        long raw = words();
        try {
            LockWord lw = at(raw);
            assertTrue(lw.tryEnterShared(), "free lock");
            assertTrue(lw.tryEnterShared(), "readers share");
            long w = lw.takeTicket(); // a writer queues behind the two readers
            assertFalse(lw.tryEnter(w, true), "readers are inside");
            assertFalse(lw.tryEnterShared(), "a reader arriving now queues behind the writer");
            long r = lw.takeTicket();
            lw.releaseShared();
            lw.releaseShared();
            assertFalse(lw.tryEnter(r, false), "the writer's ticket comes first");
            assertTrue(lw.tryEnter(w, true));
            assertFalse(lw.tryEnter(r, false));
            lw.releaseExclusive();
            assertTrue(lw.tryEnter(r, false), "served after the writer");
            assertTrue(lw.tryEnterShared(), "no ticket outstanding again");
            lw.releaseShared();
            lw.releaseShared();
            assertTrue(lw.isFree());
        } finally {
            Memory.free(raw);
        }
    }

    /** A writer that takes its ticket and enters between a reader's first look and its count: the reader backs out. */
    @Test
    void aReaderOvertakenByAWriterBacksOut() {
        long raw = words();
        try {
            LockWord lw = at(raw);
            long[] w = new long[1];
            boolean[] writerIn = new boolean[1];
            assertFalse(lw.tryEnterShared(() -> {
                w[0] = lw.takeTicket();
                writerIn[0] = lw.tryEnter(w[0], true);
            }), "the writer is inside");
            assertTrue(writerIn[0], "nobody was inside when the writer looked");
            lw.releaseExclusive();
            assertTrue(lw.isFree(), "the reader left no count behind");
            // the writer looks after the reader counted itself: the writer waits, the reader stays
            assertTrue(lw.tryEnterShared());
            long w2 = lw.takeTicket();
            assertFalse(lw.tryEnter(w2, true));
            lw.releaseShared();
            assertTrue(lw.tryEnter(w2, true));
            lw.releaseExclusive();
            assertTrue(lw.isFree());
        } finally {
            Memory.free(raw);
        }
    }

    /**
     * Threads take the lock shared (ticketless first) and exclusive at random and check, inside, that a writer is
     * alone: a reader entering by the readers count while a writer entered by its ticket fails the run.
     */
    @Test
    @Timeout(60)
    void writersAreAloneAndEveryoneGetsIn() throws Exception {
        long raw = words();
        try {
            LockWord lw = at(raw);
            AtomicInteger readers = new AtomicInteger();
            AtomicInteger writers = new AtomicInteger();
            AtomicReference<String> broken = new AtomicReference<>();
            int threads = 4;
            int rounds = 100_000;
            List<Thread> ts = new ArrayList<>();
            AtomicInteger done = new AtomicInteger();
            for (int i = 0; i < threads; i++) {
                int id = i;
                Thread t = new Thread(() -> {
                    long seed = id * 0x9E3779B97F4A7C15L + 1;
                    for (int k = 0; k < rounds && broken.get() == null; k++) {
                        seed ^= seed << 13;
                        seed ^= seed >>> 7;
                        seed ^= seed << 17;
                        boolean exclusive = (seed & 3) == 0;
                        if (!exclusive && lw.tryEnterShared()) {
                            inside(false, readers, writers, broken);
                            lw.releaseShared();
                            continue;
                        }
                        long ticket = lw.takeTicket();
                        while (!lw.tryEnter(ticket, exclusive)) {
                            Thread.yield(); // 4 threads on 2 cores: let the ticket being served run
                            if (broken.get() != null) {
                                return;
                            }
                        }
                        inside(exclusive, readers, writers, broken);
                        if (exclusive) {
                            lw.releaseExclusive();
                        } else {
                            lw.releaseShared();
                        }
                    }
                    done.incrementAndGet();
                });
                ts.add(t);
                t.start();
            }
            for (Thread t : ts) {
                t.join();
            }
            assertEquals(null, broken.get());
            assertEquals(threads, done.get());
            assertTrue(lw.isFree(), "every holder left");
        } finally {
            Memory.free(raw);
        }
    }

    private static void inside(boolean exclusive, AtomicInteger readers, AtomicInteger writers,
            AtomicReference<String> broken) {
        if (exclusive) {
            int w = writers.incrementAndGet();
            if (w != 1 || readers.get() != 0) {
                broken.compareAndSet(null, "writer inside with " + (w - 1) + " writers, " + readers.get() + " readers");
            }
            stay();
            writers.decrementAndGet();
        } else {
            readers.incrementAndGet();
            if (writers.get() != 0) {
                broken.compareAndSet(null, "reader inside with a writer");
            }
            stay();
            readers.decrementAndGet();
        }
    }

    /** A little while inside, so that an overlap has the time to show. */
    private static void stay() {
        for (int i = 0; i < 20; i++) {
            Thread.onSpinWait();
        }
    }
}

package io.jrma.ga;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.BitSet;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Contention on read_inc, compare-and-swap and the MCS mutexes, on both paths. */
class AtomicsTest {
    @ParameterizedTest(name = "{0} {1} {2} ranks")
    @CsvSource({"auto,LONG,8", "packet,LONG,8", "auto,INT,5", "packet,INT,3"})
    @Timeout(60)
    void readIncGivesDistinctValues(String path, ElemType type, int nranks) {
        int per = 200;
        TestSupport.JOBS.run(path, nranks, world -> {
            GlobalArray ctr = GlobalArray.create(world, type, 4);
            GlobalArray seen = GlobalArray.create(world, ElemType.INT, nranks * per);
            int[] one = {1};
            for (int i = 0; i < per; i++) {
                long v = ctr.readInc(new int[] {3}, 1);
                assertTrue(v >= 0 && v < (long) nranks * per, "ticket " + v);
                seen.acc(new int[] {(int) v}, new int[] {(int) v}, one, 1);
            }
            ctr.sync();
            int[] all = new int[nranks * per];
            seen.get(new int[] {0}, new int[] {nranks * per - 1}, all);
            for (int i = 0; i < all.length; i++) {
                assertEquals(1, all[i], "ticket " + i + " handed out " + all[i] + " times");
            }
            long[] c = new long[1];
            if (type == ElemType.LONG) {
                ctr.get(new int[] {3}, new int[] {3}, c);
            } else {
                int[] ci = new int[1];
                ctr.get(new int[] {3}, new int[] {3}, ci);
                c[0] = ci[0];
            }
            assertEquals((long) nranks * per, c[0]);
            // compare-and-swap: exactly one winner per round
            for (int round = 0; round < 20; round++) {
                long old = ctr.compareAndSwap(new int[] {0}, round, round + 1);
                long won = old == round ? 1 : 0;
                ctr.readInc(new int[] {1}, won);
                ctr.sync();
            }
            long w = ctr.readInc(new int[] {1}, 0);
            assertEquals(20, w, "one CAS winner per round");
            seen.free();
            ctr.free();
        });
    }

    @ParameterizedTest(name = "{0} {1} ranks")
    @CsvSource({"auto,8", "packet,8", "auto,3", "packet,2"})
    @Timeout(60)
    void mutexesLoseNoUpdate(String path, int nranks) {
        int per = 40;
        TestSupport.JOBS.run(path, nranks, world -> {
            GlobalArray a = GlobalArray.create(world, ElemType.LONG, 3);
            GaMutexes mx = GaMutexes.create(world, 3);
            long[] v = new long[1];
            for (int i = 0; i < per; i++) {
                int m = i % 2; // two independent mutexes guarding two counters
                mx.lock(m);
                a.get(new int[] {m}, new int[] {m}, v); // non-atomic read-modify-write in the critical section
                v[0]++;
                Thread.yield();
                a.put(new int[] {m}, new int[] {m}, v);
                mx.unlock(m);
            }
            a.sync();
            long[] all = new long[3];
            a.get(new int[] {0}, new int[] {2}, all);
            assertEquals((long) nranks * (per / 2), all[0], "mutex 0 counter");
            assertEquals((long) nranks * (per / 2), all[1], "mutex 1 counter");
            mx.free();
            a.free();
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"auto", "packet"})
    @Timeout(60)
    void mutexIsFifo(String path) {
        // rank 0 holds the lock while ranks 1..3 queue one after another; they must get it in that order
        TestSupport.JOBS.run(path, 4, world -> {
            GlobalArray order = GlobalArray.create(world, ElemType.LONG, 5);
            GlobalArray arrived = GlobalArray.create(world, ElemType.LONG, 1);
            GaMutexes mx = GaMutexes.create(world, 1);
            int me = world.rank();
            if (me == 0) {
                mx.lock(0);
            }
            world.barrier();
            if (me > 0) {
                while (arrived.readInc(new int[] {0}, 0) != me - 1) {
                    Thread.yield();
                }
            }
            if (me > 0) {
                Thread releaser = new Thread(() -> {
                    try {
                        Thread.sleep(30);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    arrived.readInc(new int[] {0}, 1);
                });
                releaser.start();
                mx.lock(0);
                long pos = order.readInc(new int[] {4}, 1);
                order.put(new int[] {(int) pos}, new int[] {(int) pos}, new long[] {me});
                mx.unlock(0);
                releaser.join();
            } else {
                while (arrived.readInc(new int[] {0}, 0) != 3) {
                    Thread.yield();
                }
                Thread.sleep(30);
                mx.unlock(0);
            }
            order.sync();
            long[] o = new long[3];
            order.get(new int[] {0}, new int[] {2}, o);
            assertEquals("[1, 2, 3]", Arrays.toString(o), "FIFO hand-off order");
            mx.free();
            arrived.free();
            order.free();
        });
    }
}

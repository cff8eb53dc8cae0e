package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrma.Datatype;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.runtime.CommCore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The suite's UCX run (jrma.transports=tcp,ucx): a window whose ranks all reach each other's registered memory takes
 * the atomic domain, so every accumulate, get_accumulate, fetch_and_op and compare_and_swap of every rank — to ranks
 * of the other JVM, of its own JVM, and to itself — goes by UCP atomics (RDMA_ATOMICS, no packet for them), and the
 * accumulates to a location stay atomic with each other whichever rank they come from, including float and MAX
 * accumulates (compare-and-swap loops on the word) and 2-byte ones (the word around them).
 */
class AtomicDomainTest {
    /** Rounds each rank adds to every counter. */
    static final int ROUNDS = 40;
    /** Iterations of the spin mutex per rank. */
    static final int CRITICAL = 15;

    /** Byte offsets in the counters window at rank 0. */
    static final int LONG_AT = 0;
    static final int INT_AT = 8;
    /** Two shorts in one 4-byte word: each one's compare-and-swap loop must keep the other's additions. */
    static final int SHORT_AT = 12;
    static final int SHORT2_AT = 14;
    static final int DOUBLE_AT = 16;
    static final int MAX_AT = 24;
    static final int COUNTER_BYTES = 32;

    private static void assumeUcxRun() {
        assumeTrue(Ranks.UCX && Ranks.JVMS > 1, "the suite's UCX run only");
        boolean off = "false".equals(System.getProperty("jrma.ucx.atomics"));
        if (off) {
            System.out.println("AtomicDomainTest skipped: this run sets jrma.ucx.atomics=false");
        }
        assumeTrue(!off, "this run sets jrma.ucx.atomics=false");
    }

    @ParameterizedTest(name = "[{index}] path={0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(90)
    void everyAccumulateGoesByUcpAtomicsWithoutPackets(String path, int n) {
        assumeUcxRun();
        Ranks.run(path, n, world -> {
            Win w = Win.allocate(world, 5L * Long.BYTES, Long.BYTES, null);
            assertEquals("true", w.info().get("jrma_rdma_atomics"), "the window took the atomic domain");
            int me = world.rank();
            long[] one = {1};
            long[] old = new long[1];
            w.lockAll(0);
            for (int t = 0; t < world.size(); t++) { // every lock granted before counting
                w.fetchAndOp(one, old, Datatype.LONG, t, 0, Op.SUM);
            }
            long packets = w.counters().get(Counter.PACKETS_SENT);
            long atomics = w.counters().get(Counter.RDMA_ATOMICS);
            int ops = 0;
            for (int t = 0; t < world.size(); t++) {
                w.fetchAndOp(one, old, Datatype.LONG, t, 0, Op.SUM);
                w.accumulate(new long[] {1L << me}, 1, Datatype.LONG, t, 1, Op.BOR);
                long[] cas = new long[1];
                w.compareAndSwap(new long[] {me + 1}, new long[] {0}, cas, Datatype.LONG, t, 2);
                w.getAccumulate(new double[] {0.5}, 1, Datatype.DOUBLE, new double[1], 1, Datatype.DOUBLE, t, 3,
                        1, Datatype.DOUBLE, Op.SUM);
                w.accumulate(new int[] {2}, 1, Datatype.INT, t, 4, Op.SUM);
                ops += 5;
            }
            long sent = w.counters().get(Counter.PACKETS_SENT) - packets;
            long did = w.counters().get(Counter.RDMA_ATOMICS) - atomics;
            w.unlockAll();
            world.barrier();
            assertEquals(0, sent, "no packet for the atomics: " + w.counters());
            assertTrue(did >= ops, ops + " operations by UCP atomics: " + w.counters());
            ByteBuffer b = w.buffer().order(ByteOrder.nativeOrder());
            assertEquals(2L * world.size(), b.getLong(0), "every fetch_and_op");
            assertEquals((1L << world.size()) - 1, b.getLong(8), "every BOR");
            assertTrue(b.getLong(16) >= 1 && b.getLong(16) <= world.size(), "one compare_and_swap won");
            assertEquals(0.5 * world.size(), b.getDouble(24), "every double get_accumulate");
            assertEquals(2 * world.size(), b.getInt(32), "every int accumulate");
            System.out.println("rank " + me + ": " + w.counters());
            world.barrier();
            w.free();
        });
    }

    /**
     * Every rank adds to counters at rank 0 (its own ranks, the other JVM's, and rank 0 itself) by fetch_and_op,
     * accumulate and get_accumulate on a long, accumulates on an int and two shorts (the word around them), a double
     * (a compare-and-swap loop) and MAX on a long: nothing is lost, and the fetched values of the long are distinct.
     */
    @ParameterizedTest(name = "[{index}] path={0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(90)
    void mixedAtomicsFromLocalAndRemoteRanksStayAtomic(String path, int n) {
        assumeUcxRun();
        Ranks.run(path, n, world -> {
            Win w = Win.allocate(world, COUNTER_BYTES, 1, null);
            int me = world.rank();
            long[] fetched = new long[ROUNDS];
            w.lockAll(0);
            for (int i = 0; i < ROUNDS; i++) {
                long[] old = new long[1];
                switch (i % 3) {
                    case 0 -> w.fetchAndOp(new long[] {1}, old, Datatype.LONG, 0, LONG_AT, Op.SUM);
                    case 1 -> w.getAccumulate(new long[] {1}, 1, Datatype.LONG, old, 1, Datatype.LONG, 0, LONG_AT,
                            1, Datatype.LONG, Op.SUM);
                    default -> {
                        w.accumulate(new long[] {1}, 1, Datatype.LONG, 0, LONG_AT, Op.SUM);
                        old[0] = -1 - me * ROUNDS - i; // not fetched: a value no fetch returns
                    }
                }
                fetched[i] = old[0];
                w.accumulate(new int[] {1}, 1, Datatype.INT, 0, INT_AT, Op.SUM);
                w.accumulate(new short[] {1}, 1, Datatype.SHORT, 0, SHORT_AT, Op.SUM);
                w.accumulate(new short[] {2}, 1, Datatype.SHORT, 0, SHORT2_AT, Op.SUM);
                w.accumulate(new double[] {0.25}, 1, Datatype.DOUBLE, 0, DOUBLE_AT, Op.SUM);
                w.accumulate(new long[] {(long) me * ROUNDS + i}, 1, Datatype.LONG, 0, MAX_AT, Op.MAX);
            }
            w.unlockAll();
            Object[] all = ((CommCore) world).allgather(fetched);
            world.barrier();
            if (me == 0) {
                ByteBuffer b = w.buffer().order(ByteOrder.nativeOrder());
                int total = world.size() * ROUNDS;
                assertEquals(total, b.getLong(LONG_AT), "the long counter");
                assertEquals(total, b.getInt(INT_AT), "the int counter");
                assertEquals(total, b.getShort(SHORT_AT), "the first short counter");
                assertEquals(2 * total, b.getShort(SHORT2_AT), "the second short counter, in the same word");
                assertEquals(total * 0.25, b.getDouble(DOUBLE_AT), "the double sum");
                assertEquals(total - 1L, b.getLong(MAX_AT), "the max");
                boolean[] seen = new boolean[total];
                for (Object o : all) {
                    for (long v : (long[]) o) {
                        if (v >= 0) {
                            assertTrue(v < total && !seen[(int) v], "fetched " + v + " twice or out of range");
                            seen[(int) v] = true;
                        }
                    }
                }
                System.out.println("rank 0: " + w.counters());
            }
            world.barrier();
            w.free();
        });
    }

    /**
     * Accumulates of many elements (more than the ucx transport posts before it waits) from every rank to rank 0:
     * longs by UCP ADD, doubles and shorts (two to a word, within one call and across callers) by compare-and-swap
     * loops, and a strided (vector) target; every element gets every rank's addition, and fetched values add up.
     */
    @ParameterizedTest(name = "[{index}] path={0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(90)
    void manyElementAccumulatesStayAtomicPerElement(String path, int n) {
        assumeUcxRun();
        Ranks.run(path, n, world -> {
            int me = world.rank();
            Win w = Win.allocate(world, (long) MANY * (Long.BYTES + Double.BYTES + Short.BYTES + 2 * Long.BYTES), 1,
                    null);
            long[] longs = new long[MANY];
            double[] doubles = new double[MANY];
            short[] shorts = new short[MANY];
            for (int i = 0; i < MANY; i++) {
                longs[i] = i + 1;
                doubles[i] = 0.5;
                shorts[i] = 1;
            }
            long doublesAt = (long) MANY * Long.BYTES;
            long shortsAt = doublesAt + (long) MANY * Double.BYTES;
            long stridedAt = shortsAt + (long) MANY * Short.BYTES;
            Datatype everyOther = Datatype.vector(MANY, 1, 2, Datatype.LONG).commit();
            long[] before = new long[MANY];
            w.lockAll(0);
            for (int round = 0; round < 2; round++) {
                w.accumulate(longs, MANY, Datatype.LONG, 0, 0, Op.SUM);
                w.accumulate(doubles, MANY, Datatype.DOUBLE, 0, doublesAt, Op.SUM);
                w.accumulate(shorts, MANY, Datatype.SHORT, 0, shortsAt, Op.SUM);
            }
            w.getAccumulate(longs, MANY, Datatype.LONG, before, MANY, Datatype.LONG, 0, stridedAt, 1, everyOther,
                    Op.SUM);
            w.unlockAll();
            long got = w.counters().get(Counter.RDMA_ATOMICS);
            assertTrue(got >= 7L * MANY, "every element by UCP atomics: " + w.counters());
            world.barrier();
            if (me == 0) {
                ByteBuffer b = w.buffer().order(ByteOrder.nativeOrder());
                int size = world.size();
                for (int i = 0; i < MANY; i++) {
                    assertEquals(2L * size * (i + 1), b.getLong(i * Long.BYTES), "long " + i);
                    assertEquals(size * 1.0, b.getDouble((int) doublesAt + i * Double.BYTES), "double " + i);
                    assertEquals(2 * size, b.getShort((int) shortsAt + i * Short.BYTES), "short " + i);
                    int strided = (int) stridedAt + 2 * i * Long.BYTES;
                    assertEquals((long) size * (i + 1), b.getLong(strided), "strided " + i);
                    assertEquals(0, b.getLong((int) stridedAt + (2 * i + 1) * Long.BYTES), "between the strides " + i);
                }
            }
            Object[] all = ((CommCore) world).allgather(before[MANY - 1]);
            long sum = 0;
            for (Object o : all) {
                sum += (Long) o;
            }
            // the last element's fetched values are 0, MANY, 2 MANY, ... in some order: one per rank
            int size = world.size();
            assertEquals((long) MANY * (size - 1) * size / 2, sum, "each rank fetched a distinct old value");
            world.barrier();
            w.free();
        });
    }

    /**
     * Elements no aligned word holds — an int across an 8-byte boundary, a double complex (16 bytes) — take the
     * target's lane as without the domain (no UCP atomic for them), and every rank's accumulates to them still add up.
     */
    @ParameterizedTest(name = "[{index}] path={0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(90)
    void elementsNoWordHoldsTakeTheLaneAndStayAtomic(String path, int n) {
        assumeUcxRun();
        Ranks.run(path, n, world -> {
            Win w = Win.allocate(world, 64, 1, null);
            w.lockAll(0);
            long before = w.counters().get(Counter.RDMA_ATOMICS);
            for (int i = 0; i < ROUNDS; i++) {
                w.accumulate(new int[] {1}, 1, Datatype.INT, 0, ACROSS_AT, Op.SUM);
                w.accumulate(new double[] {1.0, 0.5}, 1, Datatype.DOUBLE_COMPLEX, 0, COMPLEX_AT, Op.SUM);
            }
            long atomics = w.counters().get(Counter.RDMA_ATOMICS) - before;
            w.unlockAll();
            assertEquals(0, atomics, "no UCP atomic for elements no word holds: " + w.counters());
            world.barrier();
            if (world.rank() == 0) {
                ByteBuffer b = w.buffer().order(ByteOrder.nativeOrder());
                int total = world.size() * ROUNDS;
                assertEquals(total, b.getInt(ACROSS_AT), "the int across an 8-byte boundary");
                assertEquals(total * 1.0, b.getDouble(COMPLEX_AT), "the complex's real part");
                assertEquals(total * 0.5, b.getDouble(COMPLEX_AT + Double.BYTES), "the complex's imaginary part");
            }
            world.barrier();
            w.free();
        });
    }

    /** An int across the 8-byte boundary at 8, and a 16-byte double complex, in a window of disp_unit 1. */
    static final int ACROSS_AT = 6;
    static final int COMPLEX_AT = 16;

    /** Elements per call of {@link #manyElementAccumulatesStayAtomicPerElement}: more than one round of posts. */
    static final int MANY = 300;

    /**
     * A window with memory at rank 0 only (a shared counter): the empty ranks need no key, the window takes the domain,
     * and every rank's fetch_and_ops hand out each ticket once.
     */
    @ParameterizedTest(name = "[{index}] path={0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(90)
    void aCounterAtRankZeroOnlyTakesTheDomain(String path, int n) {
        assumeUcxRun();
        Ranks.run(path, n, world -> {
            int me = world.rank();
            Win w = Win.allocate(world, me == 0 ? Long.BYTES : 0, Long.BYTES, null);
            assertEquals("true", w.info().get("jrma_rdma_atomics"), "empty ranks keep the window in the domain");
            long[] tickets = new long[ROUNDS];
            long[] old = new long[1];
            w.lock(LockType.SHARED, 0, 0);
            for (int i = 0; i < ROUNDS; i++) {
                w.fetchAndOp(new long[] {1}, old, Datatype.LONG, 0, 0, Op.SUM);
                tickets[i] = old[0];
            }
            w.unlock(0);
            Object[] all = ((CommCore) world).allgather(tickets);
            boolean[] seen = new boolean[world.size() * ROUNDS];
            for (Object o : all) {
                for (long v : (long[]) o) {
                    assertTrue(v >= 0 && v < seen.length && !seen[(int) v], "ticket " + v + " twice or out of range");
                    seen[(int) v] = true;
                }
            }
            world.barrier();
            w.free();
        });
    }

    /**
     * A spin mutex taken with compare_and_swap at rank 0 guards a counter that is read and written by get and put:
     * every rank, of both JVMs, increments it inside the critical section, and no increment is lost.
     */
    @ParameterizedTest(name = "[{index}] path={0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(90)
    void aCompareAndSwapSpinMutexAcrossJvms(String path, int n) {
        assumeUcxRun();
        Ranks.run(path, n, world -> {
            Win w = Win.allocate(world, 2L * Long.BYTES, Long.BYTES, null);
            int me = world.rank();
            long[] free = {0};
            long[] mine = {me + 1};
            long[] old = new long[1];
            long[] value = new long[1];
            w.lockAll(0);
            for (int i = 0; i < CRITICAL; i++) {
                do {
                    w.compareAndSwap(mine, free, old, Datatype.LONG, 0, 0);
                } while (old[0] != 0);
                w.get(value, 1, Datatype.LONG, 0, 1);
                w.flush(0);
                value[0]++;
                w.put(value, 1, Datatype.LONG, 0, 1);
                w.flush(0);
                w.fetchAndOp(free, old, Datatype.LONG, 0, 0, Op.REPLACE);
                assertEquals(me + 1, old[0], "the mutex was this rank's");
            }
            w.unlockAll();
            world.barrier();
            if (me == 0) {
                assertEquals((long) world.size() * CRITICAL, w.buffer().order(ByteOrder.nativeOrder()).getLong(8),
                        "every increment under the mutex");
            }
            world.barrier();
            w.free();
        });
    }

    /** {@code jrma.ucx.atomics=false}: no atomic domain, accumulates as before (and still atomic). */
    @Test
    @Timeout(90)
    void theDomainCanBeTurnedOff() {
        assumeUcxRun();
        assumeTrue(Ranks.UCX_MISSING == null, Ranks.UCX_MISSING);
        Jrma.job(2).param("jrma.path", "packet").param("jrma.ucx.atomics", "false").timeout(Duration.ofSeconds(60))
                .run(world -> {
                    Win w = Win.allocate(world, Long.BYTES, Long.BYTES, null);
                    assertEquals("false", w.info().get("jrma_rdma_atomics"));
                    w.lockAll(0);
                    for (int t = 0; t < world.size(); t++) {
                        w.accumulate(new long[] {1}, 1, Datatype.LONG, t, 0, Op.SUM);
                    }
                    w.unlockAll();
                    world.barrier();
                    assertEquals(world.size(), w.buffer().getLong(0));
                    assertEquals(0, w.counters().get(Counter.RDMA_ATOMICS));
                    world.barrier();
                    w.free();
                });
    }

    /**
     * Info {@code jrma_rdma=false} (the messenger's inbox): neither the RDMA lane nor the atomic domain, so a put and
     * the accumulate after it to a rank of the other JVM are packets the target applies in that order — a reader that
     * sees the accumulate's flag sees the put's data (in the domain the flag, a UCP atomic, could overtake the put).
     */
    @ParameterizedTest(name = "[{index}] path={0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(90)
    void jrmaRdmaFalseKeepsPacketsInIssueOrder(String path, int n) {
        assumeUcxRun();
        Ranks.run(path, n, world -> {
            int words = 600; // 4800 bytes: past the lane's 4 KiB, so it would take the lane
            Win w = Win.allocate(world, (words + 1L) * Long.BYTES, 1, Info.of("jrma_issue", "flush_local",
                    "jrma_rdma", "false")); // as the messenger: the queue leaves at flush_local
            assertEquals("false", w.info().get("jrma_rdma"));
            assertEquals("false", w.info().get("jrma_rdma_atomics"));
            assertEquals("0", w.info().get("jrma_rdma_peers"));
            int me = world.rank();
            int to = (me + 1) % world.size();
            long[] data = new long[words];
            Arrays.fill(data, me + 1);
            w.lockAll(0);
            w.put(data, words, Datatype.LONG, to, Long.BYTES);
            w.accumulate(new long[] {me + 1}, 1, Datatype.LONG, to, 0, Op.REPLACE);
            w.flushLocal(to);
            int from = (me + world.size() - 1) % world.size();
            ByteBuffer b = w.buffer().order(ByteOrder.nativeOrder());
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (b.getLong(0) != from + 1 && System.nanoTime() < deadline) {
                w.flush(me); // progress
            }
            assertEquals(from + 1, b.getLong(0), "the flag arrived");
            for (int i = 1; i <= words; i++) {
                assertEquals(from + 1, b.getLong(i * Long.BYTES), "word " + i + " before its flag");
            }
            w.unlockAll();
            assertEquals(0, w.counters().get(Counter.RDMA_ATOMICS) + w.counters().get(Counter.RDMA_OPS));
            world.barrier();
            w.free();
        });
    }
}

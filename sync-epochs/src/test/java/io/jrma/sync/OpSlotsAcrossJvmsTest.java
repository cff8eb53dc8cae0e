package io.jrma.sync;

import static io.jrma.sync.OpSlotsRig.exchange;
import static io.jrma.sync.OpSlotsRig.job;
import static io.jrma.sync.OpSlotsRig.privateLong;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Request;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.sync.OpSlotsRig.Counts;
import io.jrma.sync.OpSlotsRig.Target;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Single small atomics on a dynamic window's private memory (plain direct buffers) of a rank in another JVM of the
 * host go through the target's request slot ({@link OpSlots}) when the target's traffic is latency-bound: checks
 * the results of every kind and several types, which calls take the slot and which stay packets (a stream, more
 * than 16 bytes, a non-contiguous target), atomicity against packets and the direct path of the target's own JVM
 * under contention from several ranks and threads, errors, and {@code jrma.shm.opSlots=false}. Which lane small
 * puts and gets take, and targets that are away, are {@link OpSlotLanesAcrossJvmsTest}.
 */
class OpSlotsAcrossJvmsTest {
    @Test
    @Timeout(120)
    void singleAtomicsOnPrivateMemoryOfAnotherJvmGoThroughTheTargetsSlot() throws Exception {
        // (an origin waits up to 10 s for the target to take a request: on a loaded machine a target descheduled for
        // longer than the default 50 us would make the operation a packet, and the counts below vary)
        job(2).param("jrma.shm.opSlots.waitNs", "10000000000").run(world -> {
            int me = world.rank();
            Win w = Win.createDynamic(world, null);
            ByteBuffer mem = ByteBuffer.allocateDirect(256).order(ByteOrder.nativeOrder());
            if (me == 1) {
                w.attach(mem);
                mem.putLong(0, 100);
                mem.putInt(8, 7);
                mem.putDouble(16, 1.5);
                mem.putShort(24, (short) 3);
            }
            long base = exchange(world, 1, new long[] {Win.address(mem)})[0];
            world.barrier();
            if (me == 0) {
                Counts c = new Counts(w);
                w.lock(LockType.SHARED, 1, 0);
                long[] r = new long[1];
                w.fetchAndOp(new long[] {5}, r, Datatype.LONG, 1, base, Op.SUM);
                w.flush(1);
                assertEquals(100, r[0], "fetch_and_op SUM: the old value");
                assertEquals(1, c.delta(Counter.SLOT_OPS), "a single fetch_and_op through the slot");
                assertEquals(0, c.delta(Counter.PACKETS_SENT), "no packet for it, none for its flush");
                w.fetchAndOp(null, r, Datatype.LONG, 1, base, Op.NO_OP);
                w.flush(1);
                assertEquals(105, r[0], "fetch_and_op NO_OP reads");
                w.fetchAndOp(new long[] {-1}, r, Datatype.LONG, 1, base, Op.REPLACE);
                w.flush(1);
                assertEquals(105, r[0], "fetch_and_op REPLACE");
                int[] ri = new int[1];
                w.fetchAndOp(new int[] {11}, ri, Datatype.INT, 1, base + 8, Op.MAX);
                w.flush(1);
                assertEquals(7, ri[0], "fetch_and_op MAX on an int");
                ByteBuffer rd = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
                w.fetchAndOp(new double[] {2.25}, rd, Datatype.DOUBLE, 1, base + 16, Op.SUM);
                w.flush(1);
                assertEquals(1.5, rd.getDouble(0), "fetch_and_op SUM on a double, result in a direct buffer");
                // compare_and_swap, failing then succeeding, on a long and on a short
                w.compareAndSwap(new long[] {9}, new long[] {0}, r, Datatype.LONG, 1, base);
                w.flush(1);
                assertEquals(-1, r[0], "a failed compare_and_swap returns the value");
                w.compareAndSwap(new long[] {9}, new long[] {-1}, r, Datatype.LONG, 1, base);
                w.flush(1);
                assertEquals(-1, r[0], "a successful compare_and_swap returns the old value");
                short[] rs = new short[1];
                w.compareAndSwap(new short[] {4}, new short[] {3}, rs, Datatype.SHORT, 1, base + 24);
                w.flush(1);
                assertEquals(3, rs[0], "compare_and_swap on a short");
                // accumulate and get_accumulate of up to 16 bytes (the fast lane), request-based too (the general path)
                w.accumulate(new int[] {1, 2}, 2, Datatype.INT, 1, base + 32, Op.SUM);
                w.flush(1);
                long[] two = new long[2];
                w.getAccumulate(new long[] {3, 4}, 2, Datatype.LONG, two, 2, Datatype.LONG, 1, base + 48, 2,
                        Datatype.LONG, Op.SUM);
                w.flush(1);
                assertArrayEquals(new long[] {0, 0}, two, "get_accumulate of two longs: the old values");
                Request q = w.rgetAccumulate(new long[] {1}, 1, Datatype.LONG, r, 1, Datatype.LONG, 1, base, 1,
                        Datatype.LONG, Op.SUM);
                assertTrue(q.test(), "a request-based operation through the slot is complete at issue");
                assertEquals(9, r[0], "rget_accumulate");
                w.flush(1);
                assertEquals(10, c.delta(Counter.SLOT_OPS), "every one of them through the slot");
                assertEquals(0, c.delta(Counter.PACKETS_SENT), "and no packet");
                // an unaligned long: the target applies it under its element lock
                w.fetchAndOp(new long[] {1L << 40}, r, Datatype.LONG, 1, base + 65, Op.SUM);
                w.flush(1);
                assertEquals(0, r[0]);
                assertEquals(1, c.delta(Counter.SLOT_OPS), "an unaligned element through the slot too");
                // the blocking helpers wait for their result at once: latency-bound without a flush between them
                assertEquals(10, w.fetchAndAddLong(1, base, 1), "fetchAndAddLong");
                assertEquals(11, w.compareAndSwapLong(1, base, 11, 12), "compareAndSwapLong");
                w.flush(1);
                assertEquals(2, c.delta(Counter.SLOT_OPS), "the blocking helpers through the slot");
                assertEquals(0, c.delta(Counter.PACKETS_SENT));
                // what stays packets: more than 16 bytes, a non-contiguous target, and a stream
                long[] three = new long[3];
                w.getAccumulate(new long[] {1, 1, 1}, 3, Datatype.LONG, three, 3, Datatype.LONG, 1, base + 96, 3,
                        Datatype.LONG, Op.SUM);
                w.flush(1);
                Datatype gap = Datatype.vector(2, 1, 2, Datatype.LONG).commit();
                w.accumulate(new long[] {1, 1}, 2, Datatype.LONG, 1, base + 128, 1, gap, Op.SUM);
                w.flush(1);
                // two longs the target type swaps: 16 bytes spanned exactly, yet not in order
                Datatype swapped = Datatype.indexedBlock(1, new long[] {1, 0}, Datatype.LONG).commit();
                long[] old = new long[2];
                w.getAccumulate(new long[] {5, 6}, 2, Datatype.LONG, old, 2, Datatype.LONG, 1, base + 176,
                        1, swapped, Op.SUM);
                w.flush(1);
                assertArrayEquals(new long[] {0, 0}, old);
                assertEquals(0, c.delta(Counter.SLOT_OPS), "24 bytes, a strided target, a reordering target: packets");
                assertEquals(3, c.delta(Counter.PACKETS_SENT));
                long[][] tickets = new long[16][1];
                for (int round = 0; round < 2; round++) {
                    // (after a stream this one is a packet; its flush covers one operation: latency-bound again)
                    w.fetchAndOp(null, r, Datatype.LONG, 1, base, Op.NO_OP);
                    w.flush(1);
                    c.delta(Counter.SLOT_OPS);
                    c.delta(Counter.PACKETS_SENT);
                    for (int i = 0; i < 16; i++) {
                        w.fetchAndOp(new long[] {1}, tickets[i], Datatype.LONG, 1, base + 160, Op.SUM);
                    }
                    w.flush(1);
                    assertEquals(1, c.delta(Counter.SLOT_OPS), "a stream: its first operation through the slot");
                    assertEquals(15, c.delta(Counter.PACKETS_SENT), "the rest as one batch");
                    for (int i = 0; i < 16; i++) {
                        assertEquals(16L * round + i, tickets[i][0], "stream " + round + ", ticket " + i);
                    }
                }
                // bytes attached nowhere are refused at the origin, and nothing is posted
                RmaException e = assertThrows(RmaException.class,
                        () -> w.fetchAndOp(new long[] {1}, new long[1], Datatype.LONG, 1, base + 256, Op.SUM));
                assertEquals(ErrorClass.ERR_RMA_RANGE, e.errorClass(), e.getMessage());
                assertEquals(0, c.delta(Counter.SLOT_OPS));
                w.unlock(1);
            }
            world.barrier();
            if (me == 1) {
                assertEquals(12, mem.getLong(0), "the target's counter");
                assertEquals(11, mem.getInt(8));
                assertEquals(3.75, mem.getDouble(16));
                assertEquals(4, mem.getShort(24));
                assertEquals(1, mem.getInt(32));
                assertEquals(2, mem.getInt(36));
                assertEquals(3, mem.getLong(48));
                assertEquals(4, mem.getLong(56));
                assertEquals(1L << 40, mem.getLong(65), "the unaligned long");
                assertEquals(1, mem.getLong(96));
                assertEquals(1, mem.getLong(128));
                assertEquals(0, mem.getLong(136), "the gap of the strided target");
                assertEquals(1, mem.getLong(144));
                assertEquals(32, mem.getLong(160), "two streams of 16 tickets");
                assertEquals(6, mem.getLong(176), "the swapping target type: origin element 1 at target element 0");
                assertEquals(5, mem.getLong(184));
                assertEquals(11 + 1 + 2 + 2 + 1, w.counters().get(Counter.SLOT_OPS_APPLIED),
                        "applied from the slot here");
            }
            world.barrier();
            if (me == 1) {
                w.detach(mem);
            }
            w.free();
        });
    }

    /**
     * Tickets from one counter in private memory of rank 3, drawn by rank 2 (its JVM: the direct path), ranks 0 and
     * 1 (the other JVM: the slot, or packets in streams), and by two threads of rank 0 at once (one slot per
     * origin: a busy one sends a packet): every ticket is drawn exactly once. Without the slots too: a flush by one
     * thread once cleared the mark that made the other thread's flush wait for its packets, and results were lost.
     */
    @ParameterizedTest(name = "jrma.shm.opSlots={0}")
    @ValueSource(booleans = {true, false})
    @Timeout(120)
    void ticketsStayDistinctAcrossSlotsPacketsAndTheDirectPath(boolean useSlots) throws Exception {
        int k = 400;
        // (a long wait for the target to take a request: with eight busy threads on the host's cores its agent may
        // not run for a while, and the origins would withdraw every request)
        job(4).param("jrma.shm.opSlots", "" + useSlots).param("jrma.shm.opSlots.waitNs", "10000000000").run(world -> {
            int me = world.rank();
            int n = world.size();
            Win w = Win.createDynamic(world, null);
            ByteBuffer counter = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
            if (me == n - 1) {
                w.attach(counter);
            }
            long at = exchange(world, n - 1, new long[] {Win.address(counter)})[0];
            world.barrier();
            long[] mine = new long[me == 0 ? 2 * k : me == n - 1 ? 0 : k];
            Win all = Win.allocate(world, me == n - 1 ? 8L * 4 * k : 0, 8, null);
            if (me != n - 1) {
                w.lockAll(0);
                IntConsumer draw = from -> {
                    long[] r = new long[1];
                    for (int i = 0; i < k; i++) {
                        if (i % 50 < 40) { // latency-bound: one ticket per flush
                            w.fetchAndOp(new long[] {1}, r, Datatype.LONG, n - 1, at, Op.SUM);
                            w.flush(n - 1);
                            mine[from + i] = r[0];
                        } else { // a burst of ten, then one flush
                            long[][] b = new long[10][1];
                            for (int j = 0; j < 10; j++) {
                                w.fetchAndOp(new long[] {1}, b[j], Datatype.LONG, n - 1, at, Op.SUM);
                            }
                            w.flush(n - 1);
                            for (int j = 0; j < 10; j++) {
                                mine[from + i + j] = b[j][0];
                            }
                            i += 9;
                        }
                    }
                };
                if (me == 0) {
                    Thread a = new Thread(() -> draw.accept(0), "draw-a");
                    Thread b = new Thread(() -> draw.accept(k), "draw-b");
                    a.start();
                    b.start();
                    try {
                        a.join();
                        b.join();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                } else {
                    draw.accept(0);
                }
                w.unlockAll();
                if (me < n - 2 && useSlots) {
                    assertTrue(w.counters().get(Counter.SLOT_OPS) > 0, "rank " + me + " used the slot");
                    assertTrue(w.counters().get(Counter.PACKETS_SENT) > 0, "rank " + me + " sent packets");
                }
            }
            all.fence(0);
            if (me != n - 1) {
                all.put(mine, mine.length, Datatype.LONG, n - 1, me == 0 ? 0 : (long) (me + 1) * k);
            }
            all.fence(0);
            if (me == n - 1) {
                long[] flat = new long[4 * k];
                all.buffer().order(ByteOrder.nativeOrder()).asLongBuffer().get(flat);
                Arrays.sort(flat);
                for (int i = 0; i < flat.length; i++) {
                    assertEquals(i, flat[i], "tickets 0.." + (flat.length - 1) + ", each once");
                }
                assertEquals(4L * k, counter.getLong(0), "the counter");
                w.detach(counter);
            }
            all.free();
            world.barrier();
            w.free();
        });
    }

    @Test
    @Timeout(120)
    void opSlotsFalseKeepsTheOperationsPackets() throws Exception {
        job(2).param("jrma.shm.opSlots", "false").run(world -> {
            Target d = privateLong(world, 0);
            world.barrier();
            if (world.rank() == 0) {
                d.w().lock(LockType.SHARED, 1, 0);
                for (int i = 0; i < 5; i++) {
                    assertEquals(i, d.w().fetchAndAddLong(1, d.at(), 1));
                    d.w().flush(1);
                }
                d.w().unlock(1);
                assertEquals(0, d.w().counters().get(Counter.SLOT_OPS));
                assertTrue(d.w().counters().get(Counter.PACKETS_SENT) >= 5, "each one a packet");
            }
            world.barrier();
            if (world.rank() == 1) {
                assertEquals(5, d.mem().getLong(0));
            }
            d.free(world.rank());
        });
    }
}

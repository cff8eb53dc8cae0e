package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Request;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.os.CrossMemory;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * under contention from several ranks and threads, a target that does not progress (the request is withdrawn and
 * sent as a packet: no hang), errors, and {@code jrma.shm.opSlots=false}.
 */
class OpSlotsAcrossJvmsTest {
    private static Jrma.Builder job(int ranks) {
        return Jrma.job(ranks).jvms(2).param("jrma.transports", "shm,tcp").timeout(Duration.ofSeconds(90));
    }

    /** Rank {@code owner}'s addresses of its attached buffers, known to every rank (through an allocate window). */
    private static long[] exchange(Comm world, int owner, long[] mine) {
        long[] out = new long[mine.length];
        try (Win x = Win.allocate(world, 8L * mine.length, 8, null)) {
            x.fence(0);
            if (world.rank() == owner) {
                for (int r = 0; r < world.size(); r++) {
                    x.put(mine, mine.length, Datatype.LONG, r, 0);
                }
            }
            x.fence(0);
            ByteBuffer b = x.buffer().order(ByteOrder.nativeOrder());
            for (int i = 0; i < mine.length; i++) {
                out[i] = b.getLong(8 * i);
            }
        }
        return out;
    }

    /**
     * A dynamic window where rank 1 attached 64 private bytes holding {@code initial} first; {@code at} is their
     * address.
     */
    private record Target(Win w, ByteBuffer mem, long at) {
        void free(int me) {
            if (me == 1) {
                w.detach(mem);
            }
            w.free();
        }
    }

    private static Target privateLong(Comm world, long initial) {
        Win w = Win.createDynamic(world, null);
        ByteBuffer mem = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
        if (world.rank() == 1) {
            w.attach(mem);
            mem.putLong(0, initial);
        }
        return new Target(w, mem, exchange(world, 1, new long[] {Win.address(mem)})[0]);
    }

    /**
     * Rank 1 stores "asleep" into {@code flag} (shared memory: neither side needs the other's progress) and stays
     * outside the library for {@code ms}; rank 0 returns once it saw the flag, so what it does next surely happens
     * while rank 1 is away.
     */
    private static void rankOneAway(Comm world, Win flag, long ms) {
        if (world.rank() == 1) {
            flag.buffer().putLong(0, 1);
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return;
        }
        long[] seen = new long[1];
        flag.lockAll(0);
        while (seen[0] == 0) {
            flag.get(seen, 1, Datatype.LONG, 1, 0);
            flag.flush(1);
        }
        flag.unlockAll();
    }

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

    /** Runnable threads per core (the 1-minute load average) beyond which a polling thread rarely runs. */
    private static final double OVERSUBSCRIBED = 4;

    /** This machine's 1-minute load average, or 0 where /proc/loadavg cannot be read. */
    private static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * Small gets on private memory take the target's slot while it polls the library ({@code Jrma.progress} in a
     * loop here) and the kernel's copy while it is away (asleep outside the library), where a slot request would
     * wait for it: never a packet, and the target's bytes either way. With the default wait for a slot (50 µs), so
     * that a target descheduled meanwhile (the JIT's stalls of the first thousands of calls) costs a withdrawal and
     * a kernel copy, not a packet. The stamps that tell a polling target are {@code OpSlotsTest}'s.
     */
    @Test
    @Timeout(120)
    void smallGetsTakeTheSlotOfATargetThatPollsAndTheKernelsCopyOfOneThatIsAway() throws Exception {
        job(2).run(world -> {
            int me = world.rank();
            Target d = privateLong(world, 1000);
            Win stop = Win.allocate(world, 8, 8, null);
            Win away = Win.allocate(world, 8, 8, null);
            if (me == 1) {
                for (int i = 1; i < 8; i++) {
                    d.mem().putLong(8 * i, 1000 + i);
                }
            }
            world.barrier();
            // gets until 500 went through the slot: the first thousands meet JIT stalls of either JVM of some ms
            // each (2 cores: both rank threads spin, a compiler thread takes one's core), which make the target
            // stop polling for a while (its stamps grow stale, a request not taken in time is withdrawn)
            int most = 200_000;
            if (me == 1) { // polls until rank 0 stores into its stop flag (shared memory: a direct store)
                VarHandle flag = MethodHandles.byteBufferViewVarHandle(long[].class,
                        ByteOrder.nativeOrder());
                ByteBuffer b = stop.buffer();
                while ((long) flag.getVolatile(b, 0) == 0) {
                    Jrma.progress(world);
                }
            } else {
                Counts c = new Counts(d.w());
                d.w().lock(LockType.SHARED, 1, 0);
                long[] one = new long[1];
                ByteBuffer two = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
                int n = 0;
                for (int i = 0; i < most && d.w().counters().get(Counter.SLOT_OPS) < 500; i++, n++) {
                    int k = i % 7;
                    if ((i & 1) == 0) { // 8 bytes into a heap array, 16 into a direct buffer
                        d.w().get(one, 1, Datatype.LONG, 1, d.at() + 8 * k);
                        d.w().flush(1);
                        assertEquals(1000 + k, one[0], "get " + i);
                    } else {
                        d.w().get(two, 16, Datatype.BYTE, 1, d.at() + 8 * k);
                        d.w().flush(1);
                        assertEquals(1000 + k, two.getLong(0), "get " + i);
                        assertEquals(1001 + k, two.getLong(8), "get " + i);
                    }
                }
                long slot = c.delta(Counter.SLOT_OPS);
                long copies = c.delta(Counter.CROSS_MEMORY_OPS);
                long packets = c.delta(Counter.PACKETS_SENT);
                d.w().unlock(1);
                assertEquals(0, packets, "no get was a packet (slot " + slot + ", kernel " + copies + ")");
                assertEquals(n, slot + copies, "each get once");
                double load = loadAverage();
                if (slot < 500 && load > OVERSUBSCRIBED * Runtime.getRuntime().availableProcessors()) {
                    // the target polls only while the scheduler runs it: with many more runnable threads than cores
                    // its stamps are rarely fresh when the origin looks, and the kernel's copy is the right lane
                    System.out.println("OpSlotsAcrossJvmsTest: load average " + load + " on "
                            + Runtime.getRuntime().availableProcessors() + " cores: the polling target was seen polling"
                            + " too rarely for its slot (slot " + slot + ", kernel " + copies + "); the slot's share"
                            + " is not asserted under this load");
                } else {
                    assertEquals(500, slot, "a polling target: 500 gets through its slot within " + most
                            + " (kernel " + copies + ", load average " + load + ")");
                }
                assertEquals(8L * ((n + 1) / 2) + 16L * (n / 2), d.w().counters().get(Counter.BYTES_GOT));
                stop.lock(LockType.EXCLUSIVE, 1, 0);
                stop.put(new long[] {1}, 1, Datatype.LONG, 1, 0);
                stop.unlock(1);
            }
            world.barrier();
            rankOneAway(world, away, 1500); // rank 1 sleeps outside the library; its progress thread idles
            if (me == 0) {
                try {
                    Thread.sleep(50); // rank 1's last slot stamps grow stale
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                Counts c = new Counts(d.w());
                c.delta(Counter.SLOT_OPS);
                c.delta(Counter.CROSS_MEMORY_OPS);
                c.delta(Counter.PACKETS_SENT);
                d.w().lock(LockType.SHARED, 1, 0);
                long[] one = new long[1];
                for (int i = 0; i < 200; i++) {
                    d.w().get(one, 1, Datatype.LONG, 1, d.at() + 8 * (i % 8));
                    d.w().flush(1);
                    assertEquals(1000 + i % 8, one[0], "get " + i + " from the away target");
                }
                long slot = c.delta(Counter.SLOT_OPS);
                long copies = c.delta(Counter.CROSS_MEMORY_OPS);
                long packets = c.delta(Counter.PACKETS_SENT);
                d.w().unlock(1);
                if (packets > 0 && copies == 0) { // (the gets waited for the target: right, but slow)
                    System.out.println("OpSlotsAcrossJvmsTest: the kernel's copy does not apply here ("
                            + CrossMemory.binding() + "); the away target's gets were packets");
                } else {
                    assertEquals(200, slot + copies, "each get once, none a packet");
                    assertTrue(copies >= 150, "an away target: its gets by the kernel (slot " + slot + ", kernel "
                            + copies + ")");
                }
            }
            world.barrier();
            away.free();
            stop.free();
            d.free(me);
        });
    }

    /**
     * Small puts go through the slot before the kernel's copy when the system call goes through JNA (after it through
     * the JDK's linker); small gets through the slot where the kernel's copy does not apply (here
     * {@code jrma.cma.minBytes=-1}) or the target polls; larger ones stay packets (or the kernel's copy).
     */
    @Test
    @Timeout(120)
    void smallPutsAndGetsTakeTheSlotWhereTheKernelCopyCostsMoreOrDoesNotApply() throws Exception {
        for (String cma : new String[] {"4096", "-1"}) {
            job(2).param("jrma.shm.opSlots.waitNs", "10000000000").param("jrma.cma.minBytes", cma).run(world -> {
                int me = world.rank();
                Win w = Win.createDynamic(world, null);
                ByteBuffer mem = ByteBuffer.allocateDirect(256).order(ByteOrder.nativeOrder());
                if (me == 1) {
                    w.attach(mem);
                }
                long base = exchange(world, 1, new long[] {Win.address(mem)})[0];
                world.barrier();
                if (me == 0) {
                    boolean kernel = !cma.equals("-1");
                    boolean linker = CrossMemory.viaJdkLinker();
                    Counts c = new Counts(w);
                    w.lock(LockType.SHARED, 1, 0);
                    for (int i = 0; i < 4; i++) { // 8, 32 bytes (heap and direct origins), then 40: packets
                        int n = i < 3 ? (i == 0 ? 1 : 4) : 5;
                        long[] v = new long[n];
                        Arrays.fill(v, 100 + i);
                        if (i == 2) {
                            ByteBuffer d = ByteBuffer.allocateDirect(8 * n).order(ByteOrder.nativeOrder());
                            d.asLongBuffer().put(v);
                            w.put(d, 8 * n, Datatype.BYTE, 1, base + 64 * i);
                        } else {
                            w.put(v, n, Datatype.LONG, 1, base + 64 * i);
                        }
                        w.flush(1);
                        long slot = c.delta(Counter.SLOT_OPS);
                        long copies = c.delta(Counter.CROSS_MEMORY_OPS);
                        long packets = c.delta(Counter.PACKETS_SENT);
                        String what = "put of " + 8 * n + " bytes (kernel copy " + (kernel ? "on" : "off") + ", "
                                + CrossMemory.binding() + ")";
                        if (i < 3 && !(kernel && linker)) {
                            assertEquals(1, slot, what + " through the slot");
                        } else if (i == 3) {
                            assertEquals(0, slot, what + " too large for the slot");
                        }
                        assertEquals(1, slot + copies + packets, what + ": one way");
                    }
                    for (int i = 0; i < 4; i++) { // gets of 8, 16, 16 (direct), 24 bytes
                        int n = i == 0 ? 1 : i < 3 ? 2 : 3;
                        long[] got = new long[n];
                        ByteBuffer d = ByteBuffer.allocateDirect(8 * n).order(ByteOrder.nativeOrder());
                        if (i == 2) {
                            w.get(d, 8 * n, Datatype.BYTE, 1, base + 64);
                            d.asLongBuffer().get(got);
                        } else {
                            w.get(got, n, Datatype.LONG, 1, base + 64 * (i == 3 ? 3 : 1));
                        }
                        w.flush(1);
                        for (int j = 0; j < n; j++) {
                            assertEquals(i == 3 ? 103 : 101, got[j], "get " + i + ", long " + j);
                        }
                        long slot = c.delta(Counter.SLOT_OPS);
                        long copies = c.delta(Counter.CROSS_MEMORY_OPS);
                        long packets = c.delta(Counter.PACKETS_SENT);
                        String what = "get of " + 8 * n + " bytes (kernel copy " + (kernel ? "on" : "off") + ")";
                        if (!kernel || i == 3) {
                            assertEquals(i < 3 ? 1 : 0, slot, what);
                        } else { // the slot if the target polls now (it waits in a barrier), else the kernel's copy
                            assertEquals(1, slot + copies, what + ": the slot or the kernel's copy");
                        }
                        assertEquals(1, slot + copies + packets, what + ": one way");
                    }
                    w.unlock(1);
                }
                world.barrier();
                if (me == 1) {
                    for (int i = 0; i < 4; i++) {
                        for (int j = 0; j < (i == 0 ? 1 : i < 3 ? 4 : 5); j++) {
                            assertEquals(100 + i, mem.getLong(64 * i + 8 * j), "put " + i + ", long " + j);
                        }
                    }
                    w.detach(mem);
                }
                w.free();
            });
        }
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

    /**
     * A target whose JVM does not progress (no progress thread, its rank outside the library for half a second):
     * the request is not taken, the origin withdraws it and sends a packet, which is applied once the target enters
     * the library. No hang, and the value is right.
     */
    @Test
    @Timeout(120)
    void aTargetThatDoesNotProgressGetsAPacketInstead() throws Exception {
        job(2).param("jrma.progress", "caller").run(world -> {
            Target d = privateLong(world, 41);
            Win away = Win.allocate(world, 8, 8, null);
            world.barrier();
            rankOneAway(world, away, 500); // nobody serves rank 1's slots or rings meanwhile
            if (world.rank() == 0) {
                Counts c = new Counts(d.w());
                d.w().lock(LockType.EXCLUSIVE, 1, 0);
                long[] r = new long[1];
                long t0 = System.nanoTime();
                d.w().fetchAndOp(new long[] {1}, r, Datatype.LONG, 1, d.at(), Op.SUM);
                d.w().flush(1);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertEquals(41, r[0]);
                assertEquals(0, c.delta(Counter.SLOT_OPS), "withdrawn from the slot");
                assertEquals(1, c.delta(Counter.PACKETS_SENT), "sent as a packet instead");
                assertTrue(ms >= 100, "applied only once the target progressed (" + ms + " ms)");
                d.w().unlock(1);
            }
            world.barrier();
            if (world.rank() == 1) {
                assertEquals(42, d.mem().getLong(0));
            }
            away.free();
            d.free(world.rank());
        });
    }

    /**
     * A target whose progress thread sleeps in its selector (its rank outside the library, parks of up to 5 s): a
     * request not answered within a couple of microseconds rings the doorbell, as a packet would, and is served
     * through the slot at once instead of after the sleep.
     */
    @Test
    @Timeout(120)
    void aSleepingTargetIsWokenByTheDoorbell() throws Exception {
        job(2).param("jrma.progress", "thread").param("jrma.agent.maxParkNs", "5000000000")
                .param("jrma.shm.opSlots.waitNs", "10000000000").run(world -> {
            Target d = privateLong(world, 7);
            Win away = Win.allocate(world, 8, 8, null);
            world.barrier();
            rankOneAway(world, away, 3000); // only rank 1's progress thread, asleep, can answer meanwhile
            if (world.rank() == 0) {
                try {
                    Thread.sleep(500); // the target's idle progress thread goes to sleep in its selector
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                d.w().lock(LockType.SHARED, 1, 0);
                long t0 = System.nanoTime();
                long old = d.w().fetchAndAddLong(1, d.at(), 1);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                d.w().unlock(1);
                assertEquals(7, old);
                assertEquals(1, d.w().counters().get(Counter.SLOT_OPS), "served through the slot");
                assertTrue(ms < 1000, "the sleeping target answered after " + ms + " ms: its doorbell was not rung");
            }
            world.barrier();
            if (world.rank() == 1) {
                assertEquals(8, d.mem().getLong(0));
            }
            away.free();
            d.free(world.rank());
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

    /** Reads a counter's growth since the last look. */
    private static final class Counts {
        private final Win w;
        private final long[] last = new long[Counter.values().length];

        Counts(Win w) {
            this.w = w;
        }

        long delta(Counter c) {
            long now = w.counters().get(c);
            long d = now - last[c.ordinal()];
            last[c.ordinal()] = now;
            return d;
        }
    }
}

package io.jrma.sync;

import static io.jrma.sync.OpSlotsRig.exchange;
import static io.jrma.sync.OpSlotsRig.job;
import static io.jrma.sync.OpSlotsRig.privateLong;
import static io.jrma.sync.OpSlotsRig.rankOneAway;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.os.CrossMemory;
import io.jrma.sync.OpSlotsRig.Counts;
import io.jrma.sync.OpSlotsRig.Target;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which lane small puts and gets on private memory of a rank in another JVM of the host take: the target's request
 * slot ({@link OpSlots}) while it polls the library, the kernel's copy while it is away or where the slot costs
 * more, never a packet for those; a packet when the target does not progress (the slot request is withdrawn: no
 * hang); and the doorbell that wakes a sleeping target. The atomics through the slot are
 * {@link OpSlotsAcrossJvmsTest}.
 */
class OpSlotLanesAcrossJvmsTest {
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
}

package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.os.CrossMemory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Puts and gets on a dynamic window's private memory (plain direct buffers) of a rank in another JVM of the host
 * by cross memory attach: the origin's kernel call copies the bytes, the target takes no part. Checks the data
 * both ways (from direct buffers in place, from heap arrays through staging in several pieces, from a
 * non-contiguous origin), which operations take that way (large ones always; small gets only in a
 * latency-bound loop, a stream of small ones as batches; small puts only through the JDK's linker, else through the
 * target's request slot), that a flush means the bytes are in the target's memory, that range errors are still
 * reported, and that {@code jrma.cma.minBytes=-1} turns it off.
 */
class CrossMemoryAcrossJvmsTest {
    private static final int BIG = (1 << 20) + 4096;

    private static Jrma.Builder job(String minBytes) {
        // (small puts the kernel does not copy go through the target's request slot: an origin waits for it as long
        // as it takes, so that a target descheduled on a loaded machine does not turn one into a packet; small gets
        // always by the kernel here, although the target may poll in a barrier meanwhile: the slot's turn for those
        // is OpSlotLanesAcrossJvmsTest's)
        return Jrma.job(2).jvms(2).param("jrma.transports", "shm,tcp").param("jrma.cma.minBytes", minBytes)
                .param("jrma.shm.opSlots.waitNs", "10000000000").param("jrma.shm.opSlots.gets", "kernel")
                .timeout(Duration.ofSeconds(90));
    }

    /**
     * Skips where the ranks' JVMs (siblings, children of the test's JVM) cannot reach each other: no such calls,
     * a seccomp policy refusing them (even on the caller itself), or Yama's ptrace_scope above 0 (then only
     * descendants may be read).
     */
    private static void assumeCrossMemory() throws IOException {
        Assumptions.assumeTrue(CrossMemory.available(),
                "process_vm_readv/writev not available here (not Linux, or JNA)");
        long self = ProcessHandle.current().pid();
        ByteBuffer a = ByteBuffer.allocateDirect(8);
        ByteBuffer b = ByteBuffer.allocateDirect(8);
        Assumptions.assumeTrue(CrossMemory.read((int) self, Win.address(a), Win.address(b), 8),
                "the kernel refuses cross memory attach here (a seccomp policy)");
        Path yama = Path.of("/proc/sys/kernel/yama/ptrace_scope");
        String scope = Files.exists(yama) ? Files.readString(yama).trim() : "0";
        Assumptions.assumeTrue(scope.equals("0"), "Yama ptrace_scope is " + scope
                + ": sibling JVMs may not copy to each other, operations go as packets");
    }

    /** Rank 1's addresses of its attached buffers, known to rank 0 (through an allocate window). */
    private static long[] exchange(Comm world, long[] mine) {
        long[] out = mine.clone();
        try (Win x = Win.allocate(world, world.rank() == 0 ? 8L * mine.length : 0, 8, null)) {
            x.fence(0);
            if (world.rank() == 1) {
                x.put(mine, mine.length, Datatype.LONG, 0, 0);
            }
            x.fence(0);
            if (world.rank() == 0) {
                ByteBuffer b = x.buffer().order(ByteOrder.nativeOrder());
                for (int i = 0; i < mine.length; i++) {
                    out[i] = b.getLong(8 * i);
                }
            }
        }
        return out;
    }

    private static byte pattern(int seed, long i) {
        return (byte) (seed * 31 + i * 7 + (i >> 9));
    }

    @Test
    @Timeout(120)
    void putsAndGetsOnPrivateMemoryOfAnotherJvmAreOneKernelCopy() throws Exception {
        assumeCrossMemory();
        job("16384").run(world -> {
            int me = world.rank();
            Win w = Win.createDynamic(world, null);
            ByteBuffer big = ByteBuffer.allocateDirect(BIG);
            ByteBuffer small = ByteBuffer.allocateDirect(4096).order(ByteOrder.nativeOrder());
            ByteBuffer shared = Jrma.allocateMemory(4096);
            if (me == 1) {
                w.attach(big);
                w.attach(small);
                w.attach(shared);
            }
            long[] at = exchange(world, new long[] {Win.address(big), Win.address(small), Win.address(shared)});
            if (me == 0) {
                WinCounters c = new WinCounters(w);
                w.lockAll(0);
                // a large put from a direct buffer, in place, at an odd address
                ByteBuffer out = ByteBuffer.allocateDirect(1 << 20);
                for (int i = 0; i < out.capacity(); i++) {
                    out.put(i, pattern(1, i));
                }
                w.put(out, 1 << 20, Datatype.BYTE, 1, at[0] + 3);
                assertEquals(1, c.delta(Counter.CROSS_MEMORY_OPS), "a 1 MiB put is one kernel copy");
                w.flush(1);
                // read back into a heap array: staged, in four pieces
                byte[] back = new byte[1 << 20];
                w.get(back, 1 << 20, Datatype.BYTE, 1, at[0] + 3);
                w.flush(1);
                for (int i = 0; i < back.length; i++) {
                    if (back[i] != pattern(1, i)) {
                        throw new AssertionError("byte " + i + " read back as " + back[i] + ", not " + pattern(1, i));
                    }
                }
                // a large put from a heap array, staged, then read back into a direct buffer in place
                byte[] heap = new byte[300_000];
                for (int i = 0; i < heap.length; i++) {
                    heap[i] = pattern(2, i);
                }
                w.put(heap, heap.length, Datatype.BYTE, 1, at[0] + BIG - heap.length);
                ByteBuffer in = ByteBuffer.allocateDirect(heap.length);
                w.get(in, heap.length, Datatype.BYTE, 1, at[0] + BIG - heap.length);
                w.flush(1);
                for (int i = 0; i < heap.length; i++) {
                    if (in.get(i) != heap[i]) {
                        throw new AssertionError("heap put, byte " + i + ": " + in.get(i) + " != " + heap[i]);
                    }
                }
                assertEquals(3, c.delta(Counter.CROSS_MEMORY_OPS));
                // a non-contiguous origin (every other long of 4096) into contiguous target bytes
                long[] strided = new long[4096];
                for (int i = 0; i < strided.length; i++) {
                    strided[i] = i % 2 == 0 ? 1000 + i : -1;
                }
                Datatype everyOther = Datatype.vector(2048, 1, 2, Datatype.LONG).commit();
                w.put(strided, 1, everyOther, 1, at[0], 2048, Datatype.LONG);
                long[] dense = new long[2048];
                w.get(dense, 2048, Datatype.LONG, 1, at[0]);
                w.flush(1);
                for (int i = 0; i < dense.length; i++) {
                    assertEquals(1000 + 2 * i, dense[i], "strided put, element " + i);
                }
                assertEquals(2, c.delta(Counter.CROSS_MEMORY_OPS), "16 KiB each way: both by the kernel");
                // small operations: in a latency-bound loop a get goes by the kernel; a put too when the call goes
                // through the JDK's linker, else through the target's request slot (quicker than JNA's call)...
                boolean cheap = CrossMemory.viaJdkLinker();
                if (Boolean.getBoolean("jrma.test.jdkLinker")) {
                    assertTrue(cheap, "started with the JDK linker flags, yet the calls go through "
                            + CrossMemory.binding());
                } else if ("false".equals(System.getProperty("jrma.cma.procMem"))
                        && "false".equals(System.getProperty("jrma.ffm"))) {
                    assertEquals("jna", CrossMemory.binding(), "the jna-only execution");
                } else if (Runtime.version().feature() < 22) {
                    // small gets (these 8-byte ones) read through /proc/PID/mem
                    assertEquals("procmem+jna", CrossMemory.binding(), "sun.nio.ch is open among the JVM flags");
                }
                long[] one = new long[1];
                for (int i = 0; i < 10; i++) {
                    long sent = w.counters().get(Counter.PACKETS_SENT);
                    w.put(new long[] {7000 + i}, 1, Datatype.LONG, 1, at[1] + 8 * i);
                    w.flush(1);
                    // (the first one follows a flush that covered two operations: not a latency loop yet)
                    assertEquals(i > 0 ? 0 : 1, w.counters().get(Counter.PACKETS_SENT) - sent, "small put "
                            + i + " through " + CrossMemory.binding());
                    w.get(one, 1, Datatype.LONG, 1, at[1] + 8 * i);
                    w.flush(1);
                    assertEquals(7000 + i, one[0], "small get " + i);
                }
                assertEquals(cheap ? 19 : 10, c.delta(Counter.CROSS_MEMORY_OPS), "every get alone, by the kernel"
                        + (cheap ? ", and every put but the first" : ""));
                assertEquals(cheap ? 0 : 9, w.counters().get(Counter.SLOT_OPS), "every put but the first "
                        + (cheap ? "by the kernel" : "through the target's slot"));
                // ... a stream of small gets as batches (its first one still by the kernel), the next wholly
                for (int round = 0; round < 2; round++) {
                    long[][] got = new long[16][1];
                    long sent = w.counters().get(Counter.PACKETS_SENT);
                    for (int i = 0; i < 16; i++) {
                        w.get(got[i], 1, Datatype.LONG, 1, at[1] + 8 * i);
                    }
                    w.flush(1);
                    assertEquals(round == 0 ? 1 : 0, c.delta(Counter.CROSS_MEMORY_OPS), "stream " + round);
                    assertEquals(round == 0 ? 15 : 16,
                            w.counters().get(Counter.PACKETS_SENT) - sent, "stream " + round);
                    for (int i = 0; i < 16; i++) {
                        assertEquals(i < 10 ? 7000 + i : 0, got[i][0], "stream " + round + ", get " + i);
                    }
                }
                // memory in a shared segment is reached by load/store, not by the kernel
                long direct = w.counters().get(Counter.DIRECT_OPS);
                w.put(out, 4096, Datatype.BYTE, 1, at[2]);
                w.flush(1);
                assertEquals(direct + 1, w.counters().get(Counter.DIRECT_OPS));
                c.delta(Counter.CROSS_MEMORY_OPS);
                // bytes beyond the region are refused before anything is written
                RmaException e = assertThrows(RmaException.class,
                        () -> w.put(out, 8192, Datatype.BYTE, 1, at[1]));
                assertEquals(ErrorClass.ERR_RMA_RANGE, e.errorClass(), e.getMessage());
                assertEquals(0, c.delta(Counter.CROSS_MEMORY_OPS));
                w.unlockAll();
            }
            world.barrier();
            if (me == 1) {
                // the target sees in its own memory what the origin's kernel copies wrote
                boolean little = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
                for (int i = 0; i < BIG; i += 4093) { // the strided longs, then the first put, then the heap put
                    long dense = 1000 + 2 * (i >> 3);
                    byte want = i < 16384 ? (byte) (dense >> (8 * (little ? i & 7 : 7 - (i & 7))))
                            : i < BIG - 300_000 ? pattern(1, i - 3) : pattern(2, i - (BIG - 300_000));
                    assertEquals(want, big.get(i), "target's own byte " + i);
                }
                assertEquals(7009, small.getLong(72), "the target's own long 9");
                assertEquals(0, small.get(4095), "the refused put wrote nothing");
                assertEquals(0, w.counters().get(Counter.CROSS_MEMORY_OPS), "the target copied nothing");
            }
            world.barrier();
            if (me == 1) {
                w.detach(small); // then the origin sees it gone
            }
            world.barrier();
            if (me == 0) {
                w.lock(LockType.SHARED, 1, 0);
                RmaException e = assertThrows(RmaException.class,
                        () -> w.put(new long[] {1}, 1, Datatype.LONG, 1, at[1]));
                assertEquals(ErrorClass.ERR_RMA_RANGE, e.errorClass(), e.getMessage());
                w.unlock(1);
            }
            world.barrier();
            if (me == 1) {
                w.detach(big);
                w.detach(shared);
            }
            w.free();
        });
    }

    /**
     * A flush (and an exclusive unlock) means the bytes are in the target's memory: the target checks its own
     * memory each time a flag, stored directly in a shared window after the flush returned, moves.
     */
    @Test
    @Timeout(120)
    void aFlushMeansTheBytesAreInTheTargetsMemory() throws Exception {
        assumeCrossMemory();
        int rounds = 2000;
        job("0").run(world -> { // every put by the kernel
            int me = world.rank();
            Win w = Win.createDynamic(world, null);
            ByteBuffer mem = ByteBuffer.allocateDirect(64 << 10).order(ByteOrder.nativeOrder());
            if (me == 1) {
                w.attach(mem);
            }
            long base = exchange(world, new long[] {Win.address(mem)})[0];
            Win flag = Win.allocate(world, 8, 1, null);
            world.barrier();
            if (me == 0) {
                ByteBuffer block = ByteBuffer.allocateDirect(32 << 10).order(ByteOrder.nativeOrder());
                flag.lockAll(0);
                for (long i = 1; i <= rounds; i++) {
                    if (i % 2 == 0) {
                        w.lock(LockType.SHARED, 1, 0);
                        w.put(new long[] {i}, 1, Datatype.LONG, 1, base);
                        w.flush(1);
                    } else {
                        w.lock(LockType.EXCLUSIVE, 1, 0);
                        block.putLong(0, i);
                        block.putLong(block.capacity() - 8, i);
                        w.put(block, block.capacity(), Datatype.BYTE, 1, base);
                    }
                    w.unlock(1);
                    flag.put(new long[] {i}, 1, Datatype.LONG, 1, 0);
                    flag.flush(1);
                }
                flag.unlockAll();
                assertTrue(w.counters().get(Counter.CROSS_MEMORY_OPS) >= rounds - 1,
                        w.counters().get(Counter.CROSS_MEMORY_OPS) + " of " + rounds + " by the kernel");
            } else {
                ByteBuffer f = flag.buffer().order(ByteOrder.nativeOrder());
                for (long i = 1; i <= rounds; i++) {
                    long seen;
                    do {
                        flag.sync();
                        seen = f.getLong(0);
                    } while (seen < i);
                    w.lock(LockType.EXCLUSIVE, 1, 0); // no copy of the next round may be half done while we read
                    long data = mem.getLong(0);
                    w.unlock(1);
                    assertTrue(data >= seen, "unlock " + seen + " returned but the target holds " + data);
                    i = seen;
                }
                long last = mem.getLong((32 << 10) - 8);
                assertTrue(last >= rounds - 1, "the last large put's end: " + last);
            }
            world.barrier();
            flag.free();
            w.free();
        });
    }

    @Test
    @Timeout(120)
    void minusOneKeepsTheKernelOut() {
        job("-1").run(world -> {
            int me = world.rank();
            Win w = Win.createDynamic(world, null);
            ByteBuffer big = ByteBuffer.allocateDirect(BIG);
            if (me == 1) {
                w.attach(big);
            }
            long base = exchange(world, new long[] {Win.address(big)})[0];
            if (me == 0) {
                w.lockAll(0);
                ByteBuffer out = ByteBuffer.allocateDirect(1 << 20);
                for (int i = 0; i < out.capacity(); i++) {
                    out.put(i, pattern(3, i));
                }
                w.put(out, 1 << 20, Datatype.BYTE, 1, base);
                w.flush(1);
                long[] one = new long[1];
                for (int i = 0; i < 5; i++) {
                    w.put(new long[] {i}, 1, Datatype.LONG, 1, base + BIG - 8);
                    w.flush(1);
                    w.get(one, 1, Datatype.LONG, 1, base + BIG - 8);
                    w.flush(1);
                    assertEquals(i, one[0]);
                }
                byte[] back = new byte[1 << 20];
                w.get(back, 1 << 20, Datatype.BYTE, 1, base);
                w.unlockAll();
                for (int i = 0; i < back.length; i += 997) {
                    assertEquals(pattern(3, i), back[i], "byte " + i);
                }
                assertEquals(0, w.counters().get(Counter.CROSS_MEMORY_OPS), "jrma.cma.minBytes=-1");
                // the large ones as packets, the small ones through the target's request slot (OpSlots; a packet
                // where the target took longer than jrma.shm.opSlots.waitNs)
                long slots = w.counters().get(Counter.SLOT_OPS);
                long packets = w.counters().get(Counter.PACKETS_SENT);
                assertTrue(packets >= 2 && slots <= 10 && slots + packets >= 12, slots + " through the slot, " + packets
                        + " packets");
            }
            world.barrier();
            if (me == 1) {
                w.detach(big);
            }
            w.free();
        });
    }

    /** Reads a counter's growth since the last look. */
    private static final class WinCounters {
        private final Win w;
        private long last;

        WinCounters(Win w) {
            this.w = w;
        }

        long delta(Counter c) {
            long now = w.counters().get(c);
            long d = now - last;
            last = now;
            return d;
        }
    }
}

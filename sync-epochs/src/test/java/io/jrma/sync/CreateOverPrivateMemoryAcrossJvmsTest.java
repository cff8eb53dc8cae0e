package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Group;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A create window over memory private to each rank's JVM (plain direct buffers), with ranks in two JVMs of the host:
 * the peers in the other JVM are "mixed", as a dynamic window's: lock word and signals by load/store in the owner's
 * state segment, the memory (one private region at the owner's addresses) by the kernel's copy, the owner's request
 * slots or packets. Checks displacement arithmetic (disp_unit 8), which way each operation takes, every epoch kind,
 * exclusive locks contended from both JVMs, range errors, and the data on both sides.
 */
class CreateOverPrivateMemoryAcrossJvmsTest {
    private static final int BYTES = (1 << 20) + 4096;

    private static boolean kernelCopies() {
        if (!CrossMemory.available()) {
            return false;
        }
        ByteBuffer a = ByteBuffer.allocateDirect(8);
        ByteBuffer b = ByteBuffer.allocateDirect(8);
        try {
            Path yama = Path.of("/proc/sys/kernel/yama/ptrace_scope");
            String scope = Files.exists(yama) ? Files.readString(yama).trim() : "0";
            return scope.equals("0") && CrossMemory.read((int) ProcessHandle.current().pid(),
                    Win.address(a), Win.address(b), 8);
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    @Timeout(120)
    void peersInAnotherJvmAreMixed() throws Exception {
        boolean kernel = kernelCopies();
        Jrma.job(4).jvms(2).param("jrma.transports", "shm,tcp").param("jrma.shm.opSlots.waitNs", "10000000000")
                .timeout(Duration.ofSeconds(90)).run(world -> {
            int me = world.rank();
            int n = world.size();
            ByteBuffer mem = ByteBuffer.allocateDirect(BYTES).order(ByteOrder.nativeOrder());
            Win w = Win.create(world, mem, 8, null);
            assertEquals("mixed", w.info().get("jrma_path"), "ranks of the other JVM: lock words by load/store, memory"
                    + " by kernel copies, slots or packets");
            int other = (me + 2) % n; // in the other JVM (ranks 0,1 | 2,3)
            world.barrier();
            // passive target: a single fetch_and_op through the owner's slot, a large put and get by the kernel
            w.lock(LockType.SHARED, other, 0);
            long[] r = new long[1];
            w.fetchAndOp(new long[] {10 + me}, r, Datatype.LONG, other, 3, Op.SUM); // disp 3 x 8: byte 24
            w.flush(other);
            assertEquals(0, r[0]);
            assertEquals(1, w.counters().get(Counter.SLOT_OPS), "a single fetch_and_op through the owner's slot");
            // the latency-bound single operations, each one kernel copy or one slot request, never a packet: an 8-byte
            // get into a direct buffer, a compare_and_swap, an 8-byte put from a direct buffer
            long ops0 = w.counters().get(Counter.SLOT_OPS) + w.counters().get(Counter.CROSS_MEMORY_OPS);
            long packets0 = w.counters().get(Counter.PACKETS_SENT);
            ByteBuffer eight = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
            w.get(eight, 1, Datatype.LONG, other, 3);
            w.flush(other);
            assertEquals(10 + me, eight.getLong(0), "an 8-byte get of what the fetch_and_op left at disp 3");
            w.compareAndSwap(new long[] {200 + me}, new long[] {0}, r, Datatype.LONG, other, 2);
            w.flush(other);
            assertEquals(0, r[0], "compare_and_swap at disp 2: the old value");
            eight.putLong(0, 300 + me);
            w.put(eight, 1, Datatype.LONG, other, 1);
            w.flush(other);
            assertEquals(3, w.counters().get(Counter.SLOT_OPS) + w.counters().get(Counter.CROSS_MEMORY_OPS) - ops0,
                    "get, compare_and_swap and put: kernel copies or slot requests");
            assertEquals(packets0, w.counters().get(Counter.PACKETS_SENT), "no packet for any of them");
            // a displacement outside the window fails at the origin with its error class, however small the operation
            RmaException neg = assertThrows(RmaException.class, () -> w.get(eight, 1, Datatype.LONG, other, -1));
            assertEquals(ErrorClass.ERR_DISP, neg.errorClass(), neg.getMessage());
            RmaException past = assertThrows(RmaException.class,
                    () -> w.get(eight, 1, Datatype.LONG, other, BYTES / 8));
            assertEquals(ErrorClass.ERR_RMA_RANGE, past.errorClass(), past.getMessage());
            RmaException casPast = assertThrows(RmaException.class,
                    () -> w.compareAndSwap(new long[] {1}, new long[] {0}, new long[1], Datatype.LONG, other,
                            BYTES / 8));
            assertEquals(ErrorClass.ERR_RMA_RANGE, casPast.errorClass(), casPast.getMessage());
            ByteBuffer big = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.nativeOrder());
            for (int i = 0; i < big.capacity(); i += 8) {
                big.putLong(i, me * 1_000_000L + i);
            }
            long before = w.counters().get(Counter.CROSS_MEMORY_OPS);
            // bytes 4096.. of its memory
            w.put(big, (1 << 20) / 8, Datatype.LONG, other, 512, (1 << 20) / 8, Datatype.LONG);
            w.flush(other);
            ByteBuffer back = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.nativeOrder());
            w.get(back, (1 << 20) / 8, Datatype.LONG, other, 512, (1 << 20) / 8, Datatype.LONG);
            w.flush(other);
            assertEquals(big, back, "a megabyte put and read back");
            if (kernel) {
                assertEquals(2, w.counters().get(Counter.CROSS_MEMORY_OPS) - before, "large put and get by the kernel");
            }
            w.unlock(other);
            // bytes beyond the window fail at the origin
            w.lock(LockType.SHARED, other, 0);
            RmaException e = assertThrows(RmaException.class,
                    () -> w.put(new long[] {1, 2}, 2, Datatype.LONG, other, BYTES / 8 - 1, 2, Datatype.LONG));
            assertEquals(ErrorClass.ERR_RMA_RANGE, e.errorClass(), e.getMessage());
            w.unlock(other);
            world.barrier();
            // exclusive locks contended from both JVMs: a read-modify-write of two longs stays whole
            for (int i = 0; i < 50; i++) {
                w.lock(LockType.EXCLUSIVE, 0, 0);
                long[] two = new long[2];
                w.get(two, 2, Datatype.LONG, 0, 4);
                w.flush(0);
                assertEquals(two[0], two[1], "the pair under the exclusive lock");
                w.put(new long[] {two[0] + 1, two[1] + 1}, 2, Datatype.LONG, 0, 4);
                w.unlock(0);
            }
            // fence: accumulate into rank 0 from everyone
            w.fence(0);
            w.accumulate(new long[] {me + 1}, 1, Datatype.LONG, 0, 6, Op.SUM);
            w.fence(0);
            // PSCW: each rank puts its rank into the next rank's byte 56
            Group g = world.group();
            int next = (me + 1) % n;
            int prev = (me + n - 1) % n;
            w.post(g.incl(new int[] {prev}), 0);
            w.start(g.incl(new int[] {next}), 0);
            w.put(new long[] {100 + me}, 1, Datatype.LONG, next, 7);
            w.complete();
            w.waitFor();
            assertEquals(100 + prev, mem.getLong(56), "PSCW put from the previous rank");
            world.barrier();
            int from = (me + 2) % n; // the rank whose fetch_and_op and megabyte landed here
            assertEquals(10 + from, mem.getLong(24), "fetch_and_op at disp 3");
            assertEquals(200 + from, mem.getLong(16), "compare_and_swap at disp 2");
            assertEquals(300 + from, mem.getLong(8), "the 8-byte put at disp 1");
            for (int i = 0; i < (1 << 20); i += 4096) {
                assertEquals(from * 1_000_000L + i, mem.getLong(4096 + i), "the megabyte at byte " + i);
            }
            if (me == 0) {
                assertEquals(4L * 50, mem.getLong(32));
                assertEquals(4L * 50, mem.getLong(40));
                assertEquals((long) n * (n + 1) / 2, mem.getLong(48), "fence accumulates");
            }
            world.barrier();
            w.free();
        });
    }
}

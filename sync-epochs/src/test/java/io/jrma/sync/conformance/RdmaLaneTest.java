package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import io.jrma.transport.ucx.UcxTransport;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The suite's UCX run (jrma.transports=tcp,ucx): puts and gets to ranks of the other JVM take the RDMA lane, straight
 * into the target's registered window memory, in every kind of epoch; their bytes do not travel as packets (the ucx
 * transport's packet bytes stay far below them) and the window counts them as RDMA_OPS; accumulates go by UCP atomics
 * (the window's atomic domain, AtomicDomainTest) and stay atomic.
 */
class RdmaLaneTest {
    static final int LONGS = 8192;
    static final int ADDS = 10;
    /** Elements of the accumulate window: 4 KiB, the ucx transport's default smallest lane operation. */
    static final int SUMS = 512;

    @ParameterizedTest(name = "[{index}] path={0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(90)
    void putAndGetToAnotherJvmGoStraightToItsMemory(String path, int n) {
        assumeTrue(Ranks.UCX && Ranks.JVMS > 1, "the suite's UCX run only");
        Ranks.run(path, n, world -> {
            Job job = ((CommCore) world).job();
            Win w = Win.allocate(world, 2L * LONGS * Long.BYTES, Long.BYTES, null);
            int me = world.rank();
            int remote = -1;
            for (int r = 0; r < world.size(); r++) {
                if (!job.isLocal(r) && (remote < 0 || r == (me + 1) % world.size())) {
                    remote = r;
                }
            }
            UcxTransport ucx = (UcxTransport) job.transportFor(remote);
            long packetBytesBefore = bytesSent(ucx);
            long otherJvm = IntStream.range(0, world.size()).filter(r -> !job.isLocal(r)).count();
            assertEquals(Long.toString(otherJvm), w.info().get("jrma_rdma_peers"), "every rank of the other JVM");
            long[] mine = new long[LONGS];
            for (int i = 0; i < LONGS; i++) {
                mine[i] = (long) me << 32 | i;
            }
            // passive target: a put from a heap array, then a get into a direct buffer
            w.lock(LockType.EXCLUSIVE, remote, 0);
            w.put(mine, LONGS, Datatype.LONG, remote, 0);
            w.unlock(remote);
            world.barrier();
            // fence: every rank puts into the second half of its successor in the other JVM
            w.fence(0);
            w.put(mine, LONGS, Datatype.LONG, remote, LONGS);
            w.fence(0);
            ByteBuffer got = ByteBuffer.allocateDirect(LONGS * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            long[] back = new long[LONGS];
            for (long disp : new long[] {0, LONGS}) {
                w.lock(LockType.SHARED, remote, 0);
                w.get(got, LONGS, Datatype.LONG, remote, disp);
                w.flush(remote);
                got.clear();
                got.asLongBuffer().get(back);
                w.unlock(remote);
                // each writer wrote its own pattern whole (an exclusive lock, or a fence epoch: one writer per half)
                long writer = back[0] >>> 32;
                for (int i = 0; i < LONGS; i++) {
                    assertEquals(writer << 32 | i, back[i], "element " + i + " at disp " + disp + " of rank " + remote);
                }
            }
            world.barrier();
            long rdmaOps = w.counters().get(Counter.RDMA_OPS);
            long rdmaBytes = w.counters().get(Counter.RDMA_BYTES);
            assertTrue(rdmaOps >= 4, "puts and gets took the RDMA lane: " + w.counters());
            assertTrue(rdmaBytes >= 4L * LONGS * Long.BYTES, "their bytes went by RDMA: " + w.counters());
            long packetBytes = bytesSent(ucx) - packetBytesBefore;
            assertTrue(packetBytes < LONGS * Long.BYTES / 2, "the data did not travel as packets (" + packetBytes
                    + " packet bytes sent; " + ucx.counters() + ")");
            System.out.println("rank " + me + ": " + w.counters() + "; ucx " + ucx.counters());

            w.free();

            // accumulates by UCP atomics (the atomic domain), atomic; a get after them (RDMA: 4 KiB) sees every one
            Win c = Win.allocate(world, (long) SUMS * Long.BYTES, Long.BYTES, null);
            long[] one = {1};
            for (int r = 0; r < world.size(); r++) {
                c.lock(LockType.SHARED, r, 0);
                for (int k = 0; k < ADDS; k++) {
                    c.accumulate(one, 1, Datatype.LONG, r, k % SUMS, Op.SUM);
                }
                c.unlock(r);
            }
            world.barrier();
            long[] sums = new long[SUMS];
            c.lock(LockType.SHARED, remote, 0);
            c.get(sums, SUMS, Datatype.LONG, remote, 0);
            c.unlock(remote);
            for (int k = 0; k < SUMS; k++) {
                assertEquals(k < ADDS ? world.size() : 0, sums[k], "element " + k + " at rank " + remote);
            }
            assertTrue(c.counters().get(Counter.RDMA_OPS) >= 1, "the get took the RDMA lane: " + c.counters());
            if ("true".equals(c.info().get("jrma_rdma_atomics"))) { // (unless the run sets jrma.ucx.atomics=false)
                assertTrue(c.counters().get(Counter.RDMA_ATOMICS) >= (long) ADDS * world.size(),
                        "the accumulates went by UCP atomics: " + c.counters());
            }
            world.barrier();
            c.free();
        });
    }

    /**
     * A target computing without calling the library is served while it computes: its idle progress thread sleeps in
     * the TCP selector with UCX's event descriptor armed, woken by the doorbell thread on a UCX event, or by the
     * selector's timeout (UCX's shared-memory transport did not signal the descriptor across JVMs here: doorbells=0
     * with sm, a few with tcp; so only the outcome is asserted, and the counters are printed).
     */
    @ParameterizedTest(name = "[{index}] path={0}")
    @MethodSource("io.jrma.sync.conformance.Ranks#paths")
    @Timeout(60)
    void aComputingTargetServesPassiveEpochsOverUcx(String path) {
        assumeTrue(Ranks.UCX && Ranks.JVMS > 1, "the suite's UCX run only");
        Ranks.run(path, 2, world -> {
            Job job = ((CommCore) world).job();
            Win w = Win.allocate(world, Long.BYTES, Long.BYTES, null);
            UcxTransport ucx = (UcxTransport) job.transportFor(1 - world.rank());
            world.barrier();
            long[] sum = new long[1];
            if (world.rank() == 1) {
                long end = System.nanoTime() + COMPUTE_NS;
                long x = 1;
                while (System.nanoTime() < end) { // compute, no jrma calls
                    x = x * 6364136223846793005L + 1442695040888963407L;
                }
                sum[0] = x;
            } else {
                long t0 = System.nanoTime();
                for (int i = 0; i < EPOCHS; i++) {
                    w.lock(LockType.EXCLUSIVE, 1, 0);
                    w.fetchAndAddLong(1, 0, 1);
                    w.unlock(1);
                }
                System.out.println("lock/fetch_and_op/unlock to a computing target over UCX: "
                        + (System.nanoTime() - t0) / EPOCHS / 1000 + " us per epoch (noisy)");
                if ("true".equals(w.info().get("jrma_rdma_atomics"))) { // (unless jrma.ucx.atomics=false)
                    assertTrue(w.counters().get(Counter.RDMA_ATOMICS) >= EPOCHS,
                            "the fetch_and_ops were UCP atomics, served while the target computed: " + w.counters());
                }
            }
            world.barrier();
            if (world.rank() == 1) {
                assertTrue(sum[0] != 0, "computed");
                assertEquals(EPOCHS, w.buffer().getLong(0), "every fetch_and_op applied");
                System.out.println("target: " + ucx.counters());
            }
            world.barrier();
            w.free();
        });
    }

    /**
     * The target's JVM dies (halted) while the origin does RDMA puts and gets to it in lock epochs: the job fails
     * within seconds with ERR_PROC_ABORTED naming the dead JVM (its exit, or the lost TCP connection, whichever the
     * launcher hears first; a lane operation waiting on UCX sees the abort), never a hang or a crash of the origin's
     * JVM. (The ranks run in child JVMs: what they caught is only seen in the job's failure.)
     */
    @Test
    @Timeout(90)
    void aTargetJvmKilledMidEpochFailsTheJobFast() {
        assumeTrue(Ranks.UCX && Ranks.JVMS > 1 && Ranks.UCX_MISSING == null, "the suite's UCX run only");
        long t0 = System.nanoTime();
        Jrma.JobFailedException e = assertThrows(Jrma.JobFailedException.class, () ->
                Jrma.job(2).param("jrma.path", "packet").timeout(Duration.ofSeconds(60)).run(world -> {
                    Win w = Win.allocate(world, 1 << 16, 8, null);
                    world.barrier();
                    if (world.rank() == 1) {
                        Thread.sleep(300); // the origin is in its loop by now
                        Runtime.getRuntime().halt(HALT_STATUS);
                    }
                    ByteBuffer b = ByteBuffer.allocateDirect(1 << 13);
                    while (true) {
                        w.lock(LockType.SHARED, 1, 0);
                        w.put(b, 1 << 10, Datatype.LONG, 1, 0);
                        w.get(b, 1 << 10, Datatype.LONG, 1, 0);
                        w.unlock(1);
                    }
                }));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < DEATH_NOTICED_MS, "the job ends within seconds, took " + ms + " ms: " + e.getMessage());
        assertTrue(e.getMessage().contains("JVM 1"), e.getMessage());
        assertTrue(e.getMessage().contains(ErrorClass.ERR_PROC_ABORTED.name()), e.getMessage());
    }

    static final int HALT_STATUS = 7;
    static final long DEATH_NOTICED_MS = 30_000;
    static final long COMPUTE_NS = 500_000_000L;
    static final int EPOCHS = 20;

    private static long bytesSent(UcxTransport ucx) {
        for (String kv : ucx.counters().split(" ")) {
            if (kv.startsWith("bytes_sent=")) {
                return Long.parseLong(kv.substring("bytes_sent=".length()));
            }
        }
        throw new AssertionError("no bytes_sent in " + ucx.counters());
    }
}

package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The suite's UCX run over UCX's shared memory ({@code jrma.ucx.tls=sm,self}), with no jrma shared segments
 * ({@code jrma.shm.windows=false}, as bench/compare's UCX paths): an allocate window's memory and target state are
 * UCX's ({@code ucp_mem_map} allocating them), which UCX maps into the other JVM. On path packet every rank reaches
 * the memory of the other JVM's ranks through the RDMA lane by loads and stores ({@code jrma_rdma_mapped}): 8-byte
 * puts and gets, far below the lane's 4 KiB for UCP puts, send no packet and count as RDMA operations, with the
 * data right across the JVMs in lock and fence epochs. On path auto those ranks are direct peers: a passive-target
 * epoch to a target computing without calling the library needs no packet. Over {@code tcp,self} nothing maps the
 * memory: the window reports 0 mapped peers.
 */
class MappedLaneTest {
    /** Rounds of one 8-byte put and one 8-byte get in one lock epoch. */
    static final int ROUNDS = 200;
    /** fetch_and_ops of each rank to each rank. */
    static final int ADDS = 50;
    /** How long the target computes without calling the library. */
    static final long COMPUTE_NS = 1_000_000_000L;
    /** A linear congruential step (the target's computation). */
    static final long LCG_A = 6364136223846793005L;
    static final long LCG_C = 1442695040888963407L;
    /** Longs per rank's slot in a target's window. */
    static final int SLOT = 4;
    /** More packets per rank of the job than the unlock and the four fences' signals of one rank. */
    static final int SYNC_PACKETS_PER_RANK = 8;

    @ParameterizedTest(name = "[{index}] n={0}")
    @ValueSource(ints = {2, 4})
    @Timeout(90)
    void smallPutsAndGetsToAnotherJvmAreStoresAndLoads(int n) {
        assumeTrue(Ranks.UCX && Ranks.JVMS > 1, "the suite's UCX run only");
        boolean sm = System.getProperty("jrma.ucx.tls", "").startsWith("sm")
                && !"false".equals(System.getProperty("jrma.ucx.allocate")); // (a run may turn it off)
        if (Ranks.UCX_MISSING != null) {
            System.out.println("skipped: the suite's UCX run needs libucp: " + Ranks.UCX_MISSING);
        }
        assumeTrue(Ranks.UCX_MISSING == null, Ranks.UCX_MISSING);
        // window memory private to each JVM (jrma's shm would put it in its own shared segments otherwise)
        // path packet: the peers stay on the RDMA lane (on path auto they are direct, the test below)
        Jrma.job(n).param("jrma.path", "packet").param("jrma.shm.windows", "false").timeout(Ranks.JOB_TIMEOUT)
                .run(world -> {
            Job job = ((CommCore) world).job();
            int size = world.size();
            int me = world.rank();
            Win w = Win.allocate(world, (long) size * SLOT * Long.BYTES, Long.BYTES, null);
            long otherJvm = IntStream.range(0, size).filter(r -> !job.isLocal(r)).count();
            assertEquals(Long.toString(otherJvm), w.info().get("jrma_rdma_peers"), "every rank of the other JVM");
            assertEquals(sm ? Long.toString(otherJvm) : "0", w.info().get("jrma_rdma_mapped"),
                    "ranks of the other JVM whose memory UCX mapped here (UCX_TLS=" + System.getProperty("jrma.ucx.tls")
                    + ")");
            if (!sm) { // (an assumption failing in a rank would fail the job)
                System.out.println("nothing mapped over " + System.getProperty("jrma.ucx.tls")
                        + ": the rest is for sm");
                world.barrier();
                w.free();
                return;
            }
            int remote = remoteOf(job, me, size);
            int[] writers = IntStream.range(0, size).filter(r -> r != me && remoteOf(job, r, size) == me).toArray();
            ByteBuffer one = ByteBuffer.allocateDirect(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            long[] back = new long[1];

            // passive target: after the lock is granted (the first get waits for it), no packet at all
            w.lock(LockType.EXCLUSIVE, remote, 0);
            w.get(back, 1, Datatype.LONG, remote, (long) me * SLOT);
            long packets = w.counters().get(Counter.PACKETS_SENT);
            long ops = w.counters().get(Counter.RDMA_OPS);
            long bytes = w.counters().get(Counter.RDMA_BYTES);
            for (int i = 0; i < ROUNDS; i++) {
                one.putLong(0, (long) me << 32 | i);
                w.put(one, 1, Datatype.LONG, remote, (long) me * SLOT);
                w.flush(remote);
                w.get(back, 1, Datatype.LONG, remote, (long) me * SLOT);
                assertEquals((long) me << 32 | i, back[0], "round " + i + ": the get sees the put");
            }
            assertEquals(packets, w.counters().get(Counter.PACKETS_SENT), "no packet for 8-byte puts and gets: "
                    + w.counters());
            assertEquals(ops + 2 * ROUNDS, w.counters().get(Counter.RDMA_OPS), "each put and get on the lane");
            assertEquals(bytes + 2L * ROUNDS * Long.BYTES, w.counters().get(Counter.RDMA_BYTES));
            w.unlock(remote);
            world.barrier();
            for (int writer : writers) {
                assertEquals((long) writer << 32 | (ROUNDS - 1), w.buffer().getLong(writer * SLOT * Long.BYTES),
                        "the last put of rank " + writer + " (other JVM) is in this rank's memory");
            }

            // fence: 8-byte puts of a strided origin into the next slot longs, read back here after the fence
            long[] strided = new long[2 * (SLOT - 1)];
            for (int k = 0; k < SLOT - 1; k++) {
                strided[2 * k] = (long) me << 32 | (100 + k);
            }
            Datatype every2nd = Datatype.vector(SLOT - 1, 1, 2, Datatype.LONG).commit();
            w.fence(0);
            w.put(strided, 1, every2nd, remote, (long) me * SLOT + 1, SLOT - 1, Datatype.LONG);
            w.fence(0);
            for (int writer : writers) {
                for (int k = 0; k < SLOT - 1; k++) {
                    assertEquals((long) writer << 32 | (100 + k),
                            w.buffer().getLong((writer * SLOT + 1 + k) * Long.BYTES),
                            "element " + k + " of rank " + writer + "'s strided put");
                }
            }
            w.fence(0);
            long[] got = new long[SLOT];
            w.get(got, SLOT, Datatype.LONG, remote, (long) me * SLOT);
            w.fence(0);
            assertEquals((long) me << 32 | 102, got[SLOT - 1], "the get in a fence epoch: " + w.counters());
            long since = w.counters().get(Counter.PACKETS_SENT) - packets;
            assertTrue(since < SYNC_PACKETS_PER_RANK * size, "only synchronization packets, not the data (" + since
                    + "): " + w.counters());
            world.barrier();
            w.free();

            // accumulates to UCX's memory stay atomic: every rank adds to every rank's counter
            Win c = Win.allocate(world, Long.BYTES, Long.BYTES, null);
            c.lockAll(0);
            for (int k = 0; k < ADDS; k++) {
                for (int r = 0; r < size; r++) {
                    c.fetchAndAddLong(r, 0, 1);
                }
            }
            c.unlockAll();
            world.barrier();
            assertEquals((long) ADDS * size, c.buffer().getLong(0), "every rank's fetch_and_ops: " + c.counters());
            world.barrier();
            c.free();
        });
    }

    /**
     * Path auto: the peers whose memory UCX mapped are direct (their lock word, signals and memory by load/store, as
     * a shared segment's), so a passive-target epoch to a target that computes without calling the library needs
     * nothing of the target: lock / fetch_and_op / unlock while it computes for {@link #COMPUTE_NS}, no packet sent,
     * every fetch_and_op applied (the time per epoch is printed: noisy).
     */
    @ParameterizedTest(name = "[{index}] n={0}")
    @ValueSource(ints = {2, 4})
    @Timeout(90)
    void mappedPeersAreDirectAndAComputingTargetIsLockedWithoutIt(int n) {
        assumeTrue(Ranks.UCX && Ranks.JVMS > 1, "the suite's UCX run only");
        boolean sm = System.getProperty("jrma.ucx.tls", "").startsWith("sm")
                && !"false".equals(System.getProperty("jrma.ucx.allocate"));
        if (!sm) {
            System.out.println("skipped: no mapping over UCX_TLS=" + System.getProperty("jrma.ucx.tls"));
        }
        assumeTrue(sm, "no mapping over " + System.getProperty("jrma.ucx.tls"));
        if (Ranks.UCX_MISSING != null) {
            System.out.println("skipped: the suite's UCX run needs libucp: " + Ranks.UCX_MISSING);
        }
        assumeTrue(Ranks.UCX_MISSING == null, Ranks.UCX_MISSING);
        Jrma.job(n).param("jrma.path", "auto").param("jrma.shm.windows", "false").timeout(Ranks.JOB_TIMEOUT)
                .run(world -> {
            Job job = ((CommCore) world).job();
            int me = world.rank();
            Win w = Win.allocate(world, Long.BYTES, Long.BYTES, null);
            assertEquals("direct", w.info().get("jrma_path"), "every peer direct: " + w.info().get("jrma_peer_lanes"));
            assertEquals("0", w.info().get("jrma_rdma_peers"));
            int target = n - 1; // in the other JVM than rank 0
            assertTrue(!job.isLocal(target) || me != 0, "rank 0 and rank " + target + " in different JVMs");
            world.barrier();
            long packets = w.counters().get(Counter.PACKETS_SENT);
            long[] epochs = new long[1];
            if (me == target) {
                long end = System.nanoTime() + COMPUTE_NS;
                long x = 1;
                while (System.nanoTime() < end) { // compute, no jrma calls
                    x = x * LCG_A + LCG_C;
                }
                System.out.println("target computed " + Long.toHexString(x) + " without calling the library");
            } else if (me == 0) {
                long t0 = System.nanoTime();
                long end = t0 + COMPUTE_NS;
                while (System.nanoTime() < end) {
                    w.lock(LockType.EXCLUSIVE, target, 0);
                    w.fetchAndAddLong(target, 0, 1);
                    w.unlock(target);
                    epochs[0]++;
                }
                System.out.println("lock/fetch_and_op/unlock to a computing target whose memory UCX mapped: "
                        + epochs[0] + " epochs, " + (System.nanoTime() - t0) / epochs[0] + " ns per epoch (noisy)");
                assertEquals(packets, w.counters().get(Counter.PACKETS_SENT), "no packet: " + w.counters());
            }
            long total = (Long) ((CommCore) world).allgather(epochs[0])[0];
            if (me == target) {
                assertEquals(total, w.buffer().getLong(0), "every fetch_and_op applied");
            }
            world.barrier();
            w.free();
        });
    }

    /** The rank {@code r} puts to: the first after it, cyclically, in another JVM. */
    private static int remoteOf(Job job, int r, int size) {
        return IntStream.range(1, size).map(k -> (r + k) % size).filter(t -> job.jvmOf(t) != job.jvmOf(r))
                .findFirst().orElseThrow();
    }
}

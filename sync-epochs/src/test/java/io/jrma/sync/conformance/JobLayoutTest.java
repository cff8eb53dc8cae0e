package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrma.Datatype;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import io.jrma.transport.shm.ShmParams;
import io.jrma.transport.ucx.UcxTransport;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The suite really runs where it says: every rank publishes its process id in a window, and the number of
 * distinct processes must be the number of JVMs the run asked for ({@code -Djrma.jvms}, capped at the rank
 * count), 1 in the default run.
 */
class JobLayoutTest {
    @ParameterizedTest(name = "[{index}] path={0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(60)
    void ranksLiveInTheExpectedNumberOfJvms(String path, int n) {
        int expected = Math.min(Ranks.JVMS, n);
        Ranks.run(path, n, world -> {
            Win w = Win.allocate(world, 8, 8, null);
            long[] pid = {ProcessHandle.current().pid()};
            w.lock(LockType.EXCLUSIVE, world.rank(), 0);
            w.put(pid, 1, Datatype.LONG, world.rank(), 0);
            w.unlock(world.rank());
            world.barrier();
            Set<Long> pids = new HashSet<>();
            long[] got = new long[1];
            for (int r = 0; r < world.size(); r++) {
                w.lock(LockType.SHARED, r, 0);
                w.get(got, 1, Datatype.LONG, r, 0);
                w.unlock(r);
                pids.add(got[0]);
            }
            assertEquals(expected, pids.size(), "distinct processes among " + world.size() + " ranks: " + pids);
            w.free();
        });
    }

    /**
     * Packets to a rank of this JVM take the in-JVM channel; to another JVM of this host, the shared-memory
     * rings, unless the run excludes them ({@code -Djrma.transports=^shm}: the suite's TCP run), or UCX where the
     * run names it without shm ({@code -Djrma.transports=tcp,ucx}: the suite's UCX run).
     */
    @ParameterizedTest(name = "[{index}] path={0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(60)
    void peersInOtherJvmsAreReachedThroughTheSelectedTransport(String path, int n) {
        String between = ShmParams.shmEnabled(Map.of()) ? "shm"
                : Ranks.UCX ? "ucx" : "tcp";
        Ranks.run(path, n, world -> {
            Job job = ((CommCore) world).job();
            for (int r = 0; r < world.size(); r++) {
                String want = job.isLocal(r) ? "local" : between;
                assertEquals(want, job.transportFor(r).name(), "transport from rank " + world.rank() + " to rank " + r);
            }
        });
    }

    /**
     * In the suite's UCX run, the packets between JVMs really travel as UCX messages: after an exchange with every
     * rank of another JVM, this JVM's ucx transport counts batches sent and received.
     */
    @ParameterizedTest(name = "[{index}] path={0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(60)
    void inTheUcxRunPacketsTravelThroughUcx(String path, int n) {
        assumeTrue(Ranks.UCX && Ranks.JVMS > 1, "the suite's UCX run only");
        Ranks.run(path, n, world -> {
            Job job = ((CommCore) world).job();
            Win w = Win.allocate(world, 64, 8, null);
            long[] one = {world.rank()};
            int remote = -1;
            for (int r = 0; r < world.size(); r++) {
                if (!job.isLocal(r)) {
                    remote = r;
                    w.lock(LockType.SHARED, r, 0);
                    w.accumulate(one, 1, Datatype.LONG, r, 0, Op.SUM);
                    w.unlock(r);
                }
            }
            world.barrier();
            UcxTransport ucx = (UcxTransport) job.transportFor(remote);
            assertTrue(ucx.batchesSent() > 0 && ucx.batchesReceived() > 0,
                    "the ucx transport carried the packets: " + ucx.counters());
            System.out.println("rank " + world.rank() + " ucx counters: " + ucx.counters());
            w.free();
        });
    }
}

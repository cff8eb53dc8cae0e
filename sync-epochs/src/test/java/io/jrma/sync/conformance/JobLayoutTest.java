package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Datatype;
import io.jrma.LockType;
import io.jrma.Win;
import java.util.HashSet;
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
     * rings, unless the run excludes them ({@code -Djrma.transports=^shm}: the suite's TCP run).
     */
    @ParameterizedTest(name = "[{index}] path={0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(60)
    void peersInOtherJvmsAreReachedThroughTheSelectedTransport(String path, int n) {
        String between = io.jrma.transport.shm.ShmParams.shmEnabled(java.util.Map.of()) ? "shm" : "tcp";
        Ranks.run(path, n, world -> {
            io.jrma.core.runtime.Job job = ((io.jrma.core.runtime.CommCore) world).job();
            for (int r = 0; r < world.size(); r++) {
                String want = job.isLocal(r) ? "local" : between;
                assertEquals(want, job.transportFor(r).name(), "transport from rank " + world.rank() + " to rank " + r);
            }
        });
    }
}

package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.Win;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The lane table as {@code win.info()} names it (key {@code jrma_peer_lanes}: each peer's lanes in rank order): on
 * every path of the suite, an allocate window's peers are on the lane the job's layout and path call for, and a
 * create window over memory private to each JVM puts the ranks of other JVMs of the host on the private-memory lanes
 * (kernel copy where the kernel allows it, request slot, packets through the rings). An operation on each lane
 * still arrives.
 */
class PeerLanesTest {
    private static final String KEY = "jrma_peer_lanes";
    /** The transport that reaches the ranks of other JVMs in this run of the suite. */
    private static final String REMOTE = Ranks.UCX ? "ucx" : isTcpRun() ? "tcp" : "shm";

    private static boolean isTcpRun() {
        String t = System.getProperty("jrma.transports", "").replace(" ", "");
        return t.startsWith("^") && Arrays.asList(t.substring(1).split(",")).contains("shm");
    }

    /** What an allocate window's peer is on: direct store where its memory is mapped here, else packets or RDMA. */
    private static String allocateLane(String path, boolean local) {
        if (path.equals("packet")) {
            return local ? "packet/local" : Ranks.UCX ? "rdma|packet/ucx" : "packet/" + REMOTE;
        }
        return local || Ranks.SHM_WINDOWS ? "direct-store" : "packet/" + REMOTE;
    }

    @ParameterizedTest(name = "[{index}] path={0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(60)
    void everyPeerIsNamedWithItsLane(String path, int n) {
        Ranks.run(path, n, world -> {
            Job job = ((CommCore) world).job();
            int me = world.rank();
            Win w = Win.allocate(world, 64, 8, null);
            String[] lanes = w.info().get(KEY).split(",");
            assertEquals(n, lanes.length, "one entry per rank: " + w.info().get(KEY));
            for (int r = 0; r < n; r++) {
                assertEquals(allocateLane(path, job.isLocal(r)), lanes[r], "rank " + me + " to rank " + r);
            }
            roundTrip(w, me, n);
            w.free();

            Win p = Win.create(world, ByteBuffer.allocateDirect(64), 8, null);
            String[] priv = p.info().get(KEY).split(",");
            for (int r = 0; r < n; r++) {
                String got = priv[r];
                if (job.isLocal(r)) {
                    assertEquals(path.equals("packet") ? "packet/local" : "direct-store", got, "rank " + r);
                } else if (path.equals("packet") || !Ranks.SHM_WINDOWS) {
                    assertEquals(allocateLane("packet", false), got, "rank " + r); // (UCX: create windows register too)
                } else {
                    assertTrue(got.matches("(kernel-copy\\|)?request-slot\\|packet/shm"), "rank " + r + ": " + got);
                }
            }
            roundTrip(p, me, n);
            p.free();
        });
    }

    /** Every rank puts its rank into its successor and reads it back there: the lanes carry data. */
    private static void roundTrip(Win w, int me, int n) {
        int next = (me + 1) % n;
        w.fence(0);
        w.put(new long[] {me + 1}, 1, Datatype.LONG, next, 0);
        w.fence(0);
        long[] back = new long[1];
        w.get(back, 1, Datatype.LONG, next, 0);
        w.fence(0);
        assertEquals(me + 1, back[0], "read back from rank " + next);
    }
}

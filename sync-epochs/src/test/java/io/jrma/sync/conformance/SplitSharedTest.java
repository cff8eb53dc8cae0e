package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.SharedMemory;
import io.jrma.Win;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) as {@link Comm#splitShared}: the ranks of one host, whether threads or
 * JVMs, as Open MPI groups the processes of a node (it grouped the ranks of each JVM, so a program spread over
 * JVMs got one-rank communicators where it expected the node), and an allocate_shared window over the part whose
 * every segment is reached by load and store. The suite reruns this over 2 and 4 JVMs and TCP only.
 */
class SplitSharedTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.sync.conformance.Ranks#paths")
    @Timeout(60)
    void theRanksOfTheHostShareOneWindow(String path) {
        Ranks.run(path, 4, world -> {
            Comm node = world.splitShared(world.size() - world.rank()); // keys reverse the order
            assertEquals(world.size(), node.size(), "every rank of this host is in the part");
            assertEquals(world.size() - 1 - world.rank(), node.rank(), "ordered by key");
            Win w = Win.allocateShared(node, 8, 8, null);
            w.lock(LockType.EXCLUSIVE, node.rank(), 0);
            w.put(new long[] {1000 + world.rank()}, 1, Datatype.LONG, node.rank(), 0);
            w.unlock(node.rank());
            node.barrier();
            for (int r = 0; r < node.size(); r++) {
                SharedMemory m = w.sharedQuery(r);
                assertEquals(8, m.size(), "segment size of rank " + r);
                assertEquals(1000 + node.worldRank(r), m.buffer().getLong(0), "load from rank " + r + "'s segment");
            }
            node.barrier();
            w.free();
            node.free();
        });
    }

    @Test
    @Timeout(60)
    void withoutSharedWindowsBetweenJvmsEachJvmIsAPart() {
        int jvms = Integer.getInteger("jrma.jvms", 1);
        Jrma.job(4).param("jrma.shm.windows", "false").timeout(Duration.ofSeconds(45)).run(world -> {
            Comm node = world.splitShared(0);
            assertEquals(4 / Math.max(1, Math.min(jvms, 4)), node.size(), "the ranks of one JVM");
            Win w = Win.allocateShared(node, 8, 8, null); // never fails: the part shares memory
            w.free();
            node.free();
        });
    }
}

package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Group;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Request;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Windows on a communicator of one rank (MPI_COMM_SELF, or a split that leaves a rank alone) in a job of several
 * ranks: every flavor under fence, lock/unlock, lock_all and PSCW on a group of itself, with every kind of
 * operation on itself, before and after a window of the whole job is used. Over JVMs every JVM runs such windows
 * at once, and the job's other windows reach peers by other lanes than a one-rank window's own rank: the suite
 * reruns this on every path (threads, 2 and 4 JVMs, TCP only, JNA only).
 */
class OneRankWindowsTest {
    private static final String[] FLAVORS = {"allocate", "create", "dynamic", "shared", "create+arena",
        "dynamic+arena"};

    static Stream<Arguments> pathsAndFlavors() {
        List<Arguments> out = new ArrayList<>();
        for (String p : Ranks.PATHS) {
            for (String f : FLAVORS) {
                out.add(Arguments.of(p, f));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("pathsAndFlavors")
    @Timeout(60)
    void everyEpochOnASelfWindow(String path, String flavor) {
        Ranks.run(path, 4, world -> {
            Win all = Win.allocate(world, 8, 8, null);
            Comm self = world.split(world.rank(), 0);
            assertEquals(1, self.size(), "a communicator of one rank");
            epochs(self, flavor, world.rank());
            all.lockAll(0);
            all.accumulate(new long[] {1}, 1, Datatype.LONG, (world.rank() + 1) % world.size(), 0, Op.SUM);
            all.unlockAll();
            epochs(self, flavor, world.rank());
            // a split that leaves rank 0 alone while the others share a communicator
            Comm lone = world.split(world.rank() == 0 ? 0 : 1, 0);
            epochs(lone, flavor, world.rank()); // rank 0 alone; the others, each on itself, in a window of three
            world.barrier();
            all.free();
            lone.free();
            self.free();
        });
    }

    /**
     * Every epoch of a window of {@code flavor} on {@code comm}, each rank targeting only itself (so the values are
     * known with any number of ranks), each operation checked.
     */
    private static void epochs(Comm comm, String flavor, int me) {
        // +arena: memory from Jrma.allocateMemory (a shared segment when the job spans JVMs), as the mpi package uses
        ByteBuffer mem = flavor.endsWith("+arena") ? Jrma.allocateMemory(64) : Ranks.direct(64);
        flavor = flavor.replace("+arena", "");
        Win w = switch (flavor) {
            case "create" -> Win.create(comm, mem, 8, null);
            case "allocate" -> Win.allocate(comm, 64, 8, null);
            case "shared" -> Win.allocateShared(comm, 64, 8, null);
            default -> Win.createDynamic(comm, null);
        };
        try {
            long unit = 1;
            long base = 0;
            if (flavor.equals("dynamic")) {
                w.attach(mem);
                base = Win.address(mem);
                unit = 8;
            }
            int r = comm.rank();
            String where = flavor + " window of rank " + me + " on a communicator of " + comm.size();
            long[] got = new long[1];
            w.fence(Win.MODE_NOPRECEDE);
            w.put(new long[] {me + 10}, 1, Datatype.LONG, r, base);
            w.fence(0);
            w.get(got, 1, Datatype.LONG, r, base);
            w.accumulate(new long[] {5}, 1, Datatype.LONG, r, base + unit, Op.SUM);
            w.fence(0);
            assertEquals(me + 10, got[0], "get in a fence epoch, " + where);
            w.lock(LockType.EXCLUSIVE, r, 0);
            assertEquals(5, w.fetchAndAddLong(r, base + unit, 2), "fetch_and_op under lock, " + where);
            w.flush(r);
            long[] result = new long[1];
            w.compareAndSwap(new long[] {99}, new long[] {me + 10}, result, Datatype.LONG, r, base);
            w.unlock(r);
            assertEquals(me + 10, result[0], "compare_and_swap under lock, " + where);
            w.lock(LockType.SHARED, r, 0);
            long[] two = new long[2];
            w.get(two, 2, Datatype.LONG, r, base);
            w.unlock(r);
            assertEquals(99, two[0], "get after compare_and_swap, " + where);
            assertEquals(7, two[1], "get after fetch_and_op, " + where);
            w.lockAll(0);
            w.getAccumulate(new long[] {1}, 1, Datatype.LONG, result, 1, Datatype.LONG, r, base + 2 * unit, 1,
                    Datatype.LONG, Op.SUM);
            w.flushAll();
            w.put(new long[] {me + 20}, 1, Datatype.LONG, r, base + 3 * unit);
            w.flushLocal(r);
            w.unlockAll();
            Group g = w.group().incl(r);
            w.post(g, 0);
            w.start(g, 0);
            w.get(two, 2, Datatype.LONG, r, base + 2 * unit);
            w.complete();
            w.waitFor();
            assertEquals(1, two[0], "get_accumulate under lock_all, " + where);
            assertEquals(me + 20, two[1], "put under lock_all, " + where);
            w.fence(Win.MODE_NOPRECEDE);
            w.fence(Win.MODE_NOSUCCEED);
            w.lock(LockType.EXCLUSIVE, r, Win.MODE_NOCHECK);
            Request.waitAll(w.rput(new long[] {3}, 1, Datatype.LONG, r, base, 1, Datatype.LONG),
                    w.raccumulate(new long[] {4}, 1, Datatype.LONG, r, base + unit, 1, Datatype.LONG, Op.SUM));
            w.flush(r);
            w.rget(two, 2, Datatype.LONG, r, base, 2, Datatype.LONG).waitFor();
            w.unlock(r);
            assertEquals(3, two[0], "rput under lock NOCHECK, " + where);
            assertEquals(11, two[1], "raccumulate under lock NOCHECK, " + where);
            w.lockAll(Win.MODE_NOCHECK);
            long[] big = new long[4];
            w.get(big, 4, Datatype.LONG, r, base);
            w.unlockAll();
            assertEquals(me + 20, big[3], "get under lock_all NOCHECK, " + where);
            w.post(g, Win.MODE_NOCHECK);
            w.start(g, Win.MODE_NOCHECK);
            w.complete();
            w.waitFor();
        } finally {
            w.free();
        }
    }

}

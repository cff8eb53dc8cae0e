package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Request;
import io.jrma.RmaException;
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
 * Operations on {@link Win#PROC_NULL} are no-ops in every epoch and on every flavor (MPI-3.1 11.3), and so are
 * lock, unlock and the flushes of PROC_NULL. Over JVMs a dynamic or create window reaches a peer's private memory
 * through lanes chosen per target (kernel copies, request slots): a PROC_NULL or out-of-range target must never
 * index their per-target tables, only get the no-op or ERR_RANK.
 */
class ProcNullTest {
    private static final int P = Win.PROC_NULL;
    private static final String[] FLAVORS = {"allocate", "create", "dynamic", "shared"};
    private static final long SENTINEL = 0x5EED;

    static Stream<Arguments> pathsFlavorsAndSizes() {
        List<Arguments> out = new ArrayList<>();
        for (String p : Ranks.PATHS) {
            for (String f : FLAVORS) {
                for (int n : new int[] {2, 4}) {
                    out.add(Arguments.of(p, f, n));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} n={2}")
    @MethodSource("pathsFlavorsAndSizes")
    @Timeout(60)
    void everyCallOnProcNullIsANoOp(String path, String flavor, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            ByteBuffer mem = Ranks.direct(64);
            Win w = switch (flavor) {
                case "create" -> Win.create(world, mem, 8, null);
                case "allocate" -> Win.allocate(world, 64, 8, null);
                case "shared" -> Win.allocateShared(world, 64, 8, null);
                default -> Win.createDynamic(world, null);
            };
            try {
                if (flavor.equals("dynamic")) {
                    w.attach(mem);
                }
                ByteBuffer mine = flavor.equals("dynamic") || flavor.equals("create") ? mem : w.buffer();
                for (int i = 0; i < 8; i++) {
                    mine.putLong(8 * i, SENTINEL);
                }
                long disp = flavor.equals("dynamic") ? Win.address(mem) : 0;
                world.barrier();
                w.fence(Win.MODE_NOPRECEDE);
                everyOperation(w, disp, "fence epoch");
                w.fence(0);
                w.lock(LockType.EXCLUSIVE, P, 0);
                everyOperation(w, disp, "lock epoch of PROC_NULL");
                requests(w, disp, "lock epoch of PROC_NULL");
                w.flush(P);
                w.flushLocal(P);
                w.unlock(P);
                int t = (me + 1) % n;
                w.lock(LockType.SHARED, t, 0);
                everyOperation(w, disp, "lock epoch of rank " + t);
                requests(w, disp, "lock epoch of rank " + t);
                w.flush(P);
                w.unlock(t);
                w.lockAll(0);
                everyOperation(w, disp, "lock_all epoch");
                requests(w, disp, "lock_all epoch");
                w.flush(P);
                w.flushLocal(P);
                w.flushAll();
                // a rank outside the group is an error with its class, whatever lane the target would take
                RmaException e = assertThrows(RmaException.class,
                        () -> w.get(new long[1], 1, Datatype.LONG, n, disp));
                assertEquals(ErrorClass.ERR_RANK, e.errorClass(), e.getMessage());
                e = assertThrows(RmaException.class, () -> w.put(new long[1], 1, Datatype.LONG, -1, disp));
                assertEquals(ErrorClass.ERR_RANK, e.errorClass(), e.getMessage());
                w.unlockAll();
                w.post(w.group(), 0);
                w.start(w.group(), 0);
                everyOperation(w, disp, "PSCW epoch");
                w.complete();
                w.waitFor();
                world.barrier();
                for (int i = 0; i < 8; i++) {
                    assertEquals(SENTINEL, mine.getLong(8 * i), flavor + " window word " + i + " of rank " + me);
                }
                world.barrier();
            } finally {
                w.free();
            }
        });
    }

    /** Every blocking operation on PROC_NULL: no effect on the origin's result buffers either. */
    private static void everyOperation(Win w, long disp, String where) {
        long[] one = {1};
        long[] result = {SENTINEL};
        w.put(one, 1, Datatype.LONG, P, disp);
        w.put(new byte[3], 3, Datatype.BYTE, P, disp);
        w.get(result, 1, Datatype.LONG, P, disp);
        w.get(new long[64], 64, Datatype.LONG, P, disp);
        w.accumulate(one, 1, Datatype.LONG, P, disp, Op.SUM);
        w.getAccumulate(one, 1, Datatype.LONG, result, 1, Datatype.LONG, P, disp, 1, Datatype.LONG, Op.SUM);
        w.fetchAndOp(one, result, Datatype.LONG, P, disp, Op.SUM);
        w.compareAndSwap(one, new long[] {0}, result, Datatype.LONG, P, disp);
        assertEquals(SENTINEL, result[0], "result buffer of operations on PROC_NULL in a " + where);
    }

    /** Every request-based operation on PROC_NULL: a request that completes at once. */
    private static void requests(Win w, long disp, String where) {
        long[] one = {1};
        long[] result = {SENTINEL};
        Request.waitAll(w.rput(one, 1, Datatype.LONG, P, disp, 1, Datatype.LONG),
                w.rget(result, 1, Datatype.LONG, P, disp, 1, Datatype.LONG),
                w.raccumulate(one, 1, Datatype.LONG, P, disp, 1, Datatype.LONG, Op.SUM),
                w.rgetAccumulate(one, 1, Datatype.LONG, result, 1, Datatype.LONG, P, disp, 1, Datatype.LONG, Op.SUM));
        assertEquals(SENTINEL, result[0], "result buffer of requests on PROC_NULL in a " + where);
    }
}

package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Datatype;
import io.jrma.LockType;
import io.jrma.Op;
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
 * Every communication call (put, get, accumulate, get_accumulate, fetch_and_op, compare_and_swap) under every
 * synchronization mode, checking exact values at origin and target. Rank r targets (r+1)%n, so every rank is
 * origin of exactly one peer and target of exactly one peer.
 */
class SyncModesTest {
    enum Mode {
        FENCE, PSCW_WAIT, PSCW_TEST, LOCK_SHARED, LOCK_EXCLUSIVE, LOCK_ALL,
        LOCK_FLUSH, LOCK_FLUSH_LOCAL, LOCK_ALL_FLUSH_ALL, LOCK_ALL_FLUSH_LOCAL_ALL, LOCK_ALL_FLUSH, LOCK_ALL_FLUSH_LOCAL
    }

    static final int WORDS = 64;

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String p : Ranks.PATHS) {
            for (Mode m : Mode.values()) {
                for (int n : Ranks.SIZES) {
                    out.add(Arguments.of(p, m, n));
                }
            }
        }
        return out.stream();
    }

    static long init(int rank, int i) {
        return rank * 100L + i;
    }

    /** Opens the epoch of {@code mode} from this rank to target {@code t} (and exposure to origin {@code o}). */
    static void open(Win w, Mode mode, int t, int o) {
        switch (mode) {
            case FENCE -> w.fence(0);
            case PSCW_WAIT, PSCW_TEST -> {
                w.post(w.group().incl(o), 0);
                w.start(w.group().incl(t), 0);
            }
            case LOCK_SHARED, LOCK_FLUSH, LOCK_FLUSH_LOCAL -> w.lock(LockType.SHARED, t, 0);
            case LOCK_EXCLUSIVE -> w.lock(LockType.EXCLUSIVE, t, 0);
            default -> w.lockAll(0);
        }
    }

    /** Completes issued operations at the origin inside the epoch (the flush modes); false if none. */
    static boolean midFlush(Win w, Mode mode, int t) {
        switch (mode) {
            case LOCK_FLUSH, LOCK_ALL_FLUSH -> w.flush(t);
            case LOCK_FLUSH_LOCAL, LOCK_ALL_FLUSH_LOCAL -> w.flushLocal(t);
            case LOCK_ALL_FLUSH_ALL -> w.flushAll();
            case LOCK_ALL_FLUSH_LOCAL_ALL -> w.flushLocalAll();
            default -> {
                return false;
            }
        }
        return true;
    }

    static void close(Win w, Mode mode, int t) {
        switch (mode) {
            case FENCE -> w.fence(0);
            case PSCW_WAIT -> {
                w.complete();
                w.waitFor();
            }
            case PSCW_TEST -> {
                w.complete();
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (!w.test()) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("Win.test() never returned true");
                    }
                    Thread.onSpinWait();
                }
            }
            case LOCK_SHARED, LOCK_EXCLUSIVE, LOCK_FLUSH, LOCK_FLUSH_LOCAL -> w.unlock(t);
            default -> w.unlockAll();
        }
    }

    static boolean passive(Mode m) {
        return m != Mode.FENCE && m != Mode.PSCW_TEST && m != Mode.PSCW_WAIT;
    }

    @ParameterizedTest(name = "{0} {1} n={2}")
    @MethodSource("cases")
    @Timeout(30)
    void allOperations(String path, Mode mode, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            Win w = Win.allocate(world, 8L * WORDS, 8, null);
            Ranks.assertPath(w, path);
            ByteBuffer mine = w.buffer();
            for (int i = 0; i < WORDS; i++) {
                mine.putLong(8 * i, init(me, i));
            }
            world.barrier();
            if (mode == Mode.FENCE) {
                w.fence(Win.MODE_NOPRECEDE);
            }
            // ---- one epoch with every operation
            long[] putSrc = {me * 1000L + 1, me * 1000L + 2};
            long[] accSrc = {5, 7};
            long[] got = new long[2];
            long[] gaccRes = new long[1];
            long[] fopRes = new long[1];
            long[] casRes = new long[1];
            long[] casFailRes = new long[1];
            long[] intAccSrc = {3};
            open(w, mode, t, o);
            w.put(putSrc, 2, Datatype.LONG, t, 0);
            w.accumulate(accSrc, 2, Datatype.LONG, t, 2, Op.SUM);
            w.get(got, 2, Datatype.LONG, t, 4);
            w.getAccumulate(intAccSrc, 1, Datatype.LONG, gaccRes, 1, Datatype.LONG, t, 6, 1, Datatype.LONG, Op.SUM);
            w.fetchAndOp(new long[] {11}, fopRes, Datatype.LONG, t, 7, Op.SUM);
            w.compareAndSwap(new long[] {999}, new long[] {init(t, 8)}, casRes, Datatype.LONG, t, 8);
            w.compareAndSwap(new long[] {777}, new long[] {-1}, casFailRes, Datatype.LONG, t, 9);
            if (midFlush(w, mode, t)) {
                // results must be at the origin after any flush, before the epoch ends
                checkOrigin(mode, t, got, gaccRes, fopRes, casRes, casFailRes);
                // a second round inside the same epoch, ordered after the first by the flush
                w.fetchAndOp(new long[] {100}, fopRes, Datatype.LONG, t, 7, Op.SUM);
                w.accumulate(new long[] {1000}, 1, Datatype.LONG, t, 10, Op.REPLACE);
                midFlush(w, mode, t);
                assertEquals(init(t, 7) + 11, fopRes[0], mode + ": second fetch_and_op result");
            }
            close(w, mode, t);
            if (!passiveFlush(mode)) {
                checkOrigin(mode, t, got, gaccRes, fopRes, casRes, casFailRes);
            }
            if (passive(mode)) {
                world.barrier();
                w.sync();
            }
            checkTarget(mode, me, o, mine);
            if (mode == Mode.FENCE) {
                w.fence(Win.MODE_NOSUCCEED);
            }
            world.barrier();
            w.free();
        });
    }

    private static void checkOrigin(Mode mode, int t, long[] got, long[] gaccRes, long[] fopRes, long[] casRes,
                                    long[] casFailRes) {
        assertArrayEquals(new long[] {init(t, 4), init(t, 5)}, got, mode + ": get");
        assertEquals(init(t, 6), gaccRes[0], mode + ": get_accumulate result");
        assertEquals(init(t, 7), fopRes[0], mode + ": fetch_and_op result");
        assertEquals(init(t, 8), casRes[0], mode + ": compare_and_swap result (success)");
        assertEquals(init(t, 9), casFailRes[0], mode + ": compare_and_swap result (failure)");
    }

    private static boolean passiveFlush(Mode m) {
        return m.name().contains("FLUSH");
    }

    private static void checkTarget(Mode mode, int me, int o, ByteBuffer mine) {
        String ctx = mode + " at target " + me + " from origin " + o + ": ";
        assertEquals(o * 1000L + 1, mine.getLong(0), ctx + "put[0]");
        assertEquals(o * 1000L + 2, mine.getLong(8), ctx + "put[1]");
        assertEquals(init(me, 2) + 5, mine.getLong(16), ctx + "accumulate[0]");
        assertEquals(init(me, 3) + 7, mine.getLong(24), ctx + "accumulate[1]");
        assertEquals(init(me, 4), mine.getLong(32), ctx + "get source unchanged");
        assertEquals(init(me, 6) + 3, mine.getLong(48), ctx + "get_accumulate");
        long fop = init(me, 7) + 11 + (passiveFlush(mode) ? 100 : 0);
        assertEquals(fop, mine.getLong(56), ctx + "fetch_and_op");
        assertEquals(999L, mine.getLong(64), ctx + "compare_and_swap (success)");
        assertEquals(init(me, 9), mine.getLong(72), ctx + "compare_and_swap (failure)");
        assertEquals(passiveFlush(mode) ? 1000L : init(me, 10), mine.getLong(80), ctx + "accumulate REPLACE");
        for (int i = 11; i < WORDS; i++) {
            assertEquals(init(me, i), mine.getLong(8 * i), ctx + "untouched word " + i);
        }
    }
}

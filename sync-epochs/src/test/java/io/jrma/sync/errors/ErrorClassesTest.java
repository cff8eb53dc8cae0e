package io.jrma.sync.errors;

import static io.jrma.sync.errors.ErrSupport.WIN_BYTES;
import static io.jrma.sync.errors.ErrSupport.assertPattern;
import static io.jrma.sync.errors.ErrSupport.direct;
import static io.jrma.sync.errors.ErrSupport.expect;
import static io.jrma.sync.errors.ErrSupport.fill;
import static io.jrma.sync.errors.ErrSupport.patternLong;
import static io.jrma.sync.errors.ErrSupport.probeUnchanged;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every error class a window call can raise, triggered on both paths: the class, a message naming the window
 * and the offending value, target memory unchanged (filled with a pattern first), and the window usable after.
 */
class ErrorClassesTest {
    private static final String NAME = "errwin";
    private static final long[] ONE = {7};

    @FunctionalInterface
    interface Body {
        void run(Comm world, Win w) throws Exception;
    }

    /**
     * Two ranks, an allocated window of {@link ErrSupport#WIN_BYTES} named {@link #NAME} filled with each rank's
     * pattern; rank 0 runs {@code rank0}; then both ranks check their memory is unchanged and the window still
     * works (a put in a new lock epoch lands).
     */
    private static void withPatternWindow(String path, Body rank0) {
        Jrma.job(2).param("jrma.path", path).timeout(Duration.ofSeconds(50)).run(world -> {
            int me = world.rank();
            Win w = Win.allocate(world, WIN_BYTES, 8, null);
            w.setName(NAME);
            fill(w.buffer(), me);
            world.barrier();
            if (me == 0) {
                rank0.run(world, w);
            }
            world.barrier();
            assertPattern(w.buffer(), me, "rank " + me + " after the failed calls");
            world.barrier();
            if (me == 0) {
                w.lock(LockType.EXCLUSIVE, 1, 0);
                w.put(new long[] {42}, 1, Datatype.LONG, 1, 3);
                w.unlock(1);
            }
            world.barrier();
            if (me == 1) {
                assertEquals(42L, w.buffer().getLong(24), "put after the failed calls");
            }
            w.free();
        });
    }

    private static long[] getOne(Win w, int t, long disp) {
        long[] g = new long[1];
        w.get(g, 1, Datatype.LONG, t, disp);
        w.flushLocal(t);
        return g;
    }

    // ------------------------------------------------------------------ ERR_RMA_SYNC

    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void rmaSync(String path) {
        withPatternWindow(path, (world, w) -> {
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.put(ONE, 1, Datatype.LONG, 1, 0), NAME, "put", "rank 1", "NONE");
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.get(new long[1], 1, Datatype.LONG, 1, 0), NAME, "get", "rank 1");
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.accumulate(ONE, 1, Datatype.LONG, 1, 0, Op.SUM), NAME, "rank 1");
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.fetchAndAddLong(1, 0, 1), NAME, "rank 1");
            probeUnchanged(w, 1, 1, "op outside any epoch");

            expect(ErrorClass.ERR_RMA_SYNC, () -> w.unlock(1), NAME, "unlock", "rank 1");
            expect(ErrorClass.ERR_RMA_SYNC, w::unlockAll, NAME, "unlock_all");
            expect(ErrorClass.ERR_RMA_SYNC, w::complete, NAME, "complete without start");
            expect(ErrorClass.ERR_RMA_SYNC, w::waitFor, NAME, "wait without post");
            expect(ErrorClass.ERR_RMA_SYNC, w::test, NAME, "test without post");
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.flush(1), NAME, "flush", "rank 1");
            expect(ErrorClass.ERR_RMA_SYNC, w::flushAll, NAME, "flush_all");
            // request-based operations need an access epoch to the target (any kind, as in Open MPI)
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.rput(ONE, 1, Datatype.LONG, 1, 0, 1, Datatype.LONG),
                    NAME, "put", "rank 1", "NONE");
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.rget(new long[1], 1, Datatype.LONG, 1, 0, 1, Datatype.LONG),
                    NAME, "get", "rank 1", "NONE");
            probeUnchanged(w, 1, 1, "sync calls outside their epoch");

            w.lock(LockType.EXCLUSIVE, 1, 0);
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.fence(0), NAME, "fence", "LOCK");
            expect(ErrorClass.ERR_RMA_SYNC, w::free, NAME, "free", "LOCK");
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.lock(LockType.EXCLUSIVE, 1, 0), NAME, "rank 1", "already locked");
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.lock(LockType.SHARED, 1, 0), NAME, "rank 1", "already locked");
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.lockAll(0), NAME, "lock_all");
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.start(w.group(), 0), NAME, "start");
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.put(ONE, 1, Datatype.LONG, 0, 0), NAME, "rank 0 is not locked");
            // the epoch survived all that: a get in it still works
            assertEquals(patternLong(1, 2), getOne(w, 1, 2)[0], "get after failed calls inside the lock epoch");
            w.unlock(1);
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.unlock(1), NAME, "unlock", "rank 1");
            probeUnchanged(w, 1, 1, "errors inside a lock epoch");

            w.lockAll(0);
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.lock(LockType.SHARED, 1, 0), NAME, "LOCK_ALL");
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.unlock(1), NAME, "unlock", "rank 1");
            expect(ErrorClass.ERR_RMA_SYNC, w::free, NAME, "free");
            assertEquals(patternLong(1, 5), getOne(w, 1, 5)[0]);
            w.unlockAll();
            probeUnchanged(w, 1, 1, "errors inside a lock_all epoch");
        });
    }

    // ------------------------------------------------------------------ ERR_RMA_RANGE, ERR_RANK, ERR_COUNT, ERR_DISP

    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void rangeRankCountDisp(String path) {
        withPatternWindow(path, (world, w) -> {
            w.lock(LockType.EXCLUSIVE, 1, 0);
            expect(ErrorClass.ERR_RMA_RANGE, () -> w.put(ONE, 1, Datatype.LONG, 1, 8), NAME, "rank 1", "disp 8",
                    "64 bytes");
            expect(ErrorClass.ERR_RMA_RANGE, () -> w.put(new long[16], 16, Datatype.LONG, 1, 0), NAME, "16 x",
                    "64 bytes");
            expect(ErrorClass.ERR_RMA_RANGE, () -> w.get(new long[2], 2, Datatype.LONG, 1, 7), NAME, "disp 7");
            expect(ErrorClass.ERR_RMA_RANGE, () -> w.accumulate(ONE, 1, Datatype.LONG, 1, 100, Op.SUM), NAME,
                    "disp 100");
            expect(ErrorClass.ERR_RMA_RANGE, () -> w.fetchAndOp(ONE, new long[1], Datatype.LONG, 1, 8, Op.SUM), NAME,
                    "disp 8");
            expect(ErrorClass.ERR_RMA_RANGE, () -> w.compareAndSwap(ONE, ONE, new long[1], Datatype.LONG, 1, 9), NAME,
                    "disp 9");
            Datatype wide = Datatype.vector(2, 1, 8, Datatype.LONG).commit();
            expect(ErrorClass.ERR_RMA_RANGE, () -> w.put(new long[2], 2, Datatype.LONG, 1, 0, 1, wide), NAME,
                    "[0, 72)");
            expect(ErrorClass.ERR_DISP, () -> w.put(ONE, 1, Datatype.LONG, 1, -1), NAME, "-1");
            expect(ErrorClass.ERR_DISP, () -> w.get(new long[1], 1, Datatype.LONG, 1, Long.MIN_VALUE), NAME,
                    Long.toString(Long.MIN_VALUE));
            expect(ErrorClass.ERR_COUNT, () -> w.put(ONE, -1, Datatype.LONG, 1, 0), NAME, "-1");
            expect(ErrorClass.ERR_COUNT,
                    () -> w.get(new long[1], 1, Datatype.LONG, 1, 0, -3, Datatype.LONG), NAME, "-3");
            expect(ErrorClass.ERR_COUNT, () -> w.getAccumulate(ONE, 1, Datatype.LONG, new long[1], -2, Datatype.LONG,
                    1, 0, 1, Datatype.LONG, Op.SUM), NAME, "-2");
            expect(ErrorClass.ERR_RANK, () -> w.put(ONE, 1, Datatype.LONG, 2, 0), NAME, "rank 2", "size 2");
            expect(ErrorClass.ERR_RANK, () -> w.put(ONE, 1, Datatype.LONG, -1, 0), NAME, "rank -1");
            expect(ErrorClass.ERR_RANK, () -> w.flush(7), NAME, "rank 7");
            expect(ErrorClass.ERR_RANK, () -> w.lock(LockType.SHARED, 3, 0), NAME, "rank 3");
            w.put(ONE, 1, Datatype.LONG, Win.PROC_NULL, 0); // PROC_NULL is a no-op, not an error
            // the epoch survived: a valid operation in it works
            assertEquals(patternLong(1, 7), getOne(w, 1, 7)[0], "get after failed calls");
            w.unlock(1);
            probeUnchanged(w, 1, 1, "range/rank/count/disp errors");
        });
    }

    // ------------------------------------------------------------------ ERR_TYPE, ERR_OP, ERR_BUFFER

    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void typeOpBuffer(String path) {
        withPatternWindow(path, (world, w) -> {
            w.lock(LockType.EXCLUSIVE, 1, 0);
            expect(ErrorClass.ERR_TYPE, () -> w.put(new int[2], 2, Datatype.INT, 1, 0, 1, Datatype.LONG), NAME,
                    "does not match", "INT", "LONG");
            Datatype uncommitted = Datatype.contiguous(2, Datatype.LONG);
            expect(ErrorClass.ERR_TYPE, () -> w.put(new long[2], 1, uncommitted, 1, 0), NAME, "not committed",
                    "contiguous(2, LONG)");
            expect(ErrorClass.ERR_TYPE, () -> w.get(new long[2], 2, Datatype.LONG, 1, 0, 1, uncommitted), NAME,
                    "not committed");
            expect(ErrorClass.ERR_TYPE, () -> w.accumulate(new int[2], 2, Datatype.INT, 1, 0, 1, Datatype.LONG, Op.SUM),
                    NAME, "INT", "LONG");
            expect(ErrorClass.ERR_TYPE, () -> w.getAccumulate(ONE, 1, Datatype.LONG, new int[2], 2, Datatype.INT, 1, 0,
                    1, Datatype.LONG, Op.SUM), NAME, "result");
            Datatype derived = Datatype.contiguous(1, Datatype.LONG).commit();
            expect(ErrorClass.ERR_TYPE, () -> w.fetchAndOp(ONE, new long[1], derived, 1, 0, Op.SUM), NAME,
                    "predefined", "contiguous(1, LONG)");
            expect(ErrorClass.ERR_TYPE, () -> w.compareAndSwap(ONE, ONE, new long[1], derived, 1, 0), NAME,
                    "predefined");
            Datatype mixed = Datatype.struct(new long[] {1, 1}, new long[] {0, 8},
                    new Datatype[] {Datatype.LONG, Datatype.DOUBLE}).commit();
            expect(ErrorClass.ERR_TYPE, () -> w.accumulate(new byte[16], 1, mixed, 1, 0, 1, mixed, Op.REPLACE), NAME,
                    "one predefined type");
            expect(ErrorClass.ERR_TYPE, () -> w.put(ONE, 1, null, 1, 0, 1, Datatype.LONG), NAME, "null");

            expect(ErrorClass.ERR_OP, () -> w.accumulate(new double[] {1}, 1, Datatype.DOUBLE, 1, 0, Op.BAND), NAME,
                    "MPI_BAND", "DOUBLE");
            expect(ErrorClass.ERR_OP, () -> w.accumulate(new int[] {1}, 1, Datatype.INT, 1, 0, Op.MINLOC), NAME,
                    "MPI_MINLOC", "INT");
            expect(ErrorClass.ERR_OP, () -> w.fetchAndOp(new double[] {1}, new double[1], Datatype.DOUBLE, 1, 0,
                    Op.BXOR), NAME, "MPI_BXOR");
            expect(ErrorClass.ERR_OP, () -> w.accumulate(ONE, 1, Datatype.LONG, 1, 0, null), NAME, "op is null");

            expect(ErrorClass.ERR_BUFFER, () -> w.put(ONE, 2, Datatype.LONG, 1, 0), NAME, "origin", "[0, 16)", "8");
            expect(ErrorClass.ERR_BUFFER, () -> w.get(new long[1], 2, Datatype.LONG, 1, 0), NAME, "origin", "16");
            expect(ErrorClass.ERR_BUFFER, () -> w.fetchAndOp(ONE, new long[0], Datatype.LONG, 1, 0, Op.SUM), NAME,
                    "result");
            expect(ErrorClass.ERR_BUFFER, () -> w.compareAndSwap(ONE, new int[1], new long[1], Datatype.LONG, 1, 0),
                    NAME, "compare");
            expect(ErrorClass.ERR_BUFFER, () -> w.put(null, 1, Datatype.LONG, 1, 0), NAME, "null");
            assertEquals(patternLong(1, 4), getOne(w, 1, 4)[0], "get after failed calls");
            w.unlock(1);
            probeUnchanged(w, 1, 1, "type/op/buffer errors");
        });
    }

    // ------------------------------------------------------------------ ERR_LOCKTYPE, ERR_ASSERT, ERR_RMA_FLAVOR,
    // ERR_INFO_VALUE

    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void lockTypeAssertFlavorInfo(String path) {
        withPatternWindow(path, (world, w) -> {
            expect(ErrorClass.ERR_LOCKTYPE, () -> w.lock(ErrSupport.NO_LOCK_TYPE, 1, 0), NAME, "lock type");
            expect(ErrorClass.ERR_ASSERT, () -> w.fence(Win.MODE_NOCHECK), NAME, "fence", "0x1");
            expect(ErrorClass.ERR_ASSERT, () -> w.fence(0x400), NAME, "fence", "0x400");
            expect(ErrorClass.ERR_ASSERT, () -> w.lock(LockType.EXCLUSIVE, 1, 0x100), NAME, "lock", "0x100");
            expect(ErrorClass.ERR_ASSERT, () -> w.lockAll(Win.MODE_NOPUT), NAME, "lock_all", "0x4");
            expect(ErrorClass.ERR_ASSERT, () -> w.post(w.group(), Win.MODE_NOPRECEDE), NAME, "post", "0x2");
            expect(ErrorClass.ERR_ASSERT, () -> w.start(w.group(), Win.MODE_NOSTORE), NAME, "start", "0x8");
            expect(ErrorClass.ERR_RMA_FLAVOR, () -> w.attach(direct(16)), NAME, "attach", "ALLOCATE");
            expect(ErrorClass.ERR_RMA_FLAVOR, () -> w.detach(direct(16)), NAME, "detach", "ALLOCATE");
            // MPI-4.1: shared_query works on allocate windows too (size 0 where memory is not shared)
            assertEquals(1, w.sharedQuery(1).rank(), "shared_query on an allocate window");
            expect(ErrorClass.ERR_RANK, () -> w.sharedQuery(99), NAME, "shared_query", "99");
            expect(ErrorClass.ERR_INFO_VALUE, () -> w.setInfo(Info.of("no_locks", "maybe")), "no_locks", "maybe");
            expect(ErrorClass.ERR_INFO_VALUE, () -> w.setInfo(Info.of("jrma_issue", "fast")), "jrma_issue", "fast");
            expect(ErrorClass.ERR_INFO_VALUE, () -> w.setInfo(Info.of("accumulate_ordering", "xyz")),
                    "accumulate_ordering", "xyz");
            assertEquals("false", w.info().get("no_locks"), "a rejected setInfo changes nothing");
            probeUnchanged(w, 1, 1, "locktype/assert/flavor/info errors");
        });
    }

    // ------------------------------------------------------------------ creation errors (collective)

    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void creationErrors(String path) {
        Jrma.job(2).param("jrma.path", path).timeout(Duration.ofSeconds(50)).run(world -> {
            expect(ErrorClass.ERR_SIZE, () -> Win.allocate(world, -1, 8, null), "-1");
            expect(ErrorClass.ERR_SIZE, () -> Win.allocateShared(world, -5, 8, null), "-5");
            expect(ErrorClass.ERR_DISP, () -> Win.allocate(world, 64, 0, null), "disp_unit", "0");
            expect(ErrorClass.ERR_DISP, () -> Win.allocate(world, 64, -4, null), "disp_unit", "-4");
            expect(ErrorClass.ERR_DISP, () -> Win.create(world, direct(64), 0, null), "disp_unit", "0");
            expect(ErrorClass.ERR_INFO_VALUE, () -> Win.allocate(world, 64, 8, Info.of("no_locks", "maybe")),
                    "no_locks=maybe");
            expect(ErrorClass.ERR_INFO_VALUE, () -> Win.allocate(world, 64, 8, Info.of("jrma_issue", "fast")),
                    "jrma_issue=fast");
            expect(ErrorClass.ERR_INFO_VALUE, () -> Win.allocate(world, 64, 8, Info.of("accumulate_ordering", "xyz")),
                    "accumulate_ordering=xyz");
            expect(ErrorClass.ERR_INFO_VALUE, () -> Win.createDynamic(world, Info.of("accumulate_ops", "any")),
                    "accumulate_ops=any");
            expect(ErrorClass.ERR_INFO_VALUE, () -> Win.create(world, direct(64), 8,
                    Info.of("jrma_max_pending_ops", "0")), "jrma_max_pending_ops=0");
            expect(ErrorClass.ERR_BUFFER, () -> Win.create(world, ByteBuffer.allocate(64), 8, null), "heap");
            expect(ErrorClass.ERR_BUFFER, () -> Win.create(world, BytesStore.wrap(new byte[64]), 8, null), "heap");
            expect(ErrorClass.ERR_BUFFER, () -> Win.create(world, new long[8], 8, null), "[J");
            // none of the failed creations left the ranks out of step: a valid window works
            Win w = Win.allocate(world, 16, 8, null);
            w.fence(0);
            w.put(new long[] {world.rank() + 1}, 1, Datatype.LONG, 1 - world.rank(), 1);
            w.fence(0);
            assertEquals(2 - world.rank(), w.buffer().getLong(8));
            w.free();
        });
    }

    // ------------------------------------------------------------------ ERR_WIN

    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void useAfterFree(String path) {
        Jrma.job(2).param("jrma.path", path).timeout(Duration.ofSeconds(50)).run(world -> {
            Win w = Win.allocate(world, WIN_BYTES, 8, null);
            w.setName("freedwin");
            w.free();
            expect(ErrorClass.ERR_WIN, () -> w.put(ONE, 1, Datatype.LONG, 1 - world.rank(), 0), "freedwin", "freed");
            expect(ErrorClass.ERR_WIN, () -> w.get(new long[1], 1, Datatype.LONG, 0, 0), "freedwin", "freed");
            expect(ErrorClass.ERR_WIN, () -> w.fence(0), "freedwin", "freed");
            expect(ErrorClass.ERR_WIN, () -> w.lock(LockType.SHARED, 0, 0), "freedwin", "freed");
            expect(ErrorClass.ERR_WIN, () -> w.flushAll(), "freedwin", "freed");
            expect(ErrorClass.ERR_WIN, w::free, "freedwin", "freed");
            // another window works afterwards
            Win w2 = Win.allocate(world, WIN_BYTES, 8, null);
            w2.fence(0);
            w2.put(new long[] {5}, 1, Datatype.LONG, 1 - world.rank(), 0);
            w2.fence(0);
            assertEquals(5L, w2.buffer().getLong(0));
            w2.free();
        });
    }

    // ------------------------------------------------------------------ dynamic windows: ERR_RMA_RANGE, ERR_RMA_ATTACH

    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void dynamicWindow(String path) {
        AtomicLong attachedAt = new AtomicLong();
        Jrma.job(2).param("jrma.path", path).timeout(Duration.ofSeconds(50)).run(world -> {
            int me = world.rank();
            Win w = Win.createDynamic(world, null);
            w.setName("dynwin");
            ByteBuffer mem = direct(WIN_BYTES);
            fill(mem, 1);
            if (me == 1) {
                w.attach(mem);
                long a = Win.address(mem);
                attachedAt.set(a);
                expect(ErrorClass.ERR_RMA_ATTACH, () -> w.attach(mem.slice(8, 16)), "dynwin", "overlaps",
                        Long.toHexString(a + 8));
                expect(ErrorClass.ERR_RMA_ATTACH, () -> w.attach(mem), "dynwin", "overlaps");
                ByteBuffer other = direct(32);
                expect(ErrorClass.ERR_RMA_ATTACH, () -> w.detach(other), "dynwin", "no region",
                        Long.toHexString(Win.address(other)));
                expect(ErrorClass.ERR_RMA_ATTACH, () -> w.detach(mem.slice(8, 8)), "dynwin",
                        Long.toHexString(a + 8));
            }
            world.barrier();
            long base = attachedAt.get();
            if (me == 0) {
                w.lock(LockType.EXCLUSIVE, 1, 0);
                long past = base + WIN_BYTES;
                // direct path: raised at issue; packet path: the target rejects it, raised at the flush
                expect(ErrorClass.ERR_RMA_RANGE, () -> {
                    w.put(ONE, 1, Datatype.LONG, 1, past);
                    w.flush(1);
                }, "dynwin", "rank 1", Long.toHexString(past));
                expect(ErrorClass.ERR_RMA_RANGE, () -> {
                    w.get(new long[2], 2, Datatype.LONG, 1, base + WIN_BYTES - 8);
                    w.flush(1);
                }, "dynwin", "rank 1", Long.toHexString(base + WIN_BYTES - 8));
                expect(ErrorClass.ERR_RMA_RANGE, () -> {
                    w.accumulate(ONE, 1, Datatype.LONG, 1, 16, Op.SUM); // address 16: never attached
                    w.flush(1);
                }, "dynwin", "rank 1", "0x10");
                long[] g = new long[1];
                w.get(g, 1, Datatype.LONG, 1, base + 16);
                w.flush(1);
                assertEquals(patternLong(1, 2), g[0], "valid get after rejected operations");
                w.unlock(1);
            }
            world.barrier();
            if (me == 1) {
                assertPattern(mem, 1, "attached memory after rejected operations");
            }
            world.barrier();
            if (me == 0) {
                w.lock(LockType.EXCLUSIVE, 1, 0);
                w.put(new long[] {99}, 1, Datatype.LONG, 1, base + 8);
                w.unlock(1);
            }
            world.barrier();
            if (me == 1) {
                assertEquals(99L, mem.getLong(8), "valid put after rejected operations");
                w.detach(mem);
                expect(ErrorClass.ERR_RMA_ATTACH, () -> w.detach(mem), "dynwin");
            }
            world.barrier();
            w.free();
        });
    }

    // ------------------------------------------------------------------ messages that must name the window

    /** setInfo with a bad value: ERR_INFO_VALUE whose message names the window (RmaException's contract). */
    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void setInfoErrorNamesWindow(String path) {
        withPatternWindow(path, (world, w) -> {
            expect(ErrorClass.ERR_INFO_VALUE, () -> w.setInfo(Info.of("no_locks", "maybe")), NAME, "no_locks=maybe");
            probeUnchanged(w, 1, 1, "setInfo error");
        });
    }

    /**
     * A heap BytesStore or a non-buffer object as origin: ERR_BUFFER whose message names the window (RmaException's
     * contract).
     */
    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void unusableBufferObjectNamesWindow(String path) {
        withPatternWindow(path, (world, w) -> {
            BytesStore<?, ?> heap = BytesStore.wrap(new byte[16]);
            w.lock(LockType.EXCLUSIVE, 1, 0);
            expect(ErrorClass.ERR_BUFFER, () -> w.put(heap, 1, Datatype.LONG, 1, 0), "BytesStore", "native");
            expect(ErrorClass.ERR_BUFFER, () -> w.get(heap, 1, Datatype.LONG, 1, 0), "BytesStore", "native");
            expect(ErrorClass.ERR_BUFFER, () -> w.put("not a buffer", 1, Datatype.LONG, 1, 0), "java.lang.String");
            assertEquals(patternLong(1, 1), getOne(w, 1, 1)[0], "get after failed calls");
            w.unlock(1);
            probeUnchanged(w, 1, 1, "heap BytesStore");
            w.lock(LockType.EXCLUSIVE, 1, 0);
            try {
                expect(ErrorClass.ERR_BUFFER, () -> w.put(heap, 1, Datatype.LONG, 1, 0), NAME, "BytesStore");
                expect(ErrorClass.ERR_BUFFER, () -> w.put("not a buffer", 1, Datatype.LONG, 1, 0), NAME, "String");
            } finally {
                w.unlock(1);
            }
        });
    }
}

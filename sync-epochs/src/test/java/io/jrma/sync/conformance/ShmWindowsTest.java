package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Flavor;
import io.jrma.Group;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.RmaException;
import io.jrma.SharedMemory;
import io.jrma.Win;
import io.jrma.WinCounters;
import io.jrma.shm.ShmFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Windows shared between JVMs of one host (the suite's multi-JVM runs): memory in /dev/shm segments, reached by
 * load/store from every JVM; segment files gone once mapped; a /dev/shm too small for a window fails the
 * creation on every rank with ERR_NO_MEM and leaves nothing behind.
 */
class ShmWindowsTest {
    private static final Path SHM = Path.of("/dev/shm");

    /** This JVM's window segment files (the allocator's chunks for Jrma.allocateMemory stay while the JVM runs). */
    private static List<String> windowFiles(long pid) {
        return ShmFiles.filesOf(SHM, pid).stream().filter(f -> f.contains("-win-")).toList();
    }

    private static void needJvms() {
        boolean ok = Ranks.JVMS > 1 && Ranks.SHM_WINDOWS;
        if (!ok) {
            System.out.println("ShmWindowsTest skipped: needs ranks in several JVMs (-Djrma.jvms>1) with "
                    + "jrma.shm.windows on; this run has jrma.jvms=" + Ranks.JVMS + ", jrma.shm.windows="
                    + Ranks.SHM_WINDOWS);
        }
        Assumptions.assumeTrue(ok, "needs ranks in several JVMs with shared windows");
    }

    @Test
    @Timeout(60)
    void allocateWindowMemoryIsSharedAcrossJvmsAndItsFilesAreGoneOnceMapped() {
        needJvms();
        Ranks.run("auto", 4, world -> {
            int me = world.rank();
            int n = world.size();
            Win w = Win.allocate(world, 64, 8, null);
            assertEquals("direct", w.info().get("jrma_path"),
                    "peers in other JVMs of this host are reached by load/store");
            long pid = ProcessHandle.current().pid();
            world.barrier(); // every rank of this JVM has unlinked its file
            assertEquals(List.of(), windowFiles(pid), "segment files are unlinked once every peer mapped them");
            w.buffer().putLong(0, 1000 + me);
            world.barrier();
            for (int r = 0; r < n; r++) { // MPI-4.1 shared_query on an allocate window: every rank of the host
                SharedMemory s = w.sharedQuery(r);
                assertEquals(64, s.size(), "size of rank " + r);
                assertEquals(1000 + r, s.buffer().order(ByteOrder.LITTLE_ENDIAN).getLong(0), "load from rank " + r);
            }
            // accumulates from every JVM by load/store (AtomicityTest covers wide elements in these runs)
            w.lockAll(0);
            w.accumulate(new long[] {(long) me + 1}, 1, Datatype.LONG, 0, 1, Op.SUM);
            w.unlockAll();
            world.barrier();
            if (me == 0) {
                assertEquals((long) n * (n + 1) / 2, w.buffer().getLong(8), "accumulate from every JVM");
            }
            world.barrier();
            w.free();
            world.barrier();
            assertEquals(List.of(), windowFiles(pid), "nothing left after free");
        });
    }

    @Test
    @Timeout(60)
    void getAccumulatesAcrossJvmsAreLoadStoreAtomicsAndTicketsNeverRepeat() {
        needJvms();
        Ranks.run("auto", 4, world -> {
            int me = world.rank();
            int n = world.size();
            int rounds = 500;
            Win w = Win.allocate(world, 4096, 4, null);
            WinCounters c = w.counters();
            world.barrier();
            w.lockAll(0);
            long d0 = c.get(WinCounters.Counter.DIRECT_OPS);
            long p0 = c.get(WinCounters.Counter.PACKETS_SENT);
            // tickets: two ints at rank 0, the first counting calls, the second summing 2 per call; each element is
            // atomic (the pair is not, as MPI allows), so over all ranks every old value of each is handed out once
            int[] old = new int[2];
            int[] mine = new int[rounds];
            int[] mine2 = new int[rounds];
            for (int i = 0; i < rounds; i++) {
                w.getAccumulate(new int[] {1, 2}, 2, Datatype.INT, old, 2, Datatype.INT, 0, 0, 2, Datatype.INT, Op.SUM);
                mine[i] = old[0];
                mine2[i] = old[1];
            }
            w.flushAll();
            long d1 = c.get(WinCounters.Counter.DIRECT_OPS);
            long p1 = c.get(WinCounters.Counter.PACKETS_SENT);
            assertEquals(rounds, d1 - d0, "every get_accumulate by load/store");
            assertEquals(0, p1 - p0, "no packet for any of them");
            // each rank records its tickets at rank 0 (a bitmap of n x rounds bits, set with BOR)
            for (int i = 0; i < rounds; i++) {
                int v = mine[i];
                int v2 = mine2[i] / 2;
                assertEquals(0, mine2[i] % 2, "the second int moves by 2");
                w.accumulate(new int[] {1 << (v & 31)}, 1, Datatype.INT, 0, 16 + (v >>> 5), Op.BOR);
                w.accumulate(new int[] {1 << (v2 & 31)}, 1, Datatype.INT, 0, 128 + (v2 >>> 5), Op.BOR);
            }
            // the other ops of the lane on the next rank: REPLACE swaps, NO_OP reads without an origin, MAX on a long
            long[] got = new long[1];
            long[] read = new long[1];
            long[] before = new long[1];
            int next = (me + 1) % n;
            w.getAccumulate(new long[] {700 + me}, 1, Datatype.LONG, got, 1, Datatype.LONG, next, 400, 1, Datatype.LONG,
                    Op.REPLACE);
            w.getAccumulate(null, 0, null, read, 1, Datatype.LONG, next, 400, 1, Datatype.LONG, Op.NO_OP);
            w.getAccumulate(new long[] {me}, 1, Datatype.LONG, before, 1, Datatype.LONG, next, 402, 1, Datatype.LONG,
                    Op.MAX);
            w.flushAll();
            assertEquals(0, got[0], "REPLACE: the old value");
            assertEquals(700 + me, read[0], "NO_OP reads what REPLACE stored");
            assertEquals(0, before[0], "MAX: the old value");
            // errors still come from the general path, precisely
            RmaException e = assertThrows(RmaException.class, () -> w.getAccumulate(new int[] {1, 2}, 2, Datatype.INT,
                    new int[2], 2, Datatype.INT, 0, 1023, 2, Datatype.INT, Op.SUM));
            assertEquals(ErrorClass.ERR_RMA_RANGE, e.errorClass(), e.getMessage());
            w.unlockAll();
            world.barrier();
            if (me == 0) {
                ByteBuffer b = w.buffer().order(ByteOrder.LITTLE_ENDIAN);
                assertEquals(n * rounds, b.getInt(0), "every call counted once");
                assertEquals(2 * n * rounds, b.getInt(4), "every call summed once");
                for (int v = 0; v < n * rounds; v++) {
                    assertTrue((b.getInt(64 + 4 * (v >>> 5)) & (1 << (v & 31))) != 0,
                            "ticket " + v + " was handed out");
                    assertTrue((b.getInt(512 + 4 * (v >>> 5)) & (1 << (v & 31))) != 0, "even ticket " + 2 * v + " too");
                }
                for (int r = 0; r < n; r++) { // MAX(0, the previous rank's number)
                    assertEquals((r + n - 1) % n, w.sharedQuery(r).buffer().order(ByteOrder.LITTLE_ENDIAN)
                            .getLong(402 * 4), "MAX at rank " + r);
                }
            }
            world.barrier();
            w.free();
        });
    }

    @Test
    @Timeout(60)
    void createWindowsOverAllocatedMemoryAreDirectAcrossJvmsToo() {
        needJvms();
        Ranks.run("auto", 4, world -> {
            int me = world.rank();
            int n = world.size();
            for (int bytes : new int[] {64, 2 << 20}) { // a carved chunk, and a dedicated segment
                ByteBuffer mem = Jrma.allocateMemory(bytes);
                Win w = Win.create(world, mem, 8, null);
                assertEquals("direct", w.info().get("jrma_path"),
                        "no cliff: create over Jrma.allocateMemory is direct too");
                w.lockAll(0);
                w.accumulate(new long[] {me + 1}, 1, Datatype.LONG, 0, 0, Op.SUM);
                w.put(new long[] {100 + me}, 1, Datatype.LONG, (me + 1) % n, 1 + me, 1, Datatype.LONG);
                w.flushAll();
                world.barrier();
                long[] got = new long[1];
                w.get(got, 1, Datatype.LONG, (me + 1) % n, 1 + me, 1, Datatype.LONG);
                w.flushAll();
                assertEquals(100 + me, got[0], "get back from the next rank");
                w.unlockAll();
                world.barrier();
                if (me == 0) {
                    assertEquals((long) n * (n + 1) / 2, mem.getLong(0), "accumulates from every JVM");
                }
                world.barrier();
                w.free();
            }
            // ordinary direct memory stays private to its JVM: peers there lock and signal by load/store and reach
            // it by kernel copies, request slots or packets ("mixed"), and it works
            Win p = Win.create(world, ByteBuffer.allocateDirect(64), 8, null);
            assertEquals("mixed", p.info().get("jrma_path"));
            p.fence(0);
            p.put(new long[] {5}, 1, Datatype.LONG, (me + 1) % n, 0, 1, Datatype.LONG);
            p.fence(0);
            p.free();
        });
    }

    @Test
    @Timeout(60)
    void aShmTooSmallFailsTheWindowOnEveryRankWithNothingLeftBehind() {
        needJvms();
        Ranks.run("auto", 2, world -> {
            int me = world.rank();
            long free;
            try {
                free = Files.getFileStore(SHM).getUsableSpace();
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            long size = me == 1 ? free + (1L << 30) : 64;
            RmaException e = assertThrows(RmaException.class, () -> Win.allocate(world, size, 8, null));
            world.barrier();
            assertEquals(ErrorClass.ERR_NO_MEM, e.errorClass(), e.getMessage());
            assertTrue(e.getMessage().contains("rank 1") && e.getMessage().contains("does not fit"), e.getMessage());
            assertEquals(List.of(), windowFiles(ProcessHandle.current().pid()), "nothing left behind");
            // the engine is intact: the next window works
            Win w = Win.allocate(world, 64, 8, null);
            assertEquals(Flavor.ALLOCATE, w.flavor());
            w.lockAll(0);
            w.put(new long[] {77 + me}, 1, Datatype.LONG, 1 - me, 0, 1, Datatype.LONG);
            w.unlockAll();
            world.barrier();
            assertEquals(77 + (1 - me), w.buffer().getLong(0));
            world.barrier();
            w.free();
        });
    }
    /** Every rank's address of its regions (word 3r .. 3r+2 of an allocate window), read by all. */
    private static long[][] exchange(Comm world, long... mine) {
        int n = world.size();
        Win dir = Win.allocate(world, 8L * mine.length * n, 8, null);
        dir.fence(Win.MODE_NOPRECEDE);
        for (int r = 0; r < n; r++) {
            dir.put(mine, mine.length, Datatype.LONG, r, (long) mine.length * world.rank());
        }
        dir.fence(Win.MODE_NOSUCCEED);
        long[][] out = new long[n][mine.length];
        for (int r = 0; r < n; r++) {
            for (int k = 0; k < mine.length; k++) {
                out[r][k] = dir.buffer().getLong(8 * (mine.length * r + k));
            }
        }
        dir.free();
        return out;
    }

    @Test
    @Timeout(90)
    void dynamicWindowsReachSharedRegionsByLoadStoreAndPrivateOnesOtherwiseInEveryEpochKind() {
        needJvms();
        Ranks.run("auto", 4, world -> {
            int me = world.rank();
            int n = world.size();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            Win w = Win.createDynamic(world, null);
            assertEquals("mixed", w.info().get("jrma_path"), "shared regions by load/store, private ones by packets");
            ByteBuffer shared = Jrma.allocateMemory(256); // a carved chunk of a shared segment
            ByteBuffer big = Jrma.allocateMemory(2 << 20); // a dedicated shared segment
            ByteBuffer priv = ByteBuffer.allocateDirect(256).order(ByteOrder.LITTLE_ENDIAN);
            w.attach(shared);
            w.attach(big);
            w.attach(priv);
            long[][] at = exchange(world, Win.address(shared), Win.address(big), Win.address(priv));
            WinCounters c = w.counters();

            // passive target, lock_all: accumulates from every rank into rank 0, puts to the next rank
            w.lockAll(0);
            w.accumulate(new long[] {me + 1}, 1, Datatype.LONG, 0, at[0][0], Op.SUM);
            w.accumulate(new long[] {me + 1}, 1, Datatype.LONG, 0, at[0][1] + 4096, Op.SUM);
            w.accumulate(new long[] {me + 1}, 1, Datatype.LONG, 0, at[0][2], Op.SUM);
            w.put(new long[] {100 + me}, 1, Datatype.LONG, t, at[t][0] + 8, 1, Datatype.LONG);
            w.put(new long[] {200 + me}, 1, Datatype.LONG, t, at[t][2] + 8, 1, Datatype.LONG);
            w.flushAll(); // completes both, whatever way each took: the gets below must see the puts
            long[] back = new long[1];
            long[] backPriv = new long[1];
            w.get(back, 1, Datatype.LONG, t, at[t][0] + 8, 1, Datatype.LONG);
            w.get(backPriv, 1, Datatype.LONG, t, at[t][2] + 8, 1, Datatype.LONG);
            w.flush(t);
            w.unlockAll();
            assertEquals(100 + me, back[0], "get back from the next rank's shared region");
            assertEquals(200 + me, backPriv[0], "get back from the next rank's private region");
            // the way each kind of region takes to a rank of another JVM, counted one operation at a time
            w.lockAll(0);
            long d0 = c.get(WinCounters.Counter.DIRECT_OPS);
            long p0 = c.get(WinCounters.Counter.PACKETS_SENT);
            w.put(new long[] {100 + me}, 1, Datatype.LONG, t, at[t][0] + 8, 1, Datatype.LONG);
            w.flush(t);
            long d1 = c.get(WinCounters.Counter.DIRECT_OPS);
            long p1 = c.get(WinCounters.Counter.PACKETS_SENT);
            long x1 = c.get(WinCounters.Counter.CROSS_MEMORY_OPS);
            long s1 = c.get(WinCounters.Counter.SLOT_OPS);
            w.put(new long[] {200 + me}, 1, Datatype.LONG, t, at[t][2] + 8, 1, Datatype.LONG);
            w.flush(t);
            long d2 = c.get(WinCounters.Counter.DIRECT_OPS);
            long p2 = c.get(WinCounters.Counter.PACKETS_SENT);
            long x2 = c.get(WinCounters.Counter.CROSS_MEMORY_OPS);
            long s2 = c.get(WinCounters.Counter.SLOT_OPS);
            w.unlockAll();
            assertEquals(1, d1 - d0, "a shared region is reached by load/store");
            assertEquals(0, p1 - p0, "a shared region needs no packet");
            if (!sameJvm(me, t)) {
                assertEquals(0, d2 - d1, "a private region of another JVM is not reached by load/store");
                // a small put goes by one kernel copy in a latency-bound loop (CrossMemoryAcrossJvmsTest), or through
                // the target's request slot (OpSlotsAcrossJvmsTest), else packets
                long ways = (p2 - p1 >= 1 ? 1 : 0) + (x2 - x1) + (s2 - s1);
                assertEquals(1, ways, "a private region of another JVM is reached by packets, by one kernel copy or "
                        + "through its request slot: " + (p2 - p1) + " packets, " + (x2 - x1) + " kernel copies, "
                        + (s2 - s1) + " slot operations");
            } else {
                assertEquals(1, d2 - d1, "a private region of this JVM is reached by load/store");
            }
            world.barrier();
            if (me == 0) {
                long sum = (long) n * (n + 1) / 2;
                assertEquals(sum, shared.getLong(0), "accumulates into a shared region from every JVM");
                assertEquals(sum, big.getLong(4096), "accumulates into a dedicated shared segment from every JVM");
                assertEquals(sum, priv.getLong(0), "accumulates into a private region from every JVM");
            }
            assertEquals(100 + o, shared.getLong(8));
            assertEquals(200 + o, priv.getLong(8));
            world.barrier();

            // atomicity across JVMs: fetch-and-add from every rank, on both kinds of memory, in one epoch
            w.lockAll(0);
            for (int i = 0; i < 50; i++) {
                w.fetchAndAddLong(0, at[0][0] + 16, 1);
                w.fetchAndAddLong(0, at[0][2] + 16, 1);
                w.compareAndSwapLong(0, at[0][0] + 24, 0, 1); // only the first wins
            }
            // 16-byte elements no CPU atomic covers: the element locks must be the same words in every JVM,
            // although each maps the region at its own address
            for (int i = 0; i < 200; i++) {
                w.accumulate(new double[] {1.0, 2.0}, 1, Datatype.DOUBLE_COMPLEX, 0, at[0][0] + 64, Op.SUM);
                w.accumulate(new double[] {1.0, 2.0}, 1, Datatype.DOUBLE_COMPLEX, 0, at[0][2] + 64, Op.SUM);
            }
            w.unlockAll();
            world.barrier();
            if (me == 0) {
                assertEquals(200.0 * n, shared.getDouble(64), "complex accumulate on a shared region, real part");
                assertEquals(400.0 * n, shared.getDouble(72), "complex accumulate on a shared region, imaginary part");
                assertEquals(200.0 * n, priv.getDouble(64), "complex accumulate on a private region, real part");
                assertEquals(400.0 * n, priv.getDouble(72), "complex accumulate on a private region, imaginary part");
                assertEquals(50L * n, shared.getLong(16), "fetch-and-add on a shared region");
                assertEquals(50L * n, priv.getLong(16), "fetch-and-add on a private region");
                assertEquals(1, shared.getLong(24), "compare-and-swap");
            }
            world.barrier();

            // an exclusive lock: stores of both kinds are at the target once unlock returns
            w.lock(LockType.EXCLUSIVE, t, 0);
            w.put(new long[] {300 + me}, 1, Datatype.LONG, t, at[t][0] + 32, 1, Datatype.LONG);
            w.put(new long[] {400 + me}, 1, Datatype.LONG, t, at[t][2] + 32, 1, Datatype.LONG);
            w.unlock(t);
            world.barrier();
            assertEquals(300 + o, shared.getLong(32), "put under an exclusive lock, shared region");
            assertEquals(400 + o, priv.getLong(32), "put under an exclusive lock, private region");

            // fence: both kinds are applied when the closing fence returns
            w.fence(0);
            w.put(new long[] {500 + me}, 1, Datatype.LONG, t, at[t][0] + 40, 1, Datatype.LONG);
            w.put(new long[] {600 + me}, 1, Datatype.LONG, t, at[t][2] + 40, 1, Datatype.LONG);
            w.fence(0);
            assertEquals(500 + o, shared.getLong(40), "put in a fence epoch, shared region");
            assertEquals(600 + o, priv.getLong(40), "put in a fence epoch, private region");
            w.fence(Win.MODE_NOSUCCEED);

            // post/start/complete/wait
            Group g = world.group();
            w.post(g.incl(new int[] {o}), 0);
            w.start(g.incl(new int[] {t}), 0);
            w.put(new long[] {700 + me}, 1, Datatype.LONG, t, at[t][0] + 48, 1, Datatype.LONG);
            w.put(new long[] {800 + me}, 1, Datatype.LONG, t, at[t][2] + 48, 1, Datatype.LONG);
            w.complete();
            w.waitFor();
            assertEquals(700 + o, shared.getLong(48), "put in a PSCW epoch, shared region");
            assertEquals(800 + o, priv.getLong(48), "put in a PSCW epoch, private region");
            world.barrier();

            // a new region is seen at once; bytes attached nowhere are an error at the origin; a detached one too
            ByteBuffer fresh = Jrma.allocateMemory(64);
            w.detach(shared);
            w.attach(fresh);
            long[][] at2 = exchange(world, Win.address(fresh));
            w.lock(LockType.SHARED, t, 0);
            w.put(new long[] {900 + me}, 1, Datatype.LONG, t, at2[t][0], 1, Datatype.LONG);
            RmaException e = assertThrows(RmaException.class,
                    () -> w.put(new long[] {1}, 1, Datatype.LONG, t, at[t][2] + 256, 1, Datatype.LONG));
            assertEquals(ErrorClass.ERR_RMA_RANGE, e.errorClass(), e.getMessage());
            if (at2[t][0] != at[t][0]) {
                RmaException d = assertThrows(RmaException.class,
                        () -> w.put(new long[] {1}, 1, Datatype.LONG, t, at[t][0], 1, Datatype.LONG));
                assertEquals(ErrorClass.ERR_RMA_RANGE, d.errorClass(), d.getMessage());
            }
            w.unlock(t);
            world.barrier();
            assertEquals(900 + o, fresh.getLong(0), "put into a region attached later");
            assertEquals(500 + o, shared.getLong(40), "the detached region kept its contents");
            world.barrier();
            w.detach(fresh);
            w.detach(big);
            w.detach(priv);
            w.free();
            world.barrier();
            assertEquals(List.of(), windowFiles(ProcessHandle.current().pid()), "nothing left after free");
        });
    }

    /** Whether two ranks of the suite's jobs share a JVM (consecutive ranks per JVM). */
    private static boolean sameJvm(int a, int b) {
        int perJvm = Math.max(1, 4 / Ranks.JVMS);
        return a / perJvm == b / perJvm;
    }
}

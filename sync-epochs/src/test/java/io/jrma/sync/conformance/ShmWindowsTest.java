package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Flavor;
import io.jrma.RmaException;
import io.jrma.SharedMemory;
import io.jrma.Win;
import io.jrma.core.shm.ShmFiles;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
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
    private static java.util.List<String> windowFiles(long pid) {
        return ShmFiles.filesOf(SHM, pid).stream().filter(f -> f.contains("-win-")).toList();
    }

    private static void needJvms() {
        boolean ok = Ranks.JVMS > 1 && Ranks.SHM_WINDOWS;
        if (!ok) {
            System.out.println("ShmWindowsTest skipped: needs ranks in several JVMs (-Djrma.jvms>1) with jrma.shm.windows"
                    + " on; this run has jrma.jvms=" + Ranks.JVMS + ", jrma.shm.windows=" + Ranks.SHM_WINDOWS);
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
            assertEquals("direct", w.info().get("jrma_path"), "peers in other JVMs of this host are reached by load/store");
            long pid = ProcessHandle.current().pid();
            world.barrier(); // every rank of this JVM has unlinked its file
            assertEquals(java.util.List.of(), windowFiles(pid), "segment files are unlinked once every peer mapped them");
            w.buffer().putLong(0, 1000 + me);
            world.barrier();
            for (int r = 0; r < n; r++) { // MPI-4.1 shared_query on an allocate window: every rank of the host
                SharedMemory s = w.sharedQuery(r);
                assertEquals(64, s.size(), "size of rank " + r);
                assertEquals(1000 + r, s.buffer().order(ByteOrder.LITTLE_ENDIAN).getLong(0), "load from rank " + r);
            }
            // accumulates from every JVM by load/store (AtomicityTest covers wide elements in these runs)
            w.lockAll(0);
            w.accumulate(new long[] {(long) me + 1}, 1, Datatype.LONG, 0, 1, io.jrma.Op.SUM);
            w.unlockAll();
            world.barrier();
            if (me == 0) {
                assertEquals((long) n * (n + 1) / 2, w.buffer().getLong(8), "accumulate from every JVM");
            }
            world.barrier();
            w.free();
            world.barrier();
            assertEquals(java.util.List.of(), windowFiles(pid), "nothing left after free");
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
                java.nio.ByteBuffer mem = io.jrma.Jrma.allocateMemory(bytes);
                Win w = Win.create(world, mem, 8, null);
                assertEquals("direct", w.info().get("jrma_path"), "no cliff: create over Jrma.allocateMemory is direct too");
                w.lockAll(0);
                w.accumulate(new long[] {me + 1}, 1, Datatype.LONG, 0, 0, io.jrma.Op.SUM);
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
            // ordinary direct memory stays on the packet path between JVMs, and still works
            Win p = Win.create(world, java.nio.ByteBuffer.allocateDirect(64), 8, null);
            assertEquals("packet", p.info().get("jrma_path"));
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
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
            long size = me == 1 ? free + (1L << 30) : 64;
            RmaException e = assertThrows(RmaException.class, () -> Win.allocate(world, size, 8, null));
            world.barrier();
            assertEquals(ErrorClass.ERR_NO_MEM, e.errorClass(), e.getMessage());
            assertTrue(e.getMessage().contains("rank 1") && e.getMessage().contains("does not fit"), e.getMessage());
            assertEquals(java.util.List.of(), windowFiles(ProcessHandle.current().pid()), "nothing left behind");
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
}

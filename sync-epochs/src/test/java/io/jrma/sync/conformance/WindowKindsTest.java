package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Flavor;
import io.jrma.Group;
import io.jrma.Info;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.RmaException;
import io.jrma.SharedMemory;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Window flavors and shapes: dynamic, shared, zero-size, disp units, sub-communicators, many windows, user memory. */
class WindowKindsTest {

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void dynamicAttachDetach(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            Win dyn = Win.createDynamic(world, null);
            assertEquals(Flavor.DYNAMIC, dyn.flavor());
            // direct between threads of one JVM; between JVMs of the host "mixed" (regions in shared segments by
            // load/store, private ones by packets), or packets when shared segments are excluded
            String expected = path.equals("packet") ? "packet" : Ranks.JVMS == 1 ? "direct" : Ranks.SHM_WINDOWS
                    ? "mixed" : "packet";
            assertEquals(expected, dyn.info().get("jrma_path"), "path of a dynamic window");
            ByteBuffer region = Ranks.direct(64);
            BytesStore<?, ?> region2 = BytesStore.nativeStoreWithFixedCapacity(32);
            for (int i = 0; i < 8; i++) {
                region.putLong(8 * i, me * 100L + i);
            }
            dyn.attach(region);
            dyn.attach(region2);
            long addr = Win.address(region);
            long addr2 = Win.address(region2);
            // exchange the addresses through an allocated window (word 2r, 2r+1 of every rank)
            Win dir = Win.allocate(world, 16L * n, 8, null);
            dir.fence(Win.MODE_NOPRECEDE);
            for (int r = 0; r < n; r++) {
                dir.put(new long[] {addr, addr2}, 2, Datatype.LONG, r, 2L * me);
            }
            dir.fence(Win.MODE_NOSUCCEED);
            long tAddr = dir.buffer().getLong(16 * t);
            long tAddr2 = dir.buffer().getLong(16 * t + 8);
            dyn.lockAll(0);
            dyn.put(new long[] {-me}, 1, Datatype.LONG, t, tAddr + 8, 1, Datatype.LONG);
            long[] got = new long[2];
            dyn.get(got, 2, Datatype.LONG, t, tAddr + 16, 2, Datatype.LONG);
            dyn.accumulate(new long[] {5}, 1, Datatype.LONG, t, tAddr + 32, 1, Datatype.LONG, Op.SUM);
            dyn.put(new int[] {me + 1, me + 2}, 2, Datatype.INT, t, tAddr2 + 4, 2, Datatype.INT);
            long old = dyn.fetchAndAddLong(t, tAddr2 + 16, 9);
            dyn.unlockAll();
            assertEquals(t * 100L + 2, got[0], "dynamic get word 2");
            assertEquals(t * 100L + 3, got[1], "dynamic get word 3");
            assertEquals(0, old, "fetch-and-add on a zeroed attached BytesStore");
            world.barrier();
            dyn.sync();
            assertEquals(-o, region.getLong(8), "put into attached ByteBuffer");
            assertEquals(me * 100L + 4 + 5, region.getLong(32), "accumulate into attached ByteBuffer");
            assertEquals(o + 1, region2.readInt(4), "put into attached BytesStore");
            assertEquals(o + 2, region2.readInt(8), "put into attached BytesStore");
            assertEquals(9, region2.readLong(16), "fetch-and-add into attached BytesStore");
            world.barrier();
            // detach region2 and attach a new region; access the new one
            dyn.detach(region2);
            ByteBuffer region3 = Ranks.direct(16);
            dyn.attach(region3);
            dir.fence(Win.MODE_NOPRECEDE);
            for (int r = 0; r < n; r++) {
                dir.put(new long[] {Win.address(region3)}, 1, Datatype.LONG, r, 2L * me);
            }
            dir.fence(Win.MODE_NOSUCCEED);
            long tAddr3 = dir.buffer().getLong(16 * t);
            dyn.lock(LockType.EXCLUSIVE, t, 0);
            dyn.put(new long[] {4242 + me}, 1, Datatype.LONG, t, tAddr3 + 8, 1, Datatype.LONG);
            dyn.unlock(t);
            world.barrier();
            dyn.sync();
            assertEquals(4242 + o, region3.getLong(8), "put into a region attached after a detach");
            world.barrier();
            dyn.detach(region);
            dyn.detach(region3);
            dir.free();
            dyn.free();
            region2.releaseLast();
        });
    }

    @ParameterizedTest(name = "{0} n={1} noncontig={2}")
    @MethodSource("sharedCases")
    @Timeout(30)
    void sharedWindowLoadStore(String path, int n, boolean noncontig) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            // rank 0 has size 0 so PROC_NULL must name rank 1; others have 16 * me bytes
            long size = me == 0 ? 0 : 16L * me;
            Info info = noncontig ? Info.of("alloc_shared_noncontig", "true") : null;
            if (Ranks.JVMS > 1 && !Ranks.SHM_WINDOWS) { // ranks in other JVMs, shared segments excluded: a clear error
                RmaException e = Assertions.assertThrows(RmaException.class,
                        () -> Win.allocateShared(world, size, 8, info));
                assertEquals(ErrorClass.ERR_RMA_SHARED, e.errorClass(), e.getMessage());
                world.barrier();
                return;
            }
            Win w = Win.allocateShared(world, size, 8, info);
            assertEquals(Flavor.SHARED, w.flavor());
            assertEquals(size, w.size());
            SharedMemory[] seg = new SharedMemory[n];
            for (int r = 0; r < n; r++) {
                seg[r] = w.sharedQuery(r);
                assertEquals(r, seg[r].rank());
                assertEquals(r == 0 ? 0 : 16L * r, seg[r].size(), "segment size of " + r);
                assertEquals(8, seg[r].dispUnit(), "disp unit of " + r);
            }
            SharedMemory first = w.sharedQuery(Win.PROC_NULL);
            assertEquals(1, first.rank(), "PROC_NULL names the first rank with memory");
            if (!noncontig) {
                for (int r = 1; r < n - 1; r++) {
                    assertEquals(seg[r].address() + seg[r].size(), seg[r + 1].address(),
                            "contiguous segments " + r + " and " + (r + 1));
                }
            }
            w.lockAll(Win.MODE_NOCHECK);
            // direct store into the right neighbour's segment (word 0), unless it is empty
            if (t != 0) {
                seg[t].buffer().order(ByteOrder.LITTLE_ENDIAN).putLong(0, 1000L + me);
            }
            w.sync();
            world.barrier();
            w.sync();
            if (me != 0) {
                assertEquals(1000L + o, w.buffer().getLong(0), "neighbour's direct store");
                // read the left neighbour's segment directly
                if (o != 0) {
                    long v = seg[o].buffer().order(ByteOrder.LITTLE_ENDIAN).getLong(0);
                    assertEquals(1000L + (o + n - 1) % n, v, "direct load of the left neighbour's segment");
                }
            }
            // RMA into a shared window too: everyone accumulates into rank 1's word 1
            w.accumulate(new long[] {me + 1}, 1, Datatype.LONG, 1, 1, Op.SUM);
            w.unlockAll();
            world.barrier();
            if (me == 1) {
                w.sync();
                assertEquals((long) n * (n + 1) / 2, w.buffer().getLong(8), "accumulate into shared window");
            }
            world.barrier();
            w.free();
        });
    }

    static Stream<Arguments> sharedCases() {
        return Ranks.pathsAndSizes().flatMap(a -> Stream.of(
                Arguments.of(a.get()[0], a.get()[1], false),
                Arguments.of(a.get()[0], a.get()[1], true)));
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void zeroSizeWindowsOnSomeRanks(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            long size = me % 2 == 1 ? 0 : 8L * n;
            Win w = Win.allocate(world, size, 8, null);
            assertEquals(size, w.size());
            w.fence(Win.MODE_NOPRECEDE);
            for (int t = 0; t < n; t++) {
                if (t % 2 == 0) {
                    w.put(new long[] {me + 1}, 1, Datatype.LONG, t, me);
                } else {
                    w.put(new long[0], 0, Datatype.LONG, t, 0); // zero-count op to an empty window is legal
                }
            }
            w.fence(0);
            if (me % 2 == 0) {
                for (int r = 0; r < n; r++) {
                    assertEquals(r + 1, w.buffer().getLong(8 * r), "slot " + r);
                }
            }
            // passive target on the zero-size ranks: lock/unlock with no operations
            for (int t = 1; t < n; t += 2) {
                w.lock(LockType.SHARED, t, 0);
                w.unlock(t);
            }
            w.fence(Win.MODE_NOSUCCEED);
            world.barrier();
            w.free();
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void dispUnits8And3(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            int unit = me % 2 == 0 ? 8 : 3;
            Win w = Win.allocate(world, 96, unit, null);
            assertEquals(unit, w.dispUnit());
            int tUnit = t % 2 == 0 ? 8 : 3;
            w.fence(Win.MODE_NOPRECEDE);
            // disp 2 -> byte 16 (unit 8) or byte 6 (unit 3)
            w.put(new long[] {0x1122334455667788L + me}, 1, Datatype.LONG, t, 2);
            // disp 7 -> byte 56 or byte 21
            w.accumulate(new int[] {me + 1}, 1, Datatype.INT, t, 7, Op.SUM);
            w.fence(0);
            ByteBuffer b = w.buffer();
            assertEquals(0x1122334455667788L + o, b.getLong(2 * unit), "put at disp 2 with unit " + unit);
            assertEquals(o + 1, b.getInt(7 * unit), "accumulate at disp 7 with unit " + unit);
            b.putLong(9 * unit, 777L * me);
            w.fence(0);
            long[] got = new long[1];
            w.get(got, 1, Datatype.LONG, t, 9);
            w.fence(Win.MODE_NOSUCCEED);
            assertEquals(777L * t, got[0], "get at disp 9 from a rank with unit " + tUnit);
            world.barrier();
            w.free();
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void windowsOnSubCommunicators(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            // split by parity, reverse order inside each part
            Comm part = world.split(me % 2, -me);
            int pn = part.size();
            int pr = part.rank();
            assertEquals((n + 1 - me % 2) / 2, pn);
            Win w = Win.allocate(part, 8L * pn, 8, null);
            assertEquals(pr, w.rank());
            w.fence(Win.MODE_NOPRECEDE);
            for (int t = 0; t < pn; t++) {
                w.put(new long[] {me}, 1, Datatype.LONG, t, pr); // world rank into slot of part rank
            }
            w.fence(Win.MODE_NOSUCCEED);
            for (int r = 0; r < pn; r++) {
                assertEquals(part.worldRank(r), w.buffer().getLong(8 * r), "split window slot " + r);
            }
            // world.create over the first half (a group that not every rank belongs to)
            Group half = world.group().incl(IntStream.range(0, Math.max(1, n / 2)).toArray());
            Comm lower = world.create(half);
            if (me < Math.max(1, n / 2)) {
                assertNotNull(lower);
                Win lw = Win.allocate(lower, 8, 8, null);
                lw.lockAll(0);
                lw.accumulate(new long[] {me + 1}, 1, Datatype.LONG, 0, 0, Op.SUM);
                lw.unlockAll();
                lower.barrier();
                if (lower.rank() == 0) {
                    lw.sync();
                    long h = Math.max(1, n / 2);
                    assertEquals(h * (h + 1) / 2, lw.buffer().getLong(0), "accumulate on created comm");
                }
                lower.barrier();
                lw.free();
                lower.free();
            } else {
                assertNull(lower);
            }
            world.barrier();
            w.free();
            part.free();
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void sixtyFourWindowsAlive(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            Win[] ws = new Win[64];
            for (int i = 0; i < ws.length; i++) {
                ws[i] = Win.allocate(world, 16, 8, null);
            }
            for (Win w : ws) {
                w.lockAll(0);
            }
            for (int i = 0; i < ws.length; i++) {
                ws[i].put(new long[] {i * 1000L + me}, 1, Datatype.LONG, t, 0);
                ws[i].accumulate(new long[] {i}, 1, Datatype.LONG, 0, 1, Op.SUM);
            }
            for (int i = ws.length - 1; i >= 0; i--) {
                ws[i].unlockAll();
            }
            world.barrier();
            for (int i = 0; i < ws.length; i++) {
                ws[i].sync();
                assertEquals(i * 1000L + o, ws[i].buffer().getLong(0), "window " + i + " put");
                if (me == 0) {
                    assertEquals((long) i * n, ws[i].buffer().getLong(8), "window " + i + " accumulate");
                }
            }
            world.barrier();
            for (Win w : ws) {
                w.free();
            }
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void createOverUserByteBuffer(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            ByteBuffer mem = Ranks.direct(8 * 8);
            for (int i = 0; i < 8; i++) {
                mem.putLong(8 * i, me * 10L + i);
            }
            Win w = Win.create(world, mem, 8, null);
            assertEquals(Flavor.CREATE, w.flavor());
            assertEquals(Win.address(mem), w.base(), "base is the user buffer's address");
            assertEquals(64, w.size());
            w.fence(Win.MODE_NOPRECEDE);
            w.put(new long[] {-me}, 1, Datatype.LONG, t, 1);
            w.accumulate(new long[] {100}, 1, Datatype.LONG, t, 2, Op.SUM);
            long[] got = new long[1];
            w.get(got, 1, Datatype.LONG, t, 5);
            w.fence(Win.MODE_NOSUCCEED);
            assertEquals(t * 10L + 5, got[0], "get from user buffer");
            assertEquals(-o, mem.getLong(8), "put visible in the user's ByteBuffer");
            assertEquals(me * 10L + 2 + 100, mem.getLong(16), "accumulate visible in the user's ByteBuffer");
            assertEquals(me * 10L + 3, mem.getLong(24), "untouched");
            world.barrier();
            w.free();
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void createOverChronicleBytesStore(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            BytesStore<?, ?> mem = BytesStore.nativeStoreWithFixedCapacity(64);
            mem.writeLong(0, me * 10L);
            Win w = Win.create(world, mem, 8, null);
            assertEquals(Win.address(mem), w.base());
            world.barrier();
            w.lockAll(0);
            w.accumulate(new long[] {me + 1}, 1, Datatype.LONG, 0, 1, Op.SUM);
            w.put(new double[] {me + 0.5}, 1, Datatype.DOUBLE, t, 2);
            BytesStore<?, ?> origin = BytesStore.nativeStoreWithFixedCapacity(16);
            origin.writeLong(0, 555L + me);
            origin.writeLong(8, 666L + me);
            w.put(origin, 2, Datatype.LONG, t, 3); // BytesStore as origin buffer
            BytesStore<?, ?> result = BytesStore.nativeStoreWithFixedCapacity(8);
            w.fetchAndOp(new long[] {0}, result, Datatype.LONG, t, 0, Op.NO_OP); // BytesStore as result buffer
            long[] got = new long[1];
            w.get(got, 1, Datatype.LONG, t, 0);
            w.flush(t);
            assertEquals(t * 10L, got[0], "get from a BytesStore window");
            assertEquals(t * 10L, result.readLong(0), "fetch_and_op into a BytesStore result buffer");
            w.unlockAll();
            world.barrier();
            w.sync();
            assertEquals(o + 0.5, mem.readDouble(16), "put into BytesStore");
            assertEquals(555L + o, mem.readLong(24), "put from a BytesStore origin");
            assertEquals(666L + o, mem.readLong(32), "put from a BytesStore origin");
            origin.releaseLast();
            result.releaseLast();
            if (me == 0) {
                assertEquals((long) n * (n + 1) / 2, mem.readLong(8), "accumulate into BytesStore");
            }
            world.barrier();
            w.free();
            mem.releaseLast();
        });
    }
}

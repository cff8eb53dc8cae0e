package mpitests;

import static mpitests.Check.check;
import static mpitests.Check.eq;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import mpi.Comm;
import mpi.Group;
import mpi.Info;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Win;

/** Windows of every flavor under every synchronization mode, and every RMA operation. Needs 2 ranks or more. */
public final class Windows {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int me = world.getRank();
        int n = world.getSize();
        check(n >= 2, "needs 2 ranks");

        createWithFence(world, me, n);
        allocateWithLocks(world, me, n);
        allocateUnaliased(world, me, n);
        sharedWindow(world, me, n);
        dynamicWindow(world, me, n);
        pscw(world, me, n);
        atomicsAndRequests(world, me, n);
        attributes(world, me, n);
        emptyBufferOnUntargetedRanks(world, me, n);

        MPI.Finalize();
        if (me == 0) {
            System.out.println("Windows OK on " + n + " ranks");
        }
    }

    /** MPI_Win_create over an IntBuffer (size and disp_unit in ints), fence epochs. */
    private static void createWithFence(Intracomm world, int me, int n) throws MPIException {
        IntBuffer mem = MPI.newIntBuffer(n + 2);
        Win win = new Win(mem, n + 2, 1, MPI.INFO_NULL, world);
        eq(MPI.WIN_FLAVOR_CREATE, win.getAttr(MPI.WIN_CREATE_FLAVOR), "flavor");
        eq((n + 2) * 4, win.getAttr(MPI.WIN_SIZE), "WIN_SIZE in bytes");
        eq(4, win.getAttr(MPI.WIN_DISP_UNIT), "WIN_DISP_UNIT in bytes");
        eq(MPI.getAddress(mem), win.getAttr(MPI.WIN_BASE), "WIN_BASE is the buffer's address");
        win.fence(MPI.MODE_NOPRECEDE);
        IntBuffer one = MPI.newIntBuffer(1);
        one.put(0, 100 + me);
        for (int t = 0; t < n; t++) {
            win.put(one, 1, MPI.INT, t, me, 1, MPI.INT); // slot me at every rank
        }
        win.fence(0);
        for (int r = 0; r < n; r++) {
            eq(100 + r, mem.get(r), "put slot " + r);
        }
        IntBuffer got = MPI.newIntBuffer(n);
        int right = (me + 1) % n;
        win.get(got, n, MPI.INT, right, 0, n, MPI.INT);
        IntBuffer add = MPI.newIntBuffer(1);
        add.put(0, me + 1);
        win.accumulate(add, 1, MPI.INT, 0, n, 1, MPI.INT, MPI.SUM);
        win.fence(0);
        for (int r = 0; r < n; r++) {
            eq(100 + r, got.get(r), "get from " + right);
        }
        if (me == 0) {
            eq(n * (n + 1) / 2, mem.get(n), "accumulate SUM");
        }
        // request-based operations in a fence epoch, as Open MPI takes them (MPI reserves them for lock epochs)
        IntBuffer rgot = MPI.newIntBuffer(1);
        Request rp = win.rPut(one, 1, MPI.INT, right, n + 1, 1, MPI.INT);
        Request rg = win.rGet(rgot, 1, MPI.INT, right, right, 1, MPI.INT);
        Request.waitAll(new Request[] {rp, rg});
        eq(100 + right, rgot.get(0), "rGet in a fence epoch");
        win.fence(MPI.MODE_NOSUCCEED);
        eq(100 + (me + n - 1) % n, mem.get(n + 1), "rPut in a fence epoch");
        win.free();
        check(win.isNull(), "freed window");
    }

    /** FLAVOR_PRIVATE with a direct base big enough: the base buffer is the window memory. Lock epochs. */
    private static void allocateWithLocks(Intracomm world, int me, int n) throws MPIException {
        LongBuffer base = MPI.newLongBuffer(4);
        Win win = new Win(4, 1, MPI.INFO_NULL, world, base, Win.FLAVOR_PRIVATE);
        eq(MPI.WIN_FLAVOR_ALLOCATE, win.getAttr(MPI.WIN_CREATE_FLAVOR), "allocate flavor");
        eq(8, win.getAttr(MPI.WIN_DISP_UNIT), "disp unit of a LongBuffer window");
        base.put(3, me * 1000L); // a local store into the window
        world.barrier();
        LongBuffer v = MPI.newLongBuffer(1);
        int target = (me + 1) % n;
        win.lock(MPI.LOCK_SHARED, target, 0);
        win.get(v, 1, MPI.LONG, target, 3, 1, MPI.LONG);
        win.unlock(target);
        eq(target * 1000L, v.get(0), "get of a local store made through the base buffer");
        // exclusive locks: every rank increments slot 0 of rank 0 n times
        LongBuffer cur = MPI.newLongBuffer(1);
        for (int k = 0; k < 3; k++) {
            win.lock(MPI.LOCK_EXCLUSIVE, 0, 0);
            win.get(cur, 1, MPI.LONG, 0, 0, 1, MPI.LONG);
            win.flush(0);
            cur.put(0, cur.get(0) + 1);
            win.put(cur, 1, MPI.LONG, 0, 0, 1, MPI.LONG);
            win.unlock(0);
        }
        world.barrier();
        if (me == 0) {
            win.lock(MPI.LOCK_EXCLUSIVE, 0, 0);
            eq(3L * n, base.get(0), "exclusive read-modify-write through the base buffer");
            win.unlock(0);
        }
        // lockAll with flushes
        win.lockAll(0);
        LongBuffer mine = MPI.newLongBuffer(1);
        mine.put(0, me + 7);
        win.put(mine, 1, MPI.LONG, target, 1, 1, MPI.LONG);
        win.flushLocal(target);
        win.flush(target);
        win.accumulate(mine, 1, MPI.LONG, target, 2, 1, MPI.LONG, MPI.REPLACE);
        win.flushLocalAll();
        win.flushAll();
        win.unlockAll();
        world.barrier();
        win.sync();
        int from = (me + n - 1) % n;
        eq(from + 7, base.get(1), "lockAll put");
        eq(from + 7, base.get(2), "accumulate REPLACE");
        ByteBuffer b = win.getBuffer();
        eq(from + 7, b.getLong(8), "getBuffer sees the window");
        win.free();
    }

    /** FLAVOR_PRIVATE with no (or a too small) base: jrma allocates; getBuffer() reaches the memory. */
    private static void allocateUnaliased(Intracomm world, int me, int n) throws MPIException {
        Win win = new Win(16, 8, MPI.INFO_NULL, world, MPI.newByteBuffer(1), MPI.WIN_FLAVOR_ALLOCATE);
        ByteBuffer mem = win.getBuffer();
        eq(16, mem.capacity(), "allocated bytes");
        win.fence(0);
        DoubleBuffer x = MPI.newDoubleBuffer(1);
        x.put(0, me + 0.5);
        win.put(x, 1, MPI.DOUBLE, (me + 1) % n, 1, 1, MPI.DOUBLE);
        win.fence(0);
        eq((me + n - 1) % n + 0.5, mem.getDouble(8), "put into allocated memory");
        win.free();
    }

    /**
     * FLAVOR_SHARED over the ranks of one host (splitType, across JVMs too), loads and stores of another rank's
     * segment.
     */
    private static void sharedWindow(Intracomm world, int me, int n) throws MPIException {
        Intracomm node = world.splitType(Comm.TYPE_SHARED, 0, MPI.INFO_NULL);
        int nr = node.getRank();
        int nn = node.getSize();
        Win win = new Win(2, 1, MPI.INFO_NULL, node, MPI.newIntBuffer(0), Win.FLAVOR_SHARED);
        eq(MPI.WIN_FLAVOR_SHARED, win.getAttr(MPI.WIN_CREATE_FLAVOR), "shared flavor");
        win.lockAll(MPI.MODE_NOCHECK);
        win.getBuffer().putInt(0, 1000 + nr);
        win.sync();
        node.barrier();
        win.sync();
        int peer = (nr + 1) % nn;
        ByteBuffer theirs = win.sharedQuery(peer);
        eq(1000 + peer, theirs.getInt(0), "load from a neighbor's segment");
        eq(4, win.sharedQueryDispUnit(peer), "shared disp unit");
        win.unlockAll();
        node.barrier();
        win.free();
        node.free();
    }

    /** A dynamic window: attach, MPI.getAddress, long displacements. */
    private static void dynamicWindow(Intracomm world, int me, int n) throws MPIException {
        Win win = new Win(MPI.INFO_NULL, world);
        eq(MPI.WIN_FLAVOR_DYNAMIC, win.getAttr(MPI.WIN_CREATE_FLAVOR), "dynamic flavor");
        IntBuffer region = MPI.newIntBuffer(4);
        win.attach(region, 4);
        long[] addrs = new long[n];
        world.allGather(new long[] {MPI.getAddress(region)}, 1, MPI.LONG, addrs, 1, MPI.LONG);
        int target = (me + 1) % n;
        IntBuffer v = MPI.newIntBuffer(1);
        v.put(0, 5 * me);
        win.lockAll(0);
        win.put(v, 1, MPI.INT, target, addrs[target] + 8, 1, MPI.INT);
        win.flush(target);
        IntBuffer back = MPI.newIntBuffer(1);
        win.get(back, 1, MPI.INT, target, addrs[target] + 8, 1, MPI.INT);
        win.unlockAll();
        eq(5 * me, back.get(0), "get back from a dynamic window");
        world.barrier();
        eq(5 * ((me + n - 1) % n), region.get(2), "put at address + 8");
        win.detach(region);
        win.free();
    }

    /** Post/start/complete/wait: even ranks expose, odd ranks access their lower neighbor. */
    private static void pscw(Intracomm world, int me, int n) throws MPIException {
        IntBuffer mem = MPI.newIntBuffer(1);
        Win win = new Win(mem, 1, 1, MPI.INFO_NULL, world);
        Group g = world.getGroup();
        boolean exposer = me % 2 == 0;
        int partner = exposer ? me + 1 : me - 1;
        if (partner < n) {
            Group pg = g.incl(new int[] {partner});
            if (exposer) {
                win.post(pg, 0);
                win.waitFor();
                eq(partner * 3, mem.get(0), "PSCW put arrived");
                win.post(pg, MPI.MODE_NOPUT);
                while (!win.test()) {
                    Thread.onSpinWait();
                }
            } else {
                IntBuffer v = MPI.newIntBuffer(1);
                v.put(0, me * 3);
                win.start(pg, 0);
                win.put(v, 1, MPI.INT, partner, 0, 1, MPI.INT);
                win.complete();
                win.start(pg, 0);
                IntBuffer r = MPI.newIntBuffer(1);
                win.get(r, 1, MPI.INT, partner, 0, 1, MPI.INT);
                win.complete();
                eq(me * 3, r.get(0), "PSCW get");
            }
        }
        win.free();
    }

    private static void atomicsAndRequests(Intracomm world, int me, int n) throws MPIException {
        LongBuffer base = MPI.newLongBuffer(4);
        Win win = new Win(4, 1, MPI.INFO_NULL, world, base, Win.FLAVOR_PRIVATE);
        win.lockAll(0);
        LongBuffer one = MPI.newLongBuffer(1);
        one.put(0, 1);
        LongBuffer old = MPI.newLongBuffer(1);
        win.fetchAndOp(one, old, MPI.LONG, 0, 0, MPI.SUM); // a ticket
        long ticket = old.get(0);
        check(ticket >= 0 && ticket < n, "fetchAndOp ticket " + ticket);
        win.flush(0);
        // compare and swap: only one rank wins slot 1
        LongBuffer want = MPI.newLongBuffer(1);
        want.put(0, me + 1);
        LongBuffer expect = MPI.newLongBuffer(1);
        LongBuffer seen = MPI.newLongBuffer(1);
        win.compareAndSwap(want, expect, seen, MPI.LONG, 0, 1);
        win.flush(0);
        long winner = seen.get(0) == 0 ? me + 1 : seen.get(0);
        // getAccumulate NO_OP is an atomic read
        LongBuffer read = MPI.newLongBuffer(1);
        win.getAccumulate(null, 0, null, read, 1, MPI.LONG, 0, 1, 1, MPI.LONG, MPI.NO_OP);
        win.flush(0);
        eq(winner, read.get(0), "the compare-and-swap winner stays");
        // request-based operations
        int t = (me + 1) % n;
        LongBuffer v = MPI.newLongBuffer(1);
        v.put(0, 10 + me);
        Request rp = win.rPut(v, 1, MPI.LONG, t, 2, 1, MPI.LONG);
        rp.waitFor();
        check(rp.isNull(), "rPut request done");
        win.flush(t);
        LongBuffer g = MPI.newLongBuffer(1);
        Request rg = win.rGet(g, 1, MPI.LONG, t, 2, 1, MPI.LONG);
        rg.waitFor();
        eq(10 + me, g.get(0), "rGet after rPut and flush");
        Request ra = win.rAccumulate(v, 1, MPI.LONG, t, 3, 1, MPI.LONG, MPI.MAX);
        LongBuffer prev = MPI.newLongBuffer(1);
        Request.waitAll(new Request[] {ra});
        win.flush(t);
        Request rga = win.rGetAccumulate(v, 1, MPI.LONG, prev, 1, MPI.LONG, t, 3, 1, MPI.LONG, MPI.SUM);
        while (!rga.test()) {
            Thread.onSpinWait();
        }
        win.unlockAll();
        world.barrier();
        win.lockAll(0);
        win.sync();
        win.unlockAll();
        eq(2L * (10 + (me + n - 1) % n), base.get(3), "MAX then SUM of the same value");
        if (me == 0) {
            eq(n, base.get(0), "every rank took a ticket");
        }
        win.free();
    }

    private static void attributes(Intracomm world, int me, int n) throws MPIException {
        Info info = new Info();
        info.set("no_locks", "true");
        ByteBuffer mem = MPI.newByteBuffer(64);
        Win win = new Win(mem, 64, 8, info, world);
        eq("true", win.getInfo().get("no_locks"), "window info");
        eq(MPI.WIN_UNIFIED, win.getAttr(MPI.WIN_MODEL), "unified memory model");
        eq(8, win.getAttr(MPI.WIN_DISP_UNIT), "disp unit of a ByteBuffer window");
        eq(n, win.getGroup().getSize(), "window group");
        eq(me, win.getGroup().getRank(), "window group rank");
        win.setName("w1");
        eq("w1", win.getName(), "window name");
        check(win.getErrhandler() == MPI.ERRORS_ARE_FATAL, "windows default to ERRORS_ARE_FATAL");
        int key = Win.createKeyval();
        win.setAttr(key, 42);
        eq(42, win.getAttr(key), "window attribute");
        win.deleteAttr(key);
        check(win.getAttr(key) == null, "deleted window attribute");
        win.setErrhandler(MPI.ERRORS_RETURN);
        check(win.getErrhandler() == MPI.ERRORS_RETURN, "set error handler");
        win.free();
    }

    /**
     * Programs written for Open MPI give ranks that are never targeted an empty buffer with the common size: the
     * window is created (WIN_SIZE says the size given), only the buffer's memory is exposed, and an access beyond
     * it is ERR_RMA_RANGE, not a write into memory that is not the window's.
     */
    private static void emptyBufferOnUntargetedRanks(Intracomm world, int me, int n) throws MPIException {
        IntBuffer mem = me == 0 ? MPI.newIntBuffer(n) : MPI.newIntBuffer(0);
        Win win = new Win(mem, n, 1, MPI.INFO_NULL, world);
        win.setErrhandler(MPI.ERRORS_RETURN);
        eq(n * 4, win.getAttr(MPI.WIN_SIZE), "WIN_SIZE is the size given");
        win.lockAll(0);
        IntBuffer v = MPI.newIntBuffer(1).put(0, 7 + me);
        Request r = win.rAccumulate(v, 1, MPI.INT, 0, me, 1, MPI.INT, MPI.REPLACE);
        r.waitFor();
        win.flushAll();
        if (n > 1 && me == 0) {
            Check.fails(MPI.ERR_RMA_RANGE, () -> win.put(v, 1, MPI.INT, 1, 0, 1, MPI.INT),
                    "a put beyond the memory rank 1 exposes");
        }
        win.unlockAll();
        world.barrier();
        if (me == 0) {
            for (int r2 = 0; r2 < n; r2++) {
                eq(7 + r2, mem.get(r2), "accumulated into rank 0's buffer");
            }
        }
        win.free();
    }
}

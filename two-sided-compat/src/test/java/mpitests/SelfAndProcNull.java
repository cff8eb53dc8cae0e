package mpitests;

import static mpitests.Check.eq;
import static mpitests.Check.fails;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Win;

/**
 * Windows of every flavor on communicators of one rank (MPI_COMM_SELF, its dup, a split, create and create_group
 * that leave a rank alone) under every epoch, with every operation on the rank itself; then every RMA call on
 * MPI.PROC_NULL, a no-op in every epoch, on every flavor over MPI.COMM_WORLD. Any number of ranks.
 */
public final class SelfAndProcNull {
    private static final String[] FLAVORS = {"allocate", "create", "dynamic", "shared"};
    private static final long SENTINEL = 0x5EED;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int me = world.getRank();
        int n = world.getSize();
        Group mine = world.getGroup().incl(new int[] {me});
        Intracomm[] ones = {MPI.COMM_SELF, MPI.COMM_SELF.dup(), world.split(me, 0), world.create(mine),
            world.createGroup(mine, 7)};
        String[] names = {"COMM_SELF", "COMM_SELF.dup", "split", "create", "createGroup"};
        for (int c = 0; c < ones.length; c++) {
            eq(1, ones[c].getSize(), names[c] + " size");
            for (String f : FLAVORS) {
                selfEpochs(ones[c], f, names[c] + " " + f + " window of rank " + me);
            }
        }
        // a split that leaves the last rank alone
        Intracomm lone = world.split(me == n - 1 ? 1 : 0, 0);
        if (me == n - 1) {
            for (String f : FLAVORS) {
                selfEpochs(lone, f, "lone split " + f + " window of rank " + me);
            }
        }
        world.barrier();
        for (String f : FLAVORS) {
            procNull(world, f, me, n);
        }
        MPI.Finalize();
        if (me == 0) {
            System.out.println("SelfAndProcNull OK on " + n + " ranks");
        }
    }

    private static Win window(Intracomm comm, String flavor, ByteBuffer mem) throws MPIException {
        switch (flavor) {
            case "create":
                return new Win(mem, mem.capacity(), 8, MPI.INFO_NULL, comm);
            case "allocate":
                return new Win(mem.capacity(), 8, MPI.INFO_NULL, comm, null, MPI.WIN_FLAVOR_ALLOCATE);
            case "shared":
                return new Win(mem.capacity(), 8, MPI.INFO_NULL, comm, null, MPI.WIN_FLAVOR_SHARED);
            default:
                Win w = new Win(MPI.INFO_NULL, comm);
                w.attach(mem, mem.capacity());
                return w;
        }
    }

    /** Fence, lock/unlock, lock_all, PSCW with a group of itself and flushes on a window of one rank. */
    private static void selfEpochs(Intracomm comm, String flavor, String where) throws MPIException {
        ByteBuffer mem = MPI.newByteBuffer(64);
        Win w = window(comm, flavor, mem);
        boolean dynamic = flavor.equals("dynamic");
        long base = dynamic ? MPI.getAddress(mem) : 0;
        long unit = dynamic ? 8 : 1;
        LongBuffer one = MPI.newLongBuffer(1);
        LongBuffer res = MPI.newLongBuffer(2);
        LongBuffer cmp = MPI.newLongBuffer(1);
        one.put(0, 10);
        w.fence(MPI.MODE_NOPRECEDE);
        w.put(one, 1, MPI.LONG, 0, base, 1, MPI.LONG);
        w.fence(0);
        w.get(res, 1, MPI.LONG, 0, base, 1, MPI.LONG);
        w.accumulate(one, 1, MPI.LONG, 0, base + unit, 1, MPI.LONG, MPI.SUM);
        w.fence(MPI.MODE_NOSUCCEED);
        eq(10, res.get(0), "get in a fence epoch, " + where);
        w.lock(MPI.LOCK_EXCLUSIVE, 0, 0);
        w.fetchAndOp(one, res, MPI.LONG, 0, base + unit, MPI.SUM);
        w.flush(0);
        eq(10, res.get(0), "fetch_and_op under lock, " + where);
        one.put(0, 99);
        cmp.put(0, 10);
        w.compareAndSwap(one, cmp, res, MPI.LONG, 0, base);
        w.unlock(0);
        eq(10, res.get(0), "compare_and_swap under lock, " + where);
        w.lock(MPI.LOCK_SHARED, 0, 0);
        w.get(res, 2, MPI.LONG, 0, base, 2, MPI.LONG);
        w.unlock(0);
        eq(99, res.get(0), "get after compare_and_swap, " + where);
        eq(20, res.get(1), "get after fetch_and_op, " + where);
        w.lockAll(0);
        w.put(one, 1, MPI.LONG, 0, base + 2 * unit, 1, MPI.LONG);
        w.flushAll();
        w.accumulate(one, 1, MPI.LONG, 0, base + 2 * unit, 1, MPI.LONG, MPI.SUM);
        w.flushLocal(0);
        w.unlockAll();
        Group g = w.getGroup();
        w.post(g, 0);
        w.start(g, 0);
        w.get(res, 1, MPI.LONG, 0, base + 2 * unit, 1, MPI.LONG);
        w.complete();
        w.waitFor();
        eq(198, res.get(0), "put and accumulate under lock_all, " + where);
        w.free();
    }

    /** Every RMA call on PROC_NULL in every epoch: no effect on any window nor on the result buffers. */
    private static void procNull(Intracomm world, String flavor, int me, int n) throws MPIException {
        ByteBuffer mem = MPI.newByteBuffer(64);
        Win w = window(world, flavor, mem);
        ByteBuffer mine = flavor.equals("dynamic") || flavor.equals("create") ? mem : w.getBuffer();
        mine = mine.duplicate().order(ByteOrder.nativeOrder());
        for (int i = 0; i < 8; i++) {
            mine.putLong(8 * i, SENTINEL);
        }
        long disp = flavor.equals("dynamic") ? MPI.getAddress(mem) : 0;
        int p = MPI.PROC_NULL;
        world.barrier();
        w.fence(MPI.MODE_NOPRECEDE);
        nullOps(w, disp, flavor + " fence epoch");
        w.fence(0);
        w.lock(MPI.LOCK_EXCLUSIVE, p, 0);
        nullOps(w, disp, flavor + " lock of PROC_NULL");
        nullRequests(w, disp, flavor + " lock of PROC_NULL");
        w.flush(p);
        w.flushLocal(p);
        w.unlock(p);
        w.lockAll(0);
        nullOps(w, disp, flavor + " lock_all epoch");
        nullRequests(w, disp, flavor + " lock_all epoch");
        w.flush(p);
        w.flushLocal(p);
        w.setErrhandler(MPI.ERRORS_RETURN);
        fails(MPI.ERR_RANK, () -> w.get(MPI.newLongBuffer(1), 1, MPI.LONG, n, disp, 1, MPI.LONG),
                "get from a rank outside the " + flavor + " window");
        w.unlockAll();
        w.post(w.getGroup(), 0);
        w.start(w.getGroup(), 0);
        nullOps(w, disp, flavor + " PSCW epoch");
        w.complete();
        w.waitFor();
        world.barrier();
        for (int i = 0; i < 8; i++) {
            eq(SENTINEL, mine.getLong(8 * i), flavor + " window word " + i + " of rank " + me
                    + " after PROC_NULL calls");
        }
        w.free();
    }

    private static void nullOps(Win w, long disp, String where) throws MPIException {
        int p = MPI.PROC_NULL;
        LongBuffer one = MPI.newLongBuffer(1);
        LongBuffer res = MPI.newLongBuffer(1);
        res.put(0, SENTINEL);
        w.put(one, 1, MPI.LONG, p, disp, 1, MPI.LONG);
        w.get(res, 1, MPI.LONG, p, disp, 1, MPI.LONG);
        w.accumulate(one, 1, MPI.LONG, p, disp, 1, MPI.LONG, MPI.SUM);
        w.getAccumulate(one, 1, MPI.LONG, res, 1, MPI.LONG, p, disp, 1, MPI.LONG, MPI.SUM);
        w.fetchAndOp(one, res, MPI.LONG, p, disp, MPI.SUM);
        w.compareAndSwap(one, MPI.newLongBuffer(1), res, MPI.LONG, p, disp);
        eq(SENTINEL, res.get(0), "result of calls on PROC_NULL in a " + where);
    }

    private static void nullRequests(Win w, long disp, String where) throws MPIException {
        int p = MPI.PROC_NULL;
        LongBuffer one = MPI.newLongBuffer(1);
        LongBuffer res = MPI.newLongBuffer(1);
        res.put(0, SENTINEL);
        Request.waitAll(new Request[] {w.rPut(one, 1, MPI.LONG, p, disp, 1, MPI.LONG),
            w.rGet(res, 1, MPI.LONG, p, disp, 1, MPI.LONG),
            w.rAccumulate(one, 1, MPI.LONG, p, disp, 1, MPI.LONG, MPI.SUM),
            w.rGetAccumulate(one, 1, MPI.LONG, res, 1, MPI.LONG, p, disp, 1, MPI.LONG, MPI.SUM)});
        eq(SENTINEL, res.get(0), "result of requests on PROC_NULL in a " + where);
    }
}

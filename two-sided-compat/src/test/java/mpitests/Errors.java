package mpitests;

import static mpitests.Check.check;
import static mpitests.Check.eq;
import static mpitests.Check.fails;

import java.nio.IntBuffer;
import mpi.Comm;
import mpi.Datatype;
import mpi.Group;
import mpi.Info;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Status;
import mpi.UserFunction;
import mpi.Win;

/** Errors under ERRORS_RETURN: every misuse is an MPIException of the right class; calls outside Init/Finalize. */
public final class Errors {
    public static void main(String[] args) throws Exception {
        try {
            MPI.COMM_WORLD.getRank();
            throw new AssertionError("a call before Init must throw");
        } catch (MPIException e) {
            check(e.getMessage().contains("not initialized"), "message says MPI is not initialized: " + e.getMessage());
        }
        MPI.Init(args);
        fails(MPI.ERR_OTHER, () -> MPI.Init(args), "Init twice");
        Intracomm world = MPI.COMM_WORLD;
        int me = world.getRank();
        int n = world.getSize();
        world.setErrhandler(MPI.ERRORS_RETURN);
        check(world.getErrhandler() == MPI.ERRORS_RETURN, "errhandler set");

        int[] buf = new int[4];
        fails(MPI.ERR_RANK, () -> world.send(buf, 1, MPI.INT, n + 5, 0), "send to a bad rank");
        fails(MPI.ERR_RANK, () -> world.recv(buf, 1, MPI.INT, -7, 0), "recv from a bad rank");
        fails(MPI.ERR_TAG, () -> world.send(buf, 1, MPI.INT, 0, -3), "negative tag");
        fails(MPI.ERR_TAG, () -> world.send(buf, 1, MPI.INT, 0, MPI.ANY_TAG), "ANY_TAG on a send");
        fails(MPI.ERR_COUNT, () -> world.send(buf, -1, MPI.INT, 0, 0), "negative count");
        fails(MPI.ERR_BUFFER, () -> world.send(buf, 5, MPI.INT, 0, 0), "count beyond the array");
        fails(MPI.ERR_TYPE, () -> world.send(buf, 1, null, 0, 0), "null datatype");
        fails(MPI.ERR_TYPE, () -> world.send(buf, 1, MPI.DATATYPE_NULL, 0, 0), "DATATYPE_NULL");
        fails(MPI.ERR_ROOT, () -> world.bcast(buf, 1, MPI.INT, n), "bad root");
        Request badRoot = world.iBcast(MPI.newIntBuffer(1), 1, MPI.INT, n);
        fails(MPI.ERR_ROOT, badRoot::waitFor, "bad root of a nonblocking bcast, reported by its wait");
        fails(MPI.ERR_OP, () -> world.allReduce(buf, new int[4], 1, MPI.INT, MPI.MINLOC), "MINLOC on INT");
        fails(MPI.ERR_OP, () -> world.allReduce(buf, new int[4], 1, MPI.INT, MPI.REPLACE), "REPLACE in a collective");
        fails(MPI.ERR_COMM, () -> world.free(), "COMM_WORLD cannot be freed");
        Datatype vec = Datatype.createVector(2, 1, 2, MPI.INT);
        fails(MPI.ERR_TYPE, () -> world.send(buf, 1, vec, me, 0), "uncommitted datatype");
        fails(MPI.ERR_TYPE, () -> MPI.INT.free(), "freeing a predefined type");
        fails(MPI.ERR_RANK, () -> world.getGroup().incl(new int[] {n}), "group incl of a bad rank");
        // Open MPI checks the grid size among the arguments (MPI_ERR_ARG), before its topology code (MPI_ERR_DIMS)
        fails(MPI.ERR_ARG, () -> world.createCart(new int[] {n + 1}, new boolean[] {false}, false), "grid too big");
        fails(MPI.ERR_DIMS, () -> world.createCart(new int[] {-1}, new boolean[] {false}, false), "negative dims");

        // truncation: the message is bigger than the receive buffer
        world.sendRecv(new int[] {1, 2, 3}, 3, MPI.INT, me, 9, buf, 4, MPI.INT, me, 9);
        IntBuffer small = MPI.newIntBuffer(1);
        Request r = world.iRecv(small, 1, MPI.INT, me, 10);
        world.send(new int[] {1, 2}, 2, MPI.INT, me, 10);
        fails(MPI.ERR_TRUNCATE, r::waitFor, "truncated nonblocking receive");
        world.send(new int[] {4, 5, 6}, 3, MPI.INT, me, 11);
        try {
            world.recv(buf, 2, MPI.INT, me, 11);
            throw new AssertionError("a truncated receive must throw");
        } catch (MPIException e) {
            eq(MPI.ERR_TRUNCATE, e.getErrorClass(), "truncation class");
            eq(MPI.ERR_TRUNCATE, e.getErrorCode(), "truncation code");
            check(e.getMessage().contains("TRUNCATE"), "message names the error: " + e.getMessage());
        }
        eq(4, buf[0], "a truncated receive fills its buffer");

        // several requests: ERR_IN_STATUS
        IntBuffer a = MPI.newIntBuffer(1);
        IntBuffer b = MPI.newIntBuffer(2);
        Request[] rs = {world.iRecv(a, 1, MPI.INT, me, 12), world.iRecv(b, 2, MPI.INT, me, 13)};
        world.send(new int[] {1, 2, 3}, 3, MPI.INT, me, 12);
        world.send(new int[] {7}, 1, MPI.INT, me, 13);
        fails(MPI.ERR_IN_STATUS, () -> Request.waitAll(rs), "waitAll with a truncated receive");
        eq(7, b.get(0), "the other request completed");

        // nonblocking calls need direct buffers, as in Open MPI's bindings
        try {
            world.iSend(IntBuffer.allocate(1), 1, MPI.INT, me, 0);
            throw new AssertionError("iSend of a heap buffer");
        } catch (IllegalArgumentException expected) {
            // The buffer must be direct.
        }

        // callErrhandler: under ERRORS_RETURN the handler returns, so the call returns normally (MPI_SUCCESS)
        world.callErrhandler(MPI.ERR_ARG);

        // attribute keys: KEYVAL_INVALID, a freed key, a key of another kind of object are ERR_KEYVAL
        fails(MPI.ERR_KEYVAL, () -> world.getAttr(MPI.KEYVAL_INVALID), "getAttr(KEYVAL_INVALID)");
        fails(MPI.ERR_KEYVAL, () -> MPI.INT.getAttr(MPI.KEYVAL_INVALID), "type getAttr(KEYVAL_INVALID)");
        int ck = Comm.createKeyval();
        fails(MPI.ERR_KEYVAL, () -> MPI.INT.setAttr(ck, 1), "a communicator key on a datatype");
        Comm.freeKeyval(ck);
        fails(MPI.ERR_KEYVAL, () -> world.setAttr(ck, 1), "a freed key");
        fails(MPI.ERR_KEYVAL, () -> Comm.freeKeyval(ck), "freeing a key twice");
        fails(MPI.ERR_KEYVAL, () -> world.deleteAttr(MPI.TAG_UB), "deleting a predefined attribute");

        // buffered sends beyond 4 KiB need an attached buffer with room for the message and BSEND_OVERHEAD;
        // smaller ones go eagerly without it, as in Open MPI (whose own test programs rely on that)
        int[] two = {3, 4};
        world.bSend(two, 2, MPI.INT, me, 3); // no buffer attached
        int[] big = new int[2048]; // 8 KiB
        fails(MPI.ERR_BUFFER, () -> world.bSend(big, 2048, MPI.INT, me, 1), "a large bSend without a buffer");
        MPI.attachBuffer(new byte[8200 + MPI.BSEND_OVERHEAD]);
        fails(MPI.ERR_BUFFER, () -> MPI.attachBuffer(new byte[64]), "a second attached buffer");
        fails(MPI.ERR_BUFFER, () -> world.bSend(new int[2051], 2051, MPI.INT, me, 1), "bSend beyond the buffer");
        big[2047] = 7;
        world.bSend(big, 2048, MPI.INT, me, 1); // to itself: returns before the receive is posted
        world.bSend(two, 2, MPI.INT, me, 4); // eager: takes no room of the full buffer
        int[] bs = new int[2048];
        world.recv(bs, 2048, MPI.INT, me, 1);
        eq(7, bs[2047], "buffered send to self");
        for (int tag = 3; tag <= 4; tag++) {
            world.recv(bs, 2, MPI.INT, me, tag);
            check(bs[0] == 3 && bs[1] == 4, "small buffered send " + tag);
        }
        eq(8200 + MPI.BSEND_OVERHEAD, MPI.detachBuffer().length, "detachBuffer gives the buffer back");

        // info
        Info info = new Info();
        fails(MPI.ERR_INFO_NOKEY, () -> info.delete("nope"), "delete a missing key");
        fails(MPI.ERR_INFO_KEY, () -> info.set("x".repeat(MPI.MAX_INFO_KEY + 1), "v"), "key too long");

        // windows: their own handler (ERRORS_ARE_FATAL by default, so set it)
        IntBuffer wm = MPI.newIntBuffer(4);
        Win win = new Win(wm, 4, 1, MPI.INFO_NULL, world);
        win.setErrhandler(MPI.ERRORS_RETURN);
        IntBuffer one = MPI.newIntBuffer(1);
        fails(MPI.ERR_RMA_SYNC, () -> win.put(one, 1, MPI.INT, 0, 0, 1, MPI.INT), "put outside an epoch");
        fails(MPI.ERR_LOCKTYPE, () -> win.lock(99, 0, 0), "bad lock type");
        win.lock(MPI.LOCK_SHARED, me, 0);
        fails(MPI.ERR_RMA_RANGE, () -> win.put(one, 1, MPI.INT, me, 4, 1, MPI.INT), "put beyond the window");
        fails(MPI.ERR_RANK, () -> win.put(one, 1, MPI.INT, n, 0, 1, MPI.INT), "put to a bad rank");
        mpi.Op mine = new mpi.Op(new UserFunction() {
        }, true);
        fails(MPI.ERR_OP, () -> win.accumulate(one, 1, MPI.INT, me, 0, 1, MPI.INT, mine), "user op in accumulate");
        win.unlock(me);
        fails(MPI.ERR_RMA_SYNC, () -> win.unlock(me), "unlock without a lock");
        win.fence(0);
        win.fence(MPI.MODE_NOSUCCEED);
        win.free();
        fails(MPI.ERR_WIN, () -> win.fence(0), "a freed window");
        try {
            new Win(IntBuffer.allocate(4), 4, 1, MPI.INFO_NULL, world);
            throw new AssertionError("a window over a heap buffer");
        } catch (IllegalArgumentException expected) {
            // The buffer must be direct.
        }
        fails(MPI.ERR_ARG, () -> new Win(4, 1, MPI.INFO_NULL, world, MPI.newIntBuffer(4), 7), "bad flavor");

        Group g = world.getGroup();
        g.free();
        fails(MPI.ERR_GROUP, () -> g.getSize(), "a freed group");

        world.barrier();
        MPI.Finalize();
        check(MPI.isFinalized(), "finalized");
        try {
            world.barrier();
            throw new AssertionError("a call after Finalize must throw");
        } catch (MPIException e) {
            check(e.getMessage().contains("finalized"), "message says MPI is finalized: " + e.getMessage());
        }
        try {
            MPI.Init(args);
            throw new AssertionError("Init after Finalize");
        } catch (MPIException expected) {
            // cannot re-initialize
        }
        Status unused = null;
        if (me == 0) {
            System.out.println("Errors OK on " + n + " ranks" + (unused == null ? "" : ""));
        }
    }
}

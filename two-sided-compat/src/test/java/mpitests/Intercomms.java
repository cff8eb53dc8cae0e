package mpitests;

import static mpitests.Check.check;
import static mpitests.Check.eq;

import java.nio.IntBuffer;
import java.util.Arrays;
import mpi.Comm;
import mpi.Group;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.Request;
import mpi.Status;
import mpi.UserFunction;

/**
 * Inter-communicators as programs written for Open MPI use them: made by createIntercomm and by a port's
 * accept/connect, point-to-point with remote ranks, every collective with MPI.ROOT / MPI.PROC_NULL roots,
 * reductions in the remote group's rank order, merge and dup. The even world ranks form group A, the odd ones
 * group B, so on an odd number of ranks the groups differ in size. Needs 2 ranks or more.
 */
public final class Intercomms {
    private static int me;
    private static int n;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        me = MPI.COMM_WORLD.getRank();
        n = MPI.COMM_WORLD.getSize();
        check(n >= 2, "needs 2 ranks or more");
        boolean inA = me % 2 == 0;
        Intracomm mine = MPI.COMM_WORLD.split(inA ? 0 : 1, me);
        check(!mine.isInter(), "a split communicator is an intra-communicator");

        // world rank 0 leads A, world rank 1 leads B; COMM_WORLD is the peer communicator
        Intercomm ic = MPI.COMM_WORLD.createIntercomm(mine, 0, inA ? 1 : 0, 99);
        exercise(ic, inA);
        Intercomm copy = ic.dup();
        exercise(copy, inA);
        copy.free();
        check(copy.isNull(), "a freed inter-communicator is null");
        mergeOrders(ic, inA);
        ic.free();

        // the same groups meet through a port: A's leader opens it and tells B's leader in a message
        String port = null;
        if (me == 0) {
            port = Intracomm.openPort();
            char[] name = port.toCharArray();
            MPI.COMM_WORLD.send(new int[] {name.length}, 1, MPI.INT, 1, 5);
            MPI.COMM_WORLD.send(name, name.length, MPI.CHAR, 1, 5);
        } else if (me == 1) {
            int[] len = new int[1];
            MPI.COMM_WORLD.recv(len, 1, MPI.INT, 0, 5);
            char[] name = new char[len[0]];
            MPI.COMM_WORLD.recv(name, len[0], MPI.CHAR, 0, 5);
            port = new String(name);
        }
        Intercomm joined = inA ? mine.accept(port, 0) : mine.connect(port, 0);
        exercise(joined, inA);
        joined.disconnect();
        if (me == 0) {
            Intracomm.closePort(port);
        }

        // in-place collectives are not defined on inter-communicators: ERR_COMM under ERRORS_RETURN
        Intercomm again = MPI.COMM_WORLD.createIntercomm(mine, 0, inA ? 1 : 0, 98);
        again.setErrhandler(MPI.ERRORS_RETURN);
        Check.fails(MPI.ERR_COMM, () -> again.allReduce(new int[1], 1, MPI.INT, MPI.SUM), "in-place allReduce");
        Check.fails(MPI.ERR_RANK, () -> again.send(new int[1], 1, MPI.INT, again.getRemoteSize(), 0),
                "send beyond the remote group");
        again.free();
        mine.free();

        MPI.Finalize();
        if (me == 0) {
            System.out.println("Intercomms OK on " + n + " ranks");
        }
    }

    /** Sizes and world ranks of group A (even world ranks) and B (odd ones). */
    private static int sizeA() {
        return (n + 1) / 2;
    }

    private static int sizeB() {
        return n / 2;
    }

    private static void exercise(Intercomm ic, boolean inA) throws MPIException {
        int local = inA ? sizeA() : sizeB();
        int remote = inA ? sizeB() : sizeA();
        int lr = me / 2; // rank in its own group
        check(ic.isInter(), "isInter");
        eq(local, ic.getSize(), "getSize is the local group's size");
        eq(lr, ic.getRank(), "getRank is the rank in the local group");
        eq(remote, ic.getRemoteSize(), "getRemoteSize");
        Group rg = ic.getRemoteGroup();
        Group world = MPI.COMM_WORLD.getGroup();
        int[] rr = new int[remote];
        for (int i = 0; i < remote; i++) {
            rr[i] = i;
        }
        int[] inWorld = Group.translateRanks(rg, rr, world);
        for (int i = 0; i < remote; i++) {
            eq(2 * i + (inA ? 1 : 0), inWorld[i], "remote group member " + i + " in COMM_WORLD");
        }
        eq(MPI.UNDEFINED, rg.getRank(), "this rank is not in the remote group");
        rg.free();
        world.free();

        // point to point: each rank of A sends to the rank of B with the same group rank (if any); the
        // receiver sees the source as a rank of the remote group
        if (lr < Math.min(sizeA(), sizeB())) {
            int[] got = new int[1];
            if (inA) {
                ic.send(new int[] {1000 + me}, 1, MPI.INT, lr, 3);
                Status s = ic.recv(got, 1, MPI.INT, MPI.ANY_SOURCE, 4);
                eq(lr, s.getSource(), "source of B's answer, a rank of B");
                eq(2000 + me + 1, got[0], "B's answer");
            } else {
                Status s = ic.recv(got, 1, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
                eq(lr, s.getSource(), "source of A's message, a rank of A");
                eq(3, s.getTag(), "tag of A's message");
                eq(1000 + me - 1, got[0], "A's message");
                IntBuffer out = MPI.newIntBuffer(1).put(0, 2000 + me);
                Request r = ic.iSend(out, 1, MPI.INT, lr, 4);
                r.waitFor();
            }
        }

        // bcast: A's rank 0 is the root (MPI.ROOT), A's others pass PROC_NULL, B names root 0 of A
        int[] v = {inA ? -1 : -2, -3};
        if (inA) {
            if (lr == 0) {
                v[0] = 77;
                v[1] = 78;
            }
            ic.bcast(v, 2, MPI.INT, lr == 0 ? MPI.ROOT : MPI.PROC_NULL);
            eq(lr == 0 ? 77 : -1, v[0], "bcast leaves A's buffers alone");
        } else {
            ic.bcast(v, 2, MPI.INT, 0);
            eq(77, v[0], "bcast to B");
            eq(78, v[1], "bcast to B");
        }

        // gather to B's rank 0: every rank of A sends two ints
        int[] all = new int[2 * remote];
        if (inA) {
            ic.gather(new int[] {lr, -lr}, 2, MPI.INT, null, 0, MPI.INT, 0);
        } else {
            ic.gather(null, 0, MPI.INT, all, 2, MPI.INT, lr == 0 ? MPI.ROOT : MPI.PROC_NULL);
            if (lr == 0) {
                for (int i = 0; i < remote; i++) {
                    eq(i, all[2 * i], "gathered block " + i);
                    eq(-i, all[2 * i + 1], "gathered block " + i);
                }
            }
        }

        // scatterv from A's rank 0: B's rank i gets i + 1 ints, each 10 * i + k
        if (inA) {
            int total = remote * (remote + 1) / 2;
            int[] src = new int[total];
            int[] counts = new int[remote];
            int[] displs = new int[remote];
            for (int i = 0, at = 0; i < remote; i++) {
                counts[i] = i + 1;
                displs[i] = at;
                for (int k = 0; k <= i; k++) {
                    src[at++] = 10 * i + k;
                }
            }
            ic.scatterv(src, counts, displs, MPI.INT, null, 0, MPI.INT, lr == 0 ? MPI.ROOT : MPI.PROC_NULL);
        } else {
            int[] got = new int[lr + 1];
            ic.scatterv(null, null, null, MPI.INT, got, lr + 1, MPI.INT, 0);
            for (int k = 0; k <= lr; k++) {
                eq(10 * lr + k, got[k], "scatterv element " + k);
            }
        }

        // allGather: each rank receives the remote group's contributions in their rank order
        int[] mineOut = {(inA ? 100 : 200) + lr};
        int[] fromRemote = new int[remote];
        ic.allGather(mineOut, 1, MPI.INT, fromRemote, 1, MPI.INT);
        for (int i = 0; i < remote; i++) {
            eq((inA ? 200 : 100) + i, fromRemote[i], "allGather block " + i);
        }

        // allToAll: block j goes to remote rank j
        int[] send = new int[remote];
        for (int j = 0; j < remote; j++) {
            send[j] = 1000 * (inA ? 1 : 2) + 10 * lr + j;
        }
        int[] recv = new int[remote];
        ic.allToAll(send, 1, MPI.INT, recv, 1, MPI.INT);
        for (int j = 0; j < remote; j++) {
            eq(1000 * (inA ? 2 : 1) + 10 * j + lr, recv[j], "allToAll block from " + j);
        }

        // allToAllw: a datatype and a byte displacement per remote rank; blocks land in reverse order here
        IntBuffer wsend = MPI.newIntBuffer(remote);
        IntBuffer wrecv = MPI.newIntBuffer(remote);
        int[] ones = new int[remote];
        int[] sdisp = new int[remote];
        int[] rdisp = new int[remote];
        mpi.Datatype[] types = new mpi.Datatype[remote];
        for (int j = 0; j < remote; j++) {
            wsend.put(j, send[j]);
            ones[j] = 1;
            sdisp[j] = 4 * j;
            rdisp[j] = 4 * (remote - 1 - j);
            types[j] = MPI.INT;
        }
        ic.allToAllw(wsend, ones, sdisp, types, wrecv, ones, rdisp, types);
        for (int j = 0; j < remote; j++) {
            eq(1000 * (inA ? 2 : 1) + 10 * j + lr, wrecv.get(remote - 1 - j), "allToAllw block from " + j);
        }

        // allReduce: the sum over the remote group
        int[] sum = new int[1];
        ic.allReduce(new int[] {me}, sum, 1, MPI.INT, MPI.SUM);
        int expect = 0;
        for (int i = 0; i < remote; i++) {
            expect += 2 * i + (inA ? 1 : 0);
        }
        eq(expect, sum[0], "allReduce over the remote group");

        // reduce with a non-commutative op (keep the left operand's digits in front): B's rank 0 receives A's
        // contributions folded in A's rank order, 1 2 3 ... as decimal digits
        Op concat = new Op(new UserFunction() {
            @Override
            public void call(Object in, Object inout, int count, mpi.Datatype type) {
                int[] a = (int[]) in;
                int[] b = (int[]) inout;
                for (int i = 0; i < count; i++) {
                    b[i] = Integer.parseInt(a[i] + "" + b[i]);
                }
            }
        }, false);
        int[] folded = {-1};
        if (inA) {
            ic.reduce(new int[] {lr + 1}, null, 1, MPI.INT, concat, 0);
        } else {
            ic.reduce(null, folded, 1, MPI.INT, concat, lr == 0 ? MPI.ROOT : MPI.PROC_NULL);
            if (lr == 0) {
                StringBuilder digits = new StringBuilder();
                for (int i = 1; i <= remote; i++) {
                    digits.append(i);
                }
                eq(Integer.parseInt(digits.toString()), folded[0], "non-commutative reduce in rank order");
            }
        }
        concat.free();

        // reduceScatterBlock: both groups send vectors of the same length only when they have the same size
        if (sizeA() == sizeB()) {
            int[] vec = new int[local];
            for (int j = 0; j < local; j++) {
                vec[j] = me * 100 + j;
            }
            int[] piece = new int[1];
            ic.reduceScatterBlock(vec, piece, 1, MPI.INT, MPI.MAX);
            int maxRemote = 2 * (remote - 1) + (inA ? 1 : 0);
            eq(maxRemote * 100 + lr, piece[0], "reduceScatterBlock piece");
        }

        // a nonblocking collective and the barrier
        IntBuffer nb = MPI.newIntBuffer(1).put(0, inA ? 5 : 0);
        Request r = inA ? ic.iBcast(nb, 1, MPI.INT, lr == 0 ? MPI.ROOT : MPI.PROC_NULL) : ic.iBcast(nb, 1, MPI.INT, 0);
        r.waitFor();
        eq(5, nb.get(0), "iBcast");
        ic.barrier();
    }

    /** merge(high): the group passing false comes first; with the same flag, an order every rank agrees on. */
    private static void mergeOrders(Intercomm ic, boolean inA) throws MPIException {
        int lr = me / 2;
        Intracomm aFirst = ic.merge(!inA);
        eq(n, aFirst.getSize(), "merged size");
        eq(inA ? lr : sizeA() + lr, aFirst.getRank(), "rank with A low");
        Intracomm bFirst = ic.merge(inA);
        eq(inA ? sizeB() + lr : lr, bFirst.getRank(), "rank with B low");
        Intracomm same = ic.merge(false);
        int[] ranks = new int[n];
        same.allGather(new int[] {me}, 1, MPI.INT, ranks, 1, MPI.INT);
        int[] sorted = ranks.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < n; i++) {
            eq(i, sorted[i], "every rank once in the merged communicator");
        }
        int[] sum = new int[1];
        same.allReduce(new int[] {1}, sum, 1, MPI.INT, MPI.SUM);
        eq(n, sum[0], "collective on the merged communicator");
        for (Comm c : new Comm[] {aFirst, bFirst, same}) {
            check(!c.isInter(), "merge makes an intra-communicator");
            c.free();
        }
    }
}

package mpitests;

import static mpitests.Check.check;
import static mpitests.Check.eq;

import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.util.Arrays;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * Collectives through the mpi package: data movement, reductions (predefined, MINLOC/MAXLOC, user ops: in
 * {@link CollectiveReductions}), in-place forms. A test program: its {@code main} runs on every rank of a job.
 */
public final class Collective {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int me = world.getRank();
        int n = world.getSize();

        movement(world, me, n);
        inPlace(world, me, n);
        CollectiveReductions.reductions(world, me, n);
        CollectiveReductions.locations(world, me, n);
        CollectiveReductions.userOps(world, me, n);
        nonblocking(world, me, n);
        onSubCommunicators(world, me, n);

        MPI.Finalize();
        if (me == 0) {
            System.out.println("Collective OK on " + n + " ranks");
        }
    }

    private static void movement(Intracomm world, int me, int n) throws MPIException {
        world.barrier();
        int root = n - 1;
        int[] b = me == root ? new int[] {5, 6, 7} : new int[3];
        world.bcast(b, 3, MPI.INT, root);
        eq(new int[] {5, 6, 7}, b, "bcast");
        DoubleBuffer db = MPI.newDoubleBuffer(2);
        if (me == 0) {
            db.put(0, 1.5).put(1, 2.5);
        }
        world.bcast(db, 2, MPI.DOUBLE, 0);
        eq(2.5, db.get(1), "bcast direct buffer");

        // gather / scatter
        int[] all = new int[2 * n];
        world.gather(new int[] {me, -me}, 2, MPI.INT, all, 2, MPI.INT, 0);
        if (me == 0) {
            for (int r = 0; r < n; r++) {
                eq(r, all[2 * r], "gather " + r);
                eq(-r, all[2 * r + 1], "gather " + r);
            }
        }
        int[] scat = new int[n * 3];
        for (int k = 0; k < scat.length; k++) {
            scat[k] = k;
        }
        int[] mine = new int[3];
        world.scatter(scat, 3, MPI.INT, mine, 3, MPI.INT, 1 % n);
        eq(new int[] {3 * me, 3 * me + 1, 3 * me + 2}, mine, "scatter");

        // v variants: rank r contributes r+1 elements
        int[] counts = new int[n];
        int[] displs = new int[n];
        int total = 0;
        for (int r = 0; r < n; r++) {
            counts[r] = r + 1;
            displs[r] = total;
            total += r + 1;
        }
        long[] mineV = new long[me + 1];
        Arrays.fill(mineV, 10L * me);
        long[] gv = new long[total];
        world.gatherv(mineV, me + 1, MPI.LONG, gv, counts, displs, MPI.LONG, 0);
        if (me == 0) {
            for (int r = 0; r < n; r++) {
                for (int k = 0; k < r + 1; k++) {
                    eq(10L * r, gv[displs[r] + k], "gatherv " + r);
                }
            }
        }
        long[] back = new long[me + 1];
        world.scatterv(gv, counts, displs, MPI.LONG, back, me + 1, MPI.LONG, 0);
        if (me == 0) {
            // only the root's send buffer is significant: the others sent zeros
        }
        long[] ag = new long[total];
        world.allGatherv(mineV, me + 1, MPI.LONG, ag, counts, displs, MPI.LONG);
        for (int r = 0; r < n; r++) {
            eq(10L * r, ag[displs[r]], "allGatherv " + r);
        }
        double[] agd = new double[n];
        world.allGather(new double[] {me * 0.5}, 1, MPI.DOUBLE, agd, 1, MPI.DOUBLE);
        for (int r = 0; r < n; r++) {
            eq(r * 0.5, agd[r], "allGather " + r);
        }

        // alltoall: block j of rank i holds i*100+j
        int[] a2a = new int[n];
        for (int j = 0; j < n; j++) {
            a2a[j] = me * 100 + j;
        }
        int[] a2aIn = new int[n];
        world.allToAll(a2a, 1, MPI.INT, a2aIn, 1, MPI.INT);
        for (int i = 0; i < n; i++) {
            eq(i * 100 + me, a2aIn[i], "allToAll from " + i);
        }
        // alltoallv: rank i sends j+1 copies of i to rank j
        int[] sc = new int[n];
        int[] sd = new int[n];
        int[] rc = new int[n];
        int[] rd = new int[n];
        int st = 0;
        int rt = 0;
        for (int j = 0; j < n; j++) {
            sc[j] = j + 1;
            sd[j] = st;
            st += sc[j];
            rc[j] = me + 1;
            rd[j] = rt;
            rt += rc[j];
        }
        int[] vs = new int[st];
        Arrays.fill(vs, me);
        int[] vr = new int[rt];
        world.allToAllv(vs, sc, sd, MPI.INT, vr, rc, rd, MPI.INT);
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < me + 1; k++) {
                eq(i, vr[rd[i] + k], "allToAllv from " + i);
            }
        }
        // alltoallw with byte displacements and a type per peer: to rank j, j+1 ints
        IntBuffer ws = MPI.newIntBuffer(st);
        IntBuffer wr = MPI.newIntBuffer(rt);
        int[] sdb = new int[n];
        int[] rdb = new int[n];
        Datatype[] types = new Datatype[n];
        for (int j = 0; j < n; j++) {
            sdb[j] = sd[j] * 4;
            rdb[j] = rd[j] * 4;
            types[j] = MPI.INT;
        }
        for (int k = 0; k < st; k++) {
            ws.put(k, me * 1000 + k);
        }
        world.allToAllw(ws, sc, sdb, types, wr, rc, rdb, types);
        for (int i = 0; i < n; i++) {
            eq(i * 1000 + sd_of(i, me, n), wr.get(rd[i]), "allToAllw from " + i);
        }
    }

    /** The send displacement rank {@code i} uses for rank {@code j} (block j holds j+1 elements). */
    private static int sd_of(int i, int j, int n) {
        int d = 0;
        for (int k = 0; k < j; k++) {
            d += k + 1;
        }
        return d;
    }

    private static void inPlace(Intracomm world, int me, int n) throws MPIException {
        int root = 0;
        int[] g = new int[n];
        g[me] = me + 1;
        if (me == root) {
            world.gather(g, 1, MPI.INT, root);
            for (int r = 0; r < n; r++) {
                eq(r + 1, g[r], "in-place gather " + r);
            }
        } else {
            world.gather(new int[] {me + 1}, 1, MPI.INT, root);
        }
        int[] s = new int[n];
        if (me == root) {
            for (int r = 0; r < n; r++) {
                s[r] = 50 + r;
            }
            world.scatter(s, 1, MPI.INT, root);
            eq(50, s[0], "in-place scatter root keeps its block");
        } else {
            int[] one = new int[1];
            world.scatter(one, 1, MPI.INT, root);
            eq(50 + me, one[0], "in-place scatter");
        }
        int[] ag = new int[2 * n];
        ag[2 * me] = me;
        ag[2 * me + 1] = me * me;
        world.allGather(ag, 2, MPI.INT);
        for (int r = 0; r < n; r++) {
            eq(r * r, ag[2 * r + 1], "in-place allGather " + r);
        }
        int[] counts = new int[n];
        int[] displs = new int[n];
        for (int r = 0; r < n; r++) {
            counts[r] = 1;
            displs[r] = n - 1 - r;
        }
        int[] agv = new int[n];
        agv[n - 1 - me] = me * 7;
        world.allGatherv(agv, counts, displs, MPI.INT);
        for (int r = 0; r < n; r++) {
            eq(r * 7, agv[n - 1 - r], "in-place allGatherv " + r);
        }
        if (me == root) {
            int[] gv = new int[n];
            gv[displs[root]] = -1;
            world.gatherv(gv, counts, displs, MPI.INT, root);
            for (int r = 0; r < n; r++) {
                eq(r == root ? -1 : r * 3, gv[displs[r]], "in-place gatherv " + r);
            }
            world.scatterv(gv, counts, displs, MPI.INT, root);
        } else {
            world.gatherv(new int[] {me * 3}, 1, MPI.INT, root);
            int[] one = new int[1];
            world.scatterv(one, 1, MPI.INT, root);
            eq(me * 3, one[0], "in-place scatterv " + me);
        }
        double[] x = {me, 1};
        world.allReduce(x, 2, MPI.DOUBLE, MPI.SUM);
        eq(n * (n - 1) / 2.0, x[0], "in-place allReduce");
        eq(n, x[1], "in-place allReduce");
        long[] y = {me + 1};
        world.reduce(y, 1, MPI.LONG, MPI.PROD, root);
        if (me == root) {
            long f = 1;
            for (int r = 1; r <= n; r++) {
                f *= r;
            }
            eq(f, y[0], "in-place reduce");
        }
        int[] sc = {me + 1};
        world.scan(sc, 1, MPI.INT, MPI.SUM);
        eq((me + 1) * (me + 2) / 2, sc[0], "in-place scan");
        int[] rsb = new int[n];
        Arrays.fill(rsb, me);
        world.reduceScatterBlock(rsb, 1, MPI.INT, MPI.SUM);
        eq(n * (n - 1) / 2, rsb[0], "in-place reduceScatterBlock");
    }

    private static void nonblocking(Intracomm world, int me, int n) throws MPIException {
        Request b = world.iBarrier();
        b.waitFor();
        check(b.isNull(), "iBarrier request completes");
        IntBuffer buf = MPI.newIntBuffer(2);
        if (me == 0) {
            buf.put(0, 3).put(1, 4);
        }
        world.iBcast(buf, 2, MPI.INT, 0).waitFor();
        eq(4, buf.get(1), "iBcast");
        DoubleBuffer s = MPI.newDoubleBuffer(1);
        DoubleBuffer r = MPI.newDoubleBuffer(1);
        s.put(0, me);
        Request ar = world.iAllReduce(s, r, 1, MPI.DOUBLE, MPI.SUM);
        while (!ar.test()) {
            Thread.onSpinWait();
        }
        eq(n * (n - 1) / 2.0, r.get(0), "iAllReduce");
        IntBuffer ga = MPI.newIntBuffer(n);
        IntBuffer one = MPI.newIntBuffer(1);
        one.put(0, me + 100);
        Request.waitAll(new Request[] {world.iAllGather(one, 1, MPI.INT, ga, 1, MPI.INT)});
        eq(100 + n - 1, ga.get(n - 1), "iAllGather");
        IntBuffer sc = MPI.newIntBuffer(1);
        world.iScan(one, sc, 1, MPI.INT, MPI.SUM).waitFor();
        eq(100 * (me + 1) + me * (me + 1) / 2, sc.get(0), "iScan");
        IntBuffer a2aOut = MPI.newIntBuffer(n);
        IntBuffer a2aIn = MPI.newIntBuffer(n);
        for (int j = 0; j < n; j++) {
            a2aOut.put(j, me * n + j);
        }
        world.iAllToAll(a2aOut, 1, MPI.INT, a2aIn, 1, MPI.INT).waitFor();
        eq(me, a2aIn.get(0), "iAllToAll");
        // nonblocking collectives progress while the rank does other things: here rank 0 receives a synchronous
        // send that rank 1 makes before it even starts the barrier
        if (n >= 2) {
            if (me == 0) {
                Request ib = world.iBarrier();
                int[] msg = new int[1];
                world.recv(msg, 1, MPI.INT, 1, 99);
                eq(99, msg[0], "message received while the barrier is pending");
                ib.waitFor();
            } else if (me == 1) {
                world.sSend(new int[] {99}, 1, MPI.INT, 0, 99);
                world.iBarrier().waitFor();
            } else {
                world.iBarrier().waitFor();
            }
        }
        // several outstanding, then a blocking collective: they complete in the order they were started
        DoubleBuffer x1 = MPI.newDoubleBuffer(1);
        DoubleBuffer x2 = MPI.newDoubleBuffer(1);
        x1.put(0, 1);
        x2.put(0, me);
        Request[] two = {world.iAllReduce(x1, 1, MPI.DOUBLE, MPI.SUM), world.iAllReduce(x2, 1, MPI.DOUBLE, MPI.MAX)};
        int[] after = new int[1];
        world.allReduce(new int[] {1}, after, 1, MPI.INT, MPI.SUM);
        Request.waitAll(two);
        eq(n, x1.get(0), "first outstanding iAllReduce");
        eq(n - 1, x2.get(0), "second outstanding iAllReduce");
        eq(n, after[0], "blocking allReduce after them");
        try {
            world.iBcast(IntBuffer.allocate(1), 1, MPI.INT, 0);
            throw new AssertionError("a heap buffer must be refused by a nonblocking collective");
        } catch (IllegalArgumentException expected) {
            // as in Open MPI's bindings
        }
    }

    private static void onSubCommunicators(Intracomm world, int me, int n) throws MPIException {
        Intracomm half = world.split(me % 2, -me); // reversed order inside each half
        int hs = half.getSize();
        eq((n + 1 - me % 2) / 2, hs, "half size");
        int[] sum = new int[1];
        half.allReduce(new int[] {me}, sum, 1, MPI.INT, MPI.SUM);
        int expect = 0;
        for (int r = me % 2; r < n; r += 2) {
            expect += r;
        }
        eq(expect, sum[0], "allReduce on a split communicator");
        int[] first = new int[1];
        if (half.getRank() == 0) {
            first[0] = me;
        }
        half.bcast(first, 1, MPI.INT, 0);
        int top = me % 2;
        while (top + 2 < n) {
            top += 2;
        }
        eq(top, first[0], "key -rank puts the highest world rank first");
        half.free();
        check(half.isNull(), "freed communicator is null");
    }
}

package mpitests;

import static mpitests.Check.check;
import static mpitests.Check.eq;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.util.Arrays;
import mpi.Datatype;
import mpi.DoubleInt;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.Request;
import mpi.UserFunction;

/**
 * Collectives through the mpi package: data movement, reductions (predefined, MINLOC/MAXLOC, user ops), in-place forms.
 */
public final class Collective {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int me = world.getRank();
        int n = world.getSize();

        movement(world, me, n);
        inPlace(world, me, n);
        reductions(world, me, n);
        locations(world, me, n);
        userOps(world, me, n);
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

    private static void reductions(Intracomm world, int me, int n) throws MPIException {
        int[] v = {me, -me, me % 2, 1 << me};
        int[] r = new int[4];
        world.allReduce(v, r, 1, MPI.INT, MPI.MAX);
        eq(n - 1, r[0], "MAX");
        world.allReduce(MPI.slice(v, 1), r, 1, MPI.INT, MPI.MIN);
        eq(-(n - 1), r[0], "MIN on a slice");
        world.allReduce(MPI.slice(v, 3), r, 1, MPI.INT, MPI.BOR);
        eq((1 << n) - 1, r[0], "BOR");
        world.allReduce(MPI.slice(v, 3), r, 1, MPI.INT, MPI.BAND);
        eq(n == 1 ? 1 : 0, r[0], "BAND");
        world.allReduce(MPI.slice(v, 2), r, 1, MPI.INT, MPI.LOR);
        eq(n > 1 ? 1 : 0, r[0], "LOR");
        world.allReduce(MPI.slice(v, 2), r, 1, MPI.INT, MPI.LAND);
        eq(0, r[0], "LAND");
        world.allReduce(MPI.slice(v, 3), r, 1, MPI.INT, MPI.BXOR);
        eq((1 << n) - 1, r[0], "BXOR");
        boolean[] z = {me == 0, true};
        boolean[] zr = new boolean[2];
        world.allReduce(z, zr, 2, MPI.BOOLEAN, MPI.LAND);
        check(zr[0] == (n == 1) && zr[1], "LAND on booleans");
        world.allReduce(z, zr, 2, MPI.BOOLEAN, MPI.LXOR);
        check(zr[0] && zr[1] == (n % 2 == 1), "LXOR on booleans");
        double[] d = {me + 0.5, 2};
        double[] dr = new double[2];
        world.reduce(d, dr, 2, MPI.DOUBLE, MPI.SUM, n - 1);
        if (me == n - 1) {
            eq(n * (n - 1) / 2.0 + n * 0.5, dr[0], "reduce SUM");
            eq(2.0 * n, dr[1], "reduce SUM");
        }
        float[] f = {me + 1};
        float[] fr = new float[1];
        world.allReduce(f, fr, 1, MPI.FLOAT, MPI.PROD);
        float fact = 1;
        for (int k = 1; k <= n; k++) {
            fact *= k;
        }
        eq(fact, fr[0], "PROD on floats");
        short[] s = {(short) me};
        short[] sr = new short[1];
        world.allReduce(s, sr, 1, MPI.SHORT, MPI.SUM);
        eq(n * (n - 1) / 2, sr[0], "SUM on shorts");
        byte[] by = {(byte) (me == 0 ? -1 : 1)};
        byte[] byr = new byte[1];
        world.allReduce(by, byr, 1, MPI.BYTE, MPI.MAX);
        eq((byte) -1, byr[0], "MAX on MPI.BYTE compares unsigned, as in Open MPI");
        char[] ch = {(char) ('a' + me)};
        char[] chr = new char[1];
        world.allReduce(ch, chr, 1, MPI.CHAR, MPI.MAX);
        eq('a' + n - 1, chr[0], "MAX on chars");

        // reduce_scatter: rank r gets r+1 sums
        int[] counts = new int[n];
        int total = 0;
        for (int k = 0; k < n; k++) {
            counts[k] = k + 1;
            total += k + 1;
        }
        int[] in = new int[total];
        for (int k = 0; k < total; k++) {
            in[k] = k + me;
        }
        int[] out = new int[me + 1];
        world.reduceScatter(in, out, counts, MPI.INT, MPI.SUM);
        int start = me * (me + 1) / 2;
        for (int k = 0; k < me + 1; k++) {
            eq(n * (start + k) + n * (n - 1) / 2, out[k], "reduceScatter " + k);
        }
        int[] blk = new int[2 * n];
        for (int k = 0; k < 2 * n; k++) {
            blk[k] = k;
        }
        int[] blkOut = new int[2];
        world.reduceScatterBlock(blk, blkOut, 2, MPI.INT, MPI.SUM);
        eq(n * 2 * me, blkOut[0], "reduceScatterBlock");
        eq(n * (2 * me + 1), blkOut[1], "reduceScatterBlock");

        long[] sc = {me + 1};
        long[] scr = new long[1];
        world.scan(sc, scr, 1, MPI.LONG, MPI.SUM);
        eq((me + 1) * (me + 2) / 2, scr[0], "scan");
        long[] ex = {-99};
        world.exScan(sc, ex, 1, MPI.LONG, MPI.SUM);
        eq(me == 0 ? -99 : me * (me + 1) / 2, ex[0], "exScan (rank 0 untouched)");

        // reduceLocal
        int[] a = {1, 2, 3};
        int[] b = {10, 20, 30};
        Intracomm.reduceLocal(a, b, 3, MPI.INT, MPI.SUM);
        eq(new int[] {11, 22, 33}, b, "reduceLocal");

        // complex numbers: (me + i) summed and multiplied
        double[] cz = {me, 1};
        double[] czr = new double[2];
        world.allReduce(cz, czr, 1, MPI.DOUBLE_COMPLEX, MPI.SUM);
        eq(n * (n - 1) / 2.0, czr[0], "complex SUM real");
        eq(n, czr[1], "complex SUM imaginary");
        float[] fz = {0, 1};
        float[] fzr = new float[2];
        world.allReduce(fz, fzr, 1, MPI.FLOAT_COMPLEX, MPI.PROD); // i^n
        float[][] powers = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
        eq(powers[n % 4][0], fzr[0], "complex PROD real");
        eq(powers[n % 4][1], fzr[1], "complex PROD imaginary");
    }

    private static void locations(Intracomm world, int me, int n) throws MPIException {
        // MPI.INT2 on int arrays: (value, index) pairs
        int[] pairs = {me * 10 % 7, me, -me, me};
        int[] res = new int[4];
        world.allReduce(pairs, res, 2, MPI.INT2, MPI.MAXLOC);
        int best = -1;
        int at = -1;
        for (int r = 0; r < n; r++) {
            if (r * 10 % 7 > best) {
                best = r * 10 % 7;
                at = r;
            }
        }
        eq(best, res[0], "MAXLOC value");
        eq(at, res[1], "MAXLOC index");
        eq(0, res[2], "MAXLOC of -rank: rank 0's value");
        eq(0, res[3], "MAXLOC of -rank: at rank 0");
        world.allReduce(pairs, res, 2, MPI.INT2, MPI.MINLOC);
        eq(-(n - 1), res[2], "MINLOC value");
        eq(n - 1, res[3], "MINLOC index");

        // DOUBLE_INT through the Struct helper in a direct byte buffer
        int ext = MPI.doubleInt.getExtent();
        eq(16, ext, "DoubleInt extent");
        ByteBuffer in = MPI.newByteBuffer(ext);
        DoubleInt.Data din = MPI.doubleInt.getData(in);
        din.putValue(Math.sin(me));
        din.putIndex(me);
        ByteBuffer out = MPI.newByteBuffer(ext);
        world.allReduce(in, out, 1, MPI.DOUBLE_INT, MPI.MINLOC);
        DoubleInt.Data dout = MPI.doubleInt.getData(out);
        double min = Double.MAX_VALUE;
        int minAt = -1;
        for (int r = 0; r < n; r++) {
            if (Math.sin(r) < min) {
                min = Math.sin(r);
                minAt = r;
            }
        }
        eq(min, dout.getValue(), "DOUBLE_INT MINLOC value");
        eq(minAt, dout.getIndex(), "DOUBLE_INT MINLOC index");
    }

    /** Affine maps x -> a*x + b composed: associative, not commutative. */
    private static final class Compose extends UserFunction {
        @Override
        public void call(Object in, Object inOut, int count, Datatype type) {
            long[] f = (long[]) in;
            long[] g = (long[]) inOut;
            for (int k = 0; k < count; k++) {
                long a1 = f[2 * k];
                long b1 = f[2 * k + 1];
                long a2 = g[2 * k];
                long b2 = g[2 * k + 1];
                // (f o g)(x) = f(g(x)) = a1 * (a2 x + b2) + b1
                g[2 * k] = a1 * a2;
                g[2 * k + 1] = a1 * b2 + b1;
            }
        }
    }

    private static long[] composeAll(int from, int to) {
        long a = 1;
        long b = 0;
        for (int r = to - 1; r >= from; r--) {
            long ar = r + 2;
            long br = r + 1;
            // (map r) o (a, b)
            long na = ar * a;
            long nb = ar * b + br;
            a = na;
            b = nb;
        }
        return new long[] {a, b};
    }

    private static void userOps(Intracomm world, int me, int n) throws MPIException {
        Datatype affine = Datatype.createContiguous(2, MPI.LONG);
        affine.commit();
        Op compose = new Op(new Compose(), false);
        check(!compose.isCommutative(), "not commutative");
        long[] mine = {me + 2, me + 1};
        long[] res = new long[2];
        world.allReduce(mine, res, 1, affine, compose);
        eq(composeAll(0, n), res, "user op allReduce in rank order");
        long[] red = new long[2];
        world.reduce(mine, red, 1, affine, compose, n - 1);
        if (me == n - 1) {
            eq(composeAll(0, n), red, "user op reduce");
        }
        // reduce_scatter with the non-commutative op: element j of rank r is the map x -> (r + 2 + j) x + r + 1;
        // rank me gets element me of the composition in rank order (an allgather underneath, Bruck's on 3+ ranks)
        long[] rsIn = new long[2 * n];
        for (int j = 0; j < n; j++) {
            rsIn[2 * j] = me + 2 + j;
            rsIn[2 * j + 1] = me + 1;
        }
        int[] ones = new int[n];
        Arrays.fill(ones, 1);
        long[] rsOut = new long[2];
        world.reduceScatter(rsIn, rsOut, ones, affine, compose);
        long ra = 1;
        long rb = 0;
        for (int r = n - 1; r >= 0; r--) {
            long na = (r + 2 + me) * ra;
            long nb = (r + 2 + me) * rb + r + 1;
            ra = na;
            rb = nb;
        }
        eq(new long[] {ra, rb}, rsOut, "user op reduceScatter in rank order");
        long[] sc = new long[2];
        world.scan(mine, sc, 1, affine, compose);
        eq(composeAll(0, me + 1), sc, "user op scan");
        long[] ex = {7, 7};
        world.exScan(mine, ex, 1, affine, compose);
        if (me > 0) {
            eq(composeAll(0, me), ex, "user op exScan");
        } else {
            eq(new long[] {7, 7}, ex, "user op exScan leaves rank 0");
        }
        // a commutative user op through the ByteBuffer form on ints
        Op sum = new Op(new UserFunction() {
            @Override
            public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype type) {
                for (int k = 0; k < count; k++) {
                    inOut.putInt(4 * k, inOut.getInt(4 * k) + in.getInt(4 * k));
                }
            }
        }, true);
        int[] v = {me, 1};
        int[] s = new int[2];
        world.allReduce(v, s, 2, MPI.INT, sum);
        eq(new int[] {n * (n - 1) / 2, n}, s, "user op on ByteBuffers");
        int[] rs = new int[1];
        int[] cnt = new int[n];
        Arrays.fill(cnt, 1);
        int[] in = new int[n];
        Arrays.fill(in, me);
        world.reduceScatter(in, rs, cnt, MPI.INT, sum);
        eq(n * (n - 1) / 2, rs[0], "user op reduceScatter");
        int[] loc = {1, 2};
        int[] locOut = {10, 20};
        Intracomm.reduceLocal(loc, locOut, 2, MPI.INT, sum);
        eq(new int[] {11, 22}, locOut, "user op reduceLocal");
        // booleans reach the user function as boolean[]
        Op or = new Op(new UserFunction() {
            @Override
            public void call(Object in, Object inOut, int count, Datatype type) {
                boolean[] a = (boolean[]) in;
                boolean[] b = (boolean[]) inOut;
                for (int k = 0; k < count; k++) {
                    b[k] = a[k] || b[k];
                }
            }
        }, true);
        boolean[] z = {me == n - 1, false};
        boolean[] zr = new boolean[2];
        world.allReduce(z, zr, 2, MPI.BOOLEAN, or);
        check(zr[0] && !zr[1], "user op on booleans");
        compose.free();
        check(compose.isNull(), "freed op");
        affine.free();
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

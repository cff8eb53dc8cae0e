package mpitests;

import static mpitests.Check.check;
import static mpitests.Check.eq;

import java.nio.ByteBuffer;
import java.util.Arrays;
import mpi.Datatype;
import mpi.DoubleInt;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.UserFunction;

/**
 * The reductions of the {@link Collective} test program, run by it on every rank: the predefined ops (logical,
 * bitwise, arithmetic, complex) with reduce, allReduce, reduceScatter(Block), scan, exScan and reduceLocal,
 * MINLOC/MAXLOC on the pair types, and user ops (an associative, non-commutative composition of affine maps). Each
 * method is collective over {@code world}; a failed check throws.
 */
final class CollectiveReductions {
    private CollectiveReductions() {
    }

    static void reductions(Intracomm world, int me, int n) throws MPIException {
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

    static void locations(Intracomm world, int me, int n) throws MPIException {
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

    static void userOps(Intracomm world, int me, int n) throws MPIException {
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
}

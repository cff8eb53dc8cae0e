package io.jrma.ga;

import static io.jrma.ga.GaTransfers.GET;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.ga.GaTransfers.Mode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The collective arithmetic of a {@link GlobalArray} over the whole array and over patches (GA's
 * {@code GA_Zero}, {@code GA_Fill}, {@code GA_Scale}, {@code GA_Add}, {@code GA_Copy}, {@code GA_Ddot} and their
 * {@code NGA_*_patch} forms): owner computes, each rank on its own block, reading operands of other arrays or
 * distributions with gets before anyone writes. Belongs to its array and, like it, to one rank.
 */
final class GaArithmetic {
    private final GlobalArray ga;
    private final Comm comm;
    private final String name;
    private final ElemType type;
    private final int[] dims;
    private final DistMap map;
    private final int me;
    private final ByteBuffer local;
    private final int[][] storeDims;
    private final List<Patch> myBoxes;

    GaArithmetic(GlobalArray ga) {
        this.ga = ga;
        this.comm = ga.comm;
        this.name = ga.name;
        this.type = ga.type;
        this.dims = ga.dims;
        this.map = ga.map;
        this.me = ga.me;
        this.local = ga.local;
        this.storeDims = ga.storeDims;
        this.myBoxes = ga.myBoxes;
    }

    void zero() {
        ga.checkLive();
        ga.sync();
        for (int i = 0; i < local.capacity(); i++) {
            local.put(i, (byte) 0);
        }
        ga.sync();
    }

    void fill(double value) {
        fillPatch(new int[dims.length], ga.maxIndex(), value);
    }

    void fillPatch(int[] lo, int[] hi, double value) {
        ga.checkLive();
        ga.checkPatch(lo, hi, "fillPatch");
        checkIntegral(value, "fill");
        ga.sync();
        for (Patch box : myPieces(lo, hi)) {
            forEachLocal(ga, box, (off, k) -> type.putD(local, off, value));
        }
        ga.sync();
    }

    void scale(double alpha) {
        scalePatch(new int[dims.length], ga.maxIndex(), alpha);
    }

    void scalePatch(int[] lo, int[] hi, double alpha) {
        ga.checkLive();
        ga.checkPatch(lo, hi, "scalePatch");
        checkIntegral(alpha, "scale");
        ga.sync();
        long a = (long) alpha;
        for (Patch box : myPieces(lo, hi)) {
            forEachLocal(ga, box, (off, k) -> {
                if (type.isFloating()) {
                    type.putD(local, off, alpha * type.getD(local, off));
                } else {
                    type.putL(local, off, a * type.getL(local, off));
                }
            });
        }
        ga.sync();
    }

    void add(double alpha, GlobalArray a, double beta, GlobalArray b) {
        ga.checkLive();
        checkOperand(a, "add");
        checkOperand(b, "add");
        checkIntegral(alpha, "add");
        checkIntegral(beta, "add");
        ga.sync();
        long al = (long) alpha;
        long bl = (long) beta;
        for (Patch box : myBoxes) {
            Object av = a.arith.readBox(box, map);
            Object bv = b.arith.readBox(box, map);
            forEachLocal(ga, box, (off, k) -> {
                if (type.isFloating()) {
                    type.putD(local, off, alpha * type.getD(av, k) + beta * type.getD(bv, k));
                } else {
                    type.putL(local, off, al * type.getL(av, k) + bl * type.getL(bv, k));
                }
            });
        }
        ga.sync();
    }

    void copyFrom(GlobalArray src) {
        ga.checkLive();
        checkOperand(src, "copyFrom");
        ga.sync();
        int n = dims.length;
        int[] ld = new int[n - 1];
        for (int d = 1; d < n; d++) {
            ld[d - 1] = storeDims[me][d];
        }
        for (Patch box : myBoxes) {
            long off = ga.localDisp(me, box.lo());
            src.transfers.transfer(GET, box.lo(), box.hi(), local, off, ld, 1, Mode.DEFERRED);
        }
        src.win.flushLocalAll();
        ga.sync();
    }

    double dot(GlobalArray b) {
        Object[] r = dotImpl(b);
        return type.isFloating() ? (Double) r[0] : (Long) r[1];
    }

    long dotLong(GlobalArray b) {
        ga.requireInteger("dotLong");
        return (Long) dotImpl(b)[1];
    }

    void copyPatch(GlobalArray src, int[] srcLo, int[] srcHi, int[] dstLo, int[] dstHi) {
        ga.checkLive();
        checkPatchOperand(src, "copyPatch");
        samePatchShape(src.checkPatch(srcLo, srcHi, "copyPatch source"),
                ga.checkPatch(dstLo, dstHi, "copyPatch"), "copyPatch");
        src.fence();
        ga.sync();
        List<Patch> boxes = myPieces(dstLo, dstHi);
        List<Object> values = new ArrayList<>();
        for (Patch box : boxes) {
            values.add(src.arith.readShifted(box, dstLo, srcLo));
        }
        ga.sync(); // every read is done before anyone writes (src may be this array)
        for (int i = 0; i < boxes.size(); i++) {
            Object v = values.get(i);
            forEachLocal(ga, boxes.get(i), (off, k) -> type.copy(v, k, local, off));
        }
        ga.sync();
    }

    void addPatch(double alpha, GlobalArray a, int[] aLo, int[] aHi, double beta, GlobalArray b, int[] bLo,
                         int[] bHi, int[] cLo, int[] cHi) {
        ga.checkLive();
        checkPatchOperand(a, "addPatch");
        checkPatchOperand(b, "addPatch");
        int[] cs = ga.checkPatch(cLo, cHi, "addPatch");
        samePatchShape(a.checkPatch(aLo, aHi, "addPatch a"), cs, "addPatch");
        samePatchShape(b.checkPatch(bLo, bHi, "addPatch b"), cs, "addPatch");
        checkIntegral(alpha, "addPatch");
        checkIntegral(beta, "addPatch");
        a.fence();
        b.fence();
        ga.sync();
        List<Patch> boxes = myPieces(cLo, cHi);
        List<Object[]> values = new ArrayList<>();
        for (Patch box : boxes) {
            values.add(new Object[] {a.arith.readShifted(box, cLo, aLo), b.arith.readShifted(box, cLo, bLo)});
        }
        ga.sync();
        long al = (long) alpha;
        long bl = (long) beta;
        for (int i = 0; i < boxes.size(); i++) {
            Object av = values.get(i)[0];
            Object bv = values.get(i)[1];
            forEachLocal(ga, boxes.get(i), (off, k) -> {
                if (type.isFloating()) {
                    type.putD(local, off, alpha * type.getD(av, k) + beta * type.getD(bv, k));
                } else {
                    type.putL(local, off, al * type.getL(av, k) + bl * type.getL(bv, k));
                }
            });
        }
        ga.sync();
    }

    double dotPatch(GlobalArray b, int[] aLo, int[] aHi, int[] bLo, int[] bHi) {
        ga.checkLive();
        checkPatchOperand(b, "dotPatch");
        samePatchShape(ga.checkPatch(aLo, aHi, "dotPatch"), b.checkPatch(bLo, bHi, "dotPatch b"), "dotPatch");
        b.fence();
        ga.sync();
        Object[] sums = dotOver(myPieces(aLo, aHi), box -> b.arith.readShifted(box, aLo, bLo));
        return type.isFloating() ? (double) sums[0] : (long) sums[1];
    }

    /** The values of {@code box} (a piece of a patch starting at {@code from}) moved to start at {@code to}, packed. */
    private Object readShifted(Patch box, int[] from, int[] to) {
        int n = dims.length;
        int[] lo = new int[n];
        int[] hi = new int[n];
        for (int d = 0; d < n; d++) {
            lo[d] = to[d] + box.lo(d) - from[d];
            hi[d] = to[d] + box.hi(d) - from[d];
        }
        Object packed = type.newArray(Math.toIntExact(box.size()));
        ga.transfers.transfer(GET, lo, hi, packed, 0, null, 1, Mode.BLOCKING);
        return packed;
    }

    private void checkPatchOperand(GlobalArray o, String what) {
        if (o == null) {
            throw new RmaException(ErrorClass.ERR_ARG, what + " on '" + name + "': operand is null");
        }
        o.checkLive();
        if (o.comm != comm) {
            throw new RmaException(ErrorClass.ERR_COMM, what + ": array '" + o.name + "' was created on a different "
                    + "communicator than '" + name + "'");
        }
        if (o.type != type) {
            throw new RmaException(ErrorClass.ERR_TYPE, what + ": '" + o.name + "' holds " + o.type + ", '" + name
                    + "' holds " + type);
        }
    }

    private static void samePatchShape(int[] a, int[] b, String what) {
        if (!Arrays.equals(a, b)) {
            throw new RmaException(ErrorClass.ERR_ARG, what + ": patch shapes differ: " + Arrays.toString(a) + " vs "
                    + Arrays.toString(b));
        }
    }

    private Object[] dotImpl(GlobalArray b) {
        ga.checkLive();
        checkOperand(b, "dot");
        ga.sync();
        return dotOver(myBoxes, box -> b.arith.readBox(box, map));
    }

    /**
     * This rank's part of a dot product over {@code boxes} (this array's values times those {@code other} reads for
     * each box), summed over the ranks; then a sync. Returns the sum as a double and as a long.
     */
    private Object[] dotOver(List<Patch> boxes, Function<Patch, Object> other) {
        double[] sd = {0};
        long[] sl = {0};
        for (Patch box : boxes) {
            Object bv = other.apply(box);
            forEachLocal(ga, box, (off, k) -> {
                if (type.isFloating()) {
                    sd[0] += type.getD(local, off) * type.getD(bv, k);
                } else {
                    sl[0] += type.getL(local, off) * type.getL(bv, k);
                }
            });
        }
        long[] all = ga.allgather(type.isFloating() ? Double.doubleToRawLongBits(sd[0]) : sl[0]);
        double td = 0;
        long tl = 0;
        for (long x : all) {
            td += Double.longBitsToDouble(x);
            tl += x;
        }
        ga.sync();
        return new Object[] {td, tl};
    }

    /** Values of {@code box} (owned by this rank in {@code asIn}) packed row-major: local copy or get. */
    private Object readBox(Patch box, DistMap asIn) {
        Object packed = type.newArray(Math.toIntExact(box.size()));
        if (map.sameAs(asIn)) {
            forEachLocal(ga, box, (off, k) -> type.copy(local, off, packed, k));
        } else {
            ga.transfers.transfer(GET, box.lo(), box.hi(), packed, 0, null, 1, Mode.BLOCKING);
        }
        return packed;
    }

    /** Pieces of lo..hi this rank owns. */
    private List<Patch> myPieces(int[] lo, int[] hi) {
        List<Patch> out = new ArrayList<>();
        for (Region r : map.regions(lo, hi)) {
            if (r.rank() == me) {
                out.add(r.patch());
            }
        }
        return out;
    }

    private interface ElemVisitor {
        /** {@code off}: element offset in the window memory; {@code k}: row-major index within the box. */
        void visit(long off, int k);
    }

    /** Visits the elements of {@code box}, which lies in one block of this rank. */
    private static void forEachLocal(GlobalArray x, Patch box, ElemVisitor v) {
        int n = box.ndim();
        int[] shape = box.shape();
        long[] st = x.storeStrides[x.me];
        long base = x.localDisp(x.me, box.lo());
        int[] k = new int[n];
        long total = box.size();
        for (int i = 0; i < total; i++) {
            long off = base;
            for (int d = 0; d < n; d++) {
                off += k[d] * st[d];
            }
            v.visit(off, i);
            for (int d = n - 1; d >= 0 && ++k[d] == shape[d]; d--) {
                k[d] = 0;
            }
        }
    }

    private void checkIntegral(double v, String what) {
        if (!type.isFloating() && v != Math.rint(v)) {
            throw new RmaException(ErrorClass.ERR_ARG,
                    what + " on '" + name + "': " + v + " is not an integer for a " + type + " array");
        }
    }

    private void checkOperand(GlobalArray o, String what) {
        if (o == null) {
            throw new RmaException(ErrorClass.ERR_ARG, what + " on '" + name + "': operand is null");
        }
        o.checkLive();
        if (o.comm != comm) {
            throw new RmaException(ErrorClass.ERR_COMM, what + ": array '" + o.name + "' was created on a different "
                    + "communicator than '" + name + "'");
        }
        if (!Arrays.equals(o.dims, dims) || o.type != type) {
            throw new RmaException(ErrorClass.ERR_ARG,
                    what + ": '" + o.name + "' is " + o.type + Arrays.toString(o.dims)
                    + ", '" + name + "' is " + type + Arrays.toString(dims));
        }
    }
}

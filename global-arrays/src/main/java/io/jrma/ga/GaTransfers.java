package io.jrma.ga;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Op;
import io.jrma.Request;
import io.jrma.RmaException;
import io.jrma.Win;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The one-sided data movement of a {@link GlobalArray} (GA's one-sided layer): a patch put, get or accumulate is one
 * operation per owner, described by derived datatypes (a subarray of the owner's block, a nested hindexed type over
 * the user's buffer); an element list (scatter, gather) is one indexed operation per owner. Belongs to its array and,
 * like it, to one rank.
 */
final class GaTransfers {
    static final int PUT = 0;
    static final int GET = 1;
    static final int ACC = 2;
    private static final String[] KIND = {"put", "get", "acc"};

    private final GlobalArray ga;
    private final String name;
    private final ElemType type;
    private final int[] dims;
    private final DistMap map;
    private final int[] ghosts;
    private final int nranks;
    private final Win win;
    private final int[][] storeDims;
    private final long[][] storeStrides;

    GaTransfers(GlobalArray ga) {
        this.ga = ga;
        this.name = ga.name;
        this.type = ga.type;
        this.dims = ga.dims;
        this.map = ga.map;
        this.ghosts = ga.ghosts;
        this.nranks = ga.nranks;
        this.win = ga.win;
        this.storeDims = ga.storeDims;
        this.storeStrides = ga.storeStrides;
    }

    /** One future for the requests of a non-blocking operation (completed at once when there are none). */
    static CompletableFuture<Void> future(List<Request> reqs) {
        if (reqs.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<?>[] fs = new CompletableFuture<?>[reqs.size()];
        for (int i = 0; i < fs.length; i++) {
            fs[i] = reqs.get(i).toFuture();
        }
        return CompletableFuture.allOf(fs);
    }

    /** Blocking: completed here; non-blocking: requests returned; deferred: the caller flushes. */
    enum Mode { BLOCKING, NONBLOCKING, DEFERRED }

    /**
     * A put, get or accumulate ({@code kind}) of patch {@code lo..hi} with the buffer {@code buf} (from element
     * {@code off}, extents {@code ld}), accumulating {@code alpha} times the buffer; checked first.
     */
    List<Request> transfer(int kind, int[] lo, int[] hi, Object buf, long off, int[] ld, double alpha,
                            Mode mode) {
        ga.checkLive();
        String what = KIND[kind] + " on '" + name + "'";
        int n = dims.length;
        int[] shape = ga.checkPatch(lo, hi, what);
        long cap = type.capacity(buf, what);
        if (off < 0) {
            throw new RmaException(ErrorClass.ERR_ARG, what + ": negative buffer offset " + off);
        }
        long[] stride = strides(shape, ld, what);
        boolean empty = false;
        long last = off;
        for (int d = 0; d < n; d++) {
            empty |= shape[d] == 0;
            last += (long) (shape[d] - 1) * stride[d];
        }
        if (empty) {
            return List.of();
        }
        if (last >= cap) {
            throw new RmaException(ErrorClass.ERR_BUFFER, what + ": patch " + Arrays.toString(lo) + ".."
                    + Arrays.toString(hi) + " needs " + (last + 1) + " buffer elements, the buffer has " + cap);
        }
        if (kind == ACC && alpha != 1) {
            if (!type.isFloating() && alpha != Math.rint(alpha)) {
                throw new RmaException(ErrorClass.ERR_ARG, what + ": alpha " + alpha + " is not an integer for a "
                        + type + " array");
            }
            Object packed = scaledCopy(buf, off, stride, shape, alpha);
            buf = packed;
            off = 0;
            stride = strides(shape, null, what);
        }
        return issue(kind, lo, hi, shape, buf, off, stride, mode);
    }

    private long[] strides(int[] shape, int[] ld, String what) {
        int n = shape.length;
        long[] stride = new long[n];
        if (ld != null && ld.length != n - 1) {
            throw new RmaException(ErrorClass.ERR_ARG, what + ": ld has " + ld.length + " entries, needs " + (n - 1));
        }
        long s = 1;
        for (int d = n - 1; d >= 0; d--) {
            stride[d] = s;
            if (d > 0) {
                int ext = ld == null ? shape[d] : ld[d - 1];
                if (ext < shape[d]) {
                    throw new RmaException(ErrorClass.ERR_ARG, what + ": ld[" + (d - 1) + "] = " + ext
                            + " is smaller than the patch extent " + shape[d]);
                }
                s *= ext;
            }
        }
        return stride;
    }

    private Object scaledCopy(Object buf, long off, long[] stride, int[] shape, double alpha) {
        long total = 1;
        for (int x : shape) {
            total *= x;
        }
        Object packed = type.newArray(Math.toIntExact(total));
        int n = shape.length;
        int[] k = new int[n];
        long alphaL = (long) alpha;
        for (int i = 0; i < total; i++) {
            long src = off;
            for (int d = 0; d < n; d++) {
                src += k[d] * stride[d];
            }
            if (type.isFloating()) {
                type.putD(packed, i, alpha * type.getD(buf, src));
            } else {
                type.putL(packed, i, alphaL * type.getL(buf, src));
            }
            for (int d = n - 1; d >= 0 && ++k[d] == shape[d]; d--) {
                k[d] = 0;
            }
        }
        return packed;
    }

    /** One operation per owner: the owner's part of the patch is one sub-box of its block. */
    private List<Request> issue(int kind, int[] lo, int[] hi, int[] shape, Object buf, long off, long[] stride,
                                Mode mode) {
        int n = dims.length;
        int esize = type.size();
        Datatype elem = type.datatype();
        IntList[][] segs = new IntList[n][];
        int[] c0 = new int[n];
        int[] c1 = new int[n];
        for (int d = 0; d < n; d++) {
            DimMap m = map.dm[d];
            c0[d] = m.firstCoord(lo[d]);
            c1[d] = m.lastCoord(hi[d]);
            segs[d] = new IntList[m.p];
            for (int c = c0[d]; c <= c1[d]; c++) {
                IntList l = new IntList();
                m.segments(lo[d], hi[d], c, l);
                segs[d][c] = l;
            }
        }
        List<Request> reqs = mode == Mode.NONBLOCKING ? new ArrayList<>() : List.of();
        IntList touched = new IntList();
        int[] c = c0.clone();
        int[] tStart = new int[n];
        int[] tSize = new int[n];
        while (true) {
            boolean nonEmpty = true;
            for (int d = 0; d < n; d++) {
                nonEmpty &= segs[d][c[d]].size > 0;
            }
            if (nonEmpty) {
                int rank = map.rankOf(c);
                int[] sd = storeDims[rank];
                boolean single = true;
                long oOff = off;
                for (int d = 0; d < n; d++) {
                    IntList l = segs[d][c[d]];
                    tStart[d] = map.dm[d].localIndex(l.get(0)) + ghosts[d];
                    int tot = 0;
                    for (int j = 1; j < l.size; j += 2) {
                        tot += l.get(j);
                    }
                    tSize[d] = tot;
                    single &= l.size == 2;
                    oOff += (long) (l.get(0) - lo[d]) * stride[d];
                }
                long count = 1;
                for (int d = 0; d < n; d++) {
                    count *= tSize[d];
                }
                // target side
                Datatype tType;
                long tCount;
                long tDisp;
                if (contiguous(tSize, sd)) {
                    tType = elem;
                    tCount = count;
                    tDisp = 0;
                    for (int d = 0; d < n; d++) {
                        tDisp += tStart[d] * storeStrides[rank][d];
                    }
                } else {
                    tType = Datatype.subarray(toLong(sd), toLong(tSize), toLong(tStart),
                            Datatype.Order.C, elem).commit();
                    tCount = 1;
                    tDisp = 0;
                }
                // origin side
                Datatype oType;
                long oCount;
                if (single && contiguousStrided(tSize, stride)) {
                    if (oOff == 0) {
                        oType = elem;
                        oCount = count;
                    } else {
                        oType = Datatype.hindexedBlock(count, new long[] {oOff * esize}, elem).commit();
                        oCount = 1;
                    }
                } else {
                    oType = nestedOrigin(segs, c, lo, stride, off).commit();
                    oCount = 1;
                }
                switch (kind) {
                    case PUT:
                        if (mode == Mode.NONBLOCKING) {
                            reqs.add(win.rput(buf, oCount, oType, rank, tDisp, tCount, tType));
                        } else {
                            win.put(buf, oCount, oType, rank, tDisp, tCount, tType);
                        }
                        break;
                    case GET:
                        if (mode == Mode.NONBLOCKING) {
                            reqs.add(win.rget(buf, oCount, oType, rank, tDisp, tCount, tType));
                        } else {
                            win.get(buf, oCount, oType, rank, tDisp, tCount, tType);
                        }
                        break;
                    default:
                        if (mode == Mode.NONBLOCKING) {
                            reqs.add(win.raccumulate(buf, oCount, oType, rank, tDisp, tCount, tType, Op.SUM));
                        } else {
                            win.accumulate(buf, oCount, oType, rank, tDisp, tCount, tType, Op.SUM);
                        }
                        break;
                }
                touched.add(rank);
            }
            int d = n - 1;
            for (; d >= 0; d--) {
                if (++c[d] <= c1[d]) {
                    break;
                }
                c[d] = c0[d];
            }
            if (d < 0) {
                break;
            }
        }
        if (mode == Mode.BLOCKING) {
            for (int i = 0; i < touched.size; i++) {
                if (kind == GET) {
                    win.flushLocal(touched.get(i));
                } else {
                    win.flush(touched.get(i));
                }
            }
        }
        return reqs;
    }

    /** Nested hindexed type over the user's buffer: per dimension the owner's segments of the patch. */
    private Datatype nestedOrigin(IntList[][] segs, int[] c, int[] lo, long[] stride, long off) {
        int n = lo.length;
        int esize = type.size();
        Datatype t = null;
        for (int d = n - 1; d >= 0; d--) {
            IntList l = segs[d][c[d]];
            int m = l.size / 2;
            long[] lens = new long[m];
            long[] disps = new long[m];
            for (int j = 0; j < m; j++) {
                lens[j] = l.get(2 * j + 1);
                disps[j] = ((long) (l.get(2 * j) - lo[d]) * stride[d] + (d == 0 ? off : 0)) * esize;
            }
            Datatype inner = d == n - 1 ? type.datatype() : Datatype.resized(t, 0, stride[d] * esize);
            t = Datatype.hindexed(lens, disps, inner);
        }
        return t;
    }

    /** Whether a box of {@code size} at any start is one contiguous run in row-major {@code full}. */
    private static boolean contiguous(int[] size, int[] full) {
        int k = 0;
        while (k < size.length && size[k] == 1) {
            k++;
        }
        for (int d = k + 1; d < size.length; d++) {
            if (size[d] != full[d]) {
                return false;
            }
        }
        return true;
    }

    private static boolean contiguousStrided(int[] size, long[] stride) {
        int k = 0;
        while (k < size.length && size[k] == 1) {
            k++;
        }
        for (int d = k + 1; d < size.length; d++) {
            if (stride[d - 1] != stride[d] * size[d]) {
                return false;
            }
        }
        return true;
    }

    private static long[] toLong(int[] a) {
        long[] r = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[i];
        }
        return r;
    }

    /** A scatter, gather or scatter-accumulate ({@code kind}) of the elements at {@code subs}; checked first. */
    void elements(int kind, Object values, int[][] subs, double alpha) {
        ga.checkLive();
        String what = (kind == PUT ? "scatter" : kind == GET ? "gather" : "scatterAcc") + " on '" + name + "'";
        if (subs == null) {
            throw new RmaException(ErrorClass.ERR_ARG, what + ": subscripts are null");
        }
        long cap = type.capacity(values, what);
        if (cap < subs.length) {
            throw new RmaException(ErrorClass.ERR_BUFFER,
                    what + ": " + subs.length + " subscripts but the buffer holds " + cap);
        }
        if (kind == ACC && !type.isFloating() && alpha != Math.rint(alpha)) {
            throw new RmaException(ErrorClass.ERR_ARG,
                    what + ": alpha " + alpha + " is not an integer for a " + type + " array");
        }
        int[] owner = new int[subs.length];
        long[] disp = new long[subs.length];
        for (int i = 0; i < subs.length; i++) {
            ga.checkIndex(subs[i], what);
            owner[i] = map.owner(subs[i]);
            disp[i] = ga.localDisp(owner[i], subs[i]);
        }
        List<Map<Long, Integer>> slots = new ArrayList<>(nranks);
        for (int r = 0; r < nranks; r++) {
            slots.add(null);
        }
        int[] slotOf = new int[subs.length];
        for (int i = 0; i < subs.length; i++) {
            Map<Long, Integer> m = slots.get(owner[i]);
            if (m == null) {
                m = new LinkedHashMap<>();
                slots.set(owner[i], m);
            }
            Integer s = m.get(disp[i]);
            if (s == null) {
                s = m.size();
                m.put(disp[i], s);
            }
            slotOf[i] = s;
        }
        Object[] packed = new Object[nranks];
        for (int r = 0; r < nranks; r++) {
            if (slots.get(r) != null) {
                packed[r] = type.newArray(slots.get(r).size());
            }
        }
        if (kind != GET) {
            for (int i = 0; i < subs.length; i++) {
                Object p = packed[owner[i]];
                if (kind == PUT) {
                    type.copy(values, i, p, slotOf[i]);
                } else if (type.isFloating()) {
                    type.putD(p, slotOf[i], type.getD(p, slotOf[i]) + alpha * type.getD(values, i));
                } else {
                    type.putL(p, slotOf[i], type.getL(p, slotOf[i]) + (long) alpha * type.getL(values, i));
                }
            }
        }
        Datatype elem = type.datatype();
        for (int r = 0; r < nranks; r++) {
            Map<Long, Integer> m = slots.get(r);
            if (m == null) {
                continue;
            }
            long[] d = new long[m.size()];
            int j = 0;
            for (long x : m.keySet()) {
                d[j++] = x;
            }
            Datatype t = d.length == 1 ? elem : Datatype.indexedBlock(1, d, elem).commit();
            long tDisp = d.length == 1 ? d[0] : 0;
            long tCount = 1;
            switch (kind) {
                case PUT: win.put(packed[r], d.length, elem, r, tDisp, tCount, t); break;
                case GET: win.get(packed[r], d.length, elem, r, tDisp, tCount, t); break;
                default: win.accumulate(packed[r], d.length, elem, r, tDisp, tCount, t, Op.SUM); break;
            }
        }
        for (int r = 0; r < nranks; r++) {
            if (slots.get(r) != null) {
                if (kind == GET) {
                    win.flushLocal(r);
                } else {
                    win.flush(r);
                }
            }
        }
        if (kind == GET) {
            for (int i = 0; i < subs.length; i++) {
                type.copy(packed[owner[i]], slotOf[i], values, i);
            }
        }
    }
}

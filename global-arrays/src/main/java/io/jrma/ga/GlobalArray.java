package io.jrma.ga;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Info;
import io.jrma.Op;
import io.jrma.Request;
import io.jrma.RmaException;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A typed n-dimensional global array (Global Arrays / ARMCI-MPI style) over one jrma window.
 *
 * <p>Created collectively on a communicator; each rank's block lives in the memory of one
 * {@code Win.allocate} window (disp_unit = element size) that stays in a {@code lock_all} epoch for the
 * array's lifetime. Patch operations are one-sided: one put/get/accumulate per owner per patch, described by
 * derived datatypes (a subarray of the owner's block, a nested hindexed type over the user's buffer).
 *
 * <p><b>Completion.</b> Blocking {@code put} and {@code acc} return once the data is in the owners' memory
 * (flush per owner, as ARMCI-MPI does), so a later {@code get} by the same rank sees it; other ranks see it
 * after a {@link #sync()}. Blocking {@code get} returns with the data in the buffer. The {@code nb*} variants
 * return futures built on {@link Win#rput}/{@link Win#rget}/{@link Win#raccumulate}
 * ({@link Request#toFuture()}): they complete on local completion (buffer reusable / data arrived); remote
 * completion of non-blocking puts and accumulates needs {@link #fence()} or {@link #sync()}.
 *
 * <p><b>Indices</b> are 0-based; patches are {@code lo..hi} inclusive; a patch with {@code hi[d] == lo[d] - 1}
 * in some dimension is empty (a no-op). Buffers are row-major: the element {@code (i0, .., in-1)} of a patch
 * is at {@code offset + sum((ik - lo[k]) * stride[k])} with {@code stride[n-1] = 1} and
 * {@code stride[k] = stride[k+1] * ld[k]}: {@code ld} (length n-1) gives the buffer's extents of dimensions
 * 1..n-1 (null: the patch's own shape). Buffers are Java arrays of the element type or ByteBuffers
 * (little-endian raw bytes; offsets in elements).
 *
 * <p><b>Errors</b> are {@link RmaException}s: patch or subscript out of bounds ERR_RMA_RANGE, malformed
 * arguments ERR_ARG, wrong buffer element type ERR_TYPE, short or null buffer ERR_BUFFER, arrays of different
 * communicators ERR_COMM, freed array ERR_WIN, ranks disagreeing on creation arguments ERR_NOT_SAME.
 *
 * <p><b>Threads.</b> An instance belongs to one rank. Collective methods (create, sync, zero, fill, scale,
 * add, copyFrom, dot, updateGhosts, free) must be called by every rank of the communicator in the same order.
 */
public final class GlobalArray {
    private static final int PUT = 0;
    private static final int GET = 1;
    private static final int ACC = 2;
    private static final String[] KIND = {"put", "get", "acc"};

    private final Comm comm;
    private final ElemType type;
    private final int[] dims;
    private final Distribution dist;
    final DistMap map;
    private final int[] ghosts;
    private final String name;
    private final int me;
    private final int nranks;
    private final Win win;
    private final Win scratch;
    private final ByteBuffer local;
    private final ByteBuffer scratchBuf;
    /** Storage extents (interior + 2 ghosts) of every rank, and their element strides. */
    private final int[][] storeDims;
    private final long[][] storeStrides;
    /** This rank's pieces of the whole array (one for blocked distributions). */
    private final List<Patch> myBoxes;
    private volatile boolean freed;

    // ---------------------------------------------------------------------------------------- creation

    /** Options of a new array; {@link #create()} is collective. */
    public static final class Builder {
        private final Comm comm;
        private final ElemType type;
        private final int[] dims;
        private Distribution dist = Distribution.block();
        private int[] ghosts;
        private String name = "ga";

        private Builder(Comm comm, ElemType type, int[] dims) {
            this.comm = comm;
            this.type = type;
            this.dims = dims == null ? null : dims.clone();
        }

        public Builder distribution(Distribution d) {
            this.dist = d;
            return this;
        }

        /** Ghost-cell widths per dimension (block and irregular distributions only). */
        public Builder ghosts(int... widths) {
            this.ghosts = widths.clone();
            return this;
        }

        public Builder name(String n) {
            this.name = n;
            return this;
        }

        /** Creates the array; collective over the communicator. */
        public GlobalArray create() {
            return new GlobalArray(comm, type, dims, dist, ghosts, name);
        }
    }

    public static Builder builder(Comm comm, ElemType type, int... dims) {
        return new Builder(comm, type, dims);
    }

    /** A block-distributed array without ghosts. Collective. */
    public static GlobalArray create(Comm comm, ElemType type, int... dims) {
        return builder(comm, type, dims).create();
    }

    /** An array with the given distribution and no ghosts. Collective. */
    public static GlobalArray create(Comm comm, ElemType type, int[] dims, Distribution dist) {
        return builder(comm, type, dims).distribution(dist).create();
    }

    private GlobalArray(Comm comm, ElemType type, int[] dims, Distribution dist, int[] ghosts, String name) {
        if (comm == null) {
            throw new RmaException(ErrorClass.ERR_COMM, "global array: communicator is null");
        }
        if (type == null || dist == null) {
            throw new RmaException(ErrorClass.ERR_ARG, "global array: element type and distribution must not be null");
        }
        if (dims == null || dims.length == 0) {
            throw new RmaException(ErrorClass.ERR_DIMS, "global array needs at least one dimension");
        }
        for (int d = 0; d < dims.length; d++) {
            if (dims[d] <= 0) {
                throw new RmaException(ErrorClass.ERR_DIMS, "global array dimension " + d + " is " + dims[d]);
            }
        }
        int n = dims.length;
        int[] g = ghosts == null ? new int[n] : ghosts.clone();
        if (g.length != n) {
            throw new RmaException(ErrorClass.ERR_ARG,
                    "ghost widths " + Arrays.toString(g) + " for " + n + " dimensions");
        }
        boolean anyGhost = false;
        for (int x : g) {
            if (x < 0) {
                throw new RmaException(ErrorClass.ERR_ARG, "negative ghost width " + Arrays.toString(g));
            }
            anyGhost |= x > 0;
        }
        if (anyGhost && !dist.isBlocked()) {
            throw new RmaException(ErrorClass.ERR_ARG,
                    "ghost cells need a block or irregular distribution, not " + dist);
        }
        this.comm = comm;
        this.type = type;
        this.dims = dims.clone();
        this.dist = dist;
        this.ghosts = g;
        this.name = name;
        this.me = comm.rank();
        this.nranks = comm.size();
        this.map = dist.resolve(this.dims, nranks);
        this.storeDims = new int[nranks][];
        this.storeStrides = new long[nranks][];
        for (int r = 0; r < nranks; r++) {
            int[] l = map.localDims(r);
            boolean empty = false;
            for (int d = 0; d < n; d++) {
                empty |= l[d] == 0;
            }
            for (int d = 0; d < n; d++) {
                l[d] = empty ? 0 : l[d] + 2 * g[d];
            }
            storeDims[r] = l;
            storeStrides[r] = new long[n];
            long s = 1;
            for (int d = n - 1; d >= 0; d--) {
                storeStrides[r][d] = s;
                s *= l[d];
            }
        }
        long elems = 1;
        for (int x : storeDims[me]) {
            elems *= x;
        }
        long bytes = elems * type.size();
        if (bytes > Integer.MAX_VALUE) {
            throw new RmaException(ErrorClass.ERR_NO_MEM,
                    "local block of " + bytes + " bytes exceeds 2 GiB (Win.buffer() limit)");
        }
        this.scratch = Win.allocate(comm, 8L * nranks, 8, null);
        this.win = Win.allocate(comm, Math.max(bytes, 8), type.size(), Info.of("same_disp_unit", "true"));
        win.setName(name);
        this.local = win.buffer();
        this.scratchBuf = scratch.buffer();
        for (int i = 0; i < local.capacity(); i++) {
            local.put(i, (byte) 0);
        }
        win.sync();
        scratch.lockAll(Win.MODE_NOCHECK);
        win.lockAll(Win.MODE_NOCHECK);
        List<Patch> boxes = new ArrayList<>();
        for (Region reg : map.regions(new int[n], maxIndex())) {
            if (reg.rank() == me) {
                boxes.add(reg.patch());
            }
        }
        this.myBoxes = boxes;
        // collective argument check: every rank must have passed the same type, dims, distribution, ghosts
        long h = (type + Arrays.toString(this.dims) + dist + Arrays.toString(g)).hashCode();
        long[] all = allgather(h);
        for (long x : all) {
            if (x != h) {
                throw new RmaException(ErrorClass.ERR_NOT_SAME, "global array '" + name + "': ranks passed different "
                        + "element types, dimensions, distributions or ghost widths (this rank: " + type + " "
                        + Arrays.toString(this.dims) + " " + dist + " ghosts " + Arrays.toString(g) + ")");
            }
        }
    }

    private int[] maxIndex() {
        int[] hi = new int[dims.length];
        for (int d = 0; d < dims.length; d++) {
            hi[d] = dims[d] - 1;
        }
        return hi;
    }

    // ---------------------------------------------------------------------------------------- attributes

    public Comm comm() {
        return comm;
    }

    public ElemType type() {
        return type;
    }

    public int[] dims() {
        return dims.clone();
    }

    public int ndim() {
        return dims.length;
    }

    public Distribution distributionSpec() {
        return dist;
    }

    public int[] ghostWidths() {
        return ghosts.clone();
    }

    public String name() {
        return name;
    }

    public boolean isFreed() {
        return freed;
    }

    /** The process grid of the distribution. */
    public int[] processGrid() {
        return map.grid.clone();
    }

    /** The window holding this rank's block (for inspection: counters, info). Do not free or unlock it. */
    public Win window() {
        return win;
    }

    // ---------------------------------------------------------------------------------------- locality

    /** The patch {@code rank} owns (block and irregular distributions; empty if it owns nothing). */
    public Patch distribution(int rank) {
        checkLive();
        checkRank(rank);
        if (!map.blocked) {
            throw new RmaException(ErrorClass.ERR_ARG, "distribution(rank): a block-cyclic array's rank owns many "
                    + "patches: use ownedPatches(rank)");
        }
        return map.patchOf(rank);
    }

    /** Every patch {@code rank} owns: one (or none) for blocked distributions, one per block for block-cyclic. */
    public List<Patch> ownedPatches(int rank) {
        checkLive();
        checkRank(rank);
        if (rank == me) {
            return List.copyOf(myBoxes);
        }
        List<Patch> out = new ArrayList<>();
        for (Region r : map.regions(new int[dims.length], maxIndex())) {
            if (r.rank() == rank) {
                out.add(r.patch());
            }
        }
        return out;
    }

    /** The rank owning the element at {@code index}. */
    public int locate(int... index) {
        checkLive();
        checkIndex(index, "locate");
        return map.owner(index);
    }

    /** The owners of patch lo..hi with their sub-patches (several per owner for block-cyclic). */
    public List<Region> locateRegion(int[] lo, int[] hi) {
        checkLive();
        checkPatch(lo, hi, "locateRegion");
        return map.regions(lo, hi);
    }

    /** Zero-copy view of this rank's block in the window memory. */
    public LocalBlock access() {
        checkLive();
        return new LocalBlock(local, type, map.blocked ? map.patchOf(me) : null, ghosts, storeDims[me]);
    }

    // ---------------------------------------------------------------------------------------- sync

    /** Completes (at origin and target) every operation this rank issued on the array: flush_all. */
    public void fence() {
        checkLive();
        win.flushAll();
    }

    /** Collective: every rank's operations complete and visible everywhere (flush_all, win_sync, barrier). */
    public void sync() {
        checkLive();
        win.flushAll();
        win.sync();
        comm.barrier();
        win.sync();
    }

    /** Collective: frees the window. Later use of the array throws ERR_WIN. */
    public void free() {
        checkLive();
        sync();
        win.unlockAll();
        scratch.unlockAll();
        win.free();
        scratch.free();
        freed = true;
    }

    // ---------------------------------------------------------------------------------------- patch ops

    /** Copies a packed buffer into patch lo..hi. */
    public void put(int[] lo, int[] hi, Object buf) {
        put(lo, hi, buf, 0, null);
    }

    public void put(int[] lo, int[] hi, Object buf, long offset, int[] ld) {
        transfer(PUT, lo, hi, buf, offset, ld, 1, Mode.BLOCKING);
    }

    /** Copies patch lo..hi into a packed buffer. */
    public void get(int[] lo, int[] hi, Object buf) {
        get(lo, hi, buf, 0, null);
    }

    public void get(int[] lo, int[] hi, Object buf, long offset, int[] ld) {
        transfer(GET, lo, hi, buf, offset, ld, 1, Mode.BLOCKING);
    }

    /** {@code patch += alpha * buf}, atomic per element (MPI accumulate with SUM). */
    public void acc(int[] lo, int[] hi, Object buf, double alpha) {
        acc(lo, hi, buf, 0, null, alpha);
    }

    public void acc(int[] lo, int[] hi, Object buf, long offset, int[] ld, double alpha) {
        transfer(ACC, lo, hi, buf, offset, ld, alpha, Mode.BLOCKING);
    }

    /** Non-blocking put (Win.rput per owner); completes when the buffer may be reused. */
    public CompletableFuture<Void> nbPut(int[] lo, int[] hi, Object buf, long offset, int[] ld) {
        return future(transfer(PUT, lo, hi, buf, offset, ld, 1, Mode.NONBLOCKING));
    }

    /** Non-blocking get (Win.rget per owner); completes when the data is in the buffer. */
    public CompletableFuture<Void> nbGet(int[] lo, int[] hi, Object buf, long offset, int[] ld) {
        return future(transfer(GET, lo, hi, buf, offset, ld, 1, Mode.NONBLOCKING));
    }

    /** Non-blocking accumulate (Win.raccumulate per owner); completes when the buffer may be reused. */
    public CompletableFuture<Void> nbAcc(int[] lo, int[] hi, Object buf, long offset, int[] ld, double alpha) {
        return future(transfer(ACC, lo, hi, buf, offset, ld, alpha, Mode.NONBLOCKING));
    }

    private static CompletableFuture<Void> future(List<Request> reqs) {
        if (reqs.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<?>[] fs = new CompletableFuture<?>[reqs.size()];
        for (int i = 0; i < fs.length; i++) {
            fs[i] = reqs.get(i).toFuture();
        }
        return CompletableFuture.allOf(fs);
    }

    private enum Mode { BLOCKING, NONBLOCKING, DEFERRED }

    private List<Request> transfer(int kind, int[] lo, int[] hi, Object buf, long off, int[] ld, double alpha,
                                   Mode mode) {
        checkLive();
        String what = KIND[kind] + " on '" + name + "'";
        int n = dims.length;
        int[] shape = checkPatch(lo, hi, what);
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

    // ---------------------------------------------------------------------------------------- element lists

    /** {@code a[subscripts[i]] = values[i]} (one put per owner; a repeated subscript gets its last value). */
    public void scatter(Object values, int[][] subscripts) {
        elements(PUT, values, subscripts, 1);
    }

    /** {@code values[i] = a[subscripts[i]]} (one get per owner). */
    public void gather(Object values, int[][] subscripts) {
        elements(GET, values, subscripts, 1);
    }

    /** {@code a[subscripts[i]] += alpha * values[i]}, atomic per element (one accumulate per owner). */
    public void scatterAcc(Object values, int[][] subscripts, double alpha) {
        elements(ACC, values, subscripts, alpha);
    }

    private void elements(int kind, Object values, int[][] subs, double alpha) {
        checkLive();
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
            checkIndex(subs[i], what);
            owner[i] = map.owner(subs[i]);
            disp[i] = localDisp(owner[i], subs[i]);
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

    /** Element displacement of a global index in its owner's window. */
    private long localDisp(int rank, int[] idx) {
        long disp = 0;
        for (int d = 0; d < idx.length; d++) {
            disp += (long) (map.dm[d].localIndex(idx[d]) + ghosts[d]) * storeStrides[rank][d];
        }
        return disp;
    }

    // ---------------------------------------------------------------------------------------- atomics

    /** Atomic fetch-and-add on an INT or LONG element; returns the old value. */
    public long readInc(int[] subscript, long inc) {
        checkLive();
        checkIndex(subscript, "readInc on '" + name + "'");
        requireInteger("readInc");
        int r = map.owner(subscript);
        long disp = localDisp(r, subscript);
        if (type == ElemType.LONG) {
            return win.fetchAndAddLong(r, disp, inc);
        }
        int[] res = new int[1];
        win.fetchAndOp(new int[] {(int) inc}, res, Datatype.INT, r, disp, Op.SUM);
        win.flush(r);
        return res[0];
    }

    /** Atomic compare-and-swap on an INT or LONG element; returns the old value (swapped iff it equals expected). */
    public long compareAndSwap(int[] subscript, long expected, long newValue) {
        checkLive();
        checkIndex(subscript, "compareAndSwap on '" + name + "'");
        requireInteger("compareAndSwap");
        int r = map.owner(subscript);
        long disp = localDisp(r, subscript);
        if (type == ElemType.LONG) {
            return win.compareAndSwapLong(r, disp, expected, newValue);
        }
        int[] res = new int[1];
        win.compareAndSwap(new int[] {(int) newValue}, new int[] {(int) expected}, res, Datatype.INT, r, disp);
        win.flush(r);
        return res[0];
    }

    private void requireInteger(String what) {
        if (type.isFloating()) {
            throw new RmaException(ErrorClass.ERR_TYPE,
                    what + " on '" + name + "' needs an INT or LONG array, not " + type);
        }
    }

    // ---------------------------------------------------------------------------------------- whole array

    /** Collective: every element (and ghost cell) = 0. */
    public void zero() {
        checkLive();
        sync();
        for (int i = 0; i < local.capacity(); i++) {
            local.put(i, (byte) 0);
        }
        sync();
    }

    /** Collective: every element = value (integral for INT/LONG arrays). */
    public void fill(double value) {
        fillPatch(new int[dims.length], maxIndex(), value);
    }

    /** Collective: elements of patch lo..hi = value, owner computes. */
    public void fillPatch(int[] lo, int[] hi, double value) {
        checkLive();
        checkPatch(lo, hi, "fillPatch");
        checkIntegral(value, "fill");
        sync();
        for (Patch box : myPieces(lo, hi)) {
            forEachLocal(this, box, (off, k) -> type.putD(local, off, value));
        }
        sync();
    }

    /** Collective: every element *= alpha. */
    public void scale(double alpha) {
        scalePatch(new int[dims.length], maxIndex(), alpha);
    }

    /** Collective: elements of patch lo..hi *= alpha (integral alpha for INT/LONG), owner computes. */
    public void scalePatch(int[] lo, int[] hi, double alpha) {
        checkLive();
        checkPatch(lo, hi, "scalePatch");
        checkIntegral(alpha, "scale");
        sync();
        long a = (long) alpha;
        for (Patch box : myPieces(lo, hi)) {
            forEachLocal(this, box, (off, k) -> {
                if (type.isFloating()) {
                    type.putD(local, off, alpha * type.getD(local, off));
                } else {
                    type.putL(local, off, a * type.getL(local, off));
                }
            });
        }
        sync();
    }

    /**
     * Collective: {@code this = alpha * a + beta * b}, owner computes; same dimensions and element type;
     * operands with another distribution are fetched with get (one per owner per local patch).
     */
    public void add(double alpha, GlobalArray a, double beta, GlobalArray b) {
        checkLive();
        checkOperand(a, "add");
        checkOperand(b, "add");
        checkIntegral(alpha, "add");
        checkIntegral(beta, "add");
        sync();
        long al = (long) alpha;
        long bl = (long) beta;
        for (Patch box : myBoxes) {
            Object av = a.readBox(box, map);
            Object bv = b.readBox(box, map);
            forEachLocal(this, box, (off, k) -> {
                if (type.isFloating()) {
                    type.putD(local, off, alpha * type.getD(av, k) + beta * type.getD(bv, k));
                } else {
                    type.putL(local, off, al * type.getL(av, k) + bl * type.getL(bv, k));
                }
            });
        }
        sync();
    }

    /** Collective: {@code this = src} (any distributions; same dimensions and type): each owner gets its part. */
    public void copyFrom(GlobalArray src) {
        checkLive();
        checkOperand(src, "copyFrom");
        sync();
        int n = dims.length;
        int[] ld = new int[n - 1];
        for (int d = 1; d < n; d++) {
            ld[d - 1] = storeDims[me][d];
        }
        for (Patch box : myBoxes) {
            long off = localDisp(me, box.lo());
            src.transfer(GET, box.lo(), box.hi(), local, off, ld, 1, Mode.DEFERRED);
        }
        src.win.flushLocalAll();
        sync();
    }

    /** Collective: sum of this[i] * b[i] over all elements (computed in long for INT/LONG, double otherwise). */
    public double dot(GlobalArray b) {
        Object[] r = dotImpl(b);
        return type.isFloating() ? (Double) r[0] : (Long) r[1];
    }

    /** Collective: {@link #dot} of INT or LONG arrays, exact (wrapping) in long arithmetic. */
    public long dotLong(GlobalArray b) {
        requireInteger("dotLong");
        return (Long) dotImpl(b)[1];
    }

    // ---------------------------------------------------------------------------------------- patches

    /**
     * Collective (NGA_Copy_patch): elements {@code dstLo..dstHi} of this array = elements {@code srcLo..srcHi} of
     * {@code src}, which may have another distribution (or be this array). Both patches must have the same shape
     * and the arrays the same element type. Owner computes: each rank reads the source values its piece of the
     * destination needs (one get per source owner), all ranks wait, then each writes its own block — so
     * overlapping patches of one array are copied as if through a temporary.
     *
     * @throws RmaException ERR_RMA_RANGE for a patch outside its array, ERR_ARG for different shapes,
     *     ERR_TYPE for different element types, ERR_COMM for arrays of different communicators
     */
    public void copyPatch(GlobalArray src, int[] srcLo, int[] srcHi, int[] dstLo, int[] dstHi) {
        checkLive();
        checkPatchOperand(src, "copyPatch");
        samePatchShape(src.checkPatch(srcLo, srcHi, "copyPatch source"),
                checkPatch(dstLo, dstHi, "copyPatch"), "copyPatch");
        src.fence();
        sync();
        List<Patch> boxes = myPieces(dstLo, dstHi);
        List<Object> values = new ArrayList<>();
        for (Patch box : boxes) {
            values.add(src.readShifted(box, dstLo, srcLo));
        }
        sync(); // every read is done before anyone writes (src may be this array)
        for (int i = 0; i < boxes.size(); i++) {
            Object v = values.get(i);
            forEachLocal(this, boxes.get(i), (off, k) -> type.copy(v, k, local, off));
        }
        sync();
    }

    /**
     * Collective (NGA_Add_patch): {@code this[cLo..cHi] = alpha * a[aLo..aHi] + beta * b[bLo..bHi]}; the three
     * patches have the same shape, the arrays the same element type (any distributions; a or b may be this
     * array). Owner computes, reading operands before anyone writes.
     */
    public void addPatch(double alpha, GlobalArray a, int[] aLo, int[] aHi, double beta, GlobalArray b, int[] bLo,
                         int[] bHi, int[] cLo, int[] cHi) {
        checkLive();
        checkPatchOperand(a, "addPatch");
        checkPatchOperand(b, "addPatch");
        int[] cs = checkPatch(cLo, cHi, "addPatch");
        samePatchShape(a.checkPatch(aLo, aHi, "addPatch a"), cs, "addPatch");
        samePatchShape(b.checkPatch(bLo, bHi, "addPatch b"), cs, "addPatch");
        checkIntegral(alpha, "addPatch");
        checkIntegral(beta, "addPatch");
        a.fence();
        b.fence();
        sync();
        List<Patch> boxes = myPieces(cLo, cHi);
        List<Object[]> values = new ArrayList<>();
        for (Patch box : boxes) {
            values.add(new Object[] {a.readShifted(box, cLo, aLo), b.readShifted(box, cLo, bLo)});
        }
        sync();
        long al = (long) alpha;
        long bl = (long) beta;
        for (int i = 0; i < boxes.size(); i++) {
            Object av = values.get(i)[0];
            Object bv = values.get(i)[1];
            forEachLocal(this, boxes.get(i), (off, k) -> {
                if (type.isFloating()) {
                    type.putD(local, off, alpha * type.getD(av, k) + beta * type.getD(bv, k));
                } else {
                    type.putL(local, off, al * type.getL(av, k) + bl * type.getL(bv, k));
                }
            });
        }
        sync();
    }

    /**
     * Collective (NGA_Ddot_patch): the sum of {@code this[aLo..aHi][i] * b[bLo..bHi][i]} over the patches'
     * elements in row-major order (same shape), the same on every rank; computed in long for INT/LONG arrays.
     */
    public double dotPatch(GlobalArray b, int[] aLo, int[] aHi, int[] bLo, int[] bHi) {
        checkLive();
        checkPatchOperand(b, "dotPatch");
        samePatchShape(checkPatch(aLo, aHi, "dotPatch"), b.checkPatch(bLo, bHi, "dotPatch b"), "dotPatch");
        b.fence();
        sync();
        double[] sd = {0};
        long[] sl = {0};
        for (Patch box : myPieces(aLo, aHi)) {
            Object bv = b.readShifted(box, aLo, bLo);
            forEachLocal(this, box, (off, k) -> {
                if (type.isFloating()) {
                    sd[0] += type.getD(local, off) * type.getD(bv, k);
                } else {
                    sl[0] += type.getL(local, off) * type.getL(bv, k);
                }
            });
        }
        long[] all = allgather(type.isFloating() ? Double.doubleToRawLongBits(sd[0]) : sl[0]);
        double td = 0;
        long tl = 0;
        for (long x : all) {
            td += Double.longBitsToDouble(x);
            tl += x;
        }
        sync();
        return type.isFloating() ? td : tl;
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
        transfer(GET, lo, hi, packed, 0, null, 1, Mode.BLOCKING);
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
        checkLive();
        checkOperand(b, "dot");
        sync();
        double[] sd = {0};
        long[] sl = {0};
        for (Patch box : myBoxes) {
            Object bv = b.readBox(box, map);
            forEachLocal(this, box, (off, k) -> {
                if (type.isFloating()) {
                    sd[0] += type.getD(local, off) * type.getD(bv, k);
                } else {
                    sl[0] += type.getL(local, off) * type.getL(bv, k);
                }
            });
        }
        long[] all = allgather(type.isFloating() ? Double.doubleToRawLongBits(sd[0]) : sl[0]);
        double td = 0;
        long tl = 0;
        for (long x : all) {
            td += Double.longBitsToDouble(x);
            tl += x;
        }
        sync();
        return new Object[] {td, tl};
    }

    /** Values of {@code box} (owned by this rank in {@code asIn}) packed row-major: local copy or get. */
    private Object readBox(Patch box, DistMap asIn) {
        Object packed = type.newArray(Math.toIntExact(box.size()));
        if (map.sameAs(asIn)) {
            forEachLocal(this, box, (off, k) -> type.copy(local, off, packed, k));
        } else {
            transfer(GET, box.lo(), box.hi(), packed, 0, null, 1, Mode.BLOCKING);
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

    // ---------------------------------------------------------------------------------------- ghosts

    /** Collective: fills every ghost cell (faces, edges, corners) from its owner; not periodic. */
    public void updateGhosts() {
        updateGhosts(new boolean[dims.length]);
    }

    /** Collective: fills ghost cells; {@code periodic[d]} wraps dimension d (else out-of-array ghosts are kept). */
    public void updateGhosts(boolean... periodic) {
        checkLive();
        int n = dims.length;
        if (periodic == null || periodic.length != n) {
            throw new RmaException(ErrorClass.ERR_ARG,
                    "updateGhosts on '" + name + "': periodic needs " + n + " flags");
        }
        sync();
        int[] sd = storeDims[me];
        boolean owns = sd[0] > 0;
        boolean hasGhosts = false;
        for (int g : ghosts) {
            hasGhosts |= g > 0;
        }
        if (owns && hasGhosts) {
            Patch mine = map.patchOf(me);
            // per dimension and direction (-1, 0, +1): runs (global start, length, local storage start)
            List<List<int[]>> runs = new ArrayList<>();
            for (int d = 0; d < n; d++) {
                List<int[]> all = new ArrayList<>();
                for (int dir = -1; dir <= 1; dir++) {
                    List<int[]> rl = new ArrayList<>();
                    int g = ghosts[d];
                    int ext = mine.hi(d) - mine.lo(d) + 1;
                    int from;
                    int len;
                    int lstart;
                    if (dir == 0) {
                        from = mine.lo(d);
                        len = ext;
                        lstart = g;
                    } else if (dir < 0) {
                        from = mine.lo(d) - g;
                        len = g;
                        lstart = 0;
                    } else {
                        from = mine.hi(d) + 1;
                        len = g;
                        lstart = g + ext;
                    }
                    for (int j = 0; j < len; j++) {
                        int gi = from + j;
                        if (gi < 0 || gi >= dims[d]) {
                            if (!periodic[d]) {
                                continue;
                            }
                            gi = Math.floorMod(gi, dims[d]);
                        }
                        int[] lastRun = rl.isEmpty() ? null : rl.get(rl.size() - 1);
                        if (lastRun != null && lastRun[0] + lastRun[1] == gi && lastRun[2] + lastRun[1] == lstart + j) {
                            lastRun[1]++;
                        } else {
                            rl.add(new int[] {gi, 1, lstart + j, dir});
                        }
                    }
                    all.addAll(rl);
                }
                runs.add(all);
            }
            int[] ld = new int[n - 1];
            for (int d = 1; d < n; d++) {
                ld[d - 1] = sd[d];
            }
            int[] k = new int[n];
            int[] lo = new int[n];
            int[] hi = new int[n];
            outer:
            while (true) {
                boolean interior = true;
                long off = 0;
                for (int d = 0; d < n; d++) {
                    int[] run = runs.get(d).get(k[d]);
                    interior &= run[3] == 0;
                    lo[d] = run[0];
                    hi[d] = run[0] + run[1] - 1;
                    off += run[2] * storeStrides[me][d];
                }
                if (!interior) {
                    transfer(GET, lo, hi, local, off, ld, 1, Mode.DEFERRED);
                }
                for (int d = n - 1; d >= 0; d--) {
                    if (++k[d] < runs.get(d).size()) {
                        continue outer;
                    }
                    k[d] = 0;
                }
                break;
            }
            win.flushLocalAll();
        }
        sync();
    }

    // ---------------------------------------------------------------------------------------- collectives

    /** Every rank's value, in rank order (a put to every rank of a scratch window, then barriers). */
    private long[] allgather(long v) {
        comm.barrier();
        long[] one = {v};
        for (int r = 0; r < nranks; r++) {
            scratch.put(one, 1, Datatype.LONG, r, me);
        }
        scratch.flushAll();
        comm.barrier();
        scratch.sync();
        long[] all = new long[nranks];
        for (int r = 0; r < nranks; r++) {
            all[r] = scratchBuf.getLong(8 * r);
        }
        return all;
    }

    // ---------------------------------------------------------------------------------------- checks

    private void checkLive() {
        if (freed) {
            throw new RmaException(ErrorClass.ERR_WIN, "global array '" + name + "' was freed");
        }
    }

    private void checkRank(int rank) {
        if (rank < 0 || rank >= nranks) {
            throw new RmaException(ErrorClass.ERR_RANK,
                    "rank " + rank + " is not in the array's communicator of size " + nranks);
        }
    }

    private void checkIndex(int[] idx, String what) {
        if (idx == null || idx.length != dims.length) {
            throw new RmaException(ErrorClass.ERR_ARG, what + ": subscript " + Arrays.toString(idx) + " needs "
                    + dims.length + " indices");
        }
        for (int d = 0; d < idx.length; d++) {
            if (idx[d] < 0 || idx[d] >= dims[d]) {
                throw new RmaException(ErrorClass.ERR_RMA_RANGE, what + ": subscript " + Arrays.toString(idx)
                        + " is outside array '" + name + "' of dimensions " + Arrays.toString(dims));
            }
        }
    }

    /** Validates lo..hi and returns its shape (zeros for an empty patch). */
    private int[] checkPatch(int[] lo, int[] hi, String what) {
        int n = dims.length;
        if (lo == null || hi == null || lo.length != n || hi.length != n) {
            throw new RmaException(ErrorClass.ERR_ARG,
                    what + ": patch " + Arrays.toString(lo) + ".." + Arrays.toString(hi)
                    + " needs " + n + " indices on each side");
        }
        int[] shape = new int[n];
        for (int d = 0; d < n; d++) {
            if (hi[d] < lo[d] - 1) {
                throw new RmaException(ErrorClass.ERR_ARG,
                        what + ": patch " + Arrays.toString(lo) + ".." + Arrays.toString(hi)
                        + " has hi < lo - 1 in dimension " + d);
            }
            if (lo[d] < 0 || hi[d] >= dims[d] || lo[d] > dims[d]) {
                throw new RmaException(ErrorClass.ERR_RMA_RANGE, what + ": patch " + Arrays.toString(lo) + ".."
                        + Arrays.toString(hi) + " is outside array '" + name + "' of dimensions "
                        + Arrays.toString(dims));
            }
            shape[d] = hi[d] - lo[d] + 1;
        }
        return shape;
    }

    @Override
    public String toString() {
        return "GlobalArray '" + name + "' " + type + Arrays.toString(dims) + " " + dist
                + (Arrays.stream(ghosts).anyMatch(g -> g > 0) ? " ghosts " + Arrays.toString(ghosts) : "")
                + " grid " + Arrays.toString(map.grid);
    }
}

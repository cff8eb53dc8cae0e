package io.jrma.ga;

import static io.jrma.ga.GaTransfers.ACC;
import static io.jrma.ga.GaTransfers.GET;
import static io.jrma.ga.GaTransfers.PUT;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Info;
import io.jrma.Request;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.ga.GaTransfers.Mode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
    final Comm comm;
    final ElemType type;
    final int[] dims;
    private final Distribution dist;
    final DistMap map;
    final int[] ghosts;
    final String name;
    final int me;
    final int nranks;
    final Win win;
    private final Win scratch;
    final ByteBuffer local;
    private final ByteBuffer scratchBuf;
    /** Storage extents (interior + 2 ghosts) of every rank, and their element strides. */
    final int[][] storeDims;
    final long[][] storeStrides;
    /** This rank's pieces of the whole array (one for blocked distributions). */
    final List<Patch> myBoxes;
    private volatile boolean freed;
    /** The one-sided data movement: patches and element lists. */
    final GaTransfers transfers;
    /** The collective arithmetic over the whole array and patches. */
    final GaArithmetic arith;
    private final GaGhosts ghostExchange;


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
        int[] g = GaCreation.checkArguments(comm, type, dims, dist, ghosts);
        int n = dims.length;
        this.comm = comm;
        this.type = type;
        this.dims = dims.clone();
        this.dist = dist;
        this.ghosts = g;
        this.name = name;
        this.me = comm.rank();
        this.nranks = comm.size();
        this.map = dist.resolve(this.dims, nranks);
        this.storeDims = GaCreation.storeDims(map, g, nranks);
        this.storeStrides = GaCreation.storeStrides(storeDims);
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
        this.transfers = new GaTransfers(this);
        this.arith = new GaArithmetic(this);
        this.ghostExchange = new GaGhosts(this);
        GaCreation.checkSame(this, dist);
    }

    /** The highest index of every dimension. */
    int[] maxIndex() {
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
        GaChecks.rank(this, rank);
        if (!map.blocked) {
            throw new RmaException(ErrorClass.ERR_ARG, "distribution(rank): a block-cyclic array's rank owns many "
                    + "patches: use ownedPatches(rank)");
        }
        return map.patchOf(rank);
    }

    /** Every patch {@code rank} owns: one (or none) for blocked distributions, one per block for block-cyclic. */
    public List<Patch> ownedPatches(int rank) {
        checkLive();
        GaChecks.rank(this, rank);
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
        transfers.transfer(PUT, lo, hi, buf, offset, ld, 1, Mode.BLOCKING);
    }

    /** Copies patch lo..hi into a packed buffer. */
    public void get(int[] lo, int[] hi, Object buf) {
        get(lo, hi, buf, 0, null);
    }

    public void get(int[] lo, int[] hi, Object buf, long offset, int[] ld) {
        transfers.transfer(GET, lo, hi, buf, offset, ld, 1, Mode.BLOCKING);
    }

    /** {@code patch += alpha * buf}, atomic per element (MPI accumulate with SUM). */
    public void acc(int[] lo, int[] hi, Object buf, double alpha) {
        acc(lo, hi, buf, 0, null, alpha);
    }

    public void acc(int[] lo, int[] hi, Object buf, long offset, int[] ld, double alpha) {
        transfers.transfer(ACC, lo, hi, buf, offset, ld, alpha, Mode.BLOCKING);
    }

    /** Non-blocking put (Win.rput per owner); completes when the buffer may be reused. */
    public CompletableFuture<Void> nbPut(int[] lo, int[] hi, Object buf, long offset, int[] ld) {
        return GaTransfers.future(transfers.transfer(PUT, lo, hi, buf, offset, ld, 1, Mode.NONBLOCKING));
    }

    /** Non-blocking get (Win.rget per owner); completes when the data is in the buffer. */
    public CompletableFuture<Void> nbGet(int[] lo, int[] hi, Object buf, long offset, int[] ld) {
        return GaTransfers.future(transfers.transfer(GET, lo, hi, buf, offset, ld, 1, Mode.NONBLOCKING));
    }

    /** Non-blocking accumulate (Win.raccumulate per owner); completes when the buffer may be reused. */
    public CompletableFuture<Void> nbAcc(int[] lo, int[] hi, Object buf, long offset, int[] ld, double alpha) {
        return GaTransfers.future(transfers.transfer(ACC, lo, hi, buf, offset, ld, alpha, Mode.NONBLOCKING));
    }

    // ---------------------------------------------------------------------------------------- element lists

    /** {@code a[subscripts[i]] = values[i]} (one put per owner; a repeated subscript gets its last value). */
    public void scatter(Object values, int[][] subscripts) {
        transfers.elements(PUT, values, subscripts, 1);
    }

    /** {@code values[i] = a[subscripts[i]]} (one get per owner). */
    public void gather(Object values, int[][] subscripts) {
        transfers.elements(GET, values, subscripts, 1);
    }

    /** {@code a[subscripts[i]] += alpha * values[i]}, atomic per element (one accumulate per owner). */
    public void scatterAcc(Object values, int[][] subscripts, double alpha) {
        transfers.elements(ACC, values, subscripts, alpha);
    }

    /** Element displacement of a global index in its owner's window. */
    long localDisp(int rank, int[] idx) {
        long disp = 0;
        for (int d = 0; d < idx.length; d++) {
            disp += (long) (map.dm[d].localIndex(idx[d]) + ghosts[d]) * storeStrides[rank][d];
        }
        return disp;
    }

    // ---------------------------------------------------------------------------------------- atomics

    /** Atomic fetch-and-add on an INT or LONG element; returns the old value. */
    public long readInc(int[] subscript, long inc) {
        return GaAtomics.readInc(this, subscript, inc);
    }

    /** Atomic compare-and-swap on an INT or LONG element; returns the old value (swapped iff it equals expected). */
    public long compareAndSwap(int[] subscript, long expected, long newValue) {
        return GaAtomics.compareAndSwap(this, subscript, expected, newValue);
    }

    // ---------------------------------------------------------------------------------------- whole array

    /** Collective: every element (and ghost cell) = 0. */
    public void zero() {
        arith.zero();
    }

    /** Collective: every element = value (integral for INT/LONG arrays). */
    public void fill(double value) {
        arith.fill(value);
    }

    /** Collective: elements of patch lo..hi = value, owner computes. */
    public void fillPatch(int[] lo, int[] hi, double value) {
        arith.fillPatch(lo, hi, value);
    }

    /** Collective: every element *= alpha. */
    public void scale(double alpha) {
        arith.scale(alpha);
    }

    /** Collective: elements of patch lo..hi *= alpha (integral alpha for INT/LONG), owner computes. */
    public void scalePatch(int[] lo, int[] hi, double alpha) {
        arith.scalePatch(lo, hi, alpha);
    }

    /**
     * Collective: {@code this = alpha * a + beta * b}, owner computes; same dimensions and element type;
     * operands with another distribution are fetched with get (one per owner per local patch).
     */
    public void add(double alpha, GlobalArray a, double beta, GlobalArray b) {
        arith.add(alpha, a, beta, b);
    }

    /** Collective: {@code this = src} (any distributions; same dimensions and type): each owner gets its part. */
    public void copyFrom(GlobalArray src) {
        arith.copyFrom(src);
    }

    /** Collective: sum of this[i] * b[i] over all elements (computed in long for INT/LONG, double otherwise). */
    public double dot(GlobalArray b) {
        return arith.dot(b);
    }

    /** Collective: {@link #dot} of INT or LONG arrays, exact (wrapping) in long arithmetic. */
    public long dotLong(GlobalArray b) {
        return arith.dotLong(b);
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
        arith.copyPatch(src, srcLo, srcHi, dstLo, dstHi);
    }

    /**
     * Collective (NGA_Add_patch): {@code this[cLo..cHi] = alpha * a[aLo..aHi] + beta * b[bLo..bHi]}; the three
     * patches have the same shape, the arrays the same element type (any distributions; a or b may be this
     * array). Owner computes, reading operands before anyone writes.
     */
    public void addPatch(double alpha, GlobalArray a, int[] aLo, int[] aHi, double beta, GlobalArray b, int[] bLo,
                         int[] bHi, int[] cLo, int[] cHi) {
        arith.addPatch(alpha, a, aLo, aHi, beta, b, bLo, bHi, cLo, cHi);
    }

    /**
     * Collective (NGA_Ddot_patch): the sum of {@code this[aLo..aHi][i] * b[bLo..bHi][i]} over the patches'
     * elements in row-major order (same shape), the same on every rank; computed in long for INT/LONG arrays.
     */
    public double dotPatch(GlobalArray b, int[] aLo, int[] aHi, int[] bLo, int[] bHi) {
        return arith.dotPatch(b, aLo, aHi, bLo, bHi);
    }

    // ---------------------------------------------------------------------------------------- ghosts

    /** Collective: fills every ghost cell (faces, edges, corners) from its owner; not periodic. */
    public void updateGhosts() {
        updateGhosts(new boolean[dims.length]);
    }

    /** Collective: fills ghost cells; {@code periodic[d]} wraps dimension d (else out-of-array ghosts are kept). */
    public void updateGhosts(boolean... periodic) {
        ghostExchange.update(periodic);
    }

    // ---------------------------------------------------------------------------------------- collectives

    /** Every rank's value, in rank order (a put to every rank of a scratch window, then barriers). */
    long[] allgather(long v) {
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

    void checkLive() {
        if (freed) {
            throw new RmaException(ErrorClass.ERR_WIN, "global array '" + name + "' was freed");
        }
    }

    /** Validates a subscript of one element ({@link GaChecks#index}). */
    void checkIndex(int[] idx, String what) {
        GaChecks.index(this, idx, what);
    }

    /** Validates lo..hi and returns its shape (zeros for an empty patch): {@link GaChecks#patch}. */
    int[] checkPatch(int[] lo, int[] hi, String what) {
        return GaChecks.patch(this, lo, hi, what);
    }

    /** Refuses a floating-point array ({@link GaChecks#integer}). */
    void requireInteger(String what) {
        GaChecks.integer(this, what);
    }
    @Override
    public String toString() {
        return "GlobalArray '" + name + "' " + type + Arrays.toString(dims) + " " + dist
                + (Arrays.stream(ghosts).anyMatch(g -> g > 0) ? " ghosts " + Arrays.toString(ghosts) : "")
                + " grid " + Arrays.toString(map.grid);
    }
}

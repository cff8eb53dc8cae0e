package io.jrma;

import io.jrma.core.dt.BasicType;
import io.jrma.core.dt.LayoutBuilder;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.mem.BufferRef;

/**
 * An MPI datatype: a type map of (basic type, byte displacement) entries plus MPI lower and upper bounds.
 * The predefined types are the constants of this class (one per {@link BasicType}, plus aliases that are the
 * same objects); derived types are built with the MPI constructors ({@link #contiguous}, {@link #vector},
 * {@link #hvector}, {@link #indexed}, {@link #hindexed}, {@link #indexedBlock}, {@link #hindexedBlock},
 * {@link #subarray}, {@link #resized}, {@link #struct}) with 64-bit counts and displacements.
 *
 * <p><b>Bounds.</b> They follow the MPI standard: a constructor places copies of its old type(s) at
 * displacements; every copy contributes {@code disp + old.lb()} and {@code disp + old.ub()} to the new lower
 * and upper bound (so the explicit bounds of {@link #resized} types propagate), and {@code lb}/{@code ub}
 * are the minimum and maximum of those. A type whose type map is empty (for example {@code contiguous(0,
 * INT)}) has {@code lb = ub = 0} and contributes no bounds where it is placed. <b>No alignment padding</b>
 * (the "epsilon" of the standard) is ever added, in particular not by {@link #struct}: use {@link #resized}
 * to get the extent of a padded C struct. The true bounds ({@link #trueLb()}, {@link #trueExtent()}) cover
 * the bytes holding data only.
 *
 * <p><b>Errors.</b> Negative counts or block lengths throw {@code RmaException(ERR_COUNT)}; null or
 * mismatched arrays, invalid subarray shapes, and displacements or sizes overflowing 64 bits throw
 * {@code ERR_ARG}; null old types throw {@code ERR_TYPE}. Constructing from uncommitted types is allowed;
 * communicating with one is not (see {@link #requireCommitted}). The flattened form is limited to
 * {@link TypeLayout#MAX_BLOCKS} non-contiguous blocks per instance ({@code ERR_ARG} beyond).
 *
 * <p>Immutable and thread-safe, except for the name ({@link #setName}) and the one-way commit flag, both
 * volatile.
 */
public final class Datatype {
    /** Memory order of {@link #subarray} dimensions. */
    public enum Order {
        /** Row-major: the last dimension varies fastest. */
        C,
        /** Column-major: the first dimension varies fastest. */
        FORTRAN
    }

    public static final Datatype BYTE = predefined(BasicType.BYTE);
    public static final Datatype BOOLEAN = predefined(BasicType.BOOLEAN);
    public static final Datatype CHAR = predefined(BasicType.CHAR);
    public static final Datatype SHORT = predefined(BasicType.SHORT);
    public static final Datatype INT = predefined(BasicType.INT);
    public static final Datatype LONG = predefined(BasicType.LONG);
    public static final Datatype FLOAT = predefined(BasicType.FLOAT);
    public static final Datatype DOUBLE = predefined(BasicType.DOUBLE);
    public static final Datatype INT8 = predefined(BasicType.INT8);
    public static final Datatype UINT8 = predefined(BasicType.UINT8);
    public static final Datatype UINT16 = predefined(BasicType.UINT16);
    public static final Datatype UINT32 = predefined(BasicType.UINT32);
    public static final Datatype UINT64 = predefined(BasicType.UINT64);
    public static final Datatype FLOAT_COMPLEX = predefined(BasicType.FLOAT_COMPLEX);
    public static final Datatype DOUBLE_COMPLEX = predefined(BasicType.DOUBLE_COMPLEX);
    public static final Datatype SHORT_INT = predefined(BasicType.SHORT_INT);
    public static final Datatype INT_INT = predefined(BasicType.INT_INT);
    public static final Datatype LONG_INT = predefined(BasicType.LONG_INT);
    public static final Datatype FLOAT_INT = predefined(BasicType.FLOAT_INT);
    public static final Datatype DOUBLE_INT = predefined(BasicType.DOUBLE_INT);
    /** Alias of {@link #SHORT}. */
    public static final Datatype INT16 = SHORT;
    /** Alias of {@link #INT}. */
    public static final Datatype INT32 = INT;
    /** Alias of {@link #LONG}. */
    public static final Datatype INT64 = LONG;
    /** Alias of {@link #LONG} (MPI_AINT: addresses and displacements). */
    public static final Datatype AINT = LONG;
    /** Alias of {@link #LONG} (MPI_OFFSET). */
    public static final Datatype OFFSET = LONG;
    /** Alias of {@link #LONG} (MPI_COUNT). */
    public static final Datatype COUNT = LONG;

    private final TypeLayout layout;
    private final long lb;
    private final long ub;
    /** False iff the type map is empty (no entries, no explicit bounds): then lb = ub = 0. */
    private final boolean bounded;
    private final boolean predefined;
    private volatile boolean committed;
    private volatile String name;

    private Datatype(TypeLayout layout, long lb, long ub, boolean bounded, boolean predefined, String name) {
        this.layout = layout;
        this.lb = lb;
        this.ub = ub;
        this.bounded = bounded;
        this.predefined = predefined;
        this.committed = predefined;
        this.name = name;
    }

    private static Datatype predefined(BasicType t) {
        return new Datatype(TypeLayout.of(t), 0, t.extent(), true, true, t.name());
    }

    // ------------------------------------------------------------------------------------------ constructors

    /** {@code count} copies of {@code old}, copy {@code i} at {@code i * old.extent()}. */
    public static Datatype contiguous(long count, Datatype old) {
        checkType(old, "old");
        checkCount(count, "count");
        Acc a = new Acc();
        a.place(old, 0, count);
        return a.done("contiguous(" + count + ", " + old.name() + ")");
    }

    /**
     * {@code count} blocks of {@code blocklength} copies of {@code old}; block {@code i} starts at
     * {@code i * stride * old.extent()}.
     */
    public static Datatype vector(long count, long blocklength, long stride, Datatype old) {
        checkType(old, "old");
        checkCount(count, "count");
        checkCount(blocklength, "blocklength");
        long strideBytes = Checked.mul(stride, old.extent(), "stride");
        Acc a = new Acc();
        a.strided(old, count, blocklength, strideBytes);
        return a.done("vector(" + count + ", " + blocklength + ", " + stride + ", " + old.name() + ")");
    }

    /** Like {@link #vector} with the stride in bytes (may be negative). */
    public static Datatype hvector(long count, long blocklength, long strideBytes, Datatype old) {
        checkType(old, "old");
        checkCount(count, "count");
        checkCount(blocklength, "blocklength");
        Acc a = new Acc();
        a.strided(old, count, blocklength, strideBytes);
        return a.done("hvector(" + count + ", " + blocklength + ", " + strideBytes + ", " + old.name() + ")");
    }

    /** Block {@code i}: {@code blocklengths[i]} copies of {@code old} at {@code displacements[i] * old.extent()}. */
    public static Datatype indexed(long[] blocklengths, long[] displacements, Datatype old) {
        checkType(old, "old");
        checkArrays(blocklengths, "blocklengths", displacements, "displacements");
        Acc a = new Acc();
        for (int i = 0; i < blocklengths.length; i++) {
            checkCount(blocklengths[i], "blocklengths[" + i + "]");
            a.place(old, Checked.mul(displacements[i], old.extent(), "displacements[" + i + "]"),
                    blocklengths[i]);
        }
        return a.done("indexed(" + blocklengths.length + " blocks, " + old.name() + ")");
    }

    /** Like {@link #indexed} with the displacements in bytes. */
    public static Datatype hindexed(long[] blocklengths, long[] byteDisplacements, Datatype old) {
        checkType(old, "old");
        checkArrays(blocklengths, "blocklengths", byteDisplacements, "byteDisplacements");
        Acc a = new Acc();
        for (int i = 0; i < blocklengths.length; i++) {
            checkCount(blocklengths[i], "blocklengths[" + i + "]");
            a.place(old, byteDisplacements[i], blocklengths[i]);
        }
        return a.done("hindexed(" + blocklengths.length + " blocks, " + old.name() + ")");
    }

    /** Like {@link #indexed} with the same block length for every block. */
    public static Datatype indexedBlock(long blocklength, long[] displacements, Datatype old) {
        checkType(old, "old");
        checkCount(blocklength, "blocklength");
        checkArray(displacements, "displacements");
        Acc a = new Acc();
        for (int i = 0; i < displacements.length; i++) {
            a.place(old, Checked.mul(displacements[i], old.extent(), "displacements[" + i + "]"),
                    blocklength);
        }
        return a.done("indexedBlock(" + blocklength + ", " + displacements.length + " blocks, " + old.name() + ")");
    }

    /** Like {@link #hindexed} with the same block length for every block. */
    public static Datatype hindexedBlock(long blocklength, long[] byteDisplacements, Datatype old) {
        checkType(old, "old");
        checkCount(blocklength, "blocklength");
        checkArray(byteDisplacements, "byteDisplacements");
        Acc a = new Acc();
        for (long d : byteDisplacements) {
            a.place(old, d, blocklength);
        }
        return a.done("hindexedBlock(" + blocklength + ", " + byteDisplacements.length + " blocks, "
                + old.name() + ")");
    }

    /**
     * The sub-box {@code [starts, starts + subsizes)} of an array of {@code sizes} elements of {@code old}
     * stored in {@code order}; as in MPI its lower bound is 0 and its extent that of the whole array
     * ({@code product(sizes) * old.extent()}). Every dimension needs {@code sizes[i] >= 1},
     * {@code subsizes[i] >= 1} and {@code 0 <= starts[i] <= sizes[i] - subsizes[i]}.
     */
    public static Datatype subarray(long[] sizes, long[] subsizes, long[] starts, Order order, Datatype old) {
        checkType(old, "old");
        checkArrays(sizes, "sizes", subsizes, "subsizes");
        checkArrays(sizes, "sizes", starts, "starts");
        if (order == null) {
            throw new RmaException(ErrorClass.ERR_ARG, "subarray order is null");
        }
        int n = sizes.length;
        if (n == 0) {
            throw new RmaException(ErrorClass.ERR_ARG, "subarray needs at least one dimension");
        }
        for (int i = 0; i < n; i++) {
            if (sizes[i] <= 0) {
                throw new RmaException(ErrorClass.ERR_ARG,
                        "subarray sizes[" + i + "] = " + sizes[i] + " is not positive");
            }
            if (subsizes[i] <= 0 || subsizes[i] > sizes[i]) {
                throw new RmaException(ErrorClass.ERR_ARG, "subarray subsizes[" + i + "] = " + subsizes[i]
                        + " is outside 1.." + sizes[i]);
            }
            if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i]) {
                throw new RmaException(ErrorClass.ERR_ARG, "subarray starts[" + i + "] = " + starts[i]
                        + " is outside 0.." + (sizes[i] - subsizes[i]));
            }
        }
        // Build from the fastest-varying dimension outwards; stride = bytes between consecutive indices.
        long stride = old.extent();
        long disp = 0;
        Datatype t = null;
        for (int k = 0; k < n; k++) {
            int dim = order == Order.C ? n - 1 - k : k;
            t = k == 0 ? contiguous(subsizes[dim], old) : hvector(subsizes[dim], 1, stride, t);
            disp = Checked.add(disp, Checked.mul(starts[dim], stride, "subarray offset"),
                    "subarray offset");
            stride = Checked.mul(stride, sizes[dim], "subarray extent");
        }
        Datatype placed = hindexedBlock(1, new long[] {disp}, t);
        Datatype r = resized(placed, 0, stride);
        r.name = "subarray(" + n + " dims, " + order + ", " + old.name() + ")";
        return r;
    }

    /**
     * The type map of {@code old} with lower bound {@code lb} and extent {@code extent} (upper bound {@code lb +
     * extent}).
     */
    public static Datatype resized(Datatype old, long lb, long extent) {
        checkType(old, "old");
        long ub = Checked.add(lb, extent, "lb + extent");
        TypeLayout l = new LayoutBuilder().place(old.layout, 0, 1).build(lb, extent);
        return new Datatype(l, lb, ub, true, false, "resized(" + old.name() + ", " + lb + ", " + extent + ")");
    }

    /**
     * Block {@code i}: {@code blocklengths[i]} copies of {@code types[i]} starting at byte
     * {@code byteDisplacements[i]}. No alignment padding is added to the extent (see the class comment).
     */
    public static Datatype struct(long[] blocklengths, long[] byteDisplacements, Datatype[] types) {
        checkArrays(blocklengths, "blocklengths", byteDisplacements, "byteDisplacements");
        if (types == null) {
            throw new RmaException(ErrorClass.ERR_ARG, "types array is null");
        }
        if (types.length != blocklengths.length) {
            throw new RmaException(ErrorClass.ERR_ARG, "types has length " + types.length
                    + " but blocklengths has length " + blocklengths.length);
        }
        for (int i = 0; i < types.length; i++) {
            checkType(types[i], "types[" + i + "]");
            checkCount(blocklengths[i], "blocklengths[" + i + "]");
        }
        Acc a = new Acc();
        for (int i = 0; i < types.length; i++) {
            a.place(types[i], byteDisplacements[i], blocklengths[i]);
        }
        return a.done("struct(" + types.length + " blocks)");
    }

    // ---------------------------------------------------------------------------------------------- queries

    /** Marks the type usable for communication; returns this. Idempotent. */
    public Datatype commit() {
        committed = true;
        return this;
    }

    public boolean isCommitted() {
        return committed;
    }

    /** True for the predefined constants (which are always committed). */
    public boolean isPredefined() {
        return predefined;
    }

    /** Bytes of data in one instance (the sum of the sizes of the type-map entries). */
    public long size() {
        return layout.size();
    }

    /** {@code ub() - lb()}: the distance between consecutive instances. */
    public long extent() {
        return ub - lb;
    }

    public long lb() {
        return lb;
    }

    public long ub() {
        return ub;
    }

    /** Lowest byte displacement holding data (0 if the size is 0). */
    public long trueLb() {
        return layout.trueLb();
    }

    /** Bytes from the lowest to one past the highest byte holding data (0 if the size is 0). */
    public long trueExtent() {
        return layout.trueUb() - layout.trueLb();
    }

    public String name() {
        return name;
    }

    /** Sets the name reported by {@link #name()} and in error messages (any type, predefined included). */
    public void setName(String name) {
        if (name == null) {
            throw new RmaException(ErrorClass.ERR_ARG, "datatype name is null");
        }
        this.name = name;
    }

    /** The single basic type of every type-map entry, or {@code null} if they differ or there are none. */
    public BasicType elementType() {
        return layout.elementType();
    }

    /** Internal: the flattened form used by the data-movement engine. Not part of the supported API. */
    public TypeLayout layout() {
        return layout;
    }

    /** Throws {@code RmaException(ERR_TYPE)} unless committed; {@code role} names the use (e.g. "origin"). */
    public void requireCommitted(String role) {
        if (!committed) {
            throw new RmaException(ErrorClass.ERR_TYPE, role + " datatype " + name + " is not committed");
        }
    }

    // ------------------------------------------------------------------------------------- pack and unpack

    /**
     * MPI_Pack: copies the data of {@code count} instances of this type, whose origin is byte {@code offset}
     * of {@code buf}, into {@code packed} starting at byte {@code packedOffset}, back to back in type-map order
     * (no gaps, little-endian as in memory). Buffers are primitive arrays, ByteBuffers (addressed from their
     * first byte; position and limit are ignored) or native BytesStores. Local; any thread.
     *
     * @return bytes written: {@code count * size()}
     * @throws RmaException ERR_TYPE if this type is not committed, ERR_COUNT if {@code count < 0}, ERR_BUFFER
     *     if a buffer is not usable or the data would fall outside either buffer (nothing is written then)
     */
    public long pack(Object buf, long offset, long count, Object packed, long packedOffset) {
        requireCommitted("pack");
        checkCount(count, "pack count");
        long bytes = Checked.mul(count, size(), "packed size");
        BufferRef in = BufferRef.resolve(buf, "pack input");
        BufferRef out = BufferRef.resolve(packed, "pack output");
        in.checkRange(offset, layout.dataLow(count), layout.dataHigh(count), "pack input");
        out.checkRange(packedOffset, 0, bytes, "pack output");
        TypeLayout.copy(in.base(), in.offset() + offset, count, layout, out.base(), out.offset() + packedOffset,
                bytes, BYTE.layout);
        return bytes;
    }

    /**
     * MPI_Unpack: copies packed bytes from {@code packed} (starting at byte {@code packedOffset}, at most
     * {@code length} of them) into {@code count} instances of this type whose origin is byte {@code offset}
     * of {@code buf}, in type-map order; stops when either side is exhausted, so a short input fills only
     * the first instances (possibly part of one). Local; any thread.
     *
     * @return bytes copied: {@code min(length, count * size())}
     * @throws RmaException ERR_TYPE if this type is not committed, ERR_COUNT if a count or length is negative,
     *     ERR_BUFFER if a buffer is not usable or the data would fall outside either buffer (nothing is written)
     */
    public long unpack(Object packed, long packedOffset, long length, Object buf, long offset, long count) {
        requireCommitted("unpack");
        checkCount(count, "unpack count");
        checkCount(length, "unpack length");
        long bytes = Math.min(length, Checked.mul(count, size(), "unpacked size"));
        BufferRef in = BufferRef.resolve(packed, "unpack input");
        BufferRef out = BufferRef.resolve(buf, "unpack output");
        in.checkRange(packedOffset, 0, bytes, "unpack input");
        out.checkRange(offset, layout.dataLow(count), layout.dataHigh(count), "unpack output");
        TypeLayout.copy(in.base(), in.offset() + packedOffset, bytes, BYTE.layout, out.base(), out.offset() + offset,
                count, layout);
        return bytes;
    }

    @Override
    public String toString() {
        return name + "[size=" + size() + ", lb=" + lb + ", extent=" + extent() + (committed ? "" : ", uncommitted")
                + "]";
    }

    // ---------------------------------------------------------------------------------------------- helpers

    private static void checkType(Datatype t, String what) {
        if (t == null) {
            throw new RmaException(ErrorClass.ERR_TYPE, what + " datatype is null");
        }
    }

    private static void checkCount(long n, String what) {
        if (n < 0) {
            throw new RmaException(ErrorClass.ERR_COUNT, what + " = " + n + " is negative");
        }
    }

    private static void checkArray(long[] a, String what) {
        if (a == null) {
            throw new RmaException(ErrorClass.ERR_ARG, what + " array is null");
        }
    }

    private static void checkArrays(long[] a, String aName, long[] b, String bName) {
        checkArray(a, aName);
        checkArray(b, bName);
        if (a.length != b.length) {
            throw new RmaException(ErrorClass.ERR_ARG, bName + " has length " + b.length + " but " + aName
                    + " has length " + a.length);
        }
    }

    /** Accumulates the data layout and the MPI bounds of a constructor's placements. */
    private static final class Acc {
        private final LayoutBuilder b = new LayoutBuilder();
        private long lo = Long.MAX_VALUE;
        private long hi = Long.MIN_VALUE;
        private boolean bounded;

        /** {@code k} consecutive copies of {@code old} starting at byte {@code disp}. */
        void place(Datatype old, long disp, long k) {
            if (k == 0) {
                return;
            }
            b.place(old.layout, disp, k);
            if (old.bounded) {
                long span = Checked.mul(k - 1, old.extent(), "block span");
                bound(disp, old, span);
            }
        }

        /** {@code count} blocks of {@code k} copies of {@code old}, block {@code i} at {@code i * stride}. */
        void strided(Datatype old, long count, long k, long stride) {
            if (count == 0 || k == 0) {
                return;
            }
            if (old.size() > 0) {
                // One block of k copies is a layout of extent `stride`; placing it count times lets the
                // builder merge gap-free blocks at once instead of looping over count.
                TypeLayout block = new LayoutBuilder().place(old.layout, 0, k).build(0, stride);
                b.place(block, 0, count);
            }
            if (old.bounded) {
                long last = Checked.mul(count - 1, stride, "stride");
                long span = Checked.mul(k - 1, old.extent(), "block span");
                bound(Math.min(0, last), old, Math.min(0, span));
                bound(Math.max(0, last), old, Math.max(0, span));
            }
        }

        /** Adds the bounds of copies of {@code old} at {@code disp} and {@code disp + span}. */
        private void bound(long disp, Datatype old, long span) {
            long a = Checked.add(disp, old.lb, "lower bound");
            long c = Checked.add(disp, old.ub, "upper bound");
            long a2 = Checked.add(a, span, "lower bound");
            long c2 = Checked.add(c, span, "upper bound");
            lo = Math.min(lo, Math.min(a, a2));
            hi = Math.max(hi, Math.max(c, c2));
            bounded = true;
        }

        Datatype done(String name) {
            long l = bounded ? lo : 0;
            long u = bounded ? hi : 0;
            long extent = Checked.sub(u, l, "extent");
            return new Datatype(b.build(l, extent), l, u, bounded, false, name);
        }
    }

    /** Checked 64-bit arithmetic that reports overflow as {@code RmaException(ERR_ARG)}. */
    private static final class Checked {
        static long add(long a, long b, String what) {
            try {
                return Math.addExact(a, b);
            } catch (ArithmeticException e) {
                throw new RmaException(ErrorClass.ERR_ARG, what + ": " + a + " + " + b + " overflows 64 bits");
            }
        }

        static long sub(long a, long b, String what) {
            try {
                return Math.subtractExact(a, b);
            } catch (ArithmeticException e) {
                throw new RmaException(ErrorClass.ERR_ARG, what + ": " + a + " - " + b + " overflows 64 bits");
            }
        }

        static long mul(long a, long b, String what) {
            try {
                return Math.multiplyExact(a, b);
            } catch (ArithmeticException e) {
                throw new RmaException(ErrorClass.ERR_ARG, what + ": " + a + " * " + b + " overflows 64 bits");
            }
        }
    }
}

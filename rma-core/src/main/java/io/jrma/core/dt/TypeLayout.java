package io.jrma.core.dt;

import io.jrma.core.err.ErrorKind;
import io.jrma.core.err.Errors;
import io.jrma.core.mem.BulkCopy;
import io.jrma.core.mem.Memory;
import java.util.Arrays;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The flattened, immutable form of a datatype that the data-movement engine works on.
 *
 * <p>For one instance of the type a layout holds:
 * <ul>
 *   <li>the data blocks as (byte offset, byte length) pairs in type-map order, with blocks that are adjacent
 *       in type-map order <em>and</em> in memory merged into one (a canonical layout never has a block that
 *       starts exactly where its predecessor ends, and never a block of length zero);</li>
 *   <li>the size (bytes of data), the lower bound and the extent (MPI {@code lb}, {@code ub - lb}), and the
 *       true lower and upper bounds of the data;</li>
 *   <li>the type signature, run-length encoded as {@code runTypes[i]} repeated {@code runCounts[i]} times,
 *       with adjacent runs of the same type merged.</li>
 * </ul>
 * {@code count} consecutive instances are instance {@code i} shifted by {@code i * extent()}; they are
 * walked with a {@link BlockCursor} without materialising anything per instance.
 *
 * <p>Layouts are built by {@link LayoutBuilder} (from {@code io.jrma.Datatype}), by {@link #of(BasicType)},
 * or decoded from the wire with {@link #decode(DirectBuffer, int, int)}, which validates its input. The
 * number of blocks and of runs of one instance is limited to {@link #MAX_BLOCKS} and {@link #MAX_RUNS}.
 *
 * <p>Immutable; any thread.
 */
public final class TypeLayout {
    /** Largest number of (merged) blocks one instance of a layout may have, locally and on the wire. */
    public static final int MAX_BLOCKS = 1 << 20;
    /** Largest number of signature runs one instance of a layout may have, locally and on the wire. */
    public static final int MAX_RUNS = 1 << 20;

    private static final TypeLayout[] BASIC = new TypeLayout[BasicType.values().length];

    static {
        for (BasicType t : BasicType.values()) {
            BASIC[t.ordinal()] = new TypeLayout(new long[] {0}, new long[] {t.size()},
                    new BasicType[] {t}, new long[] {1}, t.size(), 0, t.extent());
        }
    }

    private final long[] blockOffsets;
    private final long[] blockLengths;
    private final BasicType[] runTypes;
    private final long[] runCounts;
    private final long size;
    private final long lb;
    private final long extent;
    private final long trueLb;
    private final long trueUb;
    /** Basic elements in one instance. */
    private final long elements;

    /**
     * Takes ownership of the arrays, which must describe a canonical layout (checked by the callers: the
     * builder by construction, the decoder explicitly).
     */
    TypeLayout(long[] blockOffsets, long[] blockLengths, BasicType[] runTypes, long[] runCounts,
               long size, long lb, long extent) {
        this.blockOffsets = blockOffsets;
        this.blockLengths = blockLengths;
        this.runTypes = runTypes;
        this.runCounts = runCounts;
        this.size = size;
        this.lb = lb;
        this.extent = extent;
        long lo = 0;
        long hi = 0;
        for (int i = 0; i < blockOffsets.length; i++) {
            long end = blockOffsets[i] + blockLengths[i];
            if (i == 0 || blockOffsets[i] < lo) {
                lo = blockOffsets[i];
            }
            if (i == 0 || end > hi) {
                hi = end;
            }
        }
        this.trueLb = lo;
        this.trueUb = hi;
        long n = 0;
        for (long c : runCounts) {
            n += c;
        }
        this.elements = n;
    }

    /** The layout of one element of a predefined type: one block {@code [0, size)}, extent {@code t.extent()}. */
    public static TypeLayout of(BasicType t) {
        return BASIC[t.ordinal()];
    }

    /** Bytes of data in one instance. */
    public long size() {
        return size;
    }

    /** Distance in bytes between consecutive instances ({@code ub - lb}); may be zero or negative. */
    public long extent() {
        return extent;
    }

    /** The MPI lower bound of one instance. */
    public long lb() {
        return lb;
    }

    /** Lowest byte offset holding data in one instance (0 when the size is 0). */
    public long trueLb() {
        return trueLb;
    }

    /** One past the highest byte offset holding data in one instance (0 when the size is 0). */
    public long trueUb() {
        return trueUb;
    }

    /** True iff one instance is a single block and consecutive instances follow it without a gap. */
    public boolean isContiguous() {
        return blockOffsets.length == 1 && blockOffsets[0] == trueLb && blockLengths[0] == extent
                && extent == size;
    }

    /** The single basic type every element of the type map has, or {@code null} (mixed or empty). */
    public BasicType elementType() {
        return runTypes.length == 1 ? runTypes[0] : null;
    }

    /** Basic elements in one instance. */
    public long elementCount() {
        return elements;
    }

    /** Number of (merged) blocks in one instance. */
    public int blockCount() {
        return blockOffsets.length;
    }

    /** Byte offset of block {@code i} of one instance. */
    public long blockOffset(int i) {
        return blockOffsets[i];
    }

    /** Byte length of block {@code i} of one instance. */
    public long blockLength(int i) {
        return blockLengths[i];
    }

    /** Number of runs in the run-length encoded signature of one instance. */
    public int runCount() {
        return runTypes.length;
    }

    /** The basic type of signature run {@code i}. */
    public BasicType runType(int i) {
        return runTypes[i];
    }

    /** The number of elements of signature run {@code i}. */
    public long runElements(int i) {
        return runCounts[i];
    }

    /** A cursor over the blocks of {@code count} consecutive instances; see {@link BlockCursor}. */
    public BlockCursor cursor(long count) {
        if (count < 0) {
            throw Errors.of(ErrorKind.ERR_COUNT, "count " + count + " is negative");
        }
        return new BlockCursor(blockOffsets, blockLengths, extent, count, isContiguous());
    }

    /**
     * The lowest byte offset (relative to the buffer address) touched by {@code count} instances; 0 when
     * nothing is touched. Throws {@code ERR_COUNT} if the arithmetic overflows 64 bits.
     */
    public long dataLow(long count) {
        if (count <= 0 || size == 0) {
            return 0;
        }
        return add(trueLb, Math.min(0, span(count)), count);
    }

    /** One past the highest byte offset touched by {@code count} instances; 0 when nothing is touched. */
    public long dataHigh(long count) {
        if (count <= 0 || size == 0) {
            return 0;
        }
        return add(trueUb, Math.max(0, span(count)), count);
    }

    private long span(long count) {
        try {
            return Math.multiplyExact(count - 1, extent);
        } catch (ArithmeticException e) {
            throw overflow(count);
        }
    }

    private RuntimeException overflow(long count) {
        return Errors.of(ErrorKind.ERR_COUNT, "count " + count + " with extent " + extent
                + " overflows 64-bit offsets");
    }

    private long add(long a, long b, long count) {
        try {
            return Math.addExact(a, b);
        } catch (ArithmeticException e) {
            throw overflow(count);
        }
    }

    /**
     * True iff {@code count} instances of this layout and {@code otherCount} instances of {@code other} have
     * the same sequence of basic types. O(runs) when both sides are homogeneous, whatever the counts;
     * otherwise proportional to the runs walked before the first difference.
     */
    public boolean signatureMatches(long count, TypeLayout other, long otherCount) {
        if (count < 0 || otherCount < 0) {
            throw Errors.of(ErrorKind.ERR_COUNT, "count " + Math.min(count, otherCount) + " is negative");
        }
        long aHi = Math.multiplyHigh(count, elements);
        long aLo = count * elements;
        long bHi = Math.multiplyHigh(otherCount, other.elements);
        long bLo = otherCount * other.elements;
        if (aHi != bHi || aLo != bLo) {
            return false;
        }
        if (aHi == 0 && aLo == 0) {
            return true;
        }
        BasicType ta = elementType();
        BasicType tb = other.elementType();
        if (ta != null || tb != null) {
            // A non-empty homogeneous sequence only matches the same homogeneous sequence.
            return ta == tb;
        }
        return new RunWalker(this, count).sameAs(new RunWalker(other, otherCount));
    }

    /** Walks the runs of count instances, merging equal types across instance boundaries. */
    private static final class RunWalker {
        private final TypeLayout l;
        private final long count;
        private long instance;
        private int run;
        BasicType type;
        long left;

        RunWalker(TypeLayout l, long count) {
            this.l = l;
            this.count = count;
        }

        /** Loads the next merged run; false at the end. */
        boolean advance() {
            if (instance >= count) {
                return false;
            }
            type = l.runTypes[run];
            left = l.runCounts[run];
            step();
            while (instance < count && l.runTypes[run] == type) {
                left += l.runCounts[run];
                step();
            }
            return true;
        }

        private void step() {
            if (++run == l.runTypes.length) {
                run = 0;
                instance++;
            }
        }

        boolean sameAs(RunWalker o) {
            boolean ha = advance();
            boolean hb = o.advance();
            while (ha && hb) {
                if (type != o.type) {
                    return false;
                }
                long n = Math.min(left, o.left);
                left -= n;
                o.left -= n;
                if (left == 0) {
                    ha = advance();
                }
                if (o.left == 0) {
                    hb = o.advance();
                }
            }
            return ha == hb;
        }
    }

    /**
     * Receives the runs of {@link #zip}: {@code length} bytes at {@code offsetA} pair with those at {@code offsetB}.
     */
    @FunctionalInterface
    public interface ZipVisitor {
        void run(long offsetA, long offsetB, long length);
    }

    /**
     * Walks two block streams in lock step, calling {@code v} once per maximal run that lies inside one
     * block of each side (blocks are split at the shorter one). Stops when either side is exhausted.
     */
    public static void zip(BlockCursor a, BlockCursor b, ZipVisitor v) {
        if (!a.next() || !b.next()) {
            return;
        }
        long ao = a.offset();
        long al = a.length();
        long bo = b.offset();
        long bl = b.length();
        while (true) {
            long n = Math.min(al, bl);
            v.run(ao, bo, n);
            ao += n;
            al -= n;
            bo += n;
            bl -= n;
            if (al == 0) {
                if (!a.next()) {
                    return;
                }
                ao = a.offset();
                al = a.length();
            }
            if (bl == 0) {
                if (!b.next()) {
                    return;
                }
                bo = b.offset();
                bl = b.length();
            }
        }
    }

    /**
     * Copies the data of {@code srcCount} instances of {@code src} at (srcBase, srcOffset) into
     * {@code dstCount} instances of {@code dst} at (dstBase, dstOffset), in type-map order, stopping when
     * either side's data is exhausted. Addresses are (base, offset) pairs (see {@link Memory}).
     * The caller has checked signatures and bounds; nothing is checked here.
     */
    public static void copy(Object srcBase, long srcOffset, long srcCount, TypeLayout src,
                            Object dstBase, long dstOffset, long dstCount, TypeLayout dst) {
        if (src.isContiguous() && dst.isContiguous()) {
            long n = Math.min(srcCount * src.size, dstCount * dst.size);
            if (n > 0) {
                BulkCopy.copy(srcBase, srcOffset + src.trueLb, dstBase, dstOffset + dst.trueLb, n);
            }
            return;
        }
        zip(src.cursor(srcCount), dst.cursor(dstCount),
                (a, b, n) -> BulkCopy.copy(srcBase, srcOffset + a, dstBase, dstOffset + b, n));
    }

    /** Bytes {@link #encode} writes. */
    public int encodedLength() {
        return TypeLayoutCodec.encodedLength(blockOffsets.length, runTypes.length);
    }

    /** Writes the wire form (see {@link TypeLayoutCodec}) at {@code index}; needs {@link #encodedLength()} bytes. */
    public void encode(MutableDirectBuffer buf, int index) {
        TypeLayoutCodec.encode(this, buf, index);
    }

    /**
     * Reads and fully validates a layout written by {@link #encode}; throws {@code RmaException(ERR_TYPE)}
     * naming the offending value on any malformed input, never another exception type.
     */
    public static TypeLayout decode(DirectBuffer buf, int index, int available) {
        return TypeLayoutCodec.decode(buf, index, available);
    }

    long[] blockOffsetsRef() {
        return blockOffsets;
    }

    long[] blockLengthsRef() {
        return blockLengths;
    }

    BasicType[] runTypesRef() {
        return runTypes;
    }

    long[] runCountsRef() {
        return runCounts;
    }

    /** Structural equality: same blocks, signature runs, size, lb and extent. */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof TypeLayout)) {
            return false;
        }
        TypeLayout t = (TypeLayout) o;
        return size == t.size && lb == t.lb && extent == t.extent
                && Arrays.equals(blockOffsets, t.blockOffsets) && Arrays.equals(blockLengths, t.blockLengths)
                && Arrays.equals(runTypes, t.runTypes) && Arrays.equals(runCounts, t.runCounts);
    }

    @Override
    public int hashCode() {
        int h = Long.hashCode(size) * 31 + Long.hashCode(lb);
        h = h * 31 + Long.hashCode(extent);
        h = h * 31 + Arrays.hashCode(blockOffsets);
        h = h * 31 + Arrays.hashCode(blockLengths);
        return h * 31 + Arrays.hashCode(runTypes);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("TypeLayout[size=").append(size).append(", lb=").append(lb)
                .append(", extent=").append(extent).append(", blocks=").append(blockOffsets.length)
                .append(", runs=").append(runTypes.length);
        int shown = Math.min(8, blockOffsets.length);
        sb.append(", {");
        for (int i = 0; i < shown; i++) {
            sb.append(i == 0 ? "" : " ").append('(').append(blockOffsets[i]).append(',').append(blockLengths[i])
                    .append(')');
        }
        return sb.append(shown < blockOffsets.length ? " ...}]" : "}]").toString();
    }
}

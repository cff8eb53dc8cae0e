package io.jrma.core.dt;

/**
 * A pull iterator over the data blocks of {@code count} consecutive instances of a {@link TypeLayout}
 * (instance {@code i} shifted by {@code i * extent}), in type-map order. A block that starts exactly where
 * the previous one ends is merged into it, also across instance boundaries, so a contiguous layout yields a
 * single block whatever the count.
 *
 * <p>Usage: {@code while (c.next()) { use(c.offset(), c.length()); }}. Uses O(1) memory beyond the layout.
 *
 * <p>Not thread-safe: one cursor per walk (layouts themselves are shared freely).
 */
public final class BlockCursor {
    private final long[] offsets;
    private final long[] lengths;
    private final long extent;
    private final long count;
    private final boolean dense;
    private long instance;
    private int block;
    private long base;
    private long offset;
    private long length;

    BlockCursor(long[] offsets, long[] lengths, long extent, long count, boolean dense) {
        this.offsets = offsets;
        this.lengths = lengths;
        this.extent = extent;
        this.dense = dense;
        this.count = offsets.length == 0 ? 0 : count;
    }

    /** Moves to the next (merged) block; false when there is none, after which the cursor stays exhausted. */
    public boolean next() {
        if (instance >= count) {
            return false;
        }
        if (dense) {
            // One block per instance, each starting where the previous ends: all of them are one block.
            offset = offsets[0];
            length = lengths[0] * count;
            instance = count;
            return true;
        }
        long o = base + offsets[block];
        long l = lengths[block];
        step();
        while (instance < count) {
            long no = base + offsets[block];
            if (no != o + l) {
                break;
            }
            l += lengths[block];
            step();
        }
        offset = o;
        length = l;
        return true;
    }

    private void step() {
        if (++block == offsets.length) {
            block = 0;
            instance++;
            base += extent;
        }
    }

    /** Byte offset of the current block, relative to the address of instance 0. */
    public long offset() {
        return offset;
    }

    /** Byte length of the current block (always positive). */
    public long length() {
        return length;
    }
}

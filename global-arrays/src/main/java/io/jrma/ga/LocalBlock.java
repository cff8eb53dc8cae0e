package io.jrma.ga;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * Zero-copy view of this rank's block of a global array: the window memory itself ({@code Win.buffer()}),
 * little-endian, row-major over the storage dimensions (interior plus ghost cells on both sides).
 *
 * <p>For block and irregular distributions {@link #index(int...)} maps a global index (ghost cells included:
 * {@code lo - ghost .. hi + ghost}) to an element index in the buffer. For block-cyclic arrays the buffer
 * holds this rank's blocks packed in local index space: use {@link #localIndex(int...)}.
 *
 * <p>Loads and stores through this view race with remote puts and gets unless separated by
 * {@link GlobalArray#sync()} (which also does the Win.sync the unified memory model needs).
 */
public final class LocalBlock {
    private final ByteBuffer buffer;
    private final ElemType type;
    private final Patch patch;
    private final int[] ghosts;
    private final int[] storageDims;
    private final long[] strides;

    LocalBlock(ByteBuffer buffer, ElemType type, Patch patch, int[] ghosts, int[] storageDims) {
        this.buffer = buffer;
        this.type = type;
        this.patch = patch;
        this.ghosts = ghosts.clone();
        this.storageDims = storageDims.clone();
        this.strides = new long[storageDims.length];
        long s = 1;
        for (int d = storageDims.length - 1; d >= 0; d--) {
            strides[d] = s;
            s *= storageDims[d];
        }
    }

    /** The window memory (a fresh duplicate: position and limit are yours), little-endian. */
    public ByteBuffer buffer() {
        return buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    public IntBuffer ints() {
        check(ElemType.INT);
        return buffer().asIntBuffer();
    }

    public LongBuffer longs() {
        check(ElemType.LONG);
        return buffer().asLongBuffer();
    }

    public FloatBuffer floats() {
        check(ElemType.FLOAT);
        return buffer().asFloatBuffer();
    }

    public DoubleBuffer doubles() {
        check(ElemType.DOUBLE);
        return buffer().asDoubleBuffer();
    }

    private void check(ElemType t) {
        if (type != t) {
            throw new RmaException(ErrorClass.ERR_TYPE, "local block holds " + type + ", not " + t);
        }
    }

    /** The global patch this rank owns (blocked distributions; null for block-cyclic). */
    public Patch patch() {
        return patch;
    }

    public int[] ghosts() {
        return ghosts.clone();
    }

    /** Storage extents: interior extents plus twice the ghost width, per dimension. */
    public int[] storageDims() {
        return storageDims.clone();
    }

    /** Element stride of each dimension in the buffer. */
    public long stride(int d) {
        return strides[d];
    }

    /** Element index in the buffer of a global index (ghost region included); blocked distributions only. */
    public int index(int... global) {
        if (patch == null) {
            throw new RmaException(ErrorClass.ERR_ARG, "index(global) needs a block or irregular distribution");
        }
        long off = 0;
        for (int d = 0; d < global.length; d++) {
            int l = global[d] - patch.lo(d) + ghosts[d];
            if (l < 0 || l >= storageDims[d]) {
                throw new RmaException(ErrorClass.ERR_RMA_RANGE, "global index " + global[d]
                        + " in dimension " + d + " is outside this rank's block and ghosts");
            }
            off += l * strides[d];
        }
        return (int) off;
    }

    /** Element index of a local (interior, ghost-free, packed) index. */
    public int localIndex(int... local) {
        long off = 0;
        for (int d = 0; d < local.length; d++) {
            off += (long) (local[d] + ghosts[d]) * strides[d];
        }
        return (int) off;
    }
}

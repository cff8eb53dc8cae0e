package io.jrma.core.dt;

import io.jrma.core.err.ErrorKind;
import io.jrma.core.err.Errors;
import java.nio.ByteOrder;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Wire form of a {@link TypeLayout} (little-endian, version {@link #VERSION}): a fixed header, then the
 * blocks of one instance, then the signature runs.
 *
 * <pre>
 *   0               1               2               3
 *   0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7
 *  +---------------+---------------+-------------------------------+
 *  |    version    |  flags (0)    |          reserved (0)         |  0
 *  +---------------+---------------+-------------------------------+
 *  |               block count B (0 .. MAX_BLOCKS)                 |  4
 *  +---------------------------------------------------------------+
 *  |                run count R (0 .. MAX_RUNS)                    |  8
 *  +---------------------------------------------------------------+
 *  |                         reserved (0)                          | 12
 *  +---------------------------------------------------------------+
 *  |                  size: bytes of data (long)                   | 16
 *  +---------------------------------------------------------------+
 *  |                  lb: MPI lower bound (long)                   | 24
 *  +---------------------------------------------------------------+
 *  |                  extent: ub - lb (long)                       | 32
 *  +---------------------------------------------------------------+
 *  |  B blocks, 16 bytes each:  offset (long) | length (long)      | 40
 *  +---------------------------------------------------------------+
 *  |  R runs, 16 bytes each:  type id (int) | reserved (int, 0) |  | 40 + 16 B
 *  |                          element count (long)                 |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>{@link #decode} accepts only canonical layouts: block lengths positive, no block starting where its
 * predecessor ends, offsets and ends within 64 bits, block lengths summing to {@code size}; run types known,
 * run counts positive, no two adjacent runs of the same type, element sizes summing to {@code size};
 * {@code lb + extent} within 64 bits; reserved fields zero. The true bounds are recomputed from the blocks.
 *
 * <p>Stateless; any thread.
 */
public final class TypeLayoutCodec {
    public static final int VERSION = 1;
    public static final int VERSION_OFFSET = 0;
    public static final int FLAGS_OFFSET = 1;
    public static final int RESERVED0_OFFSET = 2;
    public static final int BLOCK_COUNT_OFFSET = 4;
    public static final int RUN_COUNT_OFFSET = 8;
    public static final int RESERVED1_OFFSET = 12;
    public static final int SIZE_OFFSET = 16;
    public static final int LB_OFFSET = 24;
    public static final int EXTENT_OFFSET = 32;
    public static final int HEADER_LENGTH = 40;
    /** Bytes per block entry: offset at +0, length at +8. */
    public static final int BLOCK_ENTRY_LENGTH = 16;
    /** Bytes per run entry: type id at +0, reserved at +4, element count at +8. */
    public static final int RUN_ENTRY_LENGTH = 16;
    public static final int RUN_TYPE_OFFSET = 0;
    public static final int RUN_RESERVED_OFFSET = 4;
    public static final int RUN_COUNT_FIELD_OFFSET = 8;

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private TypeLayoutCodec() {
    }

    /** Encoded length of a layout with the given numbers of blocks and runs (both at most their limits). */
    public static int encodedLength(int blocks, int runs) {
        return HEADER_LENGTH + BLOCK_ENTRY_LENGTH * blocks + RUN_ENTRY_LENGTH * runs;
    }

    static void encode(TypeLayout l, MutableDirectBuffer buf, int index) {
        long[] offs = l.blockOffsetsRef();
        long[] lens = l.blockLengthsRef();
        BasicType[] types = l.runTypesRef();
        long[] counts = l.runCountsRef();
        buf.putByte(index + VERSION_OFFSET, (byte) VERSION);
        buf.putByte(index + FLAGS_OFFSET, (byte) 0);
        buf.putShort(index + RESERVED0_OFFSET, (short) 0, LE);
        buf.putInt(index + BLOCK_COUNT_OFFSET, offs.length, LE);
        buf.putInt(index + RUN_COUNT_OFFSET, types.length, LE);
        buf.putInt(index + RESERVED1_OFFSET, 0, LE);
        buf.putLong(index + SIZE_OFFSET, l.size(), LE);
        buf.putLong(index + LB_OFFSET, l.lb(), LE);
        buf.putLong(index + EXTENT_OFFSET, l.extent(), LE);
        int p = index + HEADER_LENGTH;
        for (int i = 0; i < offs.length; i++, p += BLOCK_ENTRY_LENGTH) {
            buf.putLong(p, offs[i], LE);
            buf.putLong(p + 8, lens[i], LE);
        }
        for (int i = 0; i < types.length; i++, p += RUN_ENTRY_LENGTH) {
            buf.putInt(p + RUN_TYPE_OFFSET, types[i].id(), LE);
            buf.putInt(p + RUN_RESERVED_OFFSET, 0, LE);
            buf.putLong(p + RUN_COUNT_FIELD_OFFSET, counts[i], LE);
        }
    }

    static TypeLayout decode(DirectBuffer buf, int index, int available) {
        if (buf == null) {
            throw bad("buffer is null");
        }
        if (index < 0 || available < 0 || (long) index + available > buf.capacity()) {
            throw bad("region index " + index + ", available " + available + " is outside the buffer of capacity "
                    + buf.capacity());
        }
        if (available < HEADER_LENGTH) {
            throw bad("truncated layout: " + available + " bytes available, header needs " + HEADER_LENGTH);
        }
        int version = buf.getByte(index + VERSION_OFFSET) & 0xFF;
        if (version != VERSION) {
            throw bad("unsupported layout version " + version + " (expected " + VERSION + ")");
        }
        int flags = buf.getByte(index + FLAGS_OFFSET) & 0xFF;
        int r0 = buf.getShort(index + RESERVED0_OFFSET, LE);
        int r1 = buf.getInt(index + RESERVED1_OFFSET, LE);
        if (flags != 0 || r0 != 0 || r1 != 0) {
            throw bad("non-zero flags/reserved fields " + flags + "/" + r0 + "/" + r1);
        }
        int blocks = buf.getInt(index + BLOCK_COUNT_OFFSET, LE);
        if (blocks < 0 || blocks > TypeLayout.MAX_BLOCKS) {
            throw bad("block count " + blocks + " outside 0.." + TypeLayout.MAX_BLOCKS);
        }
        int runs = buf.getInt(index + RUN_COUNT_OFFSET, LE);
        if (runs < 0 || runs > TypeLayout.MAX_RUNS) {
            throw bad("run count " + runs + " outside 0.." + TypeLayout.MAX_RUNS);
        }
        long needed = HEADER_LENGTH + (long) BLOCK_ENTRY_LENGTH * blocks + (long) RUN_ENTRY_LENGTH * runs;
        if (needed > available) {
            throw bad("truncated layout: " + blocks + " blocks and " + runs + " runs need " + needed
                    + " bytes, only " + available + " available");
        }
        long size = buf.getLong(index + SIZE_OFFSET, LE);
        long lb = buf.getLong(index + LB_OFFSET, LE);
        long extent = buf.getLong(index + EXTENT_OFFSET, LE);
        if (size < 0) {
            throw bad("negative size " + size);
        }
        if (overflowsAdd(lb, extent)) {
            throw bad("lb " + lb + " + extent " + extent + " overflows 64 bits");
        }
        long[] offs = new long[blocks];
        long[] lens = new long[blocks];
        int p = index + HEADER_LENGTH;
        long total = 0;
        for (int i = 0; i < blocks; i++, p += BLOCK_ENTRY_LENGTH) {
            long off = buf.getLong(p, LE);
            long len = buf.getLong(p + 8, LE);
            if (len <= 0) {
                throw bad("block " + i + " has non-positive length " + len);
            }
            if (overflowsAdd(off, len)) {
                throw bad("block " + i + " offset " + off + " + length " + len + " overflows 64 bits");
            }
            if (i > 0 && offs[i - 1] + lens[i - 1] == off) {
                throw bad("block " + i + " at offset " + off + " continues block " + (i - 1) + " (not merged)");
            }
            if (overflowsAdd(total, len)) {
                throw bad("block lengths overflow 64 bits at block " + i + " (length " + len + ")");
            }
            total += len;
            offs[i] = off;
            lens[i] = len;
        }
        if (total != size) {
            throw bad("block lengths sum to " + total + " but size is " + size);
        }
        BasicType[] types = new BasicType[runs];
        long[] counts = new long[runs];
        long bytes = 0;
        for (int i = 0; i < runs; i++, p += RUN_ENTRY_LENGTH) {
            int id = buf.getInt(p + RUN_TYPE_OFFSET, LE);
            int reserved = buf.getInt(p + RUN_RESERVED_OFFSET, LE);
            long n = buf.getLong(p + RUN_COUNT_FIELD_OFFSET, LE);
            BasicType t = BasicType.ofId(id);
            if (t == null) {
                throw bad("run " + i + " has unknown basic type id " + id);
            }
            if (reserved != 0) {
                throw bad("run " + i + " has non-zero reserved field " + reserved);
            }
            if (n <= 0) {
                throw bad("run " + i + " has non-positive element count " + n);
            }
            if (i > 0 && types[i - 1] == t) {
                throw bad("run " + i + " repeats type " + t + " of run " + (i - 1) + " (not merged)");
            }
            long b;
            try {
                b = Math.addExact(bytes, Math.multiplyExact(n, (long) t.size()));
            } catch (ArithmeticException e) {
                throw bad("run " + i + " element count " + n + " of " + t + " overflows 64 bits");
            }
            bytes = b;
            types[i] = t;
            counts[i] = n;
        }
        if (bytes != size) {
            throw bad("signature runs hold " + bytes + " bytes but size is " + size);
        }
        return new TypeLayout(offs, lens, types, counts, size, lb, extent);
    }

    private static boolean overflowsAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0;
    }

    private static RuntimeException bad(String what) {
        return Errors.of(ErrorKind.ERR_TYPE, "malformed datatype layout: " + what);
    }
}

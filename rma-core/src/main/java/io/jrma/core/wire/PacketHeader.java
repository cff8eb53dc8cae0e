package io.jrma.core.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Layout of the fixed packet header (little-endian, version {@link #VERSION}). Static flyweight accessors
 * over a buffer and the offset where a packet starts.
 *
 * <pre>
 *   0               1               2               3
 *   0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7
 *  +---------------------------------------------------------------+
 *  |                  length: whole packet in bytes                |  0
 *  +---------------+---------------+-------------------------------+
 *  |    version    |     type      |            flags              |  4
 *  +---------------+---------------+-------------------------------+
 *  |                          window id                            |  8
 *  +---------------------------------------------------------------+
 *  |                 source rank (world, sender)                   | 12
 *  +---------------------------------------------------------------+
 *  |               destination rank (world, receiver)              | 16
 *  +---------------------------------------------------------------+
 *  |        seq: operation id (replies echo it)                    | 20
 *  +---------------------------------------------------------------+
 *  |     target offset: bytes from window base, or absolute        | 24
 *  |     address on a dynamic window (flag DYNAMIC)                |
 *  +---------------+---------------+-------------------------------+
 *  | element type  |      op       |        reserved (0)           | 32
 *  +---------------+---------------+-------------------------------+
 *  |   aux: ack sequence, fence epoch, error class, ...            | 36
 *  +---------------------------------------------------------------+
 *  |                      target count (long)                      | 40
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |   layout length: bytes of encoded target layout (0: CONTIG)   | 48
 *  +---------------------------------------------------------------+
 *  |  [encoded target TypeLayout] [payload ...]                    | 52
 * </pre>
 */
public final class PacketHeader {
    public static final int VERSION = 1;
    public static final int LENGTH_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int TYPE_OFFSET = 5;
    public static final int FLAGS_OFFSET = 6;
    public static final int WINDOW_OFFSET = 8;
    public static final int SRC_OFFSET = 12;
    public static final int DST_OFFSET = 16;
    public static final int SEQ_OFFSET = 20;
    public static final int TARGET_OFFSET_OFFSET = 24;
    public static final int ELEM_TYPE_OFFSET = 32;
    public static final int OP_OFFSET = 33;
    public static final int AUX_OFFSET = 36;
    public static final int TARGET_COUNT_OFFSET = 40;
    public static final int LAYOUT_LENGTH_OFFSET = 48;
    public static final int HEADER_LENGTH = 52;

    /** Largest packet a receiver accepts (a 1 GiB payload plus headers). */
    public static final int MAX_PACKET_LENGTH = (1 << 30) + 4096;

    private PacketHeader() {
    }

    public static void write(MutableDirectBuffer b, int at, int length, int type, int flags, int windowId,
                             int src, int dst, int seq, long targetOffset, int elemType, int op, int aux,
                             long targetCount, int layoutLength) {
        b.putInt(at + LENGTH_OFFSET, length);
        b.putByte(at + VERSION_OFFSET, (byte) VERSION);
        b.putByte(at + TYPE_OFFSET, (byte) type);
        b.putShort(at + FLAGS_OFFSET, (short) flags);
        b.putInt(at + WINDOW_OFFSET, windowId);
        b.putInt(at + SRC_OFFSET, src);
        b.putInt(at + DST_OFFSET, dst);
        b.putInt(at + SEQ_OFFSET, seq);
        b.putLong(at + TARGET_OFFSET_OFFSET, targetOffset);
        b.putByte(at + ELEM_TYPE_OFFSET, (byte) elemType);
        b.putByte(at + OP_OFFSET, (byte) op);
        b.putShort(at + OP_OFFSET + 1, (short) 0);
        b.putInt(at + AUX_OFFSET, aux);
        b.putLong(at + TARGET_COUNT_OFFSET, targetCount);
        b.putInt(at + LAYOUT_LENGTH_OFFSET, layoutLength);
    }

    public static int length(DirectBuffer b, int at) {
        return b.getInt(at + LENGTH_OFFSET);
    }

    public static int version(DirectBuffer b, int at) {
        return b.getByte(at + VERSION_OFFSET) & 0xFF;
    }

    public static int type(DirectBuffer b, int at) {
        return b.getByte(at + TYPE_OFFSET) & 0xFF;
    }

    public static int flags(DirectBuffer b, int at) {
        return b.getShort(at + FLAGS_OFFSET) & 0xFFFF;
    }

    public static void addFlags(MutableDirectBuffer b, int at, int flags) {
        b.putShort(at + FLAGS_OFFSET, (short) (flags(b, at) | flags));
    }

    public static void clearFlags(MutableDirectBuffer b, int at, int flags) {
        b.putShort(at + FLAGS_OFFSET, (short) (flags(b, at) & ~flags));
    }

    public static int windowId(DirectBuffer b, int at) {
        return b.getInt(at + WINDOW_OFFSET);
    }

    public static int src(DirectBuffer b, int at) {
        return b.getInt(at + SRC_OFFSET);
    }

    public static int dst(DirectBuffer b, int at) {
        return b.getInt(at + DST_OFFSET);
    }

    public static int seq(DirectBuffer b, int at) {
        return b.getInt(at + SEQ_OFFSET);
    }

    public static long targetOffset(DirectBuffer b, int at) {
        return b.getLong(at + TARGET_OFFSET_OFFSET);
    }

    public static int elemType(DirectBuffer b, int at) {
        return b.getByte(at + ELEM_TYPE_OFFSET) & 0xFF;
    }

    public static int op(DirectBuffer b, int at) {
        return b.getByte(at + OP_OFFSET) & 0xFF;
    }

    public static int aux(DirectBuffer b, int at) {
        return b.getInt(at + AUX_OFFSET);
    }

    public static void aux(MutableDirectBuffer b, int at, int aux) {
        b.putInt(at + AUX_OFFSET, aux);
    }

    public static long targetCount(DirectBuffer b, int at) {
        return b.getLong(at + TARGET_COUNT_OFFSET);
    }

    public static int layoutLength(DirectBuffer b, int at) {
        return b.getInt(at + LAYOUT_LENGTH_OFFSET);
    }
}

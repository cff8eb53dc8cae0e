package io.jrma.msg;

import io.jrma.core.mem.Memory;
import java.nio.ByteBuffer;
import org.agrona.BufferUtil;

/**
 * Where a buffer's bytes are, for {@link Memory#copy}: its base object (the array, or null for a direct ByteBuffer)
 * and the offset of its first byte from that base (the array's base offset, or the direct buffer's address). Copies
 * of data whose memory is its packed form (predefined types without padding) go through here instead of
 * {@link io.jrma.Datatype#pack}, which resolves both buffers into new objects on every call.
 */
final class Raw {
    private static final long BYTE_BASE = Memory.arrayBase(byte[].class);
    private static final long SHORT_BASE = Memory.arrayBase(short[].class);
    private static final long CHAR_BASE = Memory.arrayBase(char[].class);
    private static final long INT_BASE = Memory.arrayBase(int[].class);
    private static final long LONG_BASE = Memory.arrayBase(long[].class);
    private static final long FLOAT_BASE = Memory.arrayBase(float[].class);
    private static final long DOUBLE_BASE = Memory.arrayBase(double[].class);
    private static final long BOOLEAN_BASE = Memory.arrayBase(boolean[].class);
    /** {@link #offset} of a buffer this class cannot address. */
    static final long NONE = -1;

    private Raw() {
    }

    /** Whether {@code buf} can be addressed here: a primitive array, or a direct or writable heap ByteBuffer. */
    static boolean addressable(Object buf) {
        if (buf instanceof ByteBuffer) {
            ByteBuffer bb = (ByteBuffer) buf;
            return bb.isDirect() || bb.hasArray();
        }
        return offset(buf) != NONE;
    }

    /** The base object of an {@linkplain #addressable addressable} buffer. */
    static Object base(Object buf) {
        if (buf instanceof ByteBuffer) {
            ByteBuffer bb = (ByteBuffer) buf;
            return bb.isDirect() ? null : bb.array();
        }
        return buf;
    }

    /** The offset of byte 0 of an {@linkplain #addressable addressable} buffer from its base, else {@link #NONE}. */
    static long offset(Object buf) {
        if (buf instanceof ByteBuffer) {
            ByteBuffer bb = (ByteBuffer) buf;
            return bb.isDirect() ? BufferUtil.address(bb) : BYTE_BASE + bb.arrayOffset();
        }
        if (buf instanceof byte[]) {
            return BYTE_BASE;
        }
        if (buf instanceof long[]) {
            return LONG_BASE;
        }
        if (buf instanceof int[]) {
            return INT_BASE;
        }
        if (buf instanceof double[]) {
            return DOUBLE_BASE;
        }
        if (buf instanceof float[]) {
            return FLOAT_BASE;
        }
        if (buf instanceof short[]) {
            return SHORT_BASE;
        }
        if (buf instanceof char[]) {
            return CHAR_BASE;
        }
        if (buf instanceof boolean[]) {
            return BOOLEAN_BASE;
        }
        return NONE;
    }
}

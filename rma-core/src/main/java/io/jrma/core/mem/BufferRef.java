package io.jrma.core.mem;


import io.jrma.core.err.ErrorKind;
import io.jrma.core.err.Errors;
import java.nio.ByteBuffer;
import net.openhft.chronicle.bytes.BytesStore;
import org.agrona.BufferUtil;

/**
 * A user buffer of the public API (direct or heap {@link ByteBuffer}, native {@link BytesStore}, or primitive
 * array) in Unsafe coordinates: a base object ({@code null} for off-heap memory), the offset of its first
 * byte, and its capacity in bytes. A ByteBuffer is addressed from its first byte: position and limit are
 * ignored, as everywhere in jrma's API.
 *
 * <p>Used by the local operations of the public API ({@code Datatype.pack/unpack}, {@code Op.reduceLocal}).
 * (sync-epochs has an equivalent resolver of its own for the window engine's argument checking.)
 *
 * <p>Immutable; any thread.
 */
public final class BufferRef {
    private static final long BYTE_BASE = Memory.arrayBase(byte[].class);
    private static final long SHORT_BASE = Memory.arrayBase(short[].class);
    private static final long CHAR_BASE = Memory.arrayBase(char[].class);
    private static final long INT_BASE = Memory.arrayBase(int[].class);
    private static final long LONG_BASE = Memory.arrayBase(long[].class);
    private static final long FLOAT_BASE = Memory.arrayBase(float[].class);
    private static final long DOUBLE_BASE = Memory.arrayBase(double[].class);
    private static final long BOOLEAN_BASE = Memory.arrayBase(boolean[].class);

    /** {@link #offsetOf} of a buffer that only {@link #resolve} addresses (or none does). */
    public static final long NONE = -1;

    private final Object base;
    private final long offset;
    private final long capacity;

    private BufferRef(Object base, long offset, long capacity) {
        this.base = base;
        this.offset = offset;
        this.capacity = capacity;
    }

    /** The base object for Unsafe access: the array, or {@code null} for off-heap memory. */
    public Object base() {
        return base;
    }

    /** Unsafe offset of the buffer's first byte (an absolute address when {@link #base()} is null). */
    public long offset() {
        return offset;
    }

    /** Bytes in the buffer. */
    public long capacity() {
        return capacity;
    }

    /**
     * Resolves a buffer object; {@code role} names it in errors ("input", "output", ...).
     *
     * @throws RuntimeException (RmaException) ERR_BUFFER if {@code buf} is null or not a supported kind of buffer
     */
    public static BufferRef resolve(Object buf, String role) {
        if (buf instanceof byte[]) {
            return new BufferRef(buf, BYTE_BASE, ((byte[]) buf).length);
        }
        if (buf instanceof long[]) {
            return new BufferRef(buf, LONG_BASE, ((long[]) buf).length * 8L);
        }
        if (buf instanceof int[]) {
            return new BufferRef(buf, INT_BASE, ((int[]) buf).length * 4L);
        }
        if (buf instanceof double[]) {
            return new BufferRef(buf, DOUBLE_BASE, ((double[]) buf).length * 8L);
        }
        if (buf instanceof float[]) {
            return new BufferRef(buf, FLOAT_BASE, ((float[]) buf).length * 4L);
        }
        if (buf instanceof short[]) {
            return new BufferRef(buf, SHORT_BASE, ((short[]) buf).length * 2L);
        }
        if (buf instanceof char[]) {
            return new BufferRef(buf, CHAR_BASE, ((char[]) buf).length * 2L);
        }
        if (buf instanceof boolean[]) {
            return new BufferRef(buf, BOOLEAN_BASE, ((boolean[]) buf).length);
        }
        if (buf instanceof ByteBuffer) {
            ByteBuffer bb = (ByteBuffer) buf;
            if (bb.isDirect()) {
                return new BufferRef(null, BufferUtil.address(bb), bb.capacity());
            }
            if (bb.isReadOnly()) {
                throw Errors.of(ErrorKind.ERR_BUFFER,
                        role + " buffer: a read-only heap ByteBuffer has no accessible array");
            }
            return new BufferRef(bb.array(), BYTE_BASE + bb.arrayOffset(), bb.capacity());
        }
        if (buf instanceof BytesStore) {
            BytesStore<?, ?> bs = (BytesStore<?, ?>) buf;
            if (!bs.isDirectMemory()) {
                throw Errors.of(ErrorKind.ERR_BUFFER, role + " buffer: a BytesStore must be native memory");
            }
            return new BufferRef(null, bs.addressForRead(bs.start()), bs.capacity());
        }
        throw Errors.of(ErrorKind.ERR_BUFFER,
                role + " buffer must be a primitive array, a ByteBuffer or a native"
                + " BytesStore, got " + (buf == null ? "null" : buf.getClass().getName()));
    }

    /**
     * The base object of a buffer whose {@link #offsetOf} is not {@link #NONE} (the array, or null for a direct
     * ByteBuffer), without making a BufferRef: for paths that copy between such buffers on every call.
     */
    public static Object baseOf(Object buf) {
        if (buf instanceof ByteBuffer) {
            ByteBuffer bb = (ByteBuffer) buf;
            return bb.isDirect() ? null : bb.array();
        }
        return buf;
    }

    /**
     * The offset of byte 0 of a primitive array or of a direct or writable heap ByteBuffer from its {@link #baseOf}
     * base, without making a BufferRef; {@link #NONE} for anything else (a read-only heap ByteBuffer, a BytesStore,
     * null), which {@link #resolve} handles or rejects.
     */
    public static long offsetOf(Object buf) {
        if (buf instanceof ByteBuffer) {
            ByteBuffer bb = (ByteBuffer) buf;
            return bb.isDirect() ? BufferUtil.address(bb) : bb.hasArray() ? BYTE_BASE + bb.arrayOffset() : NONE;
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

    /**
     * Checks that bytes {@code [offset + low, offset + high)} lie inside the buffer.
     *
     * @throws RuntimeException (RmaException) ERR_BUFFER naming the role and the offending range
     */
    public void checkRange(long offset, long low, long high, String role) {
        if (high <= low) {
            return;
        }
        long lo = offset + low;
        long hi = offset + high;
        if (offset < 0 || lo < 0 || hi > capacity || hi < lo) {
            throw Errors.of(ErrorKind.ERR_BUFFER, role + " data spans bytes [" + lo + ", " + hi
                    + ") but the " + role + " buffer has " + capacity + " bytes");
        }
    }
}

package io.jrma.msg;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.mem.BufferRef;
import io.jrma.core.mem.Memory;
import java.nio.ByteBuffer;

/**
 * A user's message buffer, checked once when the operation is posted: {@code count} elements of a committed
 * {@code type} whose origin is element {@code offset} (in units of the type's extent) of a primitive array or
 * a ByteBuffer (addressed from its first byte; position and limit are ignored). Its data travels packed
 * ({@link Datatype#pack}) as {@link #bytes} bytes.
 *
 * <p>Owned by the operation that made it. The blocking calls of a {@link Messenger} reuse theirs from one call to
 * the next ({@link #set}), so that a blocking send or receive allocates nothing; a buffer is never changed while an
 * operation that uses it is in flight.
 */
final class UserBuf {
    Object buf;
    /** Byte offset of the origin of the first element. */
    long offset;
    long count;
    Datatype type;
    /** Packed size: {@code count * type.size()}. */
    long bytes;
    /**
     * Whether the data's memory is its packed form and {@link BufferRef#offsetOf} addresses the buffer: copies are
     * then one {@link Memory#copy} from {@link #rawBase} at {@link #rawOrigin}.
     */
    boolean raw;
    Object rawBase;
    long rawOrigin;

    /** An empty description, to be {@link #set} before use. */
    UserBuf() {
    }

    /**
     * Checks a buffer description; {@code role} names it in errors ("send", "receive", ...).
     *
     * @throws RmaException ERR_TYPE (null or uncommitted type), ERR_COUNT (negative count, or more than 2 GiB of
     *     data), ERR_BUFFER (unsupported or null buffer, negative offset, data outside the buffer)
     */
    static UserBuf of(Object buf, long offset, long count, Datatype type, String role) {
        return of(buf, offset, count, type, role, NO_PEER);
    }

    /**
     * As {@link #of(Object, long, long, Datatype, String)}, the buffer of a message to or from {@code peer}: errors
     * name it as {@code "verb peer"}, a string made only when there is an error (a message's hot path made one per
     * message before).
     */
    static UserBuf of(Object buf, long offset, long count, Datatype type, String verb, int peer) {
        return new UserBuf().set(buf, offset, count, type, verb, peer);
    }

    /** Checks and takes a buffer description as {@link #of(Object, long, long, Datatype, String, int)}; this. */
    UserBuf set(Object buf, long offset, long count, Datatype type, String verb, int peer) {
        if (type == null) {
            throw new RmaException(ErrorClass.ERR_TYPE, role(verb, peer) + ": datatype is null");
        }
        if (!type.isCommitted()) {
            throw new RmaException(ErrorClass.ERR_TYPE, role(verb, peer) + ": datatype " + type + " is not committed");
        }
        if (count < 0) {
            throw new RmaException(ErrorClass.ERR_COUNT, role(verb, peer) + ": count " + count + " is negative");
        }
        if (offset < 0) {
            throw new RmaException(ErrorClass.ERR_BUFFER, role(verb, peer) + ": offset " + offset + " is negative");
        }
        long bytes;
        long off;
        try {
            bytes = Math.multiplyExact(count, type.size());
            off = Math.multiplyExact(offset, type.extent());
        } catch (ArithmeticException e) {
            throw new RmaException(ErrorClass.ERR_COUNT, role(verb, peer) + ": " + count + " x " + type + " at offset "
                    + offset + " overflows");
        }
        if (bytes > Integer.MAX_VALUE - 64) {
            throw new RmaException(ErrorClass.ERR_COUNT, role(verb, peer) + ": " + bytes
                    + " bytes of data; messages are limited to 2 GiB");
        }
        if (bytes > 0) {
            long cap = capacity(buf, verb, peer);
            long span = (count - 1) * type.extent();
            long lo = off + type.trueLb() + Math.min(0, span);
            long hi = off + type.trueLb() + type.trueExtent() + Math.max(0, span);
            if (lo < 0 || hi > cap) {
                throw new RmaException(ErrorClass.ERR_BUFFER, role(verb, peer) + ": " + count + " x " + type
                        + " at element offset " + offset + " spans bytes [" + lo + ", " + hi + ") but the buffer has "
                        + cap);
            }
        } else if (buf != null) {
            capacity(buf, verb, peer);
        }
        this.buf = buf;
        this.offset = off;
        this.count = count;
        this.type = type;
        this.bytes = bytes;
        this.raw = bytes > 0 && plain() && BufferRef.offsetOf(buf) != BufferRef.NONE;
        this.rawBase = raw ? BufferRef.baseOf(buf) : null;
        this.rawOrigin = raw ? BufferRef.offsetOf(buf) + off : 0;
        return this;
    }

    /** Drops the reference to the user's buffer (a reused description must not keep it reachable). */
    void clear() {
        buf = null;
        type = null;
        raw = false;
        rawBase = null;
    }

    /** No peer: {@link #of(Object, long, long, Datatype, String)}'s role is the whole name. */
    private static final int NO_PEER = Integer.MIN_VALUE;

    private static String role(String verb, int peer) {
        return peer == NO_PEER ? verb : verb + " " + peer;
    }

    private static long capacity(Object buf, String verb, int peer) {
        if (buf instanceof ByteBuffer || buf != null && buf.getClass().isArray()
                && buf.getClass().getComponentType().isPrimitive()) {
            return capacity(buf, verb); // cannot fail: no name needed
        }
        return capacity(buf, role(verb, peer));
    }

    /** Bytes in a supported buffer. */
    static long capacity(Object buf, String role) {
        if (buf instanceof ByteBuffer) {
            return ((ByteBuffer) buf).capacity();
        }
        if (buf instanceof byte[]) {
            return ((byte[]) buf).length;
        }
        if (buf instanceof boolean[]) {
            return ((boolean[]) buf).length;
        }
        if (buf instanceof short[]) {
            return 2L * ((short[]) buf).length;
        }
        if (buf instanceof char[]) {
            return 2L * ((char[]) buf).length;
        }
        if (buf instanceof int[]) {
            return 4L * ((int[]) buf).length;
        }
        if (buf instanceof float[]) {
            return 4L * ((float[]) buf).length;
        }
        if (buf instanceof long[]) {
            return 8L * ((long[]) buf).length;
        }
        if (buf instanceof double[]) {
            return 8L * ((double[]) buf).length;
        }
        throw new RmaException(ErrorClass.ERR_BUFFER, role + ": buffer must be a primitive array or a ByteBuffer, got "
                + (buf == null ? "null" : buf.getClass().getName()));
    }

    /** Whether {@code count} elements in memory are exactly the packed bytes (a predefined type without padding). */
    boolean plain() {
        return type.isPredefined() && type.size() == type.extent();
    }

    /**
     * The buffer addressed so that its first byte is the data's origin (for a window operation with this
     * buffer's type), or null if that would need a copy (an array at a nonzero offset).
     */
    Object origin() {
        if (offset == 0) {
            return buf;
        }
        if (buf instanceof ByteBuffer) {
            ByteBuffer bb = (ByteBuffer) buf;
            return bb.slice((int) offset, bb.capacity() - (int) offset);
        }
        return null;
    }

    /** Whether the buffer is a direct ByteBuffer whose data could be exposed in a dynamic window as is. */
    boolean exposable() {
        return plain() && buf instanceof ByteBuffer && ((ByteBuffer) buf).isDirect() && bytes > 0;
    }

    /** The data's bytes of a direct ByteBuffer ({@link #exposable()}), as a slice to attach. */
    ByteBuffer exposedSlice() {
        return ((ByteBuffer) buf).slice((int) offset, (int) bytes);
    }

    /** Packs all the data into {@code dst} at byte {@code dstOffset}. */
    void packInto(Object dst, long dstOffset) {
        if (bytes <= 0) {
            return;
        }
        long to = raw ? BufferRef.offsetOf(dst) : BufferRef.NONE;
        if (to != BufferRef.NONE && dstOffset >= 0 && dstOffset + bytes <= capacity(dst, "pack output")) {
            Memory.copy(rawBase, rawOrigin, BufferRef.baseOf(dst), to + dstOffset, bytes);
        } else {
            type.pack(buf, offset, count, dst, dstOffset);
        }
    }

    /**
     * Copies {@code n} packed bytes from {@code src} at byte {@code srcOffset} into the data's bytes from byte
     * {@code at} on; only for a {@link #raw} buffer, whose memory is its packed form.
     */
    void unpackRange(Object src, long srcOffset, long at, long n) {
        if (n <= 0) {
            return;
        }
        long from = BufferRef.offsetOf(src);
        if (!raw || from == BufferRef.NONE || at < 0 || at + n > bytes || srcOffset < 0
                || srcOffset + n > capacity(src, "unpack input")) {
            throw new IllegalArgumentException("range copy of " + n + " bytes at " + at + " of " + bytes);
        }
        Memory.copy(BufferRef.baseOf(src), from + srcOffset, rawBase, rawOrigin + at, n);
    }

    /** Unpacks {@code n <= bytes} packed bytes from {@code src} at byte {@code srcOffset} into the buffer. */
    void unpackFrom(Object src, long srcOffset, long n) {
        if (n <= 0) {
            return;
        }
        long from = raw ? BufferRef.offsetOf(src) : BufferRef.NONE;
        if (from != BufferRef.NONE && n <= bytes && srcOffset >= 0 && srcOffset + n <= capacity(src, "unpack input")) {
            Memory.copy(BufferRef.baseOf(src), from + srcOffset, rawBase, rawOrigin, n);
        } else {
            type.unpack(src, srcOffset, n, buf, offset, count);
        }
    }
}

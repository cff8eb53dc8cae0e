package io.jrma.sync;


import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.mem.Memory;
import java.nio.ByteBuffer;
import net.openhft.chronicle.bytes.BytesStore;
import org.agrona.BufferUtil;

/**
 * Resolves the buffer objects of the public API (direct or heap ByteBuffer, native BytesStore, primitive
 * arrays) into Unsafe coordinates: a base object (null for off-heap) and a byte offset, plus capacity.
 *
 * <p>Stateless; any thread.
 */
final class Buffers {
    private Buffers() {
    }

    /** Unsafe coordinates of a user buffer. */
    static final class Ref {
        final Object base;
        final long offset;
        final long capacity;
        /** The user's direct ByteBuffer when the buffer is one (a large put may be sent from it), else null. */
        final ByteBuffer direct;

        Ref(Object base, long offset, long capacity) {
            this(base, offset, capacity, null);
        }

        Ref(Object base, long offset, long capacity, ByteBuffer direct) {
            this.base = base;
            this.offset = offset;
            this.capacity = capacity;
            this.direct = direct;
        }
    }

    static final Ref NONE = new Ref(null, 0, 0);

    static long address(ByteBuffer bb) {
        return BufferUtil.address(bb);
    }

    /** Resolves {@code buf}; {@code role} names it in errors ("origin", "result", "compare"). */
    static Ref resolve(Object buf, String role) {
        if (buf == null) {
            return NONE;
        }
        if (buf instanceof ByteBuffer) {
            ByteBuffer bb = (ByteBuffer) buf;
            if (bb.isDirect()) {
                return new Ref(null, BufferUtil.address(bb), bb.capacity(), bb);
            }
            if (bb.isReadOnly()) {
                throw new RmaException(ErrorClass.ERR_BUFFER,
                        role + " buffer: a read-only heap ByteBuffer has no accessible array");
            }
            return new Ref(bb.array(), Unsafe.BYTE_BASE + bb.arrayOffset(), bb.capacity());
        }
        if (buf instanceof BytesStore) {
            BytesStore<?, ?> bs = (BytesStore<?, ?>) buf;
            if (!bs.isDirectMemory()) {
                throw new RmaException(ErrorClass.ERR_BUFFER, role + " buffer: BytesStore must be native memory");
            }
            return new Ref(null, bs.addressForRead(bs.start()), bs.capacity());
        }
        if (buf instanceof byte[]) {
            return new Ref(buf, Unsafe.BYTE_BASE, ((byte[]) buf).length);
        }
        if (buf instanceof long[]) {
            return new Ref(buf, Unsafe.LONG_BASE, ((long[]) buf).length * 8L);
        }
        if (buf instanceof int[]) {
            return new Ref(buf, Unsafe.INT_BASE, ((int[]) buf).length * 4L);
        }
        if (buf instanceof double[]) {
            return new Ref(buf, Unsafe.DOUBLE_BASE, ((double[]) buf).length * 8L);
        }
        if (buf instanceof float[]) {
            return new Ref(buf, Unsafe.FLOAT_BASE, ((float[]) buf).length * 4L);
        }
        if (buf instanceof short[]) {
            return new Ref(buf, Unsafe.SHORT_BASE, ((short[]) buf).length * 2L);
        }
        if (buf instanceof char[]) {
            return new Ref(buf, Unsafe.CHAR_BASE, ((char[]) buf).length * 2L);
        }
        if (buf instanceof boolean[]) {
            return new Ref(buf, Unsafe.BOOLEAN_BASE, ((boolean[]) buf).length);
        }
        throw new RmaException(ErrorClass.ERR_BUFFER,
                role + " buffer must be a ByteBuffer, a native BytesStore or a primitive array, got "
                + buf.getClass().getName());
    }

    /** Array base offsets. */
    static final class Unsafe {
        static final long BYTE_BASE = Memory.arrayBase(byte[].class);
        static final long LONG_BASE = Memory.arrayBase(long[].class);
        static final long INT_BASE = Memory.arrayBase(int[].class);
        static final long DOUBLE_BASE = Memory.arrayBase(double[].class);
        static final long FLOAT_BASE = Memory.arrayBase(float[].class);
        static final long SHORT_BASE = Memory.arrayBase(short[].class);
        static final long CHAR_BASE = Memory.arrayBase(char[].class);
        static final long BOOLEAN_BASE = Memory.arrayBase(boolean[].class);

        private Unsafe() {
        }
    }
}

package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.mem.Memory;
import java.lang.ref.Reference;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

/**
 * The buffers of the Java bindings as jrma takes them. The bindings pass primitive arrays and NIO buffers of
 * every element type; jrma's engine takes primitive arrays and ByteBuffers, addressed from their first byte.
 * A direct IntBuffer (or LongBuffer, ...) is turned into a ByteBuffer over the same memory: the JDK gives no
 * public way to do that, so the buffer's address and the ByteBuffer it is a view of are read as raw memory (as
 * Agrona does for addresses). As in Open MPI's bindings, the position and limit of a buffer are ignored: data
 * starts at the buffer's first element (use {@link MPI#slice} to start further in); a heap buffer starts at its
 * array offset.
 *
 * <p>Stateless; any thread.
 */
final class Bufs {
    private static final long ADDRESS;
    private static final ClassValue<Long> ATTACHMENT = new ClassValue<>() {
        @Override
        protected Long computeValue(Class<?> c) {
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                try {
                    return Memory.fieldOffset(k.getDeclaredField("att"));
                } catch (NoSuchFieldException e) {
                    // look in the superclass
                }
            }
            return -1L;
        }
    };

    static {
        try {
            ADDRESS = Memory.fieldOffset(Buffer.class.getDeclaredField("address"));
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Bufs() {
    }

    /** Bytes per element of a buffer. */
    static int elemSize(Buffer b) {
        if (b instanceof ByteBuffer) {
            return 1;
        }
        if (b instanceof CharBuffer || b instanceof ShortBuffer) {
            return 2;
        }
        if (b instanceof IntBuffer || b instanceof FloatBuffer) {
            return 4;
        }
        if (b instanceof LongBuffer || b instanceof DoubleBuffer) {
            return 8;
        }
        throw new IllegalArgumentException("unsupported buffer type " + b.getClass().getName());
    }

    /** The absolute address of the first element of a direct buffer. */
    static long address(Buffer b) {
        if (!b.isDirect()) {
            throw new IllegalArgumentException("The buffer must be direct.");
        }
        return Memory.getLongPlain(b, ADDRESS);
    }

    /**
     * A little-endian ByteBuffer over exactly the memory of a direct buffer (capacity times element size
     * bytes, from its first element): the buffer itself if it is a ByteBuffer, else a slice of the direct
     * ByteBuffer it is a view of (which keeps that memory alive).
     */
    static ByteBuffer bytes(Buffer b) {
        if (b instanceof ByteBuffer) {
            return (ByteBuffer) b;
        }
        long addr = address(b);
        long len = (long) b.capacity() * elemSize(b);
        ByteBuffer r = root(b);
        if (r != null) {
            long at = addr - Memory.getLongPlain(r, ADDRESS);
            if (at >= 0 && at + len <= r.capacity()) {
                return r.duplicate().clear().position((int) at).limit((int) (at
                        + len)).slice().order(ByteOrder.LITTLE_ENDIAN);
            }
        }
        throw new IllegalArgumentException("jrma cannot address the memory of this direct "
                + b.getClass().getSimpleName()
                + ": use a view of a direct ByteBuffer (MPI.newIntBuffer(n), "
                + "ByteBuffer.allocateDirect(n).asIntBuffer(), ...)");
    }

    /**
     * The byte views of the last few non-byte direct buffers one window was given ({@link #bytes} makes a new view
     * each time, two objects per call): a view depends only on the buffer's identity (its address and capacity never
     * change, and the engine addresses a buffer from its first byte whatever its position), so the one made for a
     * buffer serves every later call with it. Racy by design: a slot holds an immutable pair, and a lost update only
     * costs one more view.
     */
    static final class Views {
        private static final int SLOTS = 4;
        private final View[] slots = new View[SLOTS];
        private int next;

        private record View(Buffer key, ByteBuffer view) {
        }

        /** {@link Bufs#bytes} of a direct buffer, from the cache when this window saw the buffer lately. */
        ByteBuffer of(Buffer b) {
            if (b instanceof ByteBuffer bb) {
                return bb;
            }
            for (View v : slots) {
                if (v != null && v.key == b) {
                    return v.view;
                }
            }
            ByteBuffer view = bytes(b);
            slots[next++ & (SLOTS - 1)] = new View(b, view);
            return view;
        }
    }

    /** A buffer's backing store (an array or a direct ByteBuffer) and the byte offset of the buffer in it. */
    static final class Origin {
        final Object obj;
        final long byteOff;

        private Origin(Object obj, long byteOff) {
            this.obj = obj;
            this.byteOff = byteOff;
        }
    }

    /**
     * Where {@code count} elements of {@code t} at buffer {@code buf} are in its backing store, when they start
     * before the buffer's first element (a negative lower bound, e.g. a vector with a negative stride, at a
     * {@link MPI#slice}) but inside the store and end inside the buffer: Open MPI's bindings pass the slice's
     * address, so such data is the memory before it. Null when the data does not reach back (or not inside the
     * store): the buffer is then taken as it is, and its bounds are checked.
     */
    static Origin reachBack(Object buf, io.jrma.Datatype t, long count) {
        if (count <= 0 || t.size() == 0 || !(buf instanceof Buffer)) {
            return null;
        }
        long span = (count - 1) * t.extent();
        long lo = t.trueLb() + Math.min(0, span);
        long hi = t.trueLb() + t.trueExtent() + Math.max(0, span);
        Buffer b = (Buffer) buf;
        if (lo >= 0 || hi > (long) b.capacity() * elemSize(b)) {
            return null;
        }
        Origin o;
        if (b.isDirect()) {
            ByteBuffer root = root(b);
            o = root == null ? null : new Origin(root, address(b) - Memory.getLongPlain(root, ADDRESS));
        } else {
            o = b.hasArray() ? new Origin(b.array(), (long) b.arrayOffset() * elemSize(b)) : null;
        }
        return o != null && o.byteOff + lo >= 0 ? o : null;
    }

    /** The direct ByteBuffer that owns the memory of a direct buffer (the original of its slices and views). */
    private static ByteBuffer root(Buffer b) {
        Object root = b;
        for (int hop = 0; hop < 4 && root != null; hop++) {
            long off = ATTACHMENT.get(root.getClass());
            Object next = off < 0 ? null : Memory.getReferencePlain(root, off);
            if (!(next instanceof Buffer)) {
                break;
            }
            root = next;
        }
        return root instanceof ByteBuffer && ((ByteBuffer) root).isDirect() ? (ByteBuffer) root : null;
    }

    /** Bytes in a primitive array. */
    static long arrayBytes(Object a) {
        if (a instanceof byte[]) {
            return ((byte[]) a).length;
        }
        if (a instanceof boolean[]) {
            return ((boolean[]) a).length;
        }
        if (a instanceof char[]) {
            return 2L * ((char[]) a).length;
        }
        if (a instanceof short[]) {
            return 2L * ((short[]) a).length;
        }
        if (a instanceof int[]) {
            return 4L * ((int[]) a).length;
        }
        if (a instanceof float[]) {
            return 4L * ((float[]) a).length;
        }
        if (a instanceof long[]) {
            return 8L * ((long[]) a).length;
        }
        if (a instanceof double[]) {
            return 8L * ((double[]) a).length;
        }
        throw new RmaException(ErrorClass.ERR_BUFFER, "a buffer must be a primitive array or a java.nio buffer, got "
                + a.getClass().getName());
    }

    /** Copies {@code len} bytes between primitive arrays at byte offsets. */
    static void copy(Object src, long srcOff, Object dst, long dstOff, long len) {
        if (len > 0) {
            Memory.copy(src, Memory.arrayBase(src.getClass()) + srcOff, dst, Memory.arrayBase(dst.getClass()) + dstOff,
                    len);
        }
    }

    /**
     * A communication buffer as the messaging engine takes it: {@link #obj} and an offset {@link #off} in elements
     * of the datatype's extent. A heap buffer whose array offset is not a whole number of elements of the datatype
     * is staged in a byte array: copied in when prepared, copied back by {@link #done()}.
     */
    static final class Msg {
        final Object obj;
        final long off;
        private final Object user;
        private final long userOff;
        private final Object keep;

        private Msg(Object obj, long off, Object user, long userOff, Object keep) {
            this.obj = obj;
            this.off = off;
            this.user = user;
            this.userOff = userOff;
            this.keep = keep;
        }

        /** Copies a staged buffer back to the user's array (after a receive); keeps the user's buffer reachable. */
        void done() {
            if (user != null) {
                copy(obj, 0, user, userOff, arrayBytes(obj));
            }
            Reference.reachabilityFence(keep);
        }

        /** The user's buffer, for requests that must keep it reachable until they complete. */
        Object keep() {
            return keep;
        }
    }

    /**
     * Whether {@link #msg} would pass {@code buf} on as it is (an array, a ByteBuffer, null, or anything else that is
     * not an NIO buffer): the hot calls then skip the {@link Msg}.
     */
    static boolean plain(Object buf) {
        return buf == null || buf instanceof ByteBuffer || buf.getClass().isArray() || !(buf instanceof Buffer);
    }

    /** Prepares a user buffer (array, NIO buffer or null) for a message of elements of {@code t}. */
    static Msg msg(Object buf, io.jrma.Datatype t) {
        if (buf == null || buf.getClass().isArray() || buf instanceof ByteBuffer || !(buf instanceof Buffer)) {
            return new Msg(buf, 0, null, 0, buf);
        }
        Buffer b = (Buffer) buf;
        if (b.isDirect()) {
            return new Msg(bytes(b), 0, null, 0, b);
        }
        if (!b.hasArray()) {
            throw new RmaException(ErrorClass.ERR_BUFFER, "a read-only heap buffer has no accessible array");
        }
        Object arr = b.array();
        long byteOff = (long) b.arrayOffset() * elemSize(b);
        if (byteOff == 0) {
            return new Msg(arr, 0, null, 0, b);
        }
        long ext = t == null ? 0 : t.extent();
        if (ext > 0 && byteOff % ext == 0) {
            return new Msg(arr, byteOff / ext, null, 0, b);
        }
        byte[] staged = new byte[(int) (arrayBytes(arr) - byteOff)];
        copy(arr, byteOff, staged, 0, staged.length);
        return new Msg(staged, 0, arr, byteOff, b);
    }

    /** A prepared buffer over a copy of {@code b}'s whole content, same offset (the input of in-place collectives). */
    static Msg copyOf(Msg b) {
        return new Msg(copyOf(b.obj), b.off, null, 0, null);
    }

    /** A copy of a buffer's whole content (for in-place collectives, which read their input before writing). */
    static Object copyOf(Object obj) {
        if (obj instanceof ByteBuffer) {
            ByteBuffer src = (ByteBuffer) obj;
            ByteBuffer c = ByteBuffer.allocate(src.capacity());
            c.put(0, src.duplicate().clear(), 0, src.capacity());
            return c;
        }
        if (obj == null) {
            return null;
        }
        long n = arrayBytes(obj);
        byte[] c = new byte[(int) n];
        copy(obj, 0, c, 0, n);
        return c;
    }
}

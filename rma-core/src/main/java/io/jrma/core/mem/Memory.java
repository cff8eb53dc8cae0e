package io.jrma.core.mem;

import static io.jrma.core.mem.UnsafeAccess.UNSAFE;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;

/**
 * jrma's one way to raw memory: heap arrays and off-heap memory addressed alike as (base, offset), where the base
 * is {@code null} and the offset an absolute address for off-heap memory, or the array and
 * {@link #arrayBase}{@code (array class) + index * scale} for a Java array. Every access names its memory
 * ordering:
 * <ul>
 * <li>{@code ...Plain}: no ordering with other accesses (the JIT may reorder, merge or hoist them);</li>
 * <li>{@code ...Volatile}: sequentially consistent, as a volatile field;</li>
 * <li>{@code put...Release}: earlier loads and stores become visible before this store (a release store);</li>
 * <li>{@code cas...}, {@code getAndAdd...}, {@code getAndSet...}: atomic read-modify-writes with volatile
 * ordering;</li>
 * <li>{@code copy}, {@code fill}: bulk, with no ordering and no atomicity beyond a byte.</li>
 * </ul>
 * Implemented on {@code sun.misc.Unsafe}; no package but this one touches it, so that an implementation on
 * {@code java.lang.foreign} (JDK 22+) can replace this class without touching its callers.
 *
 * <p>Stateless; any thread. The caller guarantees every address is valid for the access.
 */
public final class Memory {
    private Memory() {
    }

    // ---------------------------------------------------------------- plain

    public static byte getBytePlain(Object base, long offset) {
        return UNSAFE.getByte(base, offset);
    }

    public static byte getBytePlain(long address) {
        return UNSAFE.getByte(address);
    }

    public static void putBytePlain(Object base, long offset, byte v) {
        UNSAFE.putByte(base, offset, v);
    }

    public static void putBytePlain(long address, byte v) {
        UNSAFE.putByte(address, v);
    }

    public static short getShortPlain(Object base, long offset) {
        return UNSAFE.getShort(base, offset);
    }

    public static void putShortPlain(Object base, long offset, short v) {
        UNSAFE.putShort(base, offset, v);
    }

    public static int getIntPlain(Object base, long offset) {
        return UNSAFE.getInt(base, offset);
    }

    public static int getIntPlain(long address) {
        return UNSAFE.getInt(address);
    }

    public static void putIntPlain(Object base, long offset, int v) {
        UNSAFE.putInt(base, offset, v);
    }

    public static void putIntPlain(long address, int v) {
        UNSAFE.putInt(address, v);
    }

    public static long getLongPlain(Object base, long offset) {
        return UNSAFE.getLong(base, offset);
    }

    public static long getLongPlain(long address) {
        return UNSAFE.getLong(address);
    }

    public static void putLongPlain(Object base, long offset, long v) {
        UNSAFE.putLong(base, offset, v);
    }

    public static void putLongPlain(long address, long v) {
        UNSAFE.putLong(address, v);
    }

    public static float getFloatPlain(Object base, long offset) {
        return UNSAFE.getFloat(base, offset);
    }

    public static void putFloatPlain(Object base, long offset, float v) {
        UNSAFE.putFloat(base, offset, v);
    }

    public static double getDoublePlain(Object base, long offset) {
        return UNSAFE.getDouble(base, offset);
    }

    public static void putDoublePlain(Object base, long offset, double v) {
        UNSAFE.putDouble(base, offset, v);
    }

    public static short getShortPlain(long address) {
        return UNSAFE.getShort(address);
    }

    public static void putShortPlain(long address, short v) {
        UNSAFE.putShort(address, v);
    }

    public static float getFloatPlain(long address) {
        return UNSAFE.getFloat(address);
    }

    public static void putFloatPlain(long address, float v) {
        UNSAFE.putFloat(address, v);
    }

    public static double getDoublePlain(long address) {
        return UNSAFE.getDouble(address);
    }

    public static void putDoublePlain(long address, double v) {
        UNSAFE.putDouble(address, v);
    }

    /** A reference field of {@code base} at {@code offset} (see {@link #fieldOffset}). */
    public static Object getReferencePlain(Object base, long offset) {
        return UNSAFE.getObject(base, offset);
    }

    // ---------------------------------------------------------------- volatile, release

    public static int getIntVolatile(Object base, long offset) {
        return UNSAFE.getIntVolatile(base, offset);
    }

    public static void putIntVolatile(Object base, long offset, int v) {
        UNSAFE.putIntVolatile(base, offset, v);
    }

    public static long getLongVolatile(Object base, long offset) {
        return UNSAFE.getLongVolatile(base, offset);
    }

    public static void putLongVolatile(Object base, long offset, long v) {
        UNSAFE.putLongVolatile(base, offset, v);
    }

    public static void putLongRelease(Object base, long offset, long v) {
        UNSAFE.putOrderedLong(base, offset, v);
    }

    public static void putIntRelease(Object base, long offset, int v) {
        UNSAFE.putOrderedInt(base, offset, v);
    }

    // ---------------------------------------------------------------- atomic read-modify-write (volatile)

    /** Sets {@code update} if the value is {@code expected}; true if it did. */
    public static boolean casLong(Object base, long offset, long expected, long update) {
        return UNSAFE.compareAndSwapLong(base, offset, expected, update);
    }

    /** Sets {@code update} if the value is {@code expected}; true if it did. */
    public static boolean casInt(Object base, long offset, int expected, int update) {
        return UNSAFE.compareAndSwapInt(base, offset, expected, update);
    }

    public static long getAndAddLong(Object base, long offset, long delta) {
        return UNSAFE.getAndAddLong(base, offset, delta);
    }

    public static int getAndAddInt(Object base, long offset, int delta) {
        return UNSAFE.getAndAddInt(base, offset, delta);
    }

    public static long getAndSetLong(Object base, long offset, long v) {
        return UNSAFE.getAndSetLong(base, offset, v);
    }

    public static int getAndSetInt(Object base, long offset, int v) {
        return UNSAFE.getAndSetInt(base, offset, v);
    }

    // ---------------------------------------------------------------- fences

    /** Loads before the fence are not reordered with loads and stores after it. */
    public static void loadFence() {
        UNSAFE.loadFence();
    }

    /** Loads and stores before the fence are not reordered with stores after it. */
    public static void storeFence() {
        UNSAFE.storeFence();
    }

    // ---------------------------------------------------------------- bulk

    /** Copies {@code bytes} bytes (the ranges may overlap). */
    public static void copy(Object srcBase, long srcOffset, Object dstBase, long dstOffset, long bytes) {
        UNSAFE.copyMemory(srcBase, srcOffset, dstBase, dstOffset, bytes);
    }

    /** Copies {@code bytes} bytes between addresses (the ranges may overlap). */
    public static void copy(long srcAddress, long dstAddress, long bytes) {
        UNSAFE.copyMemory(srcAddress, dstAddress, bytes);
    }

    /** Sets {@code bytes} bytes from {@code address} to {@code value}. */
    public static void fill(long address, long bytes, byte value) {
        UNSAFE.setMemory(address, bytes, value);
    }

    // ---------------------------------------------------------------- off-heap memory, layout

    /** {@code bytes} bytes of uninitialized off-heap memory; {@link #free} gives them back. */
    public static long allocate(long bytes) {
        return UNSAFE.allocateMemory(bytes);
    }

    public static void free(long address) {
        UNSAFE.freeMemory(address);
    }

    /** Unmaps or frees a direct buffer's memory now, not at some GC; the buffer must not be used again. */
    public static void release(ByteBuffer direct) {
        UNSAFE.invokeCleaner(direct);
    }

    /** The offset of a Java array's first element from the array. */
    public static long arrayBase(Class<?> arrayClass) {
        return UNSAFE.arrayBaseOffset(arrayClass);
    }

    /** The offset of an instance field, for {@link #getLongPlain(Object, long)} and the like. */
    public static long fieldOffset(Field f) {
        return UNSAFE.objectFieldOffset(f);
    }
}

package io.jrma.core.mem;


import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import java.util.Locale;

/**
 * Copies between (base object, offset) addresses as {@link Memory#copy(Object, long, Object, long, long)} does, but
 * hands large copies between off-heap addresses to the C library's {@code memmove} (through a JNA direct mapping).
 *
 * <p>Why: HotSpot's copy stub moves 32 bytes per instruction pair and reads every destination line before it
 * writes it; glibc's {@code memmove} uses the CPU's fast string stores for large sizes, which write whole lines
 * without reading them first. Measured on this project's 2-core machine, 64 buffers copied into a shared-memory
 * mapping (the working set of OSU's bandwidth test): at 1 MiB 12.2 GB/s against 15.9, at 4 MiB 7.2 against 8.4;
 * equal at 64 KiB; below that the stub wins (a JNA call costs ~0.1 µs). Hence the threshold
 * {@link #NATIVE_MIN_BYTES}. {@code memmove}, not {@code memcpy}: a window may be its own origin buffer, and for
 * regions that do not overlap it is as fast.
 *
 * <p>{@code -Djrma.memcpy=false} keeps every copy in the JVM; {@code -Djrma.memcpy.minBytes=N} moves the
 * threshold. When JNA cannot load the C library (another OS, the JVM's native-access policy) every copy stays in
 * the JVM. Heap arrays are never handed to native code (the collector may move them).
 *
 * <p>Stateless; any thread.
 */
public final class BulkCopy {
    /** Off-heap copies of at least this many bytes go to {@code memmove}. */
    public static final long NATIVE_MIN_BYTES = Long.getLong("jrma.memcpy.minBytes", 256 << 10);
    private static final boolean NATIVE = load();

    private BulkCopy() {
    }

    /** The direct mapping: JNA binds these to the C library's functions of the same name. */
    private static final class C {
        static native long memmove(long dst, long src, long n);
    }

    private static boolean load() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
                || "false".equals(System.getProperty("jrma.memcpy"))) {
            return false;
        }
        try {
            Native.register(C.class, NativeLibrary.getInstance("c"));
            long probe = Memory.allocate(16);
            try { // a wrong binding must be found here, not in a window
                Memory.putLongPlain(probe, 0x0123456789abcdefL);
                Memory.putLongPlain(probe + 8, 0);
                C.memmove(probe + 8, probe, 8);
                return Memory.getLongPlain(probe + 8) == 0x0123456789abcdefL;
            } finally {
                Memory.free(probe);
            }
        } catch (Throwable e) { // UnsatisfiedLinkError, or JNA refused by the JVM's native-access policy
            return false;
        }
    }

    /** Whether large off-heap copies go to the C library here. */
    public static boolean usesNative() {
        return NATIVE;
    }

    /**
     * Copies {@code bytes} bytes from {@code (srcBase, srcOffset)} to {@code (dstBase, dstOffset)}; a null base
     * makes the offset an absolute address. The regions may overlap.
     */
    public static void copy(Object srcBase, long srcOffset, Object dstBase, long dstOffset, long bytes) {
        if (bytes >= NATIVE_MIN_BYTES && NATIVE && srcBase == null && dstBase == null) {
            C.memmove(dstOffset, srcOffset, bytes);
        } else {
            Memory.copy(srcBase, srcOffset, dstBase, dstOffset, bytes);
        }
    }

    /** {@link #copy} between absolute addresses. */
    public static void copy(long src, long dst, long bytes) {
        copy(null, src, null, dst, bytes);
    }
}

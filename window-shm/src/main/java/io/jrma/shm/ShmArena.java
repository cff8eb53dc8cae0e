package io.jrma.shm;

import com.sun.jna.Pointer;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Memory the library hands out for buffers (MPI_Alloc_mem: {@code io.jrma.Jrma.allocateMemory},
 * {@code mpi.MPI.newByteBuffer}) taken from shared segments when this JVM is one of several of a job, so that a
 * window created over such a buffer is reachable by load/store from the other JVMs of the host, like an
 * allocate window: no cliff between window kinds.
 *
 * <p>Requests of {@value #DEDICATED} bytes or more get a segment of their own, unmapped and removed when the
 * buffer becomes unreachable; smaller ones are carved (64-byte aligned) from shared chunks of {@value #CHUNK}
 * bytes that live as long as the JVM. Files stay in /dev/shm while they can still be mapped by another JVM
 * (a window may be created over them at any time): they are removed when freed, at JVM exit, and after a crash
 * by {@link ShmFiles#reclaimDead} (jrmarun does it at start).
 *
 * <p>Thread-safe.
 */
public final class ShmArena {
    static final long DEDICATED = 1 << 20;
    static final long CHUNK = 4 << 20;
    private static final Cleaner CLEANER = Cleaner.create();
    private static final TreeMap<Long, ShmSegment> SEGMENTS = new TreeMap<>();
    private static volatile boolean enabled;
    private static volatile Path dir = Path.of("/dev/shm");
    private static ShmSegment chunk;
    private static long chunkUsed;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ShmArena::unlinkAll, "jrma-shm-arena-cleanup"));
    }

    /** Where a buffer lives: the segment's file name and size, and the buffer's offset in it. */
    public record Slot(String segment, long segmentSize, long offset) {
    }

    private ShmArena() {
    }

    /**
     * Turns shared allocation on for this JVM (the launcher's JVM host does it for jobs over several JVMs).
     *
     * @param directory the shared-memory directory (jrma.shm.dir)
     */
    public static void enable(Path directory) {
        dir = directory;
        enabled = true;
    }

    /** Whether allocations come from shared segments. */
    public static boolean enabled() {
        return enabled;
    }

    /**
     * A zeroed, little-endian direct buffer of {@code bytes} bytes: in a shared segment when enabled, else
     * ordinary direct memory.
     *
     * @throws RmaException ERR_NO_MEM when there is no room (in /dev/shm or the heap's direct memory)
     */
    public static ByteBuffer allocate(int bytes) {
        if (bytes < 0) {
            throw new RmaException(ErrorClass.ERR_SIZE, "cannot allocate " + bytes + " bytes");
        }
        if (!enabled) {
            try {
                return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
            } catch (OutOfMemoryError e) {
                throw new RmaException(ErrorClass.ERR_NO_MEM, "cannot allocate " + bytes + " bytes: " + e.getMessage());
            }
        }
        if (bytes >= DEDICATED) {
            ShmSegment s = ShmSegment.create(dir, ShmSegment.newName("mem"), bytes);
            register(s);
            ByteBuffer b = rootBuffer(s, bytes);
            CLEANER.register(b, () -> {
                unregister(s);
                s.close();
            });
            return b;
        }
        synchronized (ShmArena.class) {
            long at = (chunkUsed + 63) & ~63L;
            if (chunk == null || at + bytes > chunk.size()) {
                chunk = ShmSegment.create(dir, ShmSegment.newName("mem"), CHUNK);
                register(chunk);
                at = 0;
            }
            chunkUsed = at + bytes;
            return chunk.buffer(at, bytes);
        }
    }

    /**
     * A buffer over the start of {@code s} with no attachment, so that every view made from it (slice,
     * duplicate, {@code asFloatBuffer}, ...) keeps it reachable and the segment is unmapped only when all of
     * them are gone. A slice of the segment's own mapping would not do: its views reference that mapping, not
     * the slice, so the cleaner registered on the slice unmapped the memory under a live {@code FloatBuffer}
     * view (SIGSEGV in {@code MPI.newFloatBuffer} buffers of 1 MiB or more once the GC ran). JNA makes it
     * (JNI NewDirectByteBuffer); without JNA, the slice.
     */
    private static ByteBuffer rootBuffer(ShmSegment s, int bytes) {
        try {
            return new Pointer(s.address()).getByteBuffer(0, bytes).order(ByteOrder.LITTLE_ENDIAN);
        } catch (LinkageError | RuntimeException e) {
            return s.buffer(0, bytes);
        }
    }

    /** For tests: allocations from ordinary direct memory again. */
    static void disableForTests() {
        enabled = false;
    }

    /** The shared segment holding {@code [address, address + length)}, or null when it is not arena memory. */
    public static Slot lookup(long address, long length) {
        synchronized (SEGMENTS) {
            Map.Entry<Long, ShmSegment> e = SEGMENTS.floorEntry(address);
            if (e == null) {
                return null;
            }
            ShmSegment s = e.getValue();
            long off = address - e.getKey();
            return off + length <= s.size() ? new Slot(s.name(), s.size(), off) : null;
        }
    }

    private static void register(ShmSegment s) {
        synchronized (SEGMENTS) {
            SEGMENTS.put(s.address(), s);
        }
    }

    private static void unregister(ShmSegment s) {
        synchronized (SEGMENTS) {
            SEGMENTS.remove(s.address());
        }
    }

    private static void unlinkAll() {
        synchronized (SEGMENTS) {
            SEGMENTS.values().forEach(ShmSegment::unlink);
        }
    }
}

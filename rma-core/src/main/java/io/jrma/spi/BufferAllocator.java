package io.jrma.spi;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Where {@code Jrma.allocateMemory} (MPI_Alloc_mem) takes its memory from: the window-shm module's arena of shared
 * segments (so that windows created over such buffers are reachable by load/store from other JVMs of the host),
 * found with {@code ServiceLoader}; without it, ordinary direct memory.
 */
public interface BufferAllocator {
    /**
     * A zeroed little-endian direct buffer of {@code bytes} bytes.
     *
     * @throws io.jrma.RmaException ERR_SIZE for a negative size, ERR_NO_MEM when there is no room
     */
    ByteBuffer allocate(int bytes);

    /**
     * This JVM runs ranks of a job that spans JVMs, with the job's run-time parameters: from now on buffers may be
     * placed where the other JVMs of the host reach them. Called by the launcher's JVM side before any rank runs.
     */
    default void jobSpansJvms(Map<String, String> params) {
    }
}

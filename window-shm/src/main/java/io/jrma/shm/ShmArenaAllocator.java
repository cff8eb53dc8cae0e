package io.jrma.shm;

import io.jrma.core.config.Params;
import io.jrma.spi.BufferAllocator;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * {@code Jrma.allocateMemory} through the {@link ShmArena}: shared segments in a JVM of a job that spans JVMs
 * (unless {@code jrma.shm.windows=false}), so that windows created over such buffers are reachable by load/store
 * from the host's other JVMs; ordinary direct memory elsewhere.
 */
public final class ShmArenaAllocator implements BufferAllocator {
    @Override
    public ByteBuffer allocate(int bytes) {
        return ShmArena.allocate(bytes);
    }

    @Override
    public void jobSpansJvms(Map<String, String> params) {
        if (!"false".equals(Params.SHM_WINDOWS.get(params))) {
            ShmArena.enable(ShmSegment.directory(Params.SHM_DIR.get(params)));
        }
    }
}

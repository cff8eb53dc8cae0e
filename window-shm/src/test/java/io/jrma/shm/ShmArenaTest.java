package io.jrma.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A dedicated arena segment (1 MiB or more) stays mapped while any view of its buffer is reachable: a
 * {@code FloatBuffer} view whose byte buffer was dropped (what {@code MPI.newFloatBuffer} returns) must not
 * lose its memory when the GC runs (it did: SIGSEGV in OsuColl allreduce of 1 MiB across JVMs); once the last
 * view is gone the segment is released.
 */
class ShmArenaTest {
    @Test
    @Timeout(60)
    void aViewKeepsItsDedicatedSegmentMapped() throws Exception {
        Path dir = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(dir) && Files.isWritable(dir), "/dev/shm");
        ShmArena.enable(dir);
        try {
            int bytes = 1 << 20;
            ByteBuffer raw = ShmArena.allocate(bytes);
            long address = Pointer.nativeValue(Native.getDirectBufferPointer(raw));
            FloatBuffer view = raw.asFloatBuffer();
            WeakReference<ByteBuffer> rawRef = new WeakReference<>(raw);
            raw = null;
            for (int i = 0; i < 50 && rawRef.get() != null; i++) {
                System.gc();
                Thread.sleep(10);
            }
            for (int round = 0; round < 5; round++) {
                System.gc();
                Thread.sleep(20);
                assertNotNull(ShmArena.lookup(address, bytes), "segment released while a view is reachable");
                for (int k = 0; k < view.capacity(); k += 1024) {
                    view.put(k, k + round);
                }
                assertEquals(view.capacity() - 1024 + round, view.get(view.capacity() - 1024), 0f);
            }
            view = null; // the last view gone: the segment is released
            for (int i = 0; i < 200 && ShmArena.lookup(address, bytes) != null; i++) {
                System.gc();
                Thread.sleep(10);
            }
            assertNull(ShmArena.lookup(address, bytes), "segment not released once unreachable");
        } finally {
            ShmArena.disableForTests();
        }
    }
}

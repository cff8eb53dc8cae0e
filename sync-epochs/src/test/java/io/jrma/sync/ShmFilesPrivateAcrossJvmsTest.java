package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Comm;
import io.jrma.Jrma;
import io.jrma.Win;
import io.jrma.shm.ShmFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every file a running job has in /dev/shm (window segments, the allocator's chunks, rings) is mode 0600 and this
 * user's: they hold the ranks' memory. Each JVM checks its own files while its windows and buffers exist, and a
 * watcher in the test JVM records the mode of every jrma file it sees appear during the job (rings and window
 * segments live only milliseconds before they are unlinked; the allocator's chunks stay while the JVM runs).
 */
class ShmFilesPrivateAcrossJvmsTest {
    private static final Path SHM = Path.of("/dev/shm");

    @Test
    @Timeout(120)
    void aJobsFilesArePrivateWhileItRuns() throws Exception {
        Map<String, String> seen = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        Thread watcher = new Thread(() -> {
            while (!stop.get()) {
                watch(seen);
            }
        }, "shm-watcher");
        watcher.setDaemon(true);
        watcher.start();
        try {
            Jrma.job(4).jvms(2).timeout(Duration.ofSeconds(90))
                    .run(ShmFilesPrivateAcrossJvmsTest::useSharedMemory);
            Jrma.job(2).timeout(Duration.ofSeconds(60)).run(ShmFilesPrivateAcrossJvmsTest::useSharedMemory);
        } finally {
            stop.set(true);
            watcher.join(5_000);
        }
        assertTrue(!seen.isEmpty(), "the watcher saw no jrma file during a job over two JVMs");
        seen.forEach((name, mode) -> assertEquals("rw-------", mode, name + " while the job ran"));
    }

    /** A rank's body: buffers from the allocator, an allocate window, then its JVM's files checked. */
    private static void useSharedMemory(Comm world) throws IOException {
        ByteBuffer small = Jrma.allocateMemory(256);
        ByteBuffer large = Jrma.allocateMemory(1 << 20);
        Win w = Win.allocate(world, 64 << 10, 1, null);
        world.barrier();
        for (String f : ShmFiles.filesOf(SHM, ProcessHandle.current().pid())) {
            Path p = SHM.resolve(f);
            try {
                String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(p,
                        LinkOption.NOFOLLOW_LINKS));
                int uid = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                if (!mode.equals("rw-------") || uid != ShmFiles.currentUid()) {
                    throw new AssertionError(p + " is " + mode + " of uid " + uid + " while the job runs");
                }
            } catch (NoSuchFileException gone) {
                // unlinked meanwhile (a window's segment once mapped everywhere)
            }
        }
        world.barrier();
        w.free();
        small.put(0, (byte) 1);
        large.put(0, (byte) 1);
    }

    /** Notes the mode of every jrma file of this JVM or the job's JVMs (its children; not other users' jobs). */
    private static void watch(Map<String, String> seen) {
        Set<String> ours = new HashSet<>();
        ours.add(ShmFiles.PREFIX + ProcessHandle.current().pid() + "-");
        ProcessHandle.current().descendants().forEach(h -> ours.add(ShmFiles.PREFIX + h.pid() + "-"));
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(SHM, ShmFiles.PREFIX + "*")) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                String prefix = name.substring(0, name.indexOf('-', ShmFiles.PREFIX.length()) + 1);
                if (ours.contains(prefix) && !seen.containsKey(name)) {
                    try {
                        seen.put(name, PosixFilePermissions.toString(Files.getPosixFilePermissions(p,
                                LinkOption.NOFOLLOW_LINKS)));
                    } catch (IOException gone) {
                        // unlinked between the listing and the look
                    }
                }
            }
        } catch (IOException ignored) {
            // look again
        }
        LockSupport.parkNanos(200_000); // rings and window segments exist for milliseconds before they are unlinked
    }
}

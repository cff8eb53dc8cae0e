package io.jrma.testsupport;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The shared-memory files jrma's JVMs leave under /dev/shm. jrma names every file it makes there
 * {@code jrma-<pid>-...} after the JVM that made it, so a test can ask, after a job's JVMs are gone, whether one of
 * them left a file behind. Stateless; any thread.
 */
public final class ShmLeftovers {
    /** Where jrma makes its shared-memory files. */
    public static final Path DEV_SHM = Path.of("/dev/shm");
    /** The start of every file name jrma makes there. */
    public static final String PREFIX = "jrma-";

    private ShmLeftovers() {
    }

    /** The names of the files JVM {@code pid} made under /dev/shm that are still there, sorted. */
    public static List<String> filesOf(long pid) {
        return list(PREFIX + pid + "-*");
    }

    /** The names of every jrma file under /dev/shm, sorted. */
    public static List<String> all() {
        return list(PREFIX + "*");
    }

    private static List<String> list(String glob) {
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(DEV_SHM, glob)) {
            ds.forEach(p -> out.add(p.getFileName().toString()));
        } catch (IOException ignored) {
            // no /dev/shm: nothing left there
        }
        Collections.sort(out);
        return out;
    }
}

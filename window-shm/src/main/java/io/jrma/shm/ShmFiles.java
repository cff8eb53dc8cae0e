package io.jrma.shm;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Housekeeping of the library's files in the shared-memory directory: every file is named
 * {@code jrma-<pid>-...} after the JVM that created it, so the files of JVMs that died (killed, crashed) can
 * be told apart from live ones and reclaimed. jrmarun does this at start; {@code jrmarun --cleanup} does only
 * this.
 *
 * <p>Stateless; any thread.
 */
public final class ShmFiles {
    /** Prefix of every file the library creates in the shared-memory directory. */
    public static final String PREFIX = "jrma-";

    private ShmFiles() {
    }

    /**
     * Deletes the library's files whose creating process is gone.
     *
     * @return the names deleted
     */
    public static List<String> reclaimDead(Path dir) {
        List<String> gone = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return gone;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, PREFIX + "*")) {
            for (Path p : ds) {
                long pid = pidOf(p.getFileName().toString());
                if (pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    continue;
                }
                if (pid > 0) {
                    try {
                        Files.deleteIfExists(p);
                        gone.add(p.getFileName().toString());
                    } catch (IOException ignored) {
                        // someone else's, or already gone
                    }
                }
            }
        } catch (IOException ignored) {
            // unreadable directory: nothing to reclaim
        }
        return gone;
    }

    /** The library's files in {@code dir} created by process {@code pid} (tests, diagnostics). */
    public static List<String> filesOf(Path dir, long pid) {
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, PREFIX + pid + "-*")) {
            ds.forEach(p -> out.add(p.getFileName().toString()));
        } catch (IOException ignored) {
            // none
        }
        return out;
    }

    /** The pid in a library file name, or -1 when the name is not one of ours. */
    static long pidOf(String name) {
        if (!name.startsWith(PREFIX)) {
            return -1;
        }
        int end = name.indexOf('-', PREFIX.length());
        try {
            return Long.parseLong(end < 0 ? name.substring(PREFIX.length()) : name.substring(PREFIX.length(), end));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}

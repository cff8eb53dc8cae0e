package io.jrma.shm;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Housekeeping of the library's files in the shared-memory directory: every file is named
 * {@code jrma-<pid>-...} after the JVM that created it, so the files of JVMs that died (killed, crashed) can
 * be told apart from live ones and reclaimed. jrmarun does this at start; {@code jrmarun --cleanup} does only
 * this.
 *
 * <p>Every such file holds a rank's memory or the packets between two JVMs, so it is this user's alone: created
 * exclusively ({@link #createPrivate}: O_CREAT|O_EXCL, which also refuses a symlink at the name, with mode 0600 from
 * the first instant) and, when another JVM of the job maps it by name, opened without following a symlink and
 * checked to be a regular file of this user with no group or other permission ({@link #openPrivate}). A file that
 * another user created at the name first, or swapped in, is refused with an error naming it, never truncated or
 * mapped: in the sticky shared-memory directory nobody else can rename or remove a file of ours once it is there.
 *
 * <p>Stateless; any thread.
 */
public final class ShmFiles {
    /** Prefix of every file the library creates in the shared-memory directory. */
    public static final String PREFIX = "jrma-";
    /** The only permissions a library file may have: read and write for its owner. */
    private static final Set<PosixFilePermission> OWNER_RW = PosixFilePermissions.fromString("rw-------");
    private static final FileAttribute<Set<PosixFilePermission>> PRIVATE =
            PosixFilePermissions.asFileAttribute(OWNER_RW);
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

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

    /**
     * Deletes the library's files in {@code dir} created by process {@code pid} (a JVM that ended without cleaning
     * up, or this one at its end); what cannot be deleted is left for the next {@code jrmarun --cleanup}.
     *
     * @return the names deleted
     */
    public static List<String> removeFilesOf(Path dir, long pid) {
        List<String> gone = new ArrayList<>();
        for (String f : filesOf(dir, pid)) {
            try {
                if (Files.deleteIfExists(dir.resolve(f))) {
                    gone.add(f);
                }
            } catch (IOException ignored) {
                // left for the next jrmarun --cleanup, which removes the files of ended JVMs
            }
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

    /**
     * Creates {@code file} for reading and writing by this user only. Nothing is removed when it fails: a file
     * already at the name is not ours to delete.
     *
     * @throws RmaException ERR_FILE_EXISTS when something (a file, a symlink) is already at the name, ERR_ACCESS
     *     when the new file is not private after all (a default ACL of the directory)
     * @throws IOException when the file cannot be created otherwise (no room, no such directory)
     */
    public static FileChannel createPrivate(Path file) throws IOException {
        FileChannel ch;
        try {
            ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE), PRIVATE);
        } catch (FileAlreadyExistsException e) {
            throw new RmaException(ErrorClass.ERR_FILE_EXISTS, "shared memory: refusing to use " + file + ": a file or"
                    + " symlink of that name already exists and jrma did not create it (remove it if it is stale)", e);
        } catch (UnsupportedOperationException e) { // a directory without POSIX permissions
            throw new RmaException(ErrorClass.ERR_ACCESS, "shared memory: " + file.getParent() + " cannot hold files"
                    + " private to this user (" + e.getMessage() + "); set jrma.shm.dir to a tmpfs", e);
        }
        try {
            return checked(file, ch);
        } catch (RmaException e) {
            Files.deleteIfExists(file); // created exclusively a moment ago: ours to remove
            throw e;
        }
    }

    /**
     * Opens a file another JVM of this job created, without following a symlink, and checks it is still a private
     * file of this user.
     *
     * @throws RmaException ERR_ACCESS when it is a symlink, not a regular file, another user's, or readable or
     *     writable by others
     * @throws IOException when it cannot be opened (gone)
     */
    public static FileChannel openPrivate(Path file) throws IOException {
        FileChannel ch;
        try {
            ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            if (Files.isSymbolicLink(file)) { // O_NOFOLLOW: ELOOP
                throw new RmaException(ErrorClass.ERR_ACCESS, "shared memory: refusing " + file + ": it is a symlink,"
                        + " not a file created by jrma", e);
            }
            throw e;
        }
        return checked(file, ch);
    }

    /** {@code ch}, opened on {@code file}, if the file is private to this user; else closes it and throws. */
    private static FileChannel checked(Path file, FileChannel ch) throws IOException {
        try {
            checkPrivate(file);
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * Throws unless {@code file} (not followed if a symlink) is a regular file owned by this user with no
     * permission for group or others.
     *
     * @throws RmaException ERR_ACCESS naming the file and what is wrong with it
     */
    public static void checkPrivate(Path file) throws IOException {
        PosixFileAttributes p = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String perms = PosixFilePermissions.toString(p.permissions());
        String why = null;
        int uid = (Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        if (!p.isRegularFile()) {
            why = "it is not a regular file";
        } else if (uid != currentUid()) {
            why = "it is owned by " + p.owner().getName() + " (uid " + uid + "), not by this user (uid " + currentUid()
                    + ")";
        } else if (p.permissions().stream().anyMatch(OTHERS::contains)) {
            why = "its mode " + perms + " lets other users read or write it (jrma creates rw-------)";
        }
        if (why != null) {
            throw new RmaException(ErrorClass.ERR_ACCESS, "shared memory: refusing " + file + ": " + why
                    + "; jrma maps only files it created for this user");
        }
    }

    /** This process's user id (effective): the owner of {@code /proc/self}. */
    public static int currentUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return -1;
        }
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

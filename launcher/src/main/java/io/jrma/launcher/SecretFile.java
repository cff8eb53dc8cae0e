package io.jrma.launcher;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;

/**
 * How the secret of a JVM's link to its launcher reaches the JVM without a command line, an environment or stdin
 * (which is the program's: rank 0 reads jrmarun's): a file only the user can read, in a directory only the user can
 * enter, named in the JVM's environment ({@code JRMA_SECRET_FILE}); the JVM reads it once and removes it, and the
 * launcher removes the directory when the JVMs have joined (or the job ended). On another host the launch agent's
 * shell writes such a file from the agent's stdin ({@link RemoteStart#command}).
 *
 * <p>Stateless apart from the directory an instance owns; any thread.
 */
final class SecretFile implements AutoCloseable {
    private static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");

    /** This process, whose owner is this JVM's user (Linux). */
    private static final Path SELF = Path.of("/proc/self");

    private final Path dir;

    /** Makes a private directory for the secrets of one job's JVMs. */
    SecretFile() throws IOException {
        dir = Files.createTempDirectory("jrma-link-", PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
    }

    /** Writes the secret for JVM {@code jvm} into a new file only the user can read; returns its path. */
    Path write(int jvm, String secret) throws IOException {
        Path f = dir.resolve("jvm-" + jvm);
        Files.write(Files.createFile(f, PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE)),
                (secret + "\n").getBytes(StandardCharsets.US_ASCII), StandardOpenOption.WRITE);
        return f;
    }

    /** Removes the directory and the files the JVMs did not take (those that died before they joined). */
    @Override
    public void close() {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // gone already
        }
    }

    /**
     * Reads the secret from {@code file} and removes the file. ERR_OTHER when it cannot be read, or when others than
     * its owner, this JVM's user, could read or write it (then it is not taken for a secret).
     */
    static String take(Path file) {
        try {
            PosixFileAttributes a = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            Set<PosixFilePermission> others = a.permissions();
            others.removeAll(OWNER_ONLY_FILE);
            Object owner = Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            Object me = Files.exists(SELF) ? Files.getAttribute(SELF, "unix:uid") : owner;
            if (!a.isRegularFile() || !others.isEmpty() || !owner.equals(me)) {
                throw new RmaException(ErrorClass.ERR_OTHER, "the launcher's secret file " + file + " is not a"
                        + " regular file of this JVM's user (uid " + me + ") that only its owner can read (uid "
                        + owner + ", " + PosixFilePermissions.toString(a.permissions()) + ")");
            }
            String secret = Files.readString(file, StandardCharsets.US_ASCII).trim();
            Files.deleteIfExists(file);
            return secret;
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_OTHER, "cannot read the launcher's secret file " + file + " ("
                    + e + "): was this JVM started by jrmarun, and has it joined once already?", e);
        }
    }
}

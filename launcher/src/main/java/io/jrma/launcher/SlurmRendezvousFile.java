package io.jrma.launcher;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The file through which rank 0 of {@code srun --mpi=none} tells the other ranks where it listens and the job's
 * secret ({@link SlurmRendezvous}): {@code <jrma.slurm.dir>/<cluster>-<job>.<step>}, created exclusively with mode
 * 0600 in a directory only the user can write, trusted by a reader only when it is the user's own and private, and
 * removed once every rank has read it.
 *
 * <pre>
 *  file (text):   version=1, node=, addresses= (comma-separated), port=, job= (id), secret=, end
 * </pre>
 *
 * <p>Not thread-safe: the rank's thread uses it.
 */
final class SlurmRendezvousFile {
    /** The version of the file's format: every task of a step must run the same jrma. */
    static final int VERSION = 1;

    /** The line that ends a complete file (a reader that sees less waits for rank 0 to finish writing). */
    private static final String END = "end\n";
    private static final String[] FIELDS = {"version", "node", "addresses", "port", "job", "secret"};

    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> WRITABLE_BY_OTHERS = EnumSet.of(PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_WRITE);
    private static final Set<PosixFilePermission> ACCESSIBLE_BY_OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private final Path file;
    private boolean removed;

    /** The file of the job step named by Slurm's variables in {@code env}, in {@code dir}. */
    SlurmRendezvousFile(Path dir, Map<String, String> env) {
        String name = safe(env.getOrDefault(SlurmRendezvous.CLUSTER, "slurm")) + "-"
                + safe(env.get(SlurmRendezvous.JOB_ID)) + "." + safe(env.get(SlurmRendezvous.STEP_ID));
        this.file = dir.resolve(name);
    }

    /** Its path, for messages. */
    Path path() {
        return file;
    }

    @Override
    public String toString() {
        return file.toString();
    }

    /** {@code jrma.slurm.dir}, with a leading {@code ~} as the user's home. */
    static Path directory(Map<String, String> params) {
        String d = SlurmRendezvous.DIR.get(params);
        if (d.isEmpty()) {
            throw new RmaException(ErrorClass.ERR_ARG, SlurmRendezvous.DIR.name() + " is empty");
        }
        if (d.equals("~") || d.startsWith("~/")) {
            d = System.getProperty("user.home") + d.substring(1);
        }
        return Path.of(d).toAbsolutePath();
    }

    private static String safe(String s) {
        return s == null ? "none" : s.trim().replaceAll("[^A-Za-z0-9._-]", "_");
    }

    /** Rank 0: writes the file's fields, in the order of the format. */
    void publish(String node, String addresses, int port, String jobId, String secret) throws IOException {
        StringBuilder text = new StringBuilder()
                .append("version=").append(VERSION).append('\n')
                .append("node=").append(node).append('\n')
                .append("addresses=").append(addresses).append('\n')
                .append("port=").append(port).append('\n')
                .append("job=").append(jobId).append('\n')
                .append("secret=").append(secret).append('\n')
                .append(END);
        writeExclusively(text.toString().getBytes(StandardCharsets.US_ASCII));
    }

    /** Creates the file with mode 0600, failing if it exists; one left by a crashed step of the same name goes. */
    private void writeExclusively(byte[] content) throws IOException {
        for (int attempt = 0;; attempt++) {
            // the mode is the file's from its creation (open(2) with 0600): no moment when others may read it
            try (SeekableByteChannel out = Files.newByteChannel(file, EnumSet.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE))) {
                out.write(ByteBuffer.wrap(content));
                return;
            } catch (FileAlreadyExistsException e) {
                // job and step ids repeat only when a cluster starts afresh: the file of a step that died before
                // removing it. Only the user's own goes; the readers retry until they meet this rank 0.
                if (attempt > 0 || !ownedByMe(file)) {
                    throw new RmaException(ErrorClass.ERR_ACCESS, "srun --mpi=none: " + file + " exists and "
                            + (attempt > 0 ? "came back after it was removed" : "is not this user's")
                            + ": another process uses this job step's name in " + SlurmRendezvous.DIR.name());
                }
                Files.deleteIfExists(file);
            }
        }
    }

    /**
     * The file's fields once it is complete and trustworthy; null while rank 0 is still writing it.
     *
     * <p>A {@code NoSuchFileException} while rank 0 has not created it.
     */
    Map<String, String> read() throws IOException {
        byte[] b = Files.readAllBytes(file);
        if (!ownedByMe(file)) {
            throw new RmaException(ErrorClass.ERR_ACCESS, "srun --mpi=none: " + file + " is not this user's: not"
                    + " trusting it (" + SlurmRendezvous.DIR.name() + " must be a directory only this user writes)");
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
        if (!Collections.disjoint(perms, ACCESSIBLE_BY_OTHERS)) {
            throw new RmaException(ErrorClass.ERR_ACCESS, "srun --mpi=none: " + file + " has mode "
                    + PosixFilePermissions.toString(perms) + ", which others may read or write: not trusting it");
        }
        String text = new String(b, StandardCharsets.US_ASCII);
        if (!text.endsWith(END)) {
            return null;
        }
        Map<String, String> m = new HashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                m.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        for (String k : FIELDS) {
            if (m.get(k) == null) {
                throw new RmaException(ErrorClass.ERR_OTHER, "srun --mpi=none: " + file + " has no " + k);
            }
        }
        if (!String.valueOf(VERSION).equals(m.get("version"))) {
            throw new RmaException(ErrorClass.ERR_OTHER, "srun --mpi=none: " + file + " is of version "
                    + m.get("version") + ", this jrma reads version " + VERSION
                    + ": every task must run the same jrma");
        }
        return m;
    }

    /** Removes the file (once: a later step of this name may have written its own since). */
    void remove() {
        if (!removed) {
            removed = true;
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a later step of this name replaces it
            }
        }
    }

    /** Refuses a directory others may write into (they could plant or swap the file); creates it 0700. */
    static void checkDirectory(Path dir, boolean create) throws IOException {
        if (create && !Files.isDirectory(dir)) {
            try {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
            } catch (IOException e) {
                throw new RmaException(ErrorClass.ERR_ACCESS, "srun --mpi=none: cannot create " + dir + " ("
                        + SlurmRendezvous.DIR.name() + "): " + e);
            }
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
        if (!ownedByMe(dir) || !Collections.disjoint(perms, WRITABLE_BY_OTHERS)) {
            throw new RmaException(ErrorClass.ERR_ACCESS, "srun --mpi=none: " + dir + " ("
                    + SlurmRendezvous.DIR.name() + ") is " + (ownedByMe(dir) ? "writable by others ("
                    + PosixFilePermissions.toString(perms) + ")" : "not this user's") + ": choose a directory only"
                    + " this user writes, on a file system every node shares");
        }
    }

    private static boolean ownedByMe(Path p) throws IOException {
        UserPrincipal me = p.getFileSystem().getUserPrincipalLookupService()
                .lookupPrincipalByName(System.getProperty("user.name"));
        return Files.getOwner(p).equals(me);
    }
}

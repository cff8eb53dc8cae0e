package io.jrma.sync;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real other user of this host, for the Strangers campaign: {@code jrma-stranger}, created with {@code useradd}
 * when the tests run as root, and commands run as that user with {@code runuser} in processes of their own. When
 * that is impossible (not root, no useradd or runuser), {@link #why} says why and the tests skip.
 *
 * <p>Any thread.
 */
final class Stranger {
    static final String NAME = "jrma-stranger";
    private static final long COMMAND_TIMEOUT_S = 30;

    private Stranger() {
    }

    /** Null when the stranger exists (created now if need be); else why it cannot. */
    static synchronized String why() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "the tests run as " + System.getProperty("user.name")
                    + ", not root: cannot create or become another user";
        }
        if (!Files.isExecutable(Path.of("/usr/sbin/runuser")) && !Files.isExecutable(Path.of("/sbin/runuser"))) {
            return "no runuser on this host";
        }
        try {
            if (run(List.of("id", "-u", NAME)).code == 0) {
                return null;
            }
            Result r = run(List.of("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", NAME));
            return r.code == 0 ? null : "useradd " + NAME + " failed (exit " + r.code + "): " + r.out.strip();
        } catch (IOException e) {
            return "cannot run id/useradd: " + e.getMessage();
        }
    }

    /** The stranger's uid. */
    static int uid() throws IOException {
        return Integer.parseInt(run(List.of("id", "-u", NAME)).out.strip());
    }

    /** What a command printed (stdout and stderr together) and its exit code. */
    record Result(int code, String out) {
    }

    /** Runs {@code command} as the stranger (its own process, killed after 30 s). */
    static Result as(List<String> command) throws IOException {
        List<String> c = new ArrayList<>(List.of("runuser", "-u", NAME, "--"));
        c.addAll(command);
        return run(c);
    }

    static Result run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
                return new Result(-1, "timed out: " + command);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    /** Writes {@code text} to a new file in /tmp the stranger may read; returns its path (the caller removes it). */
    static Path script(String suffix, String text) throws IOException {
        Path f = Files.createTempFile("jrma-stranger-", suffix);
        Files.writeString(f, text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        f.toFile().deleteOnExit();
        return f;
    }

    /** Removes the stranger's files from /dev/shm (whatever a test left there, also after a failure). */
    static void removeFilesIn(Path dir) {
        try {
            int uid = uid();
            try (var ds = Files.newDirectoryStream(dir, "jrma-*")) {
                for (Path p : ds) {
                    if ((Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS) == uid) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            System.out.println("Stranger: could not clean " + dir + ": " + e);
        }
    }
}

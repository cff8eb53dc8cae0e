package io.jrma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The installation tarball the build makes (jrma/target/jrma-VERSION-dist.tar.gz), unpacked elsewhere and used as
 * an Open MPI install is: bin/ from PATH in a directory of the user's, lib/ with mpi.jar, docs/. The examples module
 * builds after the jrma module, so the tarball is there in a reactor build; run alone, this test says so and skips.
 */
class InstallationTest {
    @Test
    @Timeout(120)
    void theUnpackedInstallationRunsAJobFromPath() throws Exception {
        try (Installation in = Installation.unpack()) {
            if (in == null) {
                return;
            }
            Path home = in.home();
            Path work = in.work();
            for (String f : new String[] {"bin/jrmarun", "bin/jrmajavac", "bin/jrma-info", "bin/jrma-flags",
                "lib/mpi.jar",
                "docs/README.md", "README.md"}) {
                assertTrue(Files.exists(home.resolve(f)), f + " is in the installation");
            }
            String path = home.resolve("bin") + File.pathSeparator + System.getenv("PATH");
            // env finds the command on the new PATH, as a shell of the user's would
            Result r = run(work, List.of("env", "PATH=" + path, "XDG_CACHE_HOME=" + work.resolve("cache"),
                    "jrmarun", "-np", "2", "--jvms", "2", "-cp",
                    Path.of("target", "classes").toAbsolutePath().toString(), "io.jrma.examples.Hello"));
            assertEquals(0, r.exit, r.out);
            assertTrue(r.out.contains("rank 0: got") && r.out.contains("rank 1: got"), r.out);
            Result flags = run(work, List.of("env", "PATH=" + path, "jrma-flags", "--classpath"));
            assertEquals(home.resolve("lib") + "/*", flags.out.trim(), "jrma's class path in the installation");
        }
    }

    /**
     * The installation's jrmajavac compiles an mpi program (as mpijavac), and its jrmarun runs it: ranks that are all
     * threads in jrmarun's own JVM (no second JVM: the ranks print jrmarun's pid), ranks in JVMs of their own with the
     * program's class at the bottom of their stack, started by jrmarun. The class-data sharing archive is made once
     * in a private directory of the cache given ($XDG_CACHE_HOME/jrma), then used.
     */
    @Test
    @Timeout(240)
    void jrmajavacCompilesAndThreadJobsRunInJrmarunsOwnJvm() throws Exception {
        try (Installation in = Installation.unpack()) {
            if (in == null) {
                return;
            }
            Path home = in.home();
            Path work = in.work();
            Files.writeString(work.resolve("Pid.java"), String.join("\n",
                    "public class Pid {",
                    "    public static void main(String[] a) throws Exception {",
                    "        mpi.MPI.Init(a);",
                    "        StackTraceElement[] s = Thread.currentThread().getStackTrace();",
                    "        ProcessHandle me = ProcessHandle.current();",
                    "        System.out.println(\"rank \" + mpi.MPI.COMM_WORLD.getRank() + \" pid=\" + me.pid()",
                    "                + \" parent=\"",
                    "                + me.parent().map(ProcessHandle::pid).orElse(-1L) + \" bottom=\"",
                    "                + s[s.length - 1].getClassName());",
                    "        mpi.MPI.Finalize();",
                    "    }",
                    "}", ""));
            String path = home.resolve("bin") + File.pathSeparator + System.getenv("PATH");
            List<String> env = List.of("env", "PATH=" + path, "XDG_CACHE_HOME=" + work.resolve("cache"));
            Result showme = run(work, concat(env, "jrmajavac", "--showme", "Pid.java"));
            assertEquals(0, showme.exit, showme.out);
            assertTrue(showme.out.contains(home.resolve("lib") + "/\\*:. Pid.java"), showme.out);
            Result javac = run(work, concat(env, "jrmajavac", "Pid.java"));
            assertEquals(0, javac.exit, javac.out);
            assertTrue(Files.exists(work.resolve("Pid.class")), javac.out);

            Result threads = run(work, concat(env, "jrmarun", "-np", "2", "Pid"));
            assertEquals(0, threads.exit, threads.out);
            assertTrue(threads.out.contains("making a class-data sharing archive"), threads.out);
            for (int k = 0; k < 2; k++) {
                assertTrue(threads.out.contains("rank " + k + " pid=" + threads.pid + " "), "in jrmarun's JVM: "
                        + threads.out);
            }
            Path cache = work.resolve("cache").resolve("jrma");
            assertEquals("rwx------", PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(cache)));
            try (Stream<Path> s = Files.list(cache)) {
                assertTrue(s.anyMatch(p -> p.toString().endsWith(".jsa")), "an archive in " + cache);
            }

            Result jvms = run(work, concat(env, "jrmarun", "-np", "2", "--jvms", "2", "Pid"));
            assertEquals(0, jvms.exit, jvms.out);
            assertTrue(!jvms.out.contains("making a class-data sharing archive"), "made once: " + jvms.out);
            for (int k = 0; k < 2; k++) {
                assertTrue(jvms.out.matches("(?s).*rank " + k + " pid=\\d+ parent=" + jvms.pid + " bottom=Pid\\b.*"),
                        "a JVM of its own started by jrmarun, Pid at the bottom: " + jvms.out);
            }
        }
    }

    /**
     * On JDK 25 and later the archive is an ahead-of-time cache, trained by the mpi loops of
     * io.jrma.training.WarmUpTraining: made once, then opened by jrmarun's JVM and by every JVM it starts. Runs where a
     * JDK 25+ is found (the property jrma.test.jdk25, else Temurin 25's Debian path) and says why it skips otherwise.
     */
    @Test
    @Timeout(240)
    void onJdk25TheArchiveIsAnAheadOfTimeCacheThatEveryJvmOpens() throws Exception {
        Path jdk = Path.of(System.getProperty("jrma.test.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));
        if (!Files.isExecutable(jdk.resolve("bin").resolve("java"))) {
            System.out.println("InstallationTest: no JDK 25 at " + jdk + " (-Djrma.test.jdk25=DIR names one): the"
                    + " ahead-of-time cache is not tried");
            return;
        }
        try (Installation in = Installation.unpack()) {
            if (in == null) {
                return;
            }
            Path work = in.work();
            List<String> env = List.of("env", "JAVA_HOME=" + jdk, "PATH=" + in.home().resolve("bin")
                    + File.pathSeparator + System.getenv("PATH"), "XDG_CACHE_HOME=" + work.resolve("cache"));
            String classes = Path.of("target", "classes").toAbsolutePath().toString();
            Result first = run(work, concat(env, "jrmarun", "-np", "2", "-cp", classes, "io.jrma.examples.Hello"));
            assertEquals(0, first.exit, first.out);
            assertTrue(first.out.contains("jrmarun: making an ahead-of-time cache"), first.out);
            Path cache = work.resolve("cache").resolve("jrma");
            try (Stream<Path> s = Files.list(cache)) {
                assertTrue(s.anyMatch(p -> p.toString().endsWith(".aot")), "a cache in " + cache
                        + " (the training ran to its end)");
            }
            Result second = run(work, concat(env, "JDK_JAVA_OPTIONS=-Xlog:aot=info", "jrmarun", "-np", "2", "--jvms",
                    "2", "-cp", classes, "io.jrma.examples.Hello"));
            assertEquals(0, second.exit, second.out);
            assertTrue(!second.out.contains("jrmarun: making"), "made once: " + second.out);
            long opened = second.out.lines().filter(l -> l.contains("Opened AOT cache")).count();
            assertEquals(3, opened, "jrmarun's JVM and both ranks' JVMs open the cache:\n" + second.out);
        }
    }

    private static List<String> concat(List<String> a, String... b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(List.of(b));
        return all;
    }

    /**
     * The installation tarball of a reactor build unpacked into a fresh directory ({@link #home}), beside a fresh
     * directory for the user's files ({@link #work}); {@link #close} removes both, whatever the test's outcome.
     */
    private record Installation(Path prefix, Path home, Path work) implements AutoCloseable {
        /** The unpacked installation, or null when there is no tarball (then the test says so and skips). */
        static Installation unpack() throws Exception {
            Path tarball = tarball();
            if (tarball == null) {
                return null;
            }
            Path prefix = Files.createTempDirectory("jrma-install");
            Path work = null;
            try {
                work = Files.createTempDirectory("jrma-user");
                assertEquals(0, run(prefix, List.of("tar", "xzf", tarball.toAbsolutePath().toString())).exit,
                        "unpacking");
                try (Stream<Path> s = Files.list(prefix)) {
                    return new Installation(prefix, s.findFirst().orElseThrow(), work);
                }
            } catch (Exception | AssertionError e) {
                delete(prefix);
                if (work != null) {
                    delete(work);
                }
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            try {
                delete(prefix);
            } finally {
                delete(work);
            }
        }

        private static void delete(Path d) throws IOException {
            try (Stream<Path> s = Files.walk(d)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The installation tarball of a reactor build, or null (then the test says so and skips). */
    private static Path tarball() {
        try (Stream<Path> s = Files.list(Path.of("..", "jrma", "target"))) {
            Path t = s.filter(p -> p.getFileName().toString().endsWith("-dist.tar.gz")).findFirst().orElse(null);
            if (t != null) {
                return t;
            }
        } catch (IOException e) {
            // not built
        }
        System.out.println("InstallationTest skipped: no jrma/target/jrma-*-dist.tar.gz (build the whole reactor:"
                + " mvn package)");
        return null;
    }

    private record Result(int exit, String out, long pid) {
    }

    private static Result run(Path cwd, List<String> cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(cmd)).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        try {
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes(); // ends when the process and its JVMs close it
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "did not end: " + cmd);
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8), p.pid());
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}

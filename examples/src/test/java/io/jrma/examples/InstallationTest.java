package io.jrma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
        Path tarball;
        try (Stream<Path> s = Files.list(Path.of("..", "jrma", "target"))) {
            tarball = s.filter(p -> p.getFileName().toString().endsWith("-dist.tar.gz")).findFirst().orElse(null);
        } catch (IOException e) {
            tarball = null;
        }
        if (tarball == null) {
            System.out.println("InstallationTest skipped: no jrma/target/jrma-*-dist.tar.gz (build the whole reactor:"
                    + " mvn package)");
            return;
        }
        Path prefix = Files.createTempDirectory("jrma-install");
        Path work = Files.createTempDirectory("jrma-user");
        try {
            assertEquals(0, run(prefix, List.of("tar", "xzf", tarball.toAbsolutePath().toString())).exit, "unpacking");
            Path home;
            try (Stream<Path> s = Files.list(prefix)) {
                home = s.findFirst().orElseThrow();
            }
            for (String f : new String[] {"bin/jrmarun", "bin/jrma-info", "bin/jrma-flags", "lib/mpi.jar",
                "docs/README.md", "README.md"}) {
                assertTrue(Files.exists(home.resolve(f)), f + " is in the installation");
            }
            String path = home.resolve("bin") + File.pathSeparator + System.getenv("PATH");
            // env finds the command on the new PATH, as a shell of the user's would
            Result r = run(work, List.of("env", "PATH=" + path, "jrmarun", "-np", "2", "--jvms", "2", "-cp",
                    Path.of("target", "classes").toAbsolutePath().toString(), "io.jrma.examples.Hello"));
            assertEquals(0, r.exit, r.out);
            assertTrue(r.out.contains("rank 0: got") && r.out.contains("rank 1: got"), r.out);
            Result flags = run(work, List.of("env", "PATH=" + path, "jrma-flags", "--classpath"));
            assertEquals(home.resolve("lib") + "/*", flags.out.trim(), "jrma's class path in the installation");
        } finally {
            for (Path d : new Path[] {prefix, work}) {
                try (Stream<Path> s = Files.walk(d)) {
                    s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    private record Result(int exit, String out) {
    }

    private static Result run(Path cwd, List<String> cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(cmd)).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        try {
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes(); // ends when the process and its JVMs close it
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "did not end: " + cmd);
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}

package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.testsupport.ChildProcess;
import io.jrma.testsupport.Command;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jrmarun as an mpirun user types it, with a program outside jrma's class path (compiled here into a directory of
 * its own): the program as a {@code java} command line (its options, -cp, -jar), the class path defaulting to the
 * current directory, stdin forwarded to rank 0, and a main class that is not there as one line before any JVM starts.
 */
class MpirunHabitsTest {
    /** How long a jrmarun of these tests may take to end. */
    private static final long JOB_WAIT_S = 50;
    private static Path dir;

    @BeforeAll
    static void compileTheProgram() throws IOException {
        dir = Files.createTempDirectory("jrma-habits");
        Path src = dir.resolve("Echo.java");
        Files.writeString(src, String.join("\n",
                "public class Echo {",
                "    public static void main(String[] a) throws Exception {",
                "        mpi.MPI.Init(a);",
                "        int r = mpi.MPI.COMM_WORLD.getRank();",
                "        String line = r == 0 ? new java.io.BufferedReader(new "
                + "java.io.InputStreamReader(System.in)).readLine()",
                "                : \"-\";",
                "        System.out.println(\"rank \" + r + \" read: \" + line + \" args=\" + String.join(\",\", a)",
                "                + \" prop=\" + System.getProperty(\"habits.prop\"));",
                "        mpi.MPI.Finalize();",
                "    }",
                "}", ""));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "a JDK with javac runs the tests");
        assertEquals(0, javac.run(null, null, null, "-cp", System.getProperty("java.class.path"), "-d", dir.toString(),
                src.toString()), "compiling the program");
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "Echo");
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(dir.resolve("echo.jar")), m)) {
            jar.putNextEntry(new JarEntry("Echo.class"));
            jar.write(Files.readAllBytes(dir.resolve("Echo.class")));
            jar.closeEntry();
        }
    }

    @AfterAll
    static void removeIt() throws IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Runs jrmarun in {@code cwd} with {@code stdin}; returns exit code and output (stdout and stderr). */
    private static String[] jrmarun(Path cwd, String stdin, String... args) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Command.jrmarun(args)).directory(cwd.toFile());
        pb.environment().remove("CLASSPATH");
        ChildProcess p = ChildProcess.start(pb);
        try {
            try (OutputStream in = p.process().getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            int code = p.exit(JOB_WAIT_S);
            return new String[] {String.valueOf(code), p.output() + "\n"};
        } finally {
            p.kill();
        }
    }

    @Test
    @Timeout(60)
    void theProgramGivenAsAJavaCommandLineGetsItsOptionsAndRankZeroGetsStdin() throws Exception {
        String[] r = jrmarun(Path.of("/"), "typed by the user\n", "-np", "2", "--jvms", "2", "java",
                "-Dhabits.prop=7", "-Xmx256m", "-cp", dir.toString(), "Echo", "x", "y");
        assertEquals("0", r[0], r[1]);
        assertTrue(r[1].contains("rank 0 read: typed by the user args=x,y prop=7"), r[1]);
        assertTrue(r[1].contains("rank 1 read: - args=x,y prop=7"), r[1]);
    }

    @Test
    @Timeout(60)
    void javaDashJarRunsTheManifestsMainClass() throws Exception {
        String[] r = jrmarun(Path.of("/"), "jar\n", "-np", "2", "java", "-jar",
                dir.resolve("echo.jar").toString(), "q");
        assertEquals("0", r[0], r[1]);
        assertTrue(r[1].contains("rank 0 read: jar args=q"), r[1]);
    }

    @Test
    @Timeout(60)
    void theClassPathDefaultsToTheCurrentDirectoryAsJavasDoes() throws Exception {
        String[] r = jrmarun(dir, "here\n", "-np", "2", "Echo");
        assertEquals("0", r[0], r[1]);
        assertTrue(r[1].contains("rank 0 read: here args="), r[1]);
    }

    @Test
    @Timeout(60)
    void aMainClassThatIsNotThereIsOneLineBeforeAnyJvmStarts() throws Exception {
        String[] r = jrmarun(Path.of("/"), "", "-np", "2", "--jvms", "2", "Echo");
        assertEquals("2", r[0], r[1]);
        assertEquals("jrmarun: cannot find the main class Echo on the program's class path (., in /); give it with -cp"
                + " DIR|JAR", r[1].trim());
    }
}

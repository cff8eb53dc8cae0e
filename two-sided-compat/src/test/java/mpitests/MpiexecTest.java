package mpitests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The mpi test programs started by MPICH's {@code mpiexec} (hydra), unchanged, as an MPICH user starts a Java
 * program: {@code mpiexec -n N java <jrma's flags> -cp ... Main}. Each process is one rank; MPI.Init joins the job
 * through hydra's PMI-1 (the PMI_FD hydra leaves open), with no jrma launcher. Exit codes are hydra's: 0, the code
 * of an MPI_Abort, an error class under ERRORS_ARE_FATAL. Skips, saying why, where MPICH is not installed
 * (.ci/run installs it).
 */
class MpiexecTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    private static String mpiexec;

    @BeforeAll
    static void findMpiexec() {
        for (String name : new String[] {"mpiexec.hydra", "mpiexec.mpich"}) {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
                if (Files.isExecutable(Path.of(dir, name))) {
                    mpiexec = Path.of(dir, name).toString();
                    return;
                }
            }
        }
    }

    private static boolean skip() {
        if (mpiexec == null) {
            System.out.println("MpiexecTest skipped: MPICH's mpiexec (mpiexec.hydra) is not installed"
                    + " (apt-get install mpich; .ci/run does it)");
            return true;
        }
        return false;
    }

    private static MpiProgramsTest.Run mpiexec(int n, String program, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(mpiexec, "-n", String.valueOf(n), JAVA));
        for (String f : System.getProperty("jrma.test.argLine", "").trim().split("\\s+")) {
            if (!f.isEmpty()) {
                cmd.add(f);
            }
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "mpitests." + program));
        cmd.addAll(Arrays.asList(args));
        return new MpiProgramsTest.Run(cmd);
    }

    private static List<String> shmFiles() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
            return s.map(p -> p.getFileName().toString()).filter(f -> f.startsWith("jrma-")).sorted().toList();
        }
    }

    @ParameterizedTest(name = "{0} on {1} processes")
    @CsvSource({"PointToPoint, 4", "Collective, 3", "Windows, 4", "GroupsComms, 2", "SelfAndProcNull, 4",
        "ExitAfterFinalize, 4"})
    @Timeout(120)
    void aProgramRunsUnchangedUnderMpiexec(String program, int n) throws Exception {
        if (skip()) {
            return;
        }
        MpiProgramsTest.Run r = mpiexec(n, program);
        assertEquals(0, r.exit(100), r.output());
        assertTrue(r.printed(program + " OK on " + n + " ranks"), r.output());
        assertJvmsGone(r);
        assertNoFilesLeft(r);
    }

    /** Every JVM mpiexec started is gone within 5 s of its exit (it SIGKILLs them on an abort and need not wait). */
    private static void assertJvmsGone(MpiProgramsTest.Run r) throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (r.seen.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        r.assertNoJvmLeft();
    }

    /**
     * No file in /dev/shm of this run's JVMs (named {@code jrma-<pid>-...}; the launcher kills them with SIGKILL on an
     * abort, so they cannot clean up then). Other tests of the machine may create files meanwhile: only this run's
     * processes count.
     */
    private static void assertNoFilesLeft(MpiProgramsTest.Run r) throws Exception {
        List<String> mine = r.seen.stream().map(h -> "jrma-" + h.pid() + "-").toList();
        List<String> left = List.of();
        for (int i = 0; i < 50; i++) { // the JVMs SIGKILLed by mpiexec may still be going away
            left = shmFiles().stream().filter(f -> mine.stream().anyMatch(f::startsWith)).toList();
            if (left.isEmpty()) {
                return;
            }
            Thread.sleep(100);
        }
        assertEquals(List.of(), left, "files left in /dev/shm");
    }

    @Test
    @Timeout(120)
    void mpiAbortEndsTheJobWithItsCode() throws Exception {
        if (skip()) {
            return;
        }
        MpiProgramsTest.Run r = mpiexec(4, "Abort", "2", "42");
        assertEquals(42, r.exit(100), r.output());
        assertTrue(r.printed("jrma mpi: rank 2 called abort(42)"), r.output());
        assertJvmsGone(r);
        assertNoFilesLeft(r);
    }

    @Test
    @Timeout(120)
    void anErrorUnderErrorsAreFatalEndsTheJobWithItsErrorClass() throws Exception {
        if (skip()) {
            return;
        }
        MpiProgramsTest.Run r = mpiexec(4, "FatalError");
        assertEquals(6, r.exit(100), "exit code MPI.ERR_RANK:\n" + r.output());
        assertTrue(!r.output().contains("\tat "), "a peer's secondary failure printed a stack trace:\n" + r.output());
        assertJvmsGone(r);
        assertNoFilesLeft(r);
    }
}

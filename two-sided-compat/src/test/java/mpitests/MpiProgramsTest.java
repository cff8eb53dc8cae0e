package mpitests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.testsupport.ChildProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the mpi test programs of this package (they use nothing but {@code mpi.*}) as a user would: through
 * jrmarun, in a process of its own, with the ranks as threads of one JVM and spread over two JVMs. A program
 * checks its own results and throws on a mismatch, which fails its rank and the job. Every run is killed with
 * whatever it started when it ends or times out.
 */
class MpiProgramsTest {
    static Stream<Arguments> programs() {
        List<Arguments> out = new ArrayList<>();
        for (String program : new String[] {"PointToPoint", "Collective", "GroupsComms", "Datatypes", "Windows",
                "Errors", "SendModes", "FileIO", "Intercomms", "StatusIndex"}) {
            out.add(Arguments.of(program, "1"));
            out.add(Arguments.of(program, "2"));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} on 4 ranks in {1} JVM(s)")
    @MethodSource("programs")
    @Timeout(120)
    void programPassesItsOwnChecks(String program, String jvms) throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "4", "--jvms", jvms, "--timeout", "90", "mpitests." + program);
        assertEquals(0, r.exit(100), r.output());
        assertTrue(r.printed(program + " OK on 4 ranks"), r.output());
        r.assertNoProcessLeft();
    }

    /**
     * The blocking point-to-point calls of the mpi package allocate nothing but the statuses they return, once warm,
     * with the ranks as threads and as 2 JVMs (mpitests.Allocation measures its own thread's allocated bytes).
     */
    @ParameterizedTest(name = "Allocation on 2 ranks in {0} JVM(s)")
    @ValueSource(strings = {"1", "2"})
    @Timeout(300)
    void blockingCallsAllocateOnlyTheirStatuses(String jvms) throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "2", "--jvms", jvms, "--timeout", "280", "mpitests.Allocation");
        assertEquals(0, r.exit(290), r.output());
        assertTrue(r.printed("Allocation OK on rank 0"), r.output());
        assertTrue(r.printed("Allocation OK on rank 1"), r.output());
        r.assertNoProcessLeft();
    }

    /**
     * RMA on MPI.PROC_NULL and windows on one-rank communicators, as programs written for Open MPI use them, with
     * the ranks as threads and spread over 2 and 4 JVMs (a get from PROC_NULL on a dynamic window failed with an
     * ArrayIndexOutOfBoundsException over JVMs).
     */
    @ParameterizedTest(name = "SelfAndProcNull on 4 ranks in {0} JVM(s)")
    @ValueSource(strings = {"1", "2", "4"})
    @Timeout(120)
    void procNullAndOneRankWindowsOnEveryLayout(String jvms) throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "4", "--jvms", jvms, "--timeout", "90", "mpitests.SelfAndProcNull");
        assertEquals(0, r.exit(100), r.output());
        assertTrue(r.printed("SelfAndProcNull OK on 4 ranks"), r.output());
        r.assertNoProcessLeft();
    }

    /**
     * Under jrmarun a JVM of one rank runs the program's main on its main thread, as mpirun's processes do (the bottom
     * frame is the program's class); ranks that share a JVM run on threads of their own.
     */
    @ParameterizedTest(name = "2 ranks in {0} JVM(s)")
    @CsvSource({"1, java.lang.Thread", "2, mpitests.BottomFrame"})
    @Timeout(60)
    void theBottomFrameIsTheProgramsClassInAJvmOfOneRank(String jvms, String bottom) throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "2", "--jvms", jvms, "--timeout", "40", "mpitests.BottomFrame");
        assertEquals(0, r.exit(50), r.output());
        for (int k = 0; k < 2; k++) {
            assertTrue(r.printed("rank " + k + " of 2 bottom=" + bottom), r.output());
        }
        r.assertNoJvmLeft();
    }

    @Test
    @Timeout(120)
    void oddSizesAndMoreJvms() throws Exception {
        for (String[] shape : new String[][] {{"3", "3", "PointToPoint"}, {"5", "2", "Collective"},
                {"3", "1", "Collective"}, {"6", "2", "Collective"}, {"5", "2", "Windows"},
            {"2", "1", "Windows"}, {"1", "1", "Collective"}, {"6", "2", "GroupsComms"},
            {"5", "2", "Intercomms"}, {"2", "1", "Intercomms"}}) {
            ChildProcess r = ChildProcess.jrmarun("-n", shape[0], "--jvms", shape[1], "--timeout", "60",
                    "mpitests." + shape[2]);
            assertEquals(0, r.exit(70), String.join(" ", shape) + ":\n" + r.output());
            assertTrue(r.printed(shape[2] + " OK on " + shape[0] + " ranks"), r.output());
        }
    }

    @Test
    @Timeout(60)
    void anErrorUnderErrorsAreFatalAbortsTheJobWithItsErrorClass() throws Exception {
        for (String jvms : new String[] {"1", "2"}) {
            ChildProcess r = ChildProcess.jrmarun("-n", "4", "--jvms", jvms, "--timeout", "40", "mpitests.FatalError");
            assertEquals(6, r.exit(50), "exit code MPI.ERR_RANK:\n" + r.output());
            assertTrue(r.output().contains("MPI_ERR_RANK: send: destination rank 1000"), r.output());
            assertTrue(r.output().contains("MPI_ERRORS_ARE_FATAL on MPI_COMM_WORLD"), r.output());
            assertFalse(r.output().contains("NOT REACHED"), r.output());
            r.assertNoProcessLeft();
        }
    }

    @Test
    @Timeout(120)
    void systemExitAfterFinalizeEndsTheJobCleanly() throws Exception {
        for (int round = 0; round < 3; round++) {
            for (String jvms : new String[] {"1", "2"}) {
                ChildProcess r = ChildProcess.jrmarun("-n", "8", "--jvms", jvms, "--timeout", "30",
                        "mpitests.ExitAfterFinalize");
                assertEquals(0, r.exit(40), "round " + round + ", " + jvms + " JVM(s):\n" + r.output());
                r.assertNoProcessLeft();
            }
        }
    }

    @Test
    @Timeout(60)
    void abortEndsTheJobWithItsCode() throws Exception {
        for (String jvms : new String[] {"1", "2"}) {
            ChildProcess r = ChildProcess.jrmarun("-n", "4", "--jvms", jvms, "--timeout", "40",
                    "mpitests.Abort", "2", "42");
            assertEquals(42, r.exit(50), r.output());
            assertTrue(r.output().contains("rank 2 called abort(42)"), r.output());
            assertFalse(r.output().contains("NOT REACHED"), r.output());
            r.assertNoProcessLeft();
        }
    }

    @Test
    @Timeout(60)
    void theReadmeExampleIsRingJavaAndRuns() throws Exception {
        String readme = Files.readString(Path.of("..", "docs", "mpi-package.md"));
        String src = Files.readString(Path.of("src", "test", "java", "mpitests", "Ring.java"));
        String body = src.substring(src.indexOf("import java.nio.IntBuffer;"))
                .replaceAll("(?m)^/\\*\\* The example of docs/mpi-package.md.*\\n", "").strip();
        assertTrue(readme.contains(body), "docs/mpi-package.md's example differs from mpitests/Ring.java");
        ChildProcess r = ChildProcess.jrmarun("-n", "3", "--jvms", "2", "--timeout", "40", "mpitests.Ring");
        assertEquals(0, r.exit(50), r.output());
        for (int k = 0; k < 3; k++) {
            assertTrue(r.printed("Ring OK on rank " + k), r.output());
        }
    }

    @Test
    @Timeout(60)
    void plainJavaRunsAsASingletonWorld() throws Exception {
        ChildProcess r = ChildProcess.java("mpitests.Singleton");
        assertEquals(0, r.exit(50), r.output());
        assertTrue(r.printed("Singleton OK"), r.output());
        ChildProcess hello = ChildProcess.java("mpitests.Hello");
        assertEquals(0, hello.exit(50), hello.output());
        assertTrue(hello.printed("hello from 0 of 1"), hello.output());
    }
}

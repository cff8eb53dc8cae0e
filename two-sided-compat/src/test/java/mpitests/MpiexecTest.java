package mpitests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.testsupport.ChildProcess;
import io.jrma.testsupport.Command;
import io.jrma.testsupport.ShmLeftovers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The mpi test programs started unchanged by the launchers of the C MPI libraries, as their users start a Java
 * program: MPICH's {@code mpiexec -n N java <jrma's flags> -cp ... Main} (hydra; MPI.Init joins through the PMI-1
 * connection hydra leaves open) and Open MPI's {@code mpirun} (PMIx, through libpmix). Each process is one rank;
 * no jrma launcher is involved. Exit codes are the launcher's: 0, the code of an MPI_Abort, an error class under
 * ERRORS_ARE_FATAL. A launcher that is not installed is skipped with the reason (.ci/run installs both).
 */
class MpiexecTest {
    /** The launcher's command up to the program ({@code hydra}: MPICH's mpiexec; {@code ompi}: Open MPI's mpirun). */
    private static List<String> launcher(String which, int n) {
        if (which.equals("hydra")) {
            String m = Command.onPath("mpiexec.hydra", "mpiexec.mpich");
            return m == null ? null : List.of(m, "-n", String.valueOf(n));
        }
        String m = Command.onPath("mpirun.openmpi");
        return m == null ? null : List.of(m, "--allow-run-as-root", "--oversubscribe", "-np", String.valueOf(n));
    }

    private static boolean skip(String which) {
        if (launcher(which, 1) == null) {
            System.out.println("MpiexecTest skipped for " + which + ": " + (which.equals("hydra")
                    ? "MPICH's mpiexec (mpiexec.hydra) is not installed (apt-get install mpich"
                    : "Open MPI's mpirun (mpirun.openmpi) is not installed (apt-get install openmpi-bin")
                    + "; .ci/run does it)");
            return true;
        }
        return false;
    }

    private static ChildProcess mpiexec(String which, int n, String program, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(launcher(which, n));
        cmd.addAll(Command.javaMain("mpitests." + program, args));
        return ChildProcess.start(cmd);
    }

    @ParameterizedTest(name = "{0}: {1} on {2} processes")
    @CsvSource({"hydra, PointToPoint, 4", "hydra, Collective, 3", "hydra, Windows, 4", "hydra, GroupsComms, 2",
        "hydra, SelfAndProcNull, 4", "hydra, ExitAfterFinalize, 4", "ompi, PointToPoint, 3", "ompi, Windows, 4",
        "ompi, Collective, 2"})
    @Timeout(120)
    void aProgramRunsUnchangedUnderTheLauncher(String which, String program, int n) throws Exception {
        if (skip(which)) {
            return;
        }
        ChildProcess r = mpiexec(which, n, program);
        assertEquals(0, r.exit(100), r.output());
        assertTrue(r.printed(program + " OK on " + n + " ranks"), r.output());
        assertJvmsGone(r);
        assertNoFilesLeft(r);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hydra", "ompi"})
    @Timeout(120)
    void theBottomFrameOfEachRankIsTheProgramsClass(String which) throws Exception {
        if (skip(which)) {
            return;
        }
        ChildProcess r = mpiexec(which, 2, "BottomFrame");
        assertEquals(0, r.exit(100), r.output());
        for (int k = 0; k < 2; k++) {
            assertTrue(r.printed("rank " + k + " of 2 bottom=mpitests.BottomFrame"), r.output());
        }
        assertJvmsGone(r);
    }

    /** Every JVM mpiexec started is gone within 5 s of its exit (it SIGKILLs them on an abort and need not wait). */
    private static void assertJvmsGone(ChildProcess r) throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (r.seen().stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        r.assertNoProcessLeft();
    }

    /**
     * No file in /dev/shm of this run's JVMs (named {@code jrma-<pid>-...}; the launcher kills them with SIGKILL on an
     * abort, so they cannot clean up then). Other tests of the machine may create files meanwhile: only this run's
     * processes count.
     */
    private static void assertNoFilesLeft(ChildProcess r) throws Exception {
        List<String> mine = r.seen().stream().map(h -> "jrma-" + h.pid() + "-").toList();
        List<String> left = List.of();
        for (int i = 0; i < 50; i++) { // the JVMs SIGKILLed by mpiexec may still be going away
            left = ShmLeftovers.all().stream().filter(f -> mine.stream().anyMatch(f::startsWith)).toList();
            if (left.isEmpty()) {
                return;
            }
            Thread.sleep(100);
        }
        assertEquals(List.of(), left, "files left in /dev/shm");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hydra", "ompi"})
    @Timeout(120)
    void mpiAbortEndsTheJobWithItsCode(String which) throws Exception {
        if (skip(which)) {
            return;
        }
        ChildProcess r = mpiexec(which, 4, "Abort", "2", "42");
        assertEquals(42, r.exit(100), r.output());
        assertTrue(r.printed("jrma mpi: rank 2 called abort(42)"), r.output());
        assertJvmsGone(r);
        assertNoFilesLeft(r);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hydra", "ompi"})
    @Timeout(120)
    void anErrorUnderErrorsAreFatalEndsTheJobWithItsErrorClass(String which) throws Exception {
        if (skip(which)) {
            return;
        }
        ChildProcess r = mpiexec(which, 4, "FatalError");
        assertEquals(6, r.exit(100), "exit code MPI.ERR_RANK:\n" + r.output());
        assertTrue(!r.output().contains("\tat "), "a peer's secondary failure printed a stack trace:\n" + r.output());
        assertJvmsGone(r);
        assertNoFilesLeft(r);
    }
}

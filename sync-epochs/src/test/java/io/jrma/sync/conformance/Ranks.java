package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrma.Flavor;
import io.jrma.Jrma;
import io.jrma.Win;
import io.jrma.testsupport.JobMatrix;
import io.jrma.transport.ucx.UcxWorker;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * What the conformance suite adds to test-support's {@link JobMatrix}: its paths and rank counts, the skip of its
 * UCX run where libucp is missing, and the check that a window took the path the job asked for.
 */
final class Ranks {
    /** JVMs the suite's jobs spread over ({@code -Djrma.jvms=2}: the multi-JVM run of the suite). */
    static final int JVMS = JobMatrix.JVMS;
    /**
     * Whether allocate windows keep their memory in shared segments across JVMs (jrma.shm.windows): then peers
     * in other JVMs of this host are reached by load/store, otherwise by packets.
     */
    static final boolean SHM_WINDOWS = !"false".equals(System.getProperty("jrma.shm.windows"));
    /** The paths the suite runs (jrma.suite.paths, default auto and packet). */
    static final String[] PATHS = JobMatrix.pathsFromProperty("auto,packet");
    static final int[] SIZES = {2, 4, 8};
    /** Rank counts of the tests that are heavy per rank. */
    static final int[] SMALL_SIZES = {2, 4};
    /** Job timeout; every test method has a larger JUnit {@code @Timeout}. */
    static final Duration JOB_TIMEOUT = Duration.ofSeconds(20);
    static final JobMatrix MATRIX = new JobMatrix(PATHS, JOB_TIMEOUT);

    /** Whether the run names the ucx transport ({@code -Djrma.transports=tcp,ucx}: the suite's UCX run). */
    static final boolean UCX = isUcxRun();
    /**
     * Whether allocate windows get memory UCX allocates and maps into the other JVM (a UCX run over its shared memory
     * with jrma.ucx.allocate on): then their peers in the other JVM are direct on path auto whatever SHM_WINDOWS says.
     */
    static final boolean UCX_MAPS = UCX && System.getProperty("jrma.ucx.tls", "").startsWith("sm")
            && !"false".equals(System.getProperty("jrma.ucx.allocate"));
    /** Why UCX cannot run here (libucp missing), or null. */
    static final String UCX_MISSING = UCX && JVMS > 1 ? UcxWorker.unavailableReason() : null;

    private Ranks() {
    }

    private static boolean isUcxRun() {
        String t = System.getProperty("jrma.transports", "").replace(" ", "");
        return !t.startsWith("^") && Arrays.asList(t.split(",")).contains("ucx");
    }

    /**
     * Runs {@code body} on {@code n} ranks with {@code jrma.path=path}. In the UCX run on a host without libucp the
     * test is skipped, with the reason printed.
     */
    static void run(String path, int n, Jrma.RankMain body) {
        if (UCX_MISSING != null) {
            System.out.println("skipped: the suite's UCX run needs libucp: " + UCX_MISSING);
        }
        assumeTrue(UCX_MISSING == null, UCX_MISSING);
        MATRIX.run(path, n, body);
    }

    /** path x {2, 4, 8}. */
    static Stream<Arguments> pathsAndSizes() {
        return MATRIX.pathsAnd(SIZES);
    }

    /** path x {2, 4}: for tests that are heavy per rank. */
    static Stream<Arguments> pathsAndSmallSizes() {
        return MATRIX.pathsAnd(SMALL_SIZES);
    }

    static Stream<String> paths() {
        return MATRIX.pathStream();
    }

    /** Asserts that the window really uses the path the job asked for. */
    static void assertPath(Win w, String path) {
        boolean mapped = UCX_MAPS && w.flavor() == Flavor.ALLOCATE;
        String expected = path.equals("packet") || (JVMS > 1 && !SHM_WINDOWS && !mapped) ? "packet" : "direct";
        assertEquals(expected, w.info().get("jrma_path"), "path chosen for peers");
    }

    static ByteBuffer direct(int bytes) {
        return JobMatrix.direct(bytes);
    }
}

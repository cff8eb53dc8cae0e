package io.jrma.sync.conformance;

import io.jrma.Jrma;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Shared helpers of the conformance suite: job launching and parameter sources. */
final class Ranks {
    /** JVMs the suite's jobs spread over ({@code -Djrma.jvms=2}: the multi-JVM run of the suite). */
    static final int JVMS = Integer.getInteger("jrma.jvms", 1);
    /**
     * Whether allocate windows keep their memory in shared segments across JVMs (jrma.shm.windows): then peers
     * in other JVMs of this host are reached by load/store, otherwise by packets.
     */
    static final boolean SHM_WINDOWS = !"false".equals(System.getProperty("jrma.shm.windows"));
    /** The paths the suite runs (jrma.suite.paths, default auto and packet). */
    static final String[] PATHS = System.getProperty("jrma.suite.paths", "auto,packet").split(",");
    static final int[] SIZES = {2, 4, 8};
    /** Job timeout; every test method has a larger JUnit {@code @Timeout}. */
    static final Duration JOB_TIMEOUT = Duration.ofSeconds(20);

    private Ranks() {
    }

    /** Runs {@code body} on {@code n} ranks with {@code jrma.path=path}. */
    static void run(String path, int n, Jrma.RankMain body) {
        Jrma.job(n).param("jrma.path", path).timeout(JOB_TIMEOUT).run(body);
    }

    /** path x {2, 4, 8}. */
    static Stream<Arguments> pathsAndSizes() {
        List<Arguments> out = new ArrayList<>();
        for (String p : PATHS) {
            for (int n : SIZES) {
                out.add(Arguments.of(p, n));
            }
        }
        return out.stream();
    }

    /** path x {2, 4}: for tests that are heavy per rank. */
    static Stream<Arguments> pathsAndSmallSizes() {
        List<Arguments> out = new ArrayList<>();
        for (String p : PATHS) {
            for (int n : new int[] {2, 4}) {
                out.add(Arguments.of(p, n));
            }
        }
        return out.stream();
    }

    static Stream<String> paths() {
        return Stream.of(PATHS);
    }

    /** Asserts that the window really uses the path the job asked for. */
    static void assertPath(io.jrma.Win w, String path) {
        String expected = path.equals("packet") || (JVMS > 1 && !SHM_WINDOWS) ? "packet" : "direct";
        org.junit.jupiter.api.Assertions.assertEquals(expected, w.info().get("jrma_path"), "path chosen for peers");
    }

    static ByteBuffer direct(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}

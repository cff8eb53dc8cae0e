package io.jrma.testsupport;

import io.jrma.Jrma;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The paths a suite of multi-rank tests runs every scenario on, crossed with rank counts for JUnit's
 * {@code @MethodSource}, and the runner of one job: {@code n} ranks with {@code jrma.path} set, spread over
 * {@value #JVMS_PROPERTY} JVMs (the same scenario, rerun by another surefire execution with {@code -Djrma.jvms=2},
 * covers the multi-JVM path), ended after the matrix's job timeout. Immutable; any thread.
 */
public final class JobMatrix {
    /** System property: how many JVMs a job spreads over (1, the default: every rank a thread of this JVM). */
    public static final String JVMS_PROPERTY = "jrma.jvms";
    /** JVMs the suite's jobs spread over in this run. */
    public static final int JVMS = Integer.getInteger(JVMS_PROPERTY, 1);
    /** System property: the paths a suite runs, comma-separated (for suites that let the run choose). */
    public static final String PATHS_PROPERTY = "jrma.suite.paths";
    /** The job parameter that chooses the path. */
    public static final String PATH_PARAM = "jrma.path";

    private final String[] paths;
    private final Duration jobTimeout;

    /**
     * @param paths the paths every scenario runs on ({@code auto}, {@code packet})
     * @param jobTimeout how long one job may take; every test method's JUnit {@code @Timeout} is larger
     */
    public JobMatrix(String[] paths, Duration jobTimeout) {
        if (paths.length == 0) {
            throw new IllegalArgumentException("no path to run on");
        }
        this.paths = paths.clone();
        this.jobTimeout = jobTimeout;
    }

    /** The paths {@value #PATHS_PROPERTY} names, or {@code defaults} (comma-separated) when it is not set. */
    public static String[] pathsFromProperty(String defaults) {
        return System.getProperty(PATHS_PROPERTY, defaults).split(",");
    }

    /** Whether this run spreads jobs over more than one JVM. */
    public static boolean multiJvm() {
        return JVMS > 1;
    }

    public String[] paths() {
        return paths.clone();
    }

    public Duration jobTimeout() {
        return jobTimeout;
    }

    /** Runs {@code body} on {@code n} ranks with {@code jrma.path=path}; throws what the job failed with. */
    public void run(String path, int n, Jrma.RankMain body) {
        Jrma.job(n).param(PATH_PARAM, path).timeout(jobTimeout).run(body);
    }

    /** Every path, for {@code @MethodSource}. */
    public Stream<String> pathStream() {
        return Stream.of(paths);
    }

    /** Every path crossed with every one of {@code sizes} (rank counts), path first. */
    public Stream<Arguments> pathsAnd(int... sizes) {
        List<Arguments> out = new ArrayList<>();
        for (String p : paths) {
            for (int n : sizes) {
                out.add(Arguments.of(p, n));
            }
        }
        return out.stream();
    }

    /** A direct buffer of {@code bytes} in little-endian order, as windows and rank buffers use. */
    public static ByteBuffer direct(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}

package io.jrma.sync.conformance;

import io.jrma.Jrma;
import io.jrma.Win;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts the child JVMs of the suite's multi-JVM runs ({@code -Djrma.jvms=2} or 4) once, before the first conformance
 * test class, so that the tests' {@code @Timeout}s time their jobs and not the boot of fresh JVMs. Every job of the
 * suite then takes JVMs from the launcher's pool ({@code jrma.jvms.reuse}), as all but the first job of each JVM
 * count did before.
 *
 * <p>Why: on a loaded host, starting fresh JVMs and setting up their first job is CPU-bound work (class loading,
 * interpreted code) that a 2-core machine shared with other builds stretches past a test's whole timeout, while the job
 * itself never stalls (issue 34 fault 5; the figures are in docs/reliability.md). The warm-up has its own time limit
 * ({@link #WARM_TIMEOUT}); if it fails, it says so and the tests start their JVMs themselves.
 *
 * <p>Registered through {@code META-INF/services} with Jupiter's extension autodetection (test resources); it does
 * nothing in the single-JVM run, in other packages, or where the run's transport is missing (UCX without libucp).
 */
public final class PooledJvms implements BeforeAllCallback {
    /** Time limit of the warm-up job (the start of its JVMs before it has the launcher's 60 s limit). */
    static final Duration WARM_TIMEOUT = Duration.ofSeconds(90);
    /** The suite's rank counts whose JVM counts are warmed. */
    private static final int[] SIZES = {2, 4, 8};
    private static volatile boolean warmed;

    @Override
    public void beforeAll(ExtensionContext context) {
        Class<?> c = context.getRequiredTestClass();
        if (!c.getPackageName().equals(PooledJvms.class.getPackageName()) || Ranks.JVMS <= 1
                || Ranks.UCX_MISSING != null) {
            return;
        }
        synchronized (PooledJvms.class) {
            if (warmed) {
                return;
            }
            warmed = true;
            Set<Integer> counts = new TreeSet<>();
            for (int n : SIZES) {
                counts.add(Math.min(n, Ranks.JVMS));
            }
            for (int jvms : counts) {
                warm(jvms);
            }
        }
    }

    /** Runs one small job over {@code jvms} JVMs (one rank each) that leaves them in the pool. */
    private static void warm(int jvms) {
        long t0 = System.nanoTime();
        try {
            Jrma.job(jvms).jvms(jvms).timeout(WARM_TIMEOUT).run(world -> {
                world.barrier();
                Win w = Win.allocate(world, Long.BYTES, Long.BYTES, null);
                w.fence(0);
                w.fence(0);
                w.free();
            });
            System.out.println("conformance suite: " + jvms + " JVMs started and pooled in "
                    + (System.nanoTime() - t0) / 1_000_000 + " ms");
        } catch (RuntimeException e) {
            System.out.println("conformance suite: warming " + jvms + " JVMs failed (" + e
                    + "); each test starts its JVMs itself");
        }
    }
}

package io.jrma.soak;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrma.Flavor;
import io.jrma.Jrma;
import io.jrma.soak.Soak.Layout;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The soak (docs/soak.md): random mixes of every RMA call, synchronization mode, datatype and window flavor, with
 * messages and collectives between the epochs, every result checked against a sequential model. Quick mode (the
 * default) runs {@code jrma.soak.rounds} rounds on each layout; long mode ({@code -Djrma.soak.minutes=60}) loops
 * over the layouts for that long and prints what ran and was checked per layout.
 */
class SoakTest {
    @BeforeAll
    static void seed() {
        System.out.println("soak seed " + Soak.SEED + " (rerun with -Djrma.soak.seed=" + Soak.SEED + ")");
    }

    @AfterAll
    static void cleanUp() {
        List<String> left = Soak.cleanUp();
        if (!left.isEmpty()) {
            System.out.println("soak: removed /dev/shm files left by the jobs' JVMs: " + left);
        }
    }

    static Stream<String> layouts() {
        return Soak.layouts().stream().map(l -> l.label);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    @Timeout(120)
    @DisabledIfSystemProperty(named = "jrma.soak.minutes", matches = ".+")
    void quick(String layout) throws Exception {
        Layout l = Layout.of(layout);
        String why = l.unavailableReason();
        if (why != null) {
            System.out.println("soak quick " + layout + " skipped: " + why);
        }
        assumeTrue(why == null, why);
        long t0 = System.currentTimeMillis();
        long[] c = Soak.runJob(l, Soak.QUICK_RANKS, Soak.SEED, Soak.QUICK_ROUNDS, 0, Duration.ofSeconds(90), null);
        System.out.printf("soak quick %s: %d ranks, seed %d, %.1f s: %s%n", layout, Soak.QUICK_RANKS, Soak.SEED,
                (System.currentTimeMillis() - t0) / 1000.0, Soak.describe(c));
        assertTrue(c[SoakRank.ROUNDS] == Soak.QUICK_ROUNDS && c[SoakRank.CHECKS] > 0 && c[SoakRank.CELLS] > 0,
                "the job ran its rounds and checked: " + Soak.describe(c));
        if (l.ucx()) {
            expectUcp(c, Soak.drawsWindow(Soak.SEED, Soak.QUICK_ROUNDS, EnumSet.of(Flavor.ALLOCATE, Flavor.CREATE)));
        }
    }

    /**
     * A UCX layout's allocate and create windows take the atomic domain (every rank's memory registered, UCX
     * reaching every rank): their accumulates, get_accumulates, fetch_and_ops and compare_and_swaps went by UCP
     * atomics. The job's other windows (dynamic, allocate_shared on the ranks of a JVM) keep packets and CPU atomics.
     */
    static void expectUcp(long[] c, boolean registeredWindow) {
        if (registeredWindow) {
            assertTrue(c[Soak.RDMA_ATOMICS] > 0, "the allocate and create windows' accumulates went by UCP atomics: "
                    + Soak.describe(c));
        } else {
            System.out.println("soak: this seed made no allocate or create window: no UCP atomics to expect");
        }
    }

    /** The checker can fail: with a model that drops some accumulates (a lost update), the soak must report it. */
    @Test
    @Timeout(60)
    @DisabledIfSystemProperty(named = "jrma.soak.minutes", matches = ".+")
    void aLostUpdateIsCaught() {
        Jrma.JobFailedException e = assertThrows(Jrma.JobFailedException.class, () -> Soak.runJob(Layout.THREADS,
                4, Soak.SEED, 40, 0, Duration.ofSeconds(40), "lost-update"));
        String m = String.valueOf(e.getMessage()) + e.getCause();
        assertTrue(m.contains("soak check failed") && m.contains("round") && m.contains("rank"), m);
        System.out.println("soak with a broken model fails as it must: "
                + e.getCause().getMessage().lines().findFirst().orElse(""));
    }

    @Test
    @EnabledIfSystemProperty(named = "jrma.soak.minutes", matches = "[0-9.]+")
    @Timeout(value = 26, unit = TimeUnit.HOURS) // each job has its own timeout as well
    void longMode() throws Exception {
        Map<Layout, Soak.Totals> totals = Soak.longMode(Soak.MINUTES, Soak.layouts(), Soak.SEED, System.out);
        totals.forEach((l, t) -> assertTrue(t.jobs > 0 && t.get(SoakRank.CHECKS) > 0, l.label + ": " + t));
    }
}

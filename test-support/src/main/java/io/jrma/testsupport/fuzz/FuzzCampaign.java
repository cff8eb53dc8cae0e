package io.jrma.testsupport.fuzz;

import java.util.EnumMap;
import java.util.Map;
import java.util.Random;

/**
 * One fuzz campaign's size and seed, each from a system property with a default, and what it prints so that a run
 * can be repeated: {@code Name: seed 34, 20000 frames (-Djrma.fuzz.seed=34 -Djrma.fuzz.frames=20000 to repeat)}. The
 * quick mode (the default size) runs in every build; a long mode is the same campaign with a larger size. Also tallies
 * how the campaign's sessions ended. Owned by one test.
 *
 * @param <E> the ways a session can end
 */
public final class FuzzCampaign<E extends Enum<E>> {
    /** System property of the seed every campaign reads. */
    public static final String SEED_PROPERTY = "jrma.fuzz.seed";
    /** The seed when none is given. */
    public static final long DEFAULT_SEED = 34;

    private final String name;
    private final String sizeProperty;
    private final String unit;
    private final long size;
    private final long seed;
    private final Map<E, Long> ends;

    /**
     * @param name the campaign's name in what it prints (the test class's simple name)
     * @param sizeProperty the system property of its size ({@code jrma.fuzz.frames})
     * @param defaultSize the size of the quick mode
     * @param unit what the size counts, plural ({@code frames})
     * @param endKind the enum of the ways a session ends
     */
    public FuzzCampaign(String name, String sizeProperty, long defaultSize, String unit, Class<E> endKind) {
        this.name = name;
        this.sizeProperty = sizeProperty;
        this.unit = unit;
        this.size = Long.getLong(sizeProperty, defaultSize);
        this.seed = Long.getLong(SEED_PROPERTY, DEFAULT_SEED);
        this.ends = new EnumMap<>(endKind);
    }

    public long size() {
        return size;
    }

    public long seed() {
        return seed;
    }

    /** A new generator from the campaign's seed. */
    public Random random() {
        return new Random(seed);
    }

    /** Prints the campaign's seed and size and the properties that repeat it. */
    public void announce() {
        System.out.println(name + ": seed " + seed + ", " + size + " " + unit + " (-D" + SEED_PROPERTY + "=" + seed
                + " -D" + sizeProperty + "=" + size + " to repeat)");
    }

    /** Counts one session that ended by {@code end}. */
    public void ended(E end) {
        ends.merge(end, 1L, Long::sum);
    }

    /** How the sessions ended so far, by kind. */
    public Map<E, Long> ends() {
        return Map.copyOf(ends);
    }

    /** Prints {@code summary} after the campaign's name, then how its sessions ended. */
    public void report(String summary, long startNs) {
        System.out.printf("%s: %s in %.1f s, session ends %s%n", name, summary, (System.nanoTime() - startNs) / 1e9,
                ends);
    }
}

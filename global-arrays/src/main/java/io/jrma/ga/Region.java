package io.jrma.ga;

/** A piece of a patch held by one rank ({@link GlobalArray#locateRegion}). Immutable. */
public final class Region {
    private final int rank;
    private final Patch patch;

    public Region(int rank, Patch patch) {
        this.rank = rank;
        this.patch = patch;
    }

    /** The owner's rank in the array's communicator. */
    public int rank() {
        return rank;
    }

    /** The sub-patch (global indices) that rank holds. */
    public Patch patch() {
        return patch;
    }

    @Override
    public String toString() {
        return "rank " + rank + ": " + patch;
    }
}

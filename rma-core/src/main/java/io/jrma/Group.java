package io.jrma;

import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * An ordered set of ranks, as in MPI: group rank {@code i} is world rank {@link #worldRank(int) worldRank(i)}.
 * A group also knows which process is asking, so {@link #rank()} is the caller's rank in it (or
 * {@link #UNDEFINED}).
 *
 * <p>Immutable; any thread.
 */
public final class Group {
    /** Rank of a process that is not a member; also the "no color" of {@link Comm#split}. */
    public static final int UNDEFINED = -32766;
    /** {@link #compare} result: same members in the same order. */
    public static final int IDENT = 0;
    /** {@link #compare} result: same members, different order. */
    public static final int SIMILAR = 2;
    /** {@link #compare} result: different members. */
    public static final int UNEQUAL = 3;

    private final int[] worldRanks;
    private final int callerWorldRank;

    /** A group of the given world ranks, seen from the process with world rank {@code callerWorldRank}. */
    public Group(int[] worldRanks, int callerWorldRank) {
        this.worldRanks = worldRanks.clone();
        this.callerWorldRank = callerWorldRank;
        int[] sorted = this.worldRanks.clone();
        Arrays.sort(sorted);
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                throw new RmaException(ErrorClass.ERR_RANK, "rank " + sorted[i] + " appears twice in a group");
            }
        }
    }

    public int size() {
        return worldRanks.length;
    }

    /** The caller's rank in this group, or {@link #UNDEFINED}. */
    public int rank() {
        return indexOfWorld(callerWorldRank);
    }

    /** The world rank of group rank {@code r}. */
    public int worldRank(int r) {
        if (r < 0 || r >= worldRanks.length) {
            throw new RmaException(ErrorClass.ERR_RANK,
                    "rank " + r + " is not in a group of size " + worldRanks.length);
        }
        return worldRanks[r];
    }

    /** The group rank of a world rank, or {@link #UNDEFINED}. */
    public int indexOfWorld(int worldRank) {
        for (int i = 0; i < worldRanks.length; i++) {
            if (worldRanks[i] == worldRank) {
                return i;
            }
        }
        return UNDEFINED;
    }

    /** A copy of the world ranks in group order. */
    public int[] worldRanks() {
        return worldRanks.clone();
    }

    /** The group of the listed ranks of this group, in the order given (MPI_Group_incl). */
    public Group incl(int... ranks) {
        int[] w = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            w[i] = worldRank(ranks[i]);
        }
        return new Group(w, callerWorldRank);
    }

    /** This group without the listed ranks (MPI_Group_excl); the others keep their order. */
    public Group excl(int... ranks) {
        boolean[] drop = new boolean[worldRanks.length];
        for (int r : ranks) {
            worldRank(r);
            if (drop[r]) {
                throw new RmaException(ErrorClass.ERR_RANK, "rank " + r + " listed twice in excl");
            }
            drop[r] = true;
        }
        return new Group(filter(drop, false), callerWorldRank);
    }

    /** The ranks of the triplets {first, last, stride} (MPI_Group_range_incl). */
    public Group rangeIncl(int[][] ranges) {
        return new Group(expand(ranges), callerWorldRank);
    }

    /** This group without the ranks of the triplets (MPI_Group_range_excl). */
    public Group rangeExcl(int[][] ranges) {
        int[] idx = expand(ranges);
        int[] groupRanks = new int[idx.length];
        for (int i = 0; i < idx.length; i++) {
            groupRanks[i] = indexOfWorld(idx[i]);
        }
        return excl(groupRanks);
    }

    private int[] expand(int[][] ranges) {
        int[] out = new int[0];
        for (int[] t : ranges) {
            if (t.length != 3 || t[2] == 0) {
                throw new RmaException(ErrorClass.ERR_ARG,
                        "a range is {first, last, stride != 0}, got " + Arrays.toString(t));
            }
            for (int r = t[0]; t[2] > 0 ? r <= t[1] : r >= t[1]; r += t[2]) {
                out = Arrays.copyOf(out, out.length + 1);
                out[out.length - 1] = worldRank(r);
            }
        }
        return out;
    }

    private int[] filter(boolean[] mark, boolean keepMarked) {
        return IntStream.range(0, worldRanks.length).filter(i -> mark[i] == keepMarked)
                .map(i -> worldRanks[i]).toArray();
    }

    /** Ranks in {@code other} of the given ranks of this group; {@link #UNDEFINED} for non-members. */
    public int[] translateRanks(int[] ranks, Group other) {
        int[] out = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            out[i] = ranks[i] == Win.PROC_NULL ? Win.PROC_NULL : other.indexOfWorld(worldRank(ranks[i]));
        }
        return out;
    }

    /** Members of this group followed by those of {@code other} not in this one. */
    public Group union(Group other) {
        int[] out = worldRanks.clone();
        for (int w : other.worldRanks) {
            if (indexOfWorld(w) == UNDEFINED) {
                out = Arrays.copyOf(out, out.length + 1);
                out[out.length - 1] = w;
            }
        }
        return new Group(out, callerWorldRank);
    }

    /** Members of this group that are also in {@code other}, in this group's order. */
    public Group intersection(Group other) {
        return new Group(Arrays.stream(worldRanks).filter(w -> other.indexOfWorld(w) != UNDEFINED).toArray(),
                callerWorldRank);
    }

    /** Members of this group that are not in {@code other}. */
    public Group difference(Group other) {
        return new Group(Arrays.stream(worldRanks).filter(w -> other.indexOfWorld(w) == UNDEFINED).toArray(),
                callerWorldRank);
    }

    /** {@link #IDENT}, {@link #SIMILAR} or {@link #UNEQUAL}. */
    public int compare(Group other) {
        if (Arrays.equals(worldRanks, other.worldRanks)) {
            return IDENT;
        }
        int[] a = worldRanks.clone();
        int[] b = other.worldRanks.clone();
        Arrays.sort(a);
        Arrays.sort(b);
        return Arrays.equals(a, b) ? SIMILAR : UNEQUAL;
    }

    @Override
    public String toString() {
        return "Group" + Arrays.toString(worldRanks);
    }
}

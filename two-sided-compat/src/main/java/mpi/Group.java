package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;

/**
 * An ordered set of processes (MPI_Group). Groups are values: the operations return new groups and never
 * communicate.
 */
public final class Group implements Freeable {
    /** The jrma group; null once freed. */
    io.jrma.Group g;

    Group(io.jrma.Group g) {
        this.g = g;
    }

    static io.jrma.Group jg(Group group) {
        if (group == null || group.g == null) {
            throw new RmaException(ErrorClass.ERR_GROUP, "group is " + (group == null ? "null" : "freed"));
        }
        return group.g;
    }

    private static <T> T run(Work<T> w) throws MPIException {
        MPI.check();
        try {
            return w.run();
        } catch (RuntimeException e) {
            throw Err.handle(MPI.COMM_WORLD.errh, "MPI_COMM_WORLD (group call)", e);
        }
    }

    /** Number of processes (MPI_GROUP_SIZE). */
    public int getSize() throws MPIException {
        return run(() -> jg(this).size());
    }

    /** This process's rank in the group, or {@link MPI#UNDEFINED} (MPI_GROUP_RANK). */
    public int getRank() throws MPIException {
        return run(() -> jg(this).rank());
    }

    /** Frees the group (MPI_GROUP_FREE). */
    @Override
    public void free() throws MPIException {
        run(() -> {
            jg(this);
            if (this == MPI.GROUP_EMPTY) {
                throw new RmaException(ErrorClass.ERR_GROUP, "GROUP_EMPTY cannot be freed");
            }
            g = null;
            return null;
        });
    }

    /** Whether the group is MPI_GROUP_NULL (freed). */
    public boolean isNull() {
        return g == null;
    }

    /**
     * The ranks in {@code group2} of the processes with ranks {@code ranks1} in {@code group1};
     * {@link MPI#UNDEFINED} where a process is not in {@code group2} (MPI_GROUP_TRANSLATE_RANKS).
     */
    public static int[] translateRanks(Group group1, int[] ranks1, Group group2) throws MPIException {
        return run(() -> jg(group1).translateRanks(ranks1, jg(group2)));
    }

    /**
     * {@link MPI#IDENT}, {@link MPI#SIMILAR} (same members, other order) or {@link MPI#UNEQUAL} (MPI_GROUP_COMPARE).
     */
    public static int compare(Group group1, Group group2) throws MPIException {
        return run(() -> jg(group1).compare(jg(group2)));
    }

    /** The members of {@code group1} followed by those of {@code group2} not in it (MPI_GROUP_UNION). */
    public static Group union(Group group1, Group group2) throws MPIException {
        return run(() -> new Group(jg(group1).union(jg(group2))));
    }

    /** The members of {@code group1} also in {@code group2}, in group1's order (MPI_GROUP_INTERSECTION). */
    public static Group intersection(Group group1, Group group2) throws MPIException {
        return run(() -> new Group(jg(group1).intersection(jg(group2))));
    }

    /** The members of {@code group1} not in {@code group2} (MPI_GROUP_DIFFERENCE). */
    public static Group difference(Group group1, Group group2) throws MPIException {
        return run(() -> new Group(jg(group1).difference(jg(group2))));
    }

    /** The processes with the given ranks, in that order (MPI_GROUP_INCL). */
    public Group incl(int[] ranks) throws MPIException {
        return run(() -> new Group(jg(this).incl(ranks)));
    }

    /** This group without the given ranks (MPI_GROUP_EXCL). */
    public Group excl(int[] ranks) throws MPIException {
        return run(() -> new Group(jg(this).excl(ranks)));
    }

    /** The ranks of the triplets {first, last, stride} (MPI_GROUP_RANGE_INCL). */
    public Group rangeIncl(int[][] ranges) throws MPIException {
        return run(() -> new Group(jg(this).rangeIncl(ranges)));
    }

    /** This group without the ranks of the triplets (MPI_GROUP_RANGE_EXCL). */
    public Group rangeExcl(int[][] ranges) throws MPIException {
        return run(() -> new Group(jg(this).rangeExcl(ranges)));
    }

    @Override
    public String toString() {
        return g == null ? "MPI_GROUP_NULL" : g.toString();
    }
}

package io.jrma;

/**
 * A communicator: a group of ranks with a private context for collective calls. Each rank holds its own
 * {@code Comm} object; collective methods must be called by every member, in the same order.
 *
 * <p>Owned by one rank; the threads of that rank may share it but must not run two collective calls on it
 * at the same time (MPI's rule).
 */
public interface Comm {
    /** This rank's rank in the communicator. */
    int rank();

    /** Number of ranks. */
    int size();

    /** The communicator's group, as seen from this rank. */
    Group group();

    /** The world rank of communicator rank {@code r}. */
    default int worldRank(int r) {
        return group().worldRank(r);
    }

    /**
     * Partitions the communicator by {@code color}, ordering each part by {@code key} then by rank
     * (MPI_Comm_split). Collective. Ranks passing {@link Group#UNDEFINED} get {@code null}.
     */
    Comm split(int color, int key);

    /**
     * Partitions the communicator into the ranks that can share memory (MPI_Comm_split_type with
     * MPI_COMM_TYPE_SHARED), ordered by {@code key} then by rank. Collective. Ranks share memory when they run on
     * one host: threads of one JVM, and JVMs of one host (through /dev/shm) unless {@code jrma.shm.windows=false},
     * in which case each JVM is a part of its own. A window made by {@link Win#allocateShared} over a part can
     * always be created, and {@link Win#sharedQuery} reaches every rank of it.
     */
    Comm splitShared(int key);

    /** A communicator of the members of {@code group} (a subgroup of this one); non-members get null. Collective. */
    Comm create(Group group);

    /** A communicator with the same group and a new context. Collective. */
    Comm dup();

    /** Blocks until every member has called it. */
    void barrier();

    /** Releases the communicator. Collective. */
    void free();

    String name();

    void setName(String name);

    /**
     * Aborts the whole job with an error naming this rank and {@code code} (MPI_Abort): throws a
     * {@link Jrma.AbortException}, every other rank fails fast with {@link ErrorClass#ERR_PROC_ABORTED}, and a job
     * run by {@code jrmarun} exits with {@code code} (modulo 256; 1 if that is 0). Does not return.
     */
    void abort(int code);
}

package io.jrma.launcher;

import java.io.IOException;

/**
 * What jrma needs of a process manager that started this process (MPICH's hydra through PMI-1, Open MPI's mpirun
 * or Slurm through PMIx): this process's rank and the job's size, a key-value space with a collective exchange, an
 * abort that ends the whole job, and a goodbye. Used by one thread at a time.
 */
interface Pmi extends AutoCloseable {
    /** This process's rank in the job. */
    int rank();

    /** The number of processes of the job. */
    int size();

    /** Publishes {@code key=value} for the other processes (seen by them after the next {@link #exchange}). */
    void put(String key, String value) throws IOException;

    /** Collective: returns once every process has called it, with what each put before it visible to all. */
    void exchange() throws IOException;

    /** What process {@code rank} put under {@code key} before the last exchange. */
    String get(int rank, String key) throws IOException;

    /**
     * Asks the process manager to end the whole job with {@code code} (it kills every process), where it can do so
     * and keep the code; see {@link #abortEndsJob}.
     */
    void abort(int code, String message) throws IOException;

    /**
     * Whether {@link #abort} has the process manager end every process of the job with the abort's code. If not
     * (Slurm: its PMI-1 abort kills the step with SIGKILL and loses the code; {@code --mpi=none} has no PMI at all),
     * the process that ends the job exits with its code and the others end themselves as soon as they learn of it:
     * srun's exit code is the highest of its tasks'.
     */
    default boolean abortEndsJob() {
        return true;
    }

    /** This process is done with the process manager (after the job's last exchange). */
    void finish() throws IOException;

    @Override
    void close();
}

package io.jrma.spi;

import io.jrma.Comm;
import java.util.Map;

/**
 * Joins a job whose processes another launcher started (MPICH's {@code mpiexec}, Slurm's {@code srun}, Open MPI's
 * {@code mpirun}): the launcher's environment tells this process its rank and how to reach the others, and the
 * calling thread becomes that rank. Found with {@code ServiceLoader}; {@code Jrma.singleton()} (and so
 * {@code MPI.Init} in a program started without jrmarun) asks each one found before it makes a job of one rank.
 */
public interface WorldBootstrap {
    /** A short name for messages, e.g. {@code pmi-1}. */
    String name();

    /** Whether this process was started by the launcher this bootstrap serves (its environment is present). */
    boolean detected();

    /**
     * Joins the job: opens the transports, learns every peer's cards through the launcher, makes the calling thread
     * this process's rank and returns its world communicator. The job ends with the process: a failure in any rank
     * ends every process, as under the launcher's own MPI.
     *
     * @param params job parameters (the system properties and the environment count as always)
     */
    Comm join(Map<String, String> params);

    /**
     * The rank of {@code world} has finalized (MPI_Finalize, after its barrier): the transports say goodbye and
     * close, so that the process can end. Called at most once, by the rank's thread.
     */
    void finish(Comm world);
}

package mpitests;

import mpi.MPI;
import mpi.MPIException;

/**
 * Under the default handler (ERRORS_ARE_FATAL) an error aborts the job: rank 1 sends to a rank that does not
 * exist, the job ends with exit code MPI.ERR_RANK, and the other ranks, waiting in a barrier, are torn down.
 */
public final class FatalError {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.getRank();
        if (me == 1) {
            MPI.COMM_WORLD.send(new int[1], 1, MPI.INT, 1000, 0);
            System.out.println("NOT REACHED");
        }
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
    }
}

package mpitests;

import mpi.MPI;
import mpi.MPIException;

/**
 * Ends as programs written for one process per rank often do: odd ranks call System.exit(0) right after
 * MPI.Finalize. Under jrmarun that ends every rank of the JVM, which must count as a clean end once they have
 * all finalized (the job exits with 0), however far the even ranks have got in their own Finalize.
 */
public final class ExitAfterFinalize {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.getRank();
        int n = MPI.COMM_WORLD.getSize();
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
        if (me == 0) {
            System.out.println("ExitAfterFinalize OK on " + n + " ranks");
        }
        if (me % 2 == 1) {
            System.exit(0);
        }
    }
}

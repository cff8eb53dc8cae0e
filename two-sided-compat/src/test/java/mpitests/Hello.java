package mpitests;

import mpi.MPI;
import mpi.MPIException;

/** The smallest mpi program: every rank reports its rank, then all meet in a barrier. */
public final class Hello {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        System.out.println("hello from " + rank + " of " + size + " on " + MPI.getProcessorName());
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
    }
}

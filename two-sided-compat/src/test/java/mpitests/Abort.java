package mpitests;

import mpi.MPI;
import mpi.MPIException;

/** Rank args[0] calls COMM_WORLD.abort(args[1]) while the others wait in a barrier: the job exits with that code. */
public final class Abort {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.getRank();
        if (me == Integer.parseInt(args[0])) {
            MPI.COMM_WORLD.abort(Integer.parseInt(args[1]));
            System.out.println("NOT REACHED");
        }
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
    }
}

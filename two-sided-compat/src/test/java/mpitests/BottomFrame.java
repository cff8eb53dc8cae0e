package mpitests;

import mpi.MPI;
import mpi.MPIException;

/**
 * Prints the class of the bottom frame of the calling thread's stack, which Open MPI's test suite reads to name a
 * rank's program: under mpirun, mpiexec and jrmarun with a JVM per rank, the program's class.
 */
public final class BottomFrame {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        StackTraceElement[] stack = Thread.currentThread().getStackTrace();
        System.out.println("rank " + MPI.COMM_WORLD.getRank() + " of " + MPI.COMM_WORLD.getSize() + " bottom="
                + stack[stack.length - 1].getClassName());
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
    }
}

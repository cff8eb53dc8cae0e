package mpitests;

import mpi.MPI;
import mpi.MPIException;

/**
 * Every rank prints its process id, and all then meet in an allreduce every few milliseconds until a test kills one
 * of them from outside (SIGKILL): the others must notice and end, not hang. If nobody is killed the program ends by
 * itself after {@link #RUN_MS}, so a test that expected a failure sees none.
 */
public final class AwaitKill {
    static final long RUN_MS = 60_000;
    private static final long PAUSE_MS = 5;

    public static void main(String[] args) throws MPIException, InterruptedException {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.getRank();
        MPI.COMM_WORLD.barrier();
        System.out.println("rank " + me + " pid " + ProcessHandle.current().pid());
        System.out.flush();
        long end = System.nanoTime() + RUN_MS * 1_000_000L;
        int[] one = {1};
        int[] sum = new int[1];
        while (System.nanoTime() < end) {
            MPI.COMM_WORLD.allReduce(one, sum, 1, MPI.INT, MPI.SUM);
            Thread.sleep(PAUSE_MS);
        }
        MPI.Finalize();
    }
}

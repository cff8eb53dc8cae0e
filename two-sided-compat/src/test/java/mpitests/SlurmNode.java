package mpitests;

import mpi.MPI;
import mpi.MPIException;

/**
 * Says which Slurm node each rank runs on ({@code SLURMD_NODENAME}, which a step's tasks get from slurmd), then checks
 * that the ranks reach each other: an allreduce of the ranks and a token passed once around the ring.
 */
public final class SlurmNode {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        System.out.println("rank " + rank + " of " + size + " on slurm node " + System.getenv("SLURMD_NODENAME"));
        int[] sum = {rank};
        MPI.COMM_WORLD.allReduce(sum, 1, MPI.INT, MPI.SUM);
        int[] token = {rank == 0 ? 1 : 0};
        if (rank != 0) {
            MPI.COMM_WORLD.recv(token, 1, MPI.INT, rank - 1, 7);
            token[0]++;
        }
        MPI.COMM_WORLD.send(token, 1, MPI.INT, (rank + 1) % size, 7);
        if (rank == 0) {
            MPI.COMM_WORLD.recv(token, 1, MPI.INT, size - 1, 7);
            System.out.println("sum " + sum[0] + " token " + token[0]);
        }
        MPI.Finalize();
    }
}

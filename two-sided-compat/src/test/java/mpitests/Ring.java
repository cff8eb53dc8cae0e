package mpitests;

import java.nio.IntBuffer;
import mpi.*;

/** The example of docs/mpi-package.md (MpiProgramsTest checks that the page shows this code). */
public class Ring {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.getRank(), n = MPI.COMM_WORLD.getSize();
        int[] token = {me};
        MPI.COMM_WORLD.sendRecvReplace(token, 1, MPI.INT, (me + 1) % n, 0, (me + n - 1) % n, 0);
        double[] sum = new double[1];
        MPI.COMM_WORLD.allReduce(new double[] {token[0]}, sum, 1, MPI.DOUBLE, MPI.SUM);
        IntBuffer mem = MPI.newIntBuffer(n);                         // a window over a direct buffer
        Win win = new Win(mem, n, 1, MPI.INFO_NULL, MPI.COMM_WORLD); // size and disp unit in ints
        win.fence(0);
        win.put(MPI.newIntBuffer(1).put(0, me), 1, MPI.INT, 0, me, 1, MPI.INT);
        win.fence(0);                                                // rank 0's mem now holds 0..n-1
        win.free();
        if (token[0] != (me + n - 1) % n || sum[0] != n * (n - 1) / 2.0 || me == 0 && mem.get(n - 1) != n - 1) {
            throw new AssertionError("rank " + me + ": token " + token[0] + ", sum " + sum[0]);
        }
        MPI.Finalize();
        System.out.println("Ring OK on rank " + me);
    }
}

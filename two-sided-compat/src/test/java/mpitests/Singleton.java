package mpitests;

import static mpitests.Check.check;
import static mpitests.Check.eq;

import java.nio.IntBuffer;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Win;

/** Started with plain java (not jrmarun): MPI.Init makes a world of one rank that works like any other. */
public final class Singleton {
    public static void main(String[] args) throws MPIException {
        String[] back = MPI.Init(args);
        check(back == args, "Init returns the arguments");
        eq(1, MPI.COMM_WORLD.getSize(), "singleton world size");
        eq(0, MPI.COMM_WORLD.getRank(), "singleton rank");
        IntBuffer out = MPI.newIntBuffer(1);
        IntBuffer in = MPI.newIntBuffer(1);
        out.put(0, 42);
        Request r = MPI.COMM_WORLD.iRecv(in, 1, MPI.INT, 0, 7);
        MPI.COMM_WORLD.send(out, 1, MPI.INT, 0, 7);
        r.waitFor();
        eq(42, in.get(0), "message to itself");
        int[] s = new int[1];
        MPI.COMM_WORLD.allReduce(new int[] {5}, s, 1, MPI.INT, MPI.SUM);
        eq(5, s[0], "allReduce of one rank");
        Win win = new Win(2, 1, MPI.INFO_NULL, MPI.COMM_WORLD, MPI.newIntBuffer(2), Win.FLAVOR_PRIVATE);
        win.fence(0);
        win.put(out, 1, MPI.INT, 0, 1, 1, MPI.INT);
        win.fence(0);
        eq(42, win.getBuffer().getInt(4), "put into its own window");
        win.free();
        MPI.Finalize();
        System.out.println("Singleton OK");
        if (args.length > 0) {
            System.exit(Integer.parseInt(args[0]));
        }
    }
}

package mpitests;

import java.nio.ByteBuffer;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Status;

/**
 * What MPI.Init's warm-up ({@code jrma.mpi.warmup}) must leave behind: nothing a program can see. Right after
 * {@code Init}, rank 0 receives from any source with any tag, and every other rank sends it its rank with the tag the
 * warm-up itself uses: rank 0 must get exactly the program's messages. Then a ping-pong and an allreduce check
 * their data. With arguments {@code leave-before-init R}, the JVM of rank R (one rank per JVM) exits with code 3
 * before calling {@code Init}, so that the others wait in the warm-up for a peer that never comes: the job must end,
 * not hang.
 */
public final class WarmUpProbe {
    private static final int WARM_UP_TAG = 1;
    private static final int LEFT = 3;
    /** Where jrmarun tells a JVM of one rank its rank before MPI.Init does. */
    private static final String MAIN_RANK = "JRMA_MAIN_RANK";

    private WarmUpProbe() {
    }

    public static void main(String[] args) throws MPIException {
        if (args.length > 1 && args[0].equals("leave-before-init") && args[1].equals(System.getenv(MAIN_RANK))) {
            System.out.println("rank " + args[1] + " leaves before MPI.Init");
            System.exit(LEFT);
        }
        long t0 = System.nanoTime();
        MPI.Init(args);
        long initMs = (System.nanoTime() - t0) / 1_000_000;
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        int[] one = new int[1];
        if (rank == 0) {
            boolean[] seen = new boolean[size];
            for (int i = 1; i < size; i++) {
                Status s = MPI.COMM_WORLD.recv(one, 1, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
                Check.check(s.getTag() == WARM_UP_TAG && one[0] == s.getSource() && !seen[one[0]],
                        "rank 0 got the program's message " + one[0] + " from " + s.getSource());
                seen[one[0]] = true;
            }
            Status extra = MPI.COMM_WORLD.iProbe(MPI.ANY_SOURCE, MPI.ANY_TAG);
            Check.check(extra == null, "no message but the program's is waiting after Init");
        } else {
            one[0] = rank;
            MPI.COMM_WORLD.send(one, 1, MPI.INT, 0, WARM_UP_TAG);
        }
        MPI.COMM_WORLD.barrier(); // rank 0 probed before any rank sends again
        ByteBuffer b = MPI.newByteBuffer(Long.BYTES);
        int peer = rank ^ 1;
        if (peer < size) {
            b.putLong(0, rank);
            Request r = MPI.COMM_WORLD.iRecv(b, Long.BYTES, MPI.BYTE, peer, WARM_UP_TAG);
            MPI.COMM_WORLD.send(new long[] {rank}, 1, MPI.LONG, peer, WARM_UP_TAG);
            r.waitFor();
            Check.check(b.getLong(0) == peer, "rank " + rank + " got " + b.getLong(0) + " from its peer " + peer);
        }
        long[] sum = {rank};
        MPI.COMM_WORLD.allReduce(sum, 1, MPI.LONG, MPI.SUM);
        Check.check(sum[0] == (long) size * (size - 1) / 2, "allreduce after the warm-up: " + sum[0]);
        System.out.println("rank " + rank + " MPI.Init took " + initMs + " ms");
        MPI.COMM_WORLD.barrier();
        if (rank == 0) {
            System.out.println("WarmUpProbe OK on " + size + " ranks");
        }
        MPI.Finalize();
    }
}

package mpitests;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import mpi.MPI;
import mpi.MPIException;
import mpi.Status;

/**
 * The {@code mpi} package's blocking calls allocate nothing beyond the statuses the API returns, once warm: an OSU
 * ping-pong of {@code send} and {@code recv}, and {@code sendRecv}, on 2 ranks (threads of one JVM or one JVM per
 * rank: MpiProgramsTest runs both), measured by the thread's allocated bytes over a loop after a warm-up. Each
 * iteration returns two {@link Status} objects (the recv's and the sendRecv's); anything more per iteration fails.
 */
public class Allocation {
    static final int WARMUP = 30_000;
    static final int MEASURED = 20_000;
    /** What an iteration may allocate: the two statuses it returns (40 bytes each with compressed pointers), +16. */
    static final double BOUND = 2 * 40 + 16;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.getRank();
        if (MPI.COMM_WORLD.getSize() != 2) {
            throw new IllegalArgumentException("Allocation runs on 2 ranks");
        }
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int bytes : new int[] {8, 1024, 16384, 131072}) {
            ByteBuffer out = MPI.newByteBuffer(bytes);
            ByteBuffer in = MPI.newByteBuffer(bytes);
            loop(me, out, in, bytes, bytes > 16384 ? WARMUP / 10 : WARMUP);
            MPI.COMM_WORLD.barrier();
            int n = bytes > 16384 ? MEASURED / 10 : MEASURED;
            long before = mx.getCurrentThreadAllocatedBytes();
            loop(me, out, in, bytes, n);
            double per = (mx.getCurrentThreadAllocatedBytes() - before) / (double) n;
            System.out.printf("Allocation rank %d, %d bytes: %.1f bytes per send + recv + sendRecv%n", me, bytes, per);
            // between JVMs a rendezvous send still allocates its exposure (docs/two-sided.md, What allocates)
            boolean rendezvousBetweenJvms = bytes > 65536 && jvms() > 1;
            if (per > BOUND && !rendezvousBetweenJvms) {
                throw new AssertionError("rank " + me + ", " + bytes + "-byte messages: " + per
                        + " bytes allocated per iteration, more than the returned statuses (" + BOUND + ")");
            }
        }
        MPI.Finalize();
        System.out.println("Allocation OK on rank " + me);
    }

    /** JVMs of the job: 2 when the other rank is another process. */
    private static int jvms() throws MPIException {
        long[] pids = new long[2];
        MPI.COMM_WORLD.allGather(new long[] {ProcessHandle.current().pid()}, 1, MPI.LONG, pids, 1, MPI.LONG);
        return pids[0] == pids[1] ? 1 : 2;
    }

    private static void loop(int me, ByteBuffer out, ByteBuffer in, int bytes, int n) throws MPIException {
        int other = 1 - me;
        for (int i = 0; i < n; i++) {
            if (me == 0) {
                MPI.COMM_WORLD.send(out, bytes, MPI.BYTE, other, 1);
                check(MPI.COMM_WORLD.recv(in, bytes, MPI.BYTE, other, 1), other);
            } else {
                check(MPI.COMM_WORLD.recv(in, bytes, MPI.BYTE, other, 1), other);
                MPI.COMM_WORLD.send(out, bytes, MPI.BYTE, other, 1);
            }
            check(MPI.COMM_WORLD.sendRecv(out, bytes, MPI.BYTE, other, 2, in, bytes, MPI.BYTE, MPI.ANY_SOURCE, 2),
                    other);
        }
    }

    private static void check(Status s, int other) throws MPIException {
        if (s.getSource() != other) {
            throw new AssertionError("source " + s.getSource() + ", expected " + other);
        }
    }
}

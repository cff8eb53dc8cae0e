package io.jrma.msg;

import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.Op;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;

/**
 * Latency of the messenger, printed as medians (not a unit test; run by hand):
 * ping-pong between 2 thread ranks (one-way latency = half the round trip) for 8 B, 1 KiB, 1 MiB and 4 MiB
 * from long[] arrays and from direct ByteBuffers, and allreduce (SUM of longs) of 8 B and 1 MiB on 4 ranks,
 * each on paths auto and packet. Each measurement runs {@value #REPS} times (a new job each time); the table
 * shows the median of the per-run medians and the smallest one, since on a shared machine a run whose
 * threads lose their cores shifts its whole median.
 *
 * <pre>
 * java $(java -cp rma-core/target/classes io.jrma.JvmFlags) -cp CLASSPATH \
 *     io.jrma.msg.MessagingBench [quick] [auto|packet]
 * </pre>
 */
public final class MessagingBench {
    private static final int[] PING_BYTES = {8, 1024, 1 << 20, 4 << 20};
    private static final int REPS = 3;

    private MessagingBench() {
    }

    public static void main(String[] args) {
        boolean quick = Arrays.asList(args).contains("quick");
        String[] paths = Arrays.asList(args).contains("packet") ? new String[] {"packet"}
                : Arrays.asList(args).contains("auto") ? new String[] {"auto"} : new String[] {"auto", "packet"};
        System.out.printf("%-8s %-18s %-7s %12s %12s%n", "path", "test", "buffer", "median (us)", "best run");
        for (String path : paths) {
            for (int bytes : PING_BYTES) {
                for (boolean direct : new boolean[] {false, true}) {
                    double[] us = new double[REPS];
                    for (int r = 0; r < REPS; r++) {
                        us[r] = pingPong(path, bytes, direct, iterations(bytes, quick));
                    }
                    row(path, "pingpong " + label(bytes), direct ? "direct" : "long[]", us);
                }
            }
            for (int bytes : new int[] {8, 1 << 20}) {
                double[] us = new double[REPS];
                for (int r = 0; r < REPS; r++) {
                    us[r] = allreduce(path, 4, bytes, iterations(bytes, quick));
                }
                row(path, "allreduce " + label(bytes) + " x4", "long[]", us);
            }
        }
    }

    private static void row(String path, String test, String buffer, double[] us) {
        double[] s = us.clone();
        Arrays.sort(s);
        System.out.printf("%-8s %-18s %-7s %12.2f %12.2f%n", path, test, buffer, s[s.length / 2], s[0]);
    }

    private static int iterations(int bytes, boolean quick) {
        int n = bytes <= 1024 ? 20_000 : bytes <= (1 << 20) ? 400 : 150;
        return quick ? Math.max(20, n / 10) : n;
    }

    private static String label(int bytes) {
        return bytes >= 1 << 20 ? (bytes >> 20) + "MiB" : bytes >= 1024 ? (bytes >> 10) + "KiB" : bytes + "B";
    }

    /** Median one-way latency (half the round trip) in microseconds, measured at rank 0. */
    static double pingPong(String path, int bytes, boolean direct, int iters) {
        double[] result = new double[1];
        int count = bytes / 8;
        job(path, 2, world -> {
            Messenger m = Messenger.create(world);
            Object buf = direct ? ByteBuffer.allocateDirect(bytes) : new long[count];
            int other = 1 - world.rank();
            int warm = Math.max(10, iters / 10);
            long[] rtt = new long[iters];
            for (int i = -warm; i < iters; i++) {
                long t0 = System.nanoTime();
                if (world.rank() == 0) {
                    m.send(buf, 0, count, Datatype.LONG, other, 0);
                    m.recv(buf, 0, count, Datatype.LONG, other, 0);
                } else {
                    m.recv(buf, 0, count, Datatype.LONG, other, 0);
                    m.send(buf, 0, count, Datatype.LONG, other, 0);
                }
                if (i >= 0) {
                    rtt[i] = System.nanoTime() - t0;
                }
            }
            if (world.rank() == 0) {
                result[0] = median(rtt) / 2e3;
            }
            m.free();
        });
        return result[0];
    }

    /** Median time of one allreduce in microseconds at rank 0 (iterations separated by a barrier). */
    static double allreduce(String path, int ranks, int bytes, int iters) {
        double[] result = new double[1];
        int count = bytes / 8;
        job(path, ranks, world -> {
            Messenger m = Messenger.create(world);
            Collectives c = m.collectives();
            long[] in = new long[count];
            long[] out = new long[count];
            Arrays.fill(in, world.rank());
            int warm = Math.max(10, iters / 10);
            long[] t = new long[iters];
            for (int i = -warm; i < iters; i++) {
                c.barrier();
                long t0 = System.nanoTime();
                c.allreduce(in, 0, out, 0, count, Datatype.LONG, Op.SUM);
                if (i >= 0) {
                    t[i] = System.nanoTime() - t0;
                }
            }
            if (out[count - 1] != (long) ranks * (ranks - 1) / 2) {
                throw new AssertionError("allreduce result " + out[count - 1]);
            }
            if (world.rank() == 0) {
                result[0] = median(t) / 1e3;
            }
            m.free();
        });
        return result[0];
    }

    private static void job(String path, int ranks, Jrma.RankMain body) {
        Jrma.job(ranks).param("jrma.path", path).timeout(Duration.ofMinutes(5)).run(body);
    }

    private static double median(long[] xs) {
        long[] s = xs.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
    }
}

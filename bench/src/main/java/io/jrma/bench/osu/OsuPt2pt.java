package io.jrma.bench.osu;

import java.nio.ByteBuffer;
import java.util.Locale;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * OSU-style two-sided tests on jrma's {@code mpi} package (the Open MPI Java API): {@code latency} (ping-pong,
 * half the round trip), {@code bw} (windows of 64 non-blocking sends, then a 4-byte acknowledgement) and
 * {@code allreduce} (SUM of floats, the average over ranks of each rank's average time). Same loops, options
 * and output as the C twin {@code bench/c/osu_pt2pt.c}, so {@code bench/compare} can run both.
 *
 * <pre>
 *   bin/jrmarun -n 2 [--jvms 2] -cp bench/target/classes io.jrma.bench.osu.OsuPt2pt latency -m 1:4194304
 *   bin/jrmarun -n 4 [--jvms 4] -cp bench/target/classes io.jrma.bench.osu.OsuPt2pt allreduce -m 8:1048576
 * </pre>
 *
 * Options: {@code -m [MIN:]MAX} sizes (powers of two from MIN), {@code -i} iterations, {@code -x} warm-up
 * iterations. Defaults: latency 10000/100 up to 8 KiB, 1000/10 above; bw 100/10 and 20/2 with 64 messages per
 * window; allreduce 1000/100 and 100/10. Before the measured pass, silent passes warm the JIT (a C benchmark
 * needs none): over the sizes up to 8 KiB they repeat until {@link #JIT_WARMUP_ITERATIONS} operations have run
 * (with -i 1000 one pass of 10 sizes timed the 8-byte ping-pong half interpreted: 5-7 us instead of 0.5-0.9),
 * then one pass covers the large sizes. {@code --no-jit-warmup} leaves OSU's own warm-up only: the figures a user of
 * Open MPI's Java OSU port sees on a fresh JVM.
 */
public final class OsuPt2pt {
    private static final int LARGE = 8192;
    private static final int WINDOW = 64;
    /** Operations of sizes up to 8 KiB run silently before the measured pass (ping-pongs; allreduce: a tenth). */
    static final long JIT_WARMUP_ITERATIONS = 300_000;

    private OsuPt2pt() {
    }

    public static void main(String[] args) throws MPIException {
        args = MPI.Init(args);
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: OsuPt2pt latency|bw|allreduce [-m [MIN:]MAX] [-i ITER] [-x SKIP]"
                    + " [--no-jit-warmup]");
        }
        String test = args[0];
        long min = test.equals("allreduce") ? 4 : 1;
        long max = test.equals("allreduce") ? 1 << 20 : 4 << 20;
        int iters = -1;
        int skip = -1;
        boolean jitWarmup = true;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "-m" -> {
                    String m = args[++i];
                    int c = m.indexOf(':');
                    min = c >= 0 ? Long.parseLong(m.substring(0, c)) : min;
                    max = Long.parseLong(c >= 0 ? m.substring(c + 1) : m);
                }
                case "-i" -> iters = Integer.parseInt(args[++i]);
                case "-x" -> skip = Integer.parseInt(args[++i]);
                case "--no-jit-warmup" -> jitWarmup = false;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        int me = MPI.COMM_WORLD.getRank();
        int np = MPI.COMM_WORLD.getSize();
        if (!test.equals("allreduce") && np != 2) {
            throw new IllegalArgumentException(test + " runs on exactly 2 ranks, not " + np);
        }
        if (me == 0) {
            System.out.println("# OSU MPI " + switch (test) {
                case "latency" -> "Latency";
                case "bw" -> "Bandwidth";
                case "allreduce" -> "Allreduce Latency";
                default -> throw new IllegalArgumentException("unknown test " + test);
            } + " Test (jrma mpi package)");
            System.out.printf(Locale.ROOT, "%-10s%20s%n", "# Size", test.equals("bw") ? "Bandwidth (MB/s)"
                    : "Avg Latency (us)");
        }
        long small = 0;
        for (long size = min; size <= Math.min(max, LARGE); size *= 2) {
            small++;
        }
        long perPass = small * (iters > 0 ? iters : test.equals("allreduce") ? 1000 : test.equals("bw")
                ? 100 * WINDOW : 10_000);
        long want = test.equals("allreduce") ? JIT_WARMUP_ITERATIONS / 10 : JIT_WARMUP_ITERATIONS;
        int silent = !jitWarmup ? 0 : perPass == 0 ? 1
                : (int) Math.max(1, Math.min(50, (want + perPass - 1) / perPass));
        for (int pass = 0; pass <= silent; pass++) {
            boolean measured = pass == silent;
            for (long size = min; size <= max; size *= 2) {
                int s = (int) size;
                boolean large = size > LARGE;
                if (!measured && large && pass > 0) {
                    break; // large sizes need one silent pass only
                }
                double v = switch (test) {
                    case "latency" -> latency(me, s, iters > 0 ? iters : large ? 1000 : 10_000, skip >= 0 ? skip
                            : large ? 10 : 100);
                    case "bw" -> bw(me, s, iters > 0 ? iters : large ? 20 : 100, skip >= 0 ? skip : large ? 2 : 10);
                    default -> allreduce(np, s, iters > 0 ? iters : large ? 100 : 1000, skip >= 0 ? skip
                            : large ? 10 : 100);
                };
                if (measured && me == 0) {
                    System.out.printf(Locale.ROOT, "%-10d%20.2f%n", size, v);
                }
            }
        }
        MPI.Finalize();
    }

    private static double latency(int me, int size, int n, int warm) throws MPIException {
        ByteBuffer s = MPI.newByteBuffer(Math.max(1, size));
        ByteBuffer r = MPI.newByteBuffer(Math.max(1, size));
        MPI.COMM_WORLD.barrier();
        double t0 = 0;
        for (int i = 0; i < warm + n; i++) {
            if (i == warm) {
                t0 = MPI.wtime();
            }
            if (me == 0) {
                MPI.COMM_WORLD.send(s, size, MPI.BYTE, 1, 1);
                MPI.COMM_WORLD.recv(r, size, MPI.BYTE, 1, 1);
            } else {
                MPI.COMM_WORLD.recv(r, size, MPI.BYTE, 0, 1);
                MPI.COMM_WORLD.send(s, size, MPI.BYTE, 0, 1);
            }
        }
        return (MPI.wtime() - t0) * 1e6 / (2.0 * n);
    }

    private static double bw(int me, int size, int n, int warm) throws MPIException {
        ByteBuffer[] bufs = new ByteBuffer[WINDOW];
        for (int j = 0; j < WINDOW; j++) {
            bufs[j] = MPI.newByteBuffer(Math.max(1, size));
        }
        ByteBuffer ack = MPI.newByteBuffer(4);
        Request[] reqs = new Request[WINDOW];
        MPI.COMM_WORLD.barrier();
        double t0 = 0;
        for (int i = 0; i < warm + n; i++) {
            if (i == warm) {
                t0 = MPI.wtime();
            }
            for (int j = 0; j < WINDOW; j++) {
                reqs[j] = me == 0 ? MPI.COMM_WORLD.iSend(bufs[j], size, MPI.BYTE, 1, 100)
                        : MPI.COMM_WORLD.iRecv(bufs[j], size, MPI.BYTE, 0, 100);
            }
            Request.waitAll(reqs);
            if (me == 0) {
                MPI.COMM_WORLD.recv(ack, 4, MPI.BYTE, 1, 101);
            } else {
                MPI.COMM_WORLD.send(ack, 4, MPI.BYTE, 0, 101);
            }
        }
        double t = MPI.wtime() - t0;
        return size / 1e6 * n * WINDOW / t;
    }

    private static double allreduce(int np, int size, int n, int warm) throws MPIException {
        int count = Math.max(1, size / 4);
        ByteBuffer s = MPI.newByteBuffer(count * 4);
        ByteBuffer r = MPI.newByteBuffer(count * 4);
        double total = 0;
        for (int i = 0; i < warm + n; i++) {
            MPI.COMM_WORLD.barrier();
            double t0 = MPI.wtime();
            MPI.COMM_WORLD.allReduce(s, r, count, MPI.FLOAT, MPI.SUM);
            if (i >= warm) {
                total += MPI.wtime() - t0;
            }
        }
        double[] mine = {total * 1e6 / n};
        double[] sum = new double[1];
        MPI.COMM_WORLD.allReduce(mine, sum, 1, MPI.DOUBLE, MPI.SUM);
        return sum[0] / np;
    }
}

package io.jrma.bench.osu;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import mpi.MPI;
import mpi.MPIException;

/**
 * Java twins of the OSU Micro-Benchmarks 7.x blocking collective latency tests ({@code osu_bcast},
 * {@code osu_barrier}, {@code osu_allgather}, {@code osu_alltoall}, {@code osu_reduce_scatter}), written against
 * jrma's {@code mpi} package only, which is what a program written for Open MPI's Java bindings touches. The C
 * twin is {@code bench/c/osu_coll.c}: same loops, options, buffer contents and output, so {@code bench/compare}
 * runs both and parses the same rows.
 *
 * <pre>
 *   bin/jrmarun -n 4 [--jvms 4] -cp bench/target/classes io.jrma.bench.osu.OsuColl bcast -m 1:1048576
 * </pre>
 *
 * <p>Measured as a user measures: each size runs OSU's skip iterations then its timed iterations, and nothing
 * else; there are no silent JIT passes (unlike {@link OsuPt2pt} and {@link OsuRma}), so the first sizes include
 * the JVM compiling the library, as they do in a user's first collectives. Each iteration times the collective
 * alone on every rank, then a barrier (untimed) keeps the ranks in step; the row is the average over ranks of
 * each rank's mean time, as OSU prints it.
 *
 * <p>Options (OSU's names): {@code -m [MIN:]MAX} message sizes in bytes (powers of two from MIN; default 1 to 1 MiB,
 * per rank for allgather and alltoall, the whole vector for reduce_scatter), {@code -i N} and {@code -x N} timed
 * and skipped iterations for every size (default OSU's: 1000 and 100 up to 8 KiB, 100 and 10 above),
 * {@code -f} full rows (average, minimum and maximum over ranks, iterations), {@code -P N} (jrma's own, for
 * studying warm-up) prints rank 0's mean time of every N iterations, skipped ones included, with and without the
 * loop's barrier. Barrier prints one row, with size 0.
 *
 * <p>Data: bytes ({@code MPI.BYTE}) for bcast, allgather and alltoall, as OSU 7's default {@code char};
 * reduce_scatter sums floats ({@code MPI.FLOAT}, OSU's {@code -T mpi_float}), so sizes below 4 bytes are skipped
 * as OSU skips sizes smaller than one element, and the blocks are split as OSU splits them. Every buffer is filled
 * with a pattern of rank, position and size before a size's loop, and after the loop, outside the timing, every
 * rank checks what the last timed collective left in its receive buffer (what OSU's {@code -c} checks each
 * iteration); a wrong element stops the run with a {@code # DATA VALIDATION ERROR} line and exit code 1, and a
 * clean run ends with {@code # Validation: all results correct}.
 */
public final class OsuColl {
    /** Sizes above this run OSU's large-message counts. */
    static final int LARGE = 8192;
    static final int LOOP_SMALL = 1000;
    static final int SKIP_SMALL = 100;
    static final int LOOP_LARGE = 100;
    static final int SKIP_LARGE = 10;
    static final long MAX_DEFAULT = 1 << 20;
    static final int ROOT = 0;
    private static final int BARRIER = 0;
    private static final int BCAST = 1;
    private static final int ALLGATHER = 2;
    private static final int ALLTOALL = 3;
    private static final int REDUCE_SCATTER = 4;

    private OsuColl() {
    }

    public static void main(String[] args) throws MPIException {
        args = MPI.Init(args);
        if (args.length == 0) {
            throw new IllegalArgumentException(
                    "usage: OsuColl bcast|barrier|allgather|alltoall|reduce_scatter [-m [MIN:]MAX] [-i ITER] [-x "
                    + "SKIP] [-f]");
        }
        String test = args[0];
        String title = switch (test) {
            case "bcast" -> "Broadcast";
            case "barrier" -> "Barrier";
            case "allgather" -> "Allgather";
            case "alltoall" -> "All-to-All Personalized Exchange";
            case "reduce_scatter" -> "Reduce_scatter";
            default -> throw new IllegalArgumentException("unknown test " + test);
        };
        long min = 1;
        long max = MAX_DEFAULT;
        int iters = -1;
        int skip = -1;
        boolean full = false;
        int probe = 0;
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
                case "-f" -> full = true;
                case "-P" -> probe = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (min < 1 || max < min || max > Integer.MAX_VALUE / 64) {
            throw new IllegalArgumentException("bad sizes " + min + ":" + max);
        }
        int me = MPI.COMM_WORLD.getRank();
        int np = MPI.COMM_WORLD.getSize();
        if (np < 2) {
            throw new IllegalArgumentException(test + " needs at least 2 ranks");
        }
        if (me == 0) {
            System.out.println("# OSU MPI " + title + " Latency Test (jrma mpi package)");
            System.out.printf(Locale.ROOT, full ? "%-10s%20s%20s%20s%12s%n" : "%-10s%20s%n",
                    "# Size", "Avg Latency (us)", "Min Latency (us)", "Max Latency (us)", "Iterations");
        }
        Coll c = new Coll(test, me, np, test.equals("barrier") ? 0 : (int) max);
        long errors = 0;
        long failedAt = -1;
        for (long size = test.equals("barrier") ? 0 : min; size <= (test.equals("barrier") ? 0 : max);
                size = Math.max(1, size * 2)) {
            boolean large = size > LARGE;
            int n = iters > 0 ? iters : large ? LOOP_LARGE : LOOP_SMALL;
            int warm = skip >= 0 ? skip : large ? SKIP_LARGE : SKIP_SMALL;
            if (!c.prepare((int) size)) {
                continue; // smaller than one element
            }
            MPI.COMM_WORLD.barrier();
            double timer = 0;
            Probe pr = probe > 0 && me == 0 ? new Probe(probe) : null;
            for (int i = 0; i < warm + n; i++) {
                if (pr != null) {
                    pr.start();
                }
                double t0 = MPI.wtime();
                c.run();
                double t1 = MPI.wtime();
                if (pr != null) {
                    pr.collective(t1 - t0);
                }
                MPI.COMM_WORLD.barrier();
                if (i >= warm) {
                    timer += t1 - t0;
                }
                if (pr != null) {
                    pr.end(MPI.wtime() - t0, size, i);
                }
            }
            long bad = c.check();
            double lat = timer * 1e6 / n;
            double[] lo = new double[1];
            double[] hi = new double[1];
            double[] sum = new double[1];
            MPI.COMM_WORLD.reduce(new double[] {lat}, lo, 1, MPI.DOUBLE, MPI.MIN, 0);
            MPI.COMM_WORLD.reduce(new double[] {lat}, hi, 1, MPI.DOUBLE, MPI.MAX, 0);
            MPI.COMM_WORLD.reduce(new double[] {lat}, sum, 1, MPI.DOUBLE, MPI.SUM, 0);
            long[] allBad = new long[1];
            MPI.COMM_WORLD.allReduce(new long[] {bad}, allBad, 1, MPI.LONG, MPI.SUM);
            if (me == 0) {
                if (full) {
                    System.out.printf(Locale.ROOT, "%-10d%20.2f%20.2f%20.2f%12d%n", size, sum[0] / np, lo[0], hi[0], n);
                } else {
                    System.out.printf(Locale.ROOT, "%-10d%20.2f%n", size, sum[0] / np);
                }
            }
            if (allBad[0] != 0) {
                errors = allBad[0];
                failedAt = size;
                break;
            }
        }
        if (me == 0) {
            System.out.println(errors == 0 ? "# Validation: all results correct"
                    : "# DATA VALIDATION ERROR: " + test + " left " + errors + " wrong elements at size " + failedAt);
        }
        MPI.Finalize();
        if (errors != 0) {
            throw new IllegalStateException(test + ": " + errors + " wrong elements at size " + failedAt);
        }
    }

    /**
     * The {@code -P N} probe of rank 0: per block of N iterations, the collective's mean, median, 90th percentile
     * and largest time, the thread's CPU time per iteration (collective and barrier), and how often the thread left
     * its core voluntarily (parked, slept) or was preempted or yielded (Linux's per-thread context switch counts).
     */
    static final class Probe {
        final int every;
        final double[] times;
        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        int k;
        double all;
        long cpu0;
        long cpu;
        long alloc0;
        long[] sw0;

        Probe(int every) {
            this.every = every;
            this.times = new double[every];
            this.sw0 = switches();
            this.alloc0 = allocated();
        }

        /** Bytes this thread has allocated so far (HotSpot), or 0. */
        long allocated() {
            return ThreadAllocation.ofCurrentThread();
        }

        void start() {
            cpu0 = mx.getCurrentThreadCpuTime();
        }

        void collective(double t) {
            times[k++] = t;
        }

        void end(double withBarrier, long size, int i) {
            all += withBarrier;
            cpu += mx.getCurrentThreadCpuTime() - cpu0;
            if (k < every) {
                return;
            }
            double[] t = times.clone();
            Arrays.sort(t);
            double sum = 0;
            for (double x : t) {
                sum += x;
            }
            long[] sw = switches();
            long a = allocated();
            System.out.printf(Locale.ROOT, "# probe size %d it %4d-%4d: mean %9.2f p50 %8.2f p90 %9.2f max %9.2f us;"
                            + " with barrier %9.2f; cpu %8.2f us/it; %6d B/it; switches vol %5d invol %5d%n",
                    size, i + 1 - every, i, sum * 1e6 / every, t[every / 2] * 1e6, t[every * 9 / 10] * 1e6,
                    t[every - 1] * 1e6, all * 1e6 / every, cpu / 1e3 / every, (a - alloc0) / every,
                    sw[0] - sw0[0], sw[1] - sw0[1]);
            sw0 = sw;
            alloc0 = allocated();
            k = 0;
            all = 0;
            cpu = 0;
        }

        /** {voluntary, nonvoluntary} context switches of this thread so far (Linux), or zeros. */
        static long[] switches() {
            long[] r = new long[2];
            try {
                for (String l : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                    if (l.startsWith("voluntary_ctxt_switches:")) {
                        r[0] = Long.parseLong(l.substring(l.indexOf(':') + 1).trim());
                    } else if (l.startsWith("nonvoluntary_ctxt_switches:")) {
                        r[1] = Long.parseLong(l.substring(l.indexOf(':') + 1).trim());
                    }
                }
            } catch (IOException | RuntimeException e) {
                // not Linux: zeros
            }
            return r;
        }
    }

    // ------------------------------------------------------------------ the pattern the buffers are filled with

    /** Byte {@code j} of rank {@code r}'s bcast/allgather data at this size. */
    static byte value(int r, int j, int size) {
        return (byte) (r * 31 + j * 7 + size + 1);
    }

    /** Byte {@code j} of the block rank {@code r} sends to rank {@code d} in alltoall at this size. */
    static byte value(int r, int d, int j, int size) {
        return (byte) (r * 31 + d * 17 + j * 7 + size + 3);
    }

    /** Element {@code k} of rank {@code r}'s reduce_scatter input: small integers, so float sums are exact. */
    static float element(int r, int k) {
        return (k + 5 * r) % 61 + 1;
    }

    /** The receive counts OSU gives reduce_scatter: near-equal blocks, the remainder to the first ranks. */
    static int[] counts(int elements, int np) {
        int[] c = new int[np];
        for (int i = 0; i < np; i++) {
            c[i] = elements < np ? (i < elements ? 1 : 0) : elements / np + (i < elements % np ? 1 : 0);
        }
        return c;
    }

    /** One collective at one size: fills its buffers, runs it, checks what it left. */
    static final class Coll {
        final String test;
        /** The test resolved once, outside the timed loop (OSU calls one function per test). */
        final int kind;
        final int me;
        final int np;
        final ByteBuffer send;
        final ByteBuffer recv;
        int size;
        int elements;
        int[] counts;

        Coll(String test, int me, int np, int max) {
            this.test = test;
            this.kind = switch (test) {
                case "barrier" -> BARRIER;
                case "bcast" -> BCAST;
                case "allgather" -> ALLGATHER;
                case "alltoall" -> ALLTOALL;
                case "reduce_scatter" -> REDUCE_SCATTER;
                default -> throw new IllegalArgumentException("unknown test " + test);
            };
            this.me = me;
            this.np = np;
            int s = switch (test) {
                case "alltoall" -> max * np;
                default -> Math.max(max, 1);
            };
            int r = switch (test) {
                case "allgather", "alltoall" -> max * np;
                default -> Math.max(max, 1);
            };
            send = MPI.newByteBuffer(Math.max(1, s));
            recv = test.equals("bcast") || test.equals("barrier") ? send : MPI.newByteBuffer(Math.max(1, r));
        }

        /** Fills the buffers for {@code size}; false if the size holds no element of the test's datatype. */
        boolean prepare(int size) {
            this.size = size;
            switch (test) {
                case "barrier" -> {
                    return true;
                }
                case "bcast" -> {
                    for (int j = 0; j < size; j++) {
                        byte v = value(ROOT, j, size);
                        send.put(j, me == ROOT ? v : (byte) ~v);
                    }
                }
                case "allgather" -> {
                    for (int j = 0; j < size; j++) {
                        send.put(j, value(me, j, size));
                    }
                    for (int r = 0; r < np; r++) {
                        for (int j = 0; j < size; j++) {
                            recv.put(r * size + j, (byte) ~value(r, j, size));
                        }
                    }
                }
                case "alltoall" -> {
                    for (int d = 0; d < np; d++) {
                        for (int j = 0; j < size; j++) {
                            send.put(d * size + j, value(me, d, j, size));
                            recv.put(d * size + j, (byte) ~value(d, me, j, size));
                        }
                    }
                }
                case "reduce_scatter" -> {
                    elements = size / Float.BYTES;
                    if (elements == 0) {
                        return false;
                    }
                    counts = counts(elements, np);
                    for (int k = 0; k < elements; k++) {
                        send.putFloat(k * Float.BYTES, element(me, k));
                    }
                    for (int k = 0; k < counts[me]; k++) {
                        recv.putFloat(k * Float.BYTES, -1f);
                    }
                }
                default -> throw new IllegalStateException(test);
            }
            return true;
        }

        void run() throws MPIException {
            switch (kind) {
                case BARRIER -> MPI.COMM_WORLD.barrier();
                case BCAST -> MPI.COMM_WORLD.bcast(send, size, MPI.BYTE, ROOT);
                case ALLGATHER -> MPI.COMM_WORLD.allGather(send, size, MPI.BYTE, recv, size, MPI.BYTE);
                case ALLTOALL -> MPI.COMM_WORLD.allToAll(send, size, MPI.BYTE, recv, size, MPI.BYTE);
                default -> MPI.COMM_WORLD.reduceScatter(send, recv, counts, MPI.FLOAT, MPI.SUM);
            }
        }

        /** The number of wrong elements in this rank's result. */
        long check() {
            long bad = 0;
            switch (test) {
                case "barrier" -> {
                }
                case "bcast" -> {
                    for (int j = 0; j < size; j++) {
                        bad += recv.get(j) == value(ROOT, j, size) ? 0 : 1;
                    }
                }
                case "allgather" -> {
                    for (int r = 0; r < np; r++) {
                        for (int j = 0; j < size; j++) {
                            bad += recv.get(r * size + j) == value(r, j, size) ? 0 : 1;
                        }
                    }
                }
                case "alltoall" -> {
                    for (int s = 0; s < np; s++) {
                        for (int j = 0; j < size; j++) {
                            bad += recv.get(s * size + j) == value(s, me, j, size) ? 0 : 1;
                        }
                    }
                }
                case "reduce_scatter" -> {
                    int first = 0;
                    for (int r = 0; r < me; r++) {
                        first += counts[r];
                    }
                    for (int k = 0; k < counts[me]; k++) {
                        float want = 0;
                        for (int r = 0; r < np; r++) {
                            want += element(r, first + k);
                        }
                        bad += recv.getFloat(k * Float.BYTES) == want ? 0 : 1;
                    }
                }
                default -> throw new IllegalStateException(test);
            }
            return bad;
        }
    }
}

package io.jrma.bench;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import io.jrma.core.runtime.CommCore;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * OSU-style one-sided latency and bandwidth between two ranks in two JVMs of this host (shared-memory rings,
 * or TCP loopback through the IO agents with {@code --transports ^shm}): {@code osu_put_latency -s flush} and friends
 * for 8-byte put, get, accumulate (SUM), fetch_and_op and compare_and_swap (window allocate, one lock epoch, op + flush
 * per iteration), and
 * {@code osu_put_bw}/{@code osu_get_bw} shaped bandwidth (64 operations of the size, then a flush). Rank 1
 * waits in a barrier meanwhile. Prints one line per measurement and repetition; run with {@code --reps N}
 * (default 3), {@code --jvms J} (default 2; 1 measures two threads of one JVM for comparison) and
 * {@code --transports LIST} (run-time parameter {@code jrma.transports}). Each line names the transport used.
 *
 * <p>Run: {@code java $(flags) -cp bench/target/bench-*.jar:bench/target/lib/* io.jrma.bench.OsuJvmPair}
 */
public final class OsuJvmPair {
    private OsuJvmPair() {
    }

    public static void main(String[] args) {
        int reps = 3;
        int jvms = 2;
        String path = "auto";
        String transports = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--reps" -> reps = Integer.parseInt(args[++i]);
                case "--transports" -> transports = args[++i];
                case "--jvms" -> jvms = Integer.parseInt(args[++i]);
                case "--path" -> path = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        for (int r = 0; r < reps; r++) {
            final int rep = r;
            final int js = jvms;
            Jrma.Builder job = Jrma.job(2).jvms(jvms).param("jrma.path", path).timeout(Duration.ofMinutes(5));
            if (transports != null) {
                job.param("jrma.transports", transports);
            }
            job.run(world -> measure(world, rep, js));
        }
    }

    private static void measure(Comm world, int rep, int jvms) {
        long bw = 1 << 20;
        Win w = Win.allocate(world, 64 * bw, 8, null);
        List<String> out = new ArrayList<>();
        world.barrier();
        if (world.rank() == 0) {
            String via = ((CommCore) world).job().transportFor(1).name();
            long[] one = {1};
            long[] res = new long[1];
            long[] cmp = {0};
            int warm = 2_000;
            int iters = 10_000;
            w.lock(LockType.SHARED, 1, 0);
            for (String op : new String[] {"put", "get", "acc", "fop", "cas"}) {
                long t0 = 0;
                for (int i = 0; i < warm + iters; i++) {
                    if (i == warm) {
                        t0 = System.nanoTime();
                    }
                    switch (op) {
                        case "put" -> w.put(one, 1, Datatype.LONG, 1, 0);
                        case "get" -> w.get(res, 1, Datatype.LONG, 1, 0);
                        case "acc" -> w.accumulate(one, 1, Datatype.LONG, 1, 0, Op.SUM);
                        case "fop" -> w.fetchAndOp(one, res, Datatype.LONG, 1, 0, Op.SUM);
                        default -> w.compareAndSwap(one, cmp, res, Datatype.LONG, 1, 0);
                    }
                    w.flush(1);
                }
                double us = (System.nanoTime() - t0) / 1e3 / iters;
                out.add(String.format("rep %d jvms %d %-5s %-4s 8 B + flush: %8.2f us", rep, jvms, via, op, us));
            }
            byte[] src = new byte[(int) bw];
            ByteBuffer dst = ByteBuffer.allocateDirect((int) bw);
            for (String op : new String[] {"put", "get"}) {
                int bwIters = 20;
                long t0 = 0;
                for (int i = 0; i < 3 + bwIters; i++) {
                    if (i == 3) {
                        t0 = System.nanoTime();
                    }
                    for (int k = 0; k < 64; k++) {
                        if (op.equals("put")) {
                            w.put(src, bw, Datatype.BYTE, 1, k * bw / 8);
                        } else {
                            w.get(dst, bw, Datatype.BYTE, 1, k * bw / 8);
                        }
                    }
                    w.flush(1);
                }
                double gbs = 64.0 * bw * bwIters / (System.nanoTime() - t0);
                out.add(String.format("rep %d jvms %d %-5s %-4s 1 MiB x64 bandwidth: %6.2f GB/s", rep,
                        jvms, via, op, gbs));
            }
            w.unlock(1);
            out.forEach(System.out::println);
        }
        world.barrier();
        w.free();
    }
}

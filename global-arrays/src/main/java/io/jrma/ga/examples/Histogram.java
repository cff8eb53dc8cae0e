package io.jrma.ga.examples;

import io.jrma.Comm;
import io.jrma.Jrma;
import io.jrma.ga.ElemType;
import io.jrma.ga.GlobalArray;
import java.util.Arrays;
import java.util.Random;

/**
 * Distributed histogram with dynamic load balancing: ranks take chunks of work from a shared counter with
 * {@code readInc} (fetch-and-add), bin each chunk's values locally and add the partial histogram into the
 * distributed bins with one atomic {@code acc} per chunk (one accumulate per owner of the bins).
 *
 * <p>{@code java io.jrma.ga.examples.Histogram [values] [bins] [chunks] [ranks]} (defaults 1000000 64 200 4), or
 * {@code bin/jrmarun -n 4 [--jvms 2] -cp global-arrays/target/classes io.jrma.ga.examples.Histogram [values] [bins]
 * [chunks]}.
 */
public final class Histogram {
    private Histogram() {
    }

    public static void main(String[] args) throws Exception {
        int values = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int bins = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        int chunks = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        int nranks = args.length > 3 ? Integer.parseInt(args[3]) : 4;
        Jrma.runOrJoin(nranks, world -> { // under jrmarun: this rank; else nranks thread ranks
            long t0 = System.nanoTime();
            long[] h = histogram(world, values, bins, chunks, 42);
            long total = 0;
            for (long x : h) {
                total += x;
            }
            if (world.rank() == 0) {
                System.out.printf("histogram of %d values in %d bins on %d ranks: %.1f ms, total %d%n",
                        values, bins, world.size(), (System.nanoTime() - t0) / 1e6, total);
                for (int b = 0; b < bins; b += Math.max(1, bins / 8)) {
                    System.out.printf("  bin %3d: %d%n", b, h[b]);
                }
            }
        });
    }

    /** Collective; returns the whole histogram on every rank. Values: Gaussian, clamped to the bins. */
    public static long[] histogram(Comm world, int values, int bins, int chunks, long seed) {
        GlobalArray hist = GlobalArray.create(world, ElemType.LONG, bins);
        GlobalArray next = GlobalArray.create(world, ElemType.LONG, 1);
        long[] partial = new long[bins];
        long c;
        while ((c = next.readInc(new int[] {0}, 1)) < chunks) {
            Arrays.fill(partial, 0);
            long from = c * values / chunks;
            long to = (c + 1) * values / chunks;
            Random rnd = new Random(seed + c);
            for (long i = from; i < to; i++) {
                int b = (int) Math.floor((rnd.nextGaussian() / 6 + 0.5) * bins);
                partial[Math.max(0, Math.min(bins - 1, b))]++;
            }
            hist.acc(new int[] {0}, new int[] {bins - 1}, partial, 1);
        }
        hist.sync();
        long[] out = new long[bins];
        hist.get(new int[] {0}, new int[] {bins - 1}, out);
        hist.sync();
        next.free();
        hist.free();
        return out;
    }
}

package io.jrma.ga;

import io.jrma.Jrma;
import io.jrma.ga.examples.Jacobi2D;

/**
 * Quick timing loop (not JMH): {@code java ... io.jrma.ga.GaTimings auto|packet}; add {@code -Djrma.jvms=2}
 * (or 4) to put the ranks in separate JVMs over TCP. Not a test.
 */
public final class GaTimings {
    public static void main(String[] args) {
        String path = args.length > 0 ? args[0] : "auto";
        Jrma.job(2).param("jrma.path", path).run(world -> {
            GlobalArray a = GlobalArray.create(world, ElemType.DOUBLE, 128, 128); // rank 1 owns rows 64..127
            GlobalArray c = GlobalArray.create(world, ElemType.LONG, 2);
            int[] lo1 = {100, 5};
            int[] lo64 = {64, 32};
            int[] hi64 = {127, 95};
            double[] one = new double[1];
            double[] blk = new double[64 * 64];
            if (world.rank() == 0) {
                for (int rep = 0; rep < 2; rep++) {
                    int n = 20000;
                    long t = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        a.put(lo1, lo1, one);
                    }
                    double put1 = (System.nanoTime() - t) / 1e3 / n;
                    t = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        a.get(lo1, lo1, one);
                    }
                    double get1 = (System.nanoTime() - t) / 1e3 / n;
                    int m = 2000;
                    t = System.nanoTime();
                    for (int i = 0; i < m; i++) {
                        a.put(lo64, hi64, blk);
                    }
                    double put64 = (System.nanoTime() - t) / 1e3 / m;
                    t = System.nanoTime();
                    for (int i = 0; i < m; i++) {
                        a.get(lo64, hi64, blk);
                    }
                    double get64 = (System.nanoTime() - t) / 1e3 / m;
                    t = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        c.readInc(new int[] {1}, 1); // element 1 is owned by rank 1
                    }
                    double ri = (System.nanoTime() - t) / 1e3 / n;
                    if (rep == 1) {
                        System.out.printf("%s: put1 %.2f us, get1 %.2f us, put64x64 %.1f us, get64x64 %.1f us, "
                                + "readInc %.2f us%n",
                                path, put1, get1, put64, get64, ri);
                    }
                }
            }
            world.barrier();
            a.free();
            c.free();
        });
        for (int rep = 0; rep < 2; rep++) {
            int iters = 200;
            boolean report = rep == 1;
            Jrma.job(4).param("jrma.path", path).run(world -> {
                long[] ns = new long[1];
                GlobalArray u = Jacobi2D.solve(world, 256, 256, iters, ns);
                if (report && world.rank() == 0) {
                    System.out.printf("%s: Jacobi 256x256 4 ranks %.1f us/iteration%n", path, ns[0] / 1e3 / iters);
                }
                u.free();
            });
        }
    }
}

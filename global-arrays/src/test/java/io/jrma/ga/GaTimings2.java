package io.jrma.ga;

import io.jrma.Jrma;

/** Breakdown of a Jacobi iteration: barrier, sync, updateGhosts. Not a test. */
public final class GaTimings2 {
    public static void main(String[] args) {
        String path = args.length > 0 ? args[0] : "auto";
        Jrma.job(4).param("jrma.path", path).run(world -> {
            GlobalArray u = GlobalArray.builder(world, ElemType.DOUBLE, 256, 256).ghosts(1, 1).create();
            for (int rep = 0; rep < 2; rep++) {
                int n = 300;
                long t = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    world.barrier();
                }
                double b = (System.nanoTime() - t) / 1e3 / n;
                t = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    u.sync();
                }
                double s = (System.nanoTime() - t) / 1e3 / n;
                t = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    u.updateGhosts(false, false);
                }
                double g = (System.nanoTime() - t) / 1e3 / n;
                if (rep == 1 && world.rank() == 0) {
                    System.out.printf("%s 4 ranks: barrier %.1f us, sync %.1f us, updateGhosts %.1f us%n",
                            path, b, s, g);
                }
            }
            u.free();
        });
    }
}

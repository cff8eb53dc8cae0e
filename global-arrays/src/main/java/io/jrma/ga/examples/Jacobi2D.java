package io.jrma.ga.examples;

import io.jrma.Comm;
import io.jrma.Jrma;
import io.jrma.ga.ElemType;
import io.jrma.ga.GlobalArray;
import io.jrma.ga.LocalBlock;
import io.jrma.ga.Patch;
import java.nio.DoubleBuffer;
import java.util.Arrays;

/**
 * 2-D Jacobi relaxation on an {@code nx x ny} grid with global arrays and ghost cells: the top row is held at
 * 1, the other boundary rows and columns at 0; every iteration updates the ghost cells (one get per neighbour
 * patch) and each rank computes its own block from its local memory (zero-copy {@link LocalBlock}).
 *
 * <p>{@code java io.jrma.ga.examples.Jacobi2D [nx] [ny] [iterations] [ranks]} (defaults 256 256 100 4), or under
 * {@code bin/jrmarun -n 4 [--jvms 2] -cp global-arrays/target/classes io.jrma.ga.examples.Jacobi2D [nx] [ny]
 * [iterations]} ( run-time parameter {@code jrma.path=packet} via {@code -Djrma.path=packet}).
 */
public final class Jacobi2D {
    private Jacobi2D() {
    }

    public static void main(String[] args) throws Exception {
        int nx = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        int ny = args.length > 1 ? Integer.parseInt(args[1]) : 256;
        int iters = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        int nranks = args.length > 3 ? Integer.parseInt(args[3]) : 4;
        Jrma.runOrJoin(nranks, world -> { // under jrmarun: this rank; else nranks thread ranks
            long[] ns = new long[1];
            GlobalArray u = solve(world, nx, ny, iters, ns);
            double norm = u.dot(u);
            if (world.rank() == 0) {
                System.out.printf("Jacobi %dx%d, %d ranks, %d iterations: %.1f us/iteration, |u|^2 = %.6f%n",
                        nx, ny, world.size(), iters, ns[0] / 1e3 / iters, norm);
            }
            u.free();
        });
    }

    /** Runs the solver; returns the final array (collective); {@code nanos[0]} gets the loop time if non-null. */
    public static GlobalArray solve(Comm world, int nx, int ny, int iters, long[] nanos) {
        GlobalArray u = GlobalArray.builder(world, ElemType.DOUBLE, nx, ny).ghosts(1, 1).name("u").create();
        GlobalArray v = GlobalArray.builder(world, ElemType.DOUBLE, nx, ny).ghosts(1, 1).name("unew").create();
        u.fillPatch(new int[] {0, 0}, new int[] {0, ny - 1}, 1.0);
        v.fillPatch(new int[] {0, 0}, new int[] {0, ny - 1}, 1.0);
        long t0 = System.nanoTime();
        for (int it = 0; it < iters; it++) {
            u.updateGhosts(false, false);
            LocalBlock lu = u.access();
            LocalBlock lv = v.access();
            Patch p = lu.patch();
            if (!p.isEmpty()) {
                DoubleBuffer a = lu.doubles();
                DoubleBuffer b = lv.doubles();
                int row = (int) lu.stride(0);
                for (int i = p.lo(0); i <= p.hi(0); i++) {
                    int k = lu.index(i, p.lo(1));
                    for (int j = p.lo(1); j <= p.hi(1); j++, k++) {
                        if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1) {
                            b.put(k, a.get(k));
                        } else {
                            b.put(k, 0.25 * (a.get(k - row) + a.get(k + row) + a.get(k - 1) + a.get(k + 1)));
                        }
                    }
                }
            }
            GlobalArray t = u;
            u = v;
            v = t;
        }
        u.sync();
        if (nanos != null) {
            nanos[0] = System.nanoTime() - t0;
        }
        v.free();
        return u;
    }

    /** The same iteration on one plain array. */
    public static double[][] sequential(int nx, int ny, int iters) {
        double[][] a = new double[nx][ny];
        Arrays.fill(a[0], 1.0);
        for (int it = 0; it < iters; it++) {
            double[][] b = new double[nx][];
            for (int i = 0; i < nx; i++) {
                b[i] = a[i].clone();
            }
            for (int i = 1; i < nx - 1; i++) {
                for (int j = 1; j < ny - 1; j++) {
                    b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
                }
            }
            a = b;
        }
        return a;
    }
}

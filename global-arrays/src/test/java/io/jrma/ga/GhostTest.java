package io.jrma.ga;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.ga.examples.Jacobi2D;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** updateGhosts against the model (faces, edges, corners; periodic or not) and Jacobi against a sequential run. */
class GhostTest {
    @ParameterizedTest(name = "{0} {1} ranks")
    @CsvSource({"auto,1", "auto,4", "auto,6", "packet,2", "packet,4", "packet,8"})
    @Timeout(60)
    void ghostsMatchModel(String path, int nranks) {
        TestSupport.JOBS.run(path, nranks, world -> {
            Random rnd = new Random(99 + nranks);
            for (int cs = 0; cs < 8; cs++) {
                int[] dims = TestSupport.randomDims(rnd);
                int n = dims.length;
                Distribution dist = rnd.nextBoolean() ? Distribution.block()
                        : TestSupport.randomDist(rnd, dims, nranks);
                if (!dist.isBlocked()) {
                    dist = Distribution.block();
                }
                int[] g = new int[n];
                boolean[] periodic = new boolean[n];
                for (int d = 0; d < n; d++) {
                    g[d] = rnd.nextInt(3);
                    periodic[d] = rnd.nextBoolean();
                }
                GlobalArray a = GlobalArray.builder(world, ElemType.LONG, dims).distribution(dist).ghosts(g).create();
                TestSupport.Model m = new TestSupport.Model(dims);
                for (int i = 0; i < m.v.length; i++) {
                    m.v[i] = i + 1;
                }
                if (world.rank() == 0) {
                    long[] all = new long[m.v.length];
                    for (int i = 0; i < all.length; i++) {
                        all[i] = i + 1;
                    }
                    a.put(new int[n], ModelTest.maxIdx(dims), all);
                }
                a.updateGhosts(periodic);
                LocalBlock lb = a.access();
                Patch p = lb.patch();
                if (!p.isEmpty()) {
                    LongBuffer data = lb.longs();
                    int[] sd = lb.storageDims();
                    int[] k = new int[n];
                    long total = TestSupport.size(sd);
                    for (long i = 0; i < total; i++) {
                        int[] gi = new int[n];
                        boolean inside = true;
                        for (int d = 0; d < n; d++) {
                            gi[d] = p.lo(d) - g[d] + k[d];
                            if (gi[d] < 0 || gi[d] >= dims[d]) {
                                if (periodic[d]) {
                                    gi[d] = Math.floorMod(gi[d], dims[d]);
                                } else {
                                    inside = false;
                                }
                            }
                        }
                        long expect = inside ? (long) m.v[m.lin(gi)] : 0;
                        assertEquals(expect, data.get(lb.localIndex(minus(k, g))),
                                "case " + cs + " dims " + Arrays.toString(dims) + " " + dist + " ghosts "
                                + Arrays.toString(g)
                                        + " periodic " + Arrays.toString(periodic) + " storage index "
                                        + Arrays.toString(k));
                        for (int d = n - 1; d >= 0 && ++k[d] == sd[d]; d--) {
                            k[d] = 0;
                        }
                    }
                }
                a.free();
            }
        });
    }

    private static int[] minus(int[] a, int[] b) {
        int[] r = new int[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[i] - b[i];
        }
        return r;
    }

    @ParameterizedTest(name = "{0} {1} ranks")
    @CsvSource({"auto,4", "packet,4", "auto,3", "packet,6"})
    @Timeout(60)
    void jacobiMatchesSequential(String path, int nranks) {
        int nx = 17;
        int ny = 13;
        int iters = 12;
        double[][] ref = Jacobi2D.sequential(nx, ny, iters);
        TestSupport.JOBS.run(path, nranks, world -> {
            GlobalArray u = Jacobi2D.solve(world, nx, ny, iters, null);
            double[] got = new double[nx * ny];
            u.get(new int[] {0, 0}, new int[] {nx - 1, ny - 1}, got);
            for (int i = 0; i < nx; i++) {
                for (int j = 0; j < ny; j++) {
                    assertEquals(ref[i][j], got[i * ny + j], 1e-12, "u[" + i + "][" + j + "]");
                }
            }
            u.free();
        });
    }
}

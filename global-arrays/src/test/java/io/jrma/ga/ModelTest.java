package io.jrma.ga;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every patch, element-list and whole-array operation against a sequential model, for random shapes,
 * distributions, patches, buffers (arrays and ByteBuffers with leading dimensions and offsets) and rank
 * counts, on both paths. All ranks draw the same random sequence, so each knows every rank's operations.
 */
class ModelTest {
    static Stream<Arguments> jobs() {
        return Stream.of("auto", "packet").flatMap(p -> Stream.of(1, 2, 3, 4, 5, 8).map(n -> Arguments.of(p, n)));
    }

    @ParameterizedTest(name = "{0} {1} ranks")
    @MethodSource("jobs")
    @Timeout(60)
    void randomOperationsMatchModel(String path, int nranks) {
        long seed = 1234L * nranks + path.hashCode() + Long.getLong("ga.seed", 0);
        TestSupport.JOBS.run(path, nranks, world -> {
            Random rnd = new Random(seed);
            int me = world.rank();
            for (int cs = 0; cs < Integer.getInteger("ga.cases", 6); cs++) {
                int[] dims = TestSupport.randomDims(rnd);
                ElemType t = ElemType.values()[rnd.nextInt(4)];
                Distribution dist = TestSupport.randomDist(rnd, dims, nranks);
                int[] ghosts = new int[dims.length];
                if (dist.isBlocked() && rnd.nextBoolean()) {
                    for (int d = 0; d < dims.length; d++) {
                        ghosts[d] = rnd.nextInt(3);
                    }
                }
                String ctx = "case " + cs + " " + t + Arrays.toString(dims) + " " + dist + " ghosts "
                        + Arrays.toString(ghosts) + " ";
                GlobalArray ga = GlobalArray.builder(world, t, dims).distribution(dist).ghosts(ghosts)
                        .name("a" + cs).create();
                TestSupport.Model model = new TestSupport.Model(dims);
                for (int step = 0; step < 8; step++) {
                    int op = rnd.nextInt(7);
                    String sctx = ctx + "step " + step + " op " + op + " ";
                    switch (op) {
                        case 0: // put (blocking or non-blocking), one rank at a time
                            for (int r = 0; r < nranks; r++) {
                                int[][] p = TestSupport.randomPatch(rnd, dims);
                                int[] shape = TestSupport.shape(p[0], p[1]);
                                TestSupport.Buf b = new TestSupport.Buf(rnd, t, shape);
                                boolean nb = rnd.nextBoolean();
                                for (int k = 0; k < TestSupport.size(shape); k++) {
                                    double v = rnd.nextInt(100) - 50;
                                    b.set(k, v);
                                    model.v[model.lin(p[0], shape, k)] = v;
                                }
                                if (me == r) {
                                    if (nb) {
                                        ga.nbPut(p[0], p[1], b.buf, b.off, b.ld).join();
                                    } else {
                                        ga.put(p[0], p[1], b.buf, b.off, b.ld);
                                    }
                                }
                                ga.sync();
                            }
                            break;
                        case 1: { // accumulate, all ranks at once
                            CompletableFuture<Void> f = null;
                            for (int r = 0; r < nranks; r++) {
                                int[][] p = TestSupport.randomPatch(rnd, dims);
                                int[] shape = TestSupport.shape(p[0], p[1]);
                                TestSupport.Buf b = new TestSupport.Buf(rnd, t, shape);
                                double alpha = rnd.nextInt(3) - 1 + (rnd.nextBoolean() ? 1 : 0);
                                boolean nb = rnd.nextBoolean();
                                for (int k = 0; k < TestSupport.size(shape); k++) {
                                    double v = rnd.nextInt(20) - 10;
                                    b.set(k, v);
                                    model.v[model.lin(p[0], shape, k)] += alpha * v;
                                }
                                if (me == r) {
                                    if (nb) {
                                        f = ga.nbAcc(p[0], p[1], b.buf, b.off, b.ld, alpha);
                                    } else {
                                        ga.acc(p[0], p[1], b.buf, b.off, b.ld, alpha);
                                    }
                                }
                            }
                            if (f != null) {
                                f.join();
                            }
                            ga.sync();
                            break;
                        }
                        case 2: { // scatter (one rank at a time), scatterAcc (all at once)
                            for (int r = 0; r < nranks; r++) {
                                int m = rnd.nextInt(12);
                                int[][] subs = new int[m][];
                                double[] vals = new double[m];
                                for (int i = 0; i < m; i++) {
                                    subs[i] = randomIndex(rnd, dims);
                                    vals[i] = rnd.nextInt(100) - 50;
                                    model.v[model.lin(subs[i])] = vals[i];
                                }
                                if (me == r) {
                                    ga.scatter(typed(t, vals), subs);
                                }
                                ga.sync();
                            }
                            for (int r = 0; r < nranks; r++) {
                                int m = rnd.nextInt(12);
                                int[][] subs = new int[m][];
                                double[] vals = new double[m];
                                for (int i = 0; i < m; i++) {
                                    subs[i] = randomIndex(rnd, dims);
                                    vals[i] = rnd.nextInt(20) - 10;
                                    model.v[model.lin(subs[i])] += 2 * vals[i];
                                }
                                if (me == r) {
                                    ga.scatterAcc(typed(t, vals), subs, 2);
                                }
                            }
                            ga.sync();
                            break;
                        }
                        case 3: { // fill / scale / zero on the array or a patch
                            int which = rnd.nextInt(4);
                            int[][] p = TestSupport.randomPatch(rnd, dims);
                            double v = rnd.nextInt(5) - 2;
                            int[] shape = TestSupport.shape(p[0], p[1]);
                            if (which == 0) {
                                ga.fill(v);
                                Arrays.fill(model.v, v);
                            } else if (which == 1) {
                                ga.scale(v);
                                for (int i = 0; i < model.v.length; i++) {
                                    model.v[i] *= v;
                                }
                            } else if (which == 2) {
                                ga.fillPatch(p[0], p[1], v);
                                for (int k = 0; k < TestSupport.size(shape); k++) {
                                    model.v[model.lin(p[0], shape, k)] = v;
                                }
                            } else {
                                ga.scalePatch(p[0], p[1], v);
                                for (int k = 0; k < TestSupport.size(shape); k++) {
                                    model.v[model.lin(p[0], shape, k)] *= v;
                                }
                            }
                            break;
                        }
                        case 4: { // add / copy / dot with a second array of another distribution
                            Distribution d2 = TestSupport.randomDist(rnd, dims, nranks);
                            GlobalArray b2 = GlobalArray.create(world, t, dims, d2);
                            double[] m2 = new double[model.v.length];
                            for (int i = 0; i < m2.length; i++) {
                                m2[i] = rnd.nextInt(20) - 10;
                            }
                            if (me == 0) {
                                b2.put(new int[dims.length], maxIdx(dims), typed(t, m2));
                            }
                            b2.sync();
                            double alpha = rnd.nextInt(5) - 2;
                            double beta = rnd.nextInt(5) - 2;
                            double expDot = 0;
                            for (int i = 0; i < m2.length; i++) {
                                expDot += model.v[i] * m2[i];
                            }
                            assertEquals(z(expDot), z(ga.dot(b2)), sctx + "dot");
                            assertEquals(z(expDot), z(b2.dot(ga)), sctx + "dot reversed");
                            if (rnd.nextBoolean()) {
                                ga.add(alpha, ga, beta, b2);
                                for (int i = 0; i < m2.length; i++) {
                                    model.v[i] = alpha * model.v[i] + beta * m2[i];
                                }
                            } else {
                                ga.copyFrom(b2);
                                System.arraycopy(m2, 0, model.v, 0, m2.length);
                            }
                            b2.free();
                            break;
                        }
                        case 5: { // gather check
                            int m = rnd.nextInt(15);
                            int[][] subs = new int[m][];
                            for (int i = 0; i < m; i++) {
                                subs[i] = randomIndex(rnd, dims);
                            }
                            Object vals = t.newArray(m);
                            ga.gather(vals, subs);
                            for (int i = 0; i < m; i++) {
                                assertEquals(z(model.v[model.lin(subs[i])]), z(t.getD(vals, i)), sctx + "gather "
                                        + Arrays.toString(subs[i]));
                            }
                            break;
                        }
                        default:
                            break;
                    }
                    // every rank reads a random patch (blocking or nb) and the whole array, compares
                    for (int r = 0; r < nranks; r++) {
                        int[][] p = TestSupport.randomPatch(rnd, dims);
                        int[] shape = TestSupport.shape(p[0], p[1]);
                        TestSupport.Buf b = new TestSupport.Buf(rnd, t, shape);
                        boolean nb = rnd.nextBoolean();
                        if (r == me) {
                            if (nb) {
                                ga.nbGet(p[0], p[1], b.buf, b.off, b.ld).join();
                            } else {
                                ga.get(p[0], p[1], b.buf, b.off, b.ld);
                            }
                            for (int k = 0; k < TestSupport.size(shape); k++) {
                                assertEquals(z(model.v[model.lin(p[0], shape, k)]), z(b.get(k)), sctx + "get "
                                        + Arrays.toString(p[0]) + ".." + Arrays.toString(p[1]) + " element " + k);
                            }
                        }
                    }
                    Object all = t.newArray(model.v.length);
                    ga.get(new int[dims.length], maxIdx(dims), all);
                    for (int i = 0; i < model.v.length; i++) {
                        assertEquals(z(model.v[i]), z(t.getD(all, i)), sctx + "whole array element " + i);
                    }
                    ga.sync();
                }
                ga.free();
            }
        });
    }

    static double z(double v) {
        return v == 0 ? 0.0 : v;
    }

    static int[] maxIdx(int[] dims) {
        int[] h = new int[dims.length];
        for (int d = 0; d < dims.length; d++) {
            h[d] = dims[d] - 1;
        }
        return h;
    }

    static int[] randomIndex(Random rnd, int[] dims) {
        int[] i = new int[dims.length];
        for (int d = 0; d < dims.length; d++) {
            i[d] = rnd.nextInt(dims[d]);
        }
        return i;
    }

    static Object typed(ElemType t, double[] v) {
        Object a = t.newArray(v.length);
        for (int i = 0; i < v.length; i++) {
            t.putD(a, i, v[i]);
        }
        return a;
    }
}

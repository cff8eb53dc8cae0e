package io.jrma.ga;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.Arrays;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * copyPatch, addPatch and dotPatch against a sequential model: random shapes, distributions (each operand its
 * own), patch positions and empty patches, on both paths; plus their error classes.
 */
class PatchOpsTest {
    static Stream<Arguments> jobs() {
        return Stream.of("auto", "packet").flatMap(p -> Stream.of(1, 3, 4).map(n -> Arguments.of(p, n)));
    }

    private static long row(int[] dims, int[] c) {
        long k = 0;
        for (int d = 0; d < dims.length; d++) {
            k = k * dims[d] + c[d];
        }
        return k;
    }

    /** Calls v with (row-major index in the whole array of lo+i, i) for each element i of a patch of {@code shape}. */
    private static void eachInPatch(int[] dims, int[] lo, int[] shape, BiConsumer<Long, Integer> v) {
        long total = TestSupport.size(shape);
        int[] c = new int[dims.length];
        for (int i = 0; i < total; i++) {
            int[] g = new int[dims.length];
            for (int d = 0; d < dims.length; d++) {
                g[d] = lo[d] + c[d];
            }
            v.accept(row(dims, g), i);
            for (int d = dims.length - 1; d >= 0 && ++c[d] == shape[d]; d--) {
                c[d] = 0;
            }
        }
    }

    private static GlobalArray filled(Random rnd, jrmaComm world, ElemType t, int[] dims, int nranks,
            double[] model, String name) {
        GlobalArray ga = GlobalArray.create(world.c, t, dims, TestSupport.randomDist(rnd, dims, nranks));
        for (int k = 0; k < model.length; k++) {
            model[k] = rnd.nextInt(200) - 100;
        }
        if (world.c.rank() == 0) {
            Object buf = t.newArray(model.length);
            for (int k = 0; k < model.length; k++) {
                t.putD(buf, k, model[k]);
            }
            int[] hi = Arrays.stream(dims).map(x -> x - 1).toArray();
            ga.put(new int[dims.length], hi, buf);
        }
        ga.sync();
        return ga;
    }

    /** Holder so the helper above reads clearly. */
    private static final class jrmaComm {
        final Comm c;

        jrmaComm(Comm c) {
            this.c = c;
        }
    }

    private static int[][] patch(Random rnd, int[] dims, int[] shape) {
        int n = dims.length;
        int[] lo = new int[n];
        int[] hi = new int[n];
        for (int d = 0; d < n; d++) {
            lo[d] = rnd.nextInt(dims[d] - shape[d] + 1);
            hi[d] = lo[d] + shape[d] - 1;
        }
        return new int[][] {lo, hi};
    }

    private static void assertArray(GlobalArray ga, ElemType t, int[] dims, double[] model, String ctx) {
        Object buf = t.newArray(model.length);
        ga.get(new int[dims.length], Arrays.stream(dims).map(x -> x - 1).toArray(), buf);
        for (int k = 0; k < model.length; k++) {
            assertEquals(model[k], t.getD(buf, k), 1e-9, ctx + " element " + k);
        }
    }

    @ParameterizedTest(name = "{0} {1} ranks")
    @MethodSource("jobs")
    @Timeout(60)
    void patchOperationsMatchModel(String path, int nranks) {
        TestSupport.JOBS.run(path, nranks, world -> {
            Random rnd = new Random(77L * nranks + path.hashCode());
            jrmaComm w = new jrmaComm(world);
            for (int cs = 0; cs < 6; cs++) {
                int[] dims = TestSupport.randomDims(rnd);
                ElemType t = cs % 2 == 0 ? ElemType.DOUBLE : ElemType.LONG;
                int total = Math.toIntExact(TestSupport.size(dims));
                double[] ma = new double[total];
                double[] mb = new double[total];
                double[] mc = new double[total];
                GlobalArray a = filled(rnd, w, t, dims, nranks, ma, "a");
                GlobalArray b = filled(rnd, w, t, dims, nranks, mb, "b");
                GlobalArray c = filled(rnd, w, t, dims, nranks, mc, "c");
                int[] shape = new int[dims.length];
                for (int d = 0; d < dims.length; d++) {
                    shape[d] = rnd.nextInt(5) == 0 ? 0 : 1 + rnd.nextInt(dims[d]);
                }
                int[][] pa = patch(rnd, dims, shape);
                int[][] pb = patch(rnd, dims, shape);
                int[][] pc = patch(rnd, dims, shape);
                String ctx = "case " + cs + " " + t + Arrays.toString(dims) + " shape " + Arrays.toString(shape) + " ";

                c.copyPatch(a, pa[0], pa[1], pc[0], pc[1]);
                double[] expect = mc.clone();
                long[] ai = new long[Math.toIntExact(TestSupport.size(shape))];
                eachInPatch(dims, pa[0], shape, (k, i) -> ai[i] = k);
                eachInPatch(dims, pc[0], shape, (k, i) -> expect[Math.toIntExact(k)] = ma[Math.toIntExact(ai[i])]);
                assertArray(c, t, dims, expect, ctx + "copyPatch");
                System.arraycopy(expect, 0, mc, 0, total);

                c.addPatch(2, a, pa[0], pa[1], -3, b, pb[0], pb[1], pc[0], pc[1]);
                long[] bi = new long[ai.length];
                eachInPatch(dims, pb[0], shape, (k, i) -> bi[i] = k);
                eachInPatch(dims, pc[0], shape, (k, i) -> mc[Math.toIntExact(k)] =
                        2 * ma[Math.toIntExact(ai[i])] - 3 * mb[Math.toIntExact(bi[i])]);
                assertArray(c, t, dims, mc, ctx + "addPatch");

                double dot = a.dotPatch(b, pa[0], pa[1], pb[0], pb[1]);
                double want = 0;
                for (int i = 0; i < ai.length; i++) {
                    want += ma[Math.toIntExact(ai[i])] * mb[Math.toIntExact(bi[i])];
                }
                assertEquals(want, dot, 1e-6, ctx + "dotPatch");

                // overlapping copy within one array behaves as if through a temporary
                int[][] q = patch(rnd, dims, shape);
                a.copyPatch(a, pa[0], pa[1], q[0], q[1]);
                double[] ea = ma.clone();
                long[] qi = new long[ai.length];
                eachInPatch(dims, q[0], shape, (k, i) -> qi[i] = k);
                for (int i = 0; i < ai.length; i++) {
                    ea[Math.toIntExact(qi[i])] = ma[Math.toIntExact(ai[i])];
                }
                assertArray(a, t, dims, ea, ctx + "self copyPatch");
                a.free();
                b.free();
                c.free();
            }
        });
    }

    @ParameterizedTest(name = "{0} {1} ranks")
    @MethodSource("jobs")
    @Timeout(60)
    void badPatchArgumentsGetTheirErrorClass(String path, int nranks) {
        TestSupport.JOBS.run(path, nranks, world -> {
            GlobalArray a = GlobalArray.create(world, ElemType.DOUBLE, 6, 5);
            GlobalArray l = GlobalArray.create(world, ElemType.LONG, 6, 5);
            int[] lo = {0, 0};
            RmaException e = assertThrows(RmaException.class,
                    () -> a.copyPatch(a, lo, new int[] {1, 1}, lo, new int[] {2, 0}));
            assertEquals(ErrorClass.ERR_ARG, e.errorClass(), e.getMessage());
            e = assertThrows(RmaException.class,
                    () -> a.copyPatch(a, lo, new int[] {1, 1}, new int[] {5, 4}, new int[] {6, 5}));
            assertEquals(ErrorClass.ERR_RMA_RANGE, e.errorClass(), e.getMessage());
            e = assertThrows(RmaException.class, () -> a.dotPatch(l, lo, new int[] {1, 1}, lo, new int[] {1, 1}));
            assertEquals(ErrorClass.ERR_TYPE, e.errorClass(), e.getMessage());
            e = assertThrows(RmaException.class, () -> a.addPatch(1, a, lo, lo, 1, a, lo, new int[] {1, 0}, lo, lo));
            assertEquals(ErrorClass.ERR_ARG, e.errorClass(), e.getMessage());
            a.free();
            l.free();
        });
    }
}

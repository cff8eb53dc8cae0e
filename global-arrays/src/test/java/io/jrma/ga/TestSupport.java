package io.jrma.ga;

import io.jrma.testsupport.JobMatrix;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Random;
import java.util.TreeSet;

/**
 * Random shapes, distributions and buffers shared by the tests; a sequential model of an array; the tests' jobs
 * (test-support's {@link JobMatrix}, on the path each test names).
 */
final class TestSupport {
    /** How long one job of the tests may take. */
    static final Duration JOB_TIMEOUT = Duration.ofSeconds(50);
    static final JobMatrix JOBS = new JobMatrix(new String[] {"auto", "packet"}, JOB_TIMEOUT);

    private TestSupport() {
    }

    static int[] randomDims(Random rnd) {
        int n = 1 + rnd.nextInt(3);
        int max = n == 1 ? 40 : n == 2 ? 13 : 6;
        int[] d = new int[n];
        for (int i = 0; i < n; i++) {
            d[i] = 1 + rnd.nextInt(max);
        }
        return d;
    }

    static Distribution randomDist(Random rnd, int[] dims, int nranks) {
        int n = dims.length;
        switch (rnd.nextInt(4)) {
            case 0:
                return Distribution.block();
            case 1: { // explicit grid, product <= nranks
                int[] g = new int[n];
                int left = nranks;
                for (int d = 0; d < n; d++) {
                    g[d] = 1 + rnd.nextInt(Math.max(1, Math.min(left, dims[d])));
                    left = Math.max(1, left / g[d]);
                }
                long p = 1;
                for (int x : g) {
                    p *= x;
                }
                return p <= nranks ? Distribution.block(g) : Distribution.block();
            }
            case 2: { // irregular
                int[][] map = new int[n][];
                int left = nranks;
                for (int d = 0; d < n; d++) {
                    int blocks = 1 + rnd.nextInt(Math.max(1, Math.min(left, dims[d])));
                    left = Math.max(1, left / blocks);
                    TreeSet<Integer> s = new TreeSet<>();
                    s.add(0);
                    while (s.size() < blocks) {
                        s.add(rnd.nextInt(dims[d]));
                    }
                    map[d] = s.stream().mapToInt(Integer::intValue).toArray();
                }
                long p = 1;
                for (int[] m : map) {
                    p *= m.length;
                }
                return p <= nranks ? Distribution.irregular(map) : Distribution.block();
            }
            default: {
                int[] bs = new int[n];
                for (int d = 0; d < n; d++) {
                    bs[d] = 1 + rnd.nextInt(Math.max(1, dims[d] / 2 + 1));
                }
                return Distribution.blockCyclic(bs);
            }
        }
    }

    static int[][] randomPatch(Random rnd, int[] dims) {
        int n = dims.length;
        int[] lo = new int[n];
        int[] hi = new int[n];
        boolean empty = rnd.nextInt(10) == 0;
        int ed = rnd.nextInt(n);
        for (int d = 0; d < n; d++) {
            if (rnd.nextInt(4) == 0) { // whole dimension: spans every owner
                lo[d] = 0;
                hi[d] = dims[d] - 1;
            } else {
                int a = rnd.nextInt(dims[d]);
                int b = rnd.nextInt(dims[d]);
                lo[d] = Math.min(a, b);
                hi[d] = Math.max(a, b);
            }
            if (empty && d == ed) {
                lo[d] = rnd.nextInt(dims[d] + 1);
                hi[d] = lo[d] - 1;
            }
        }
        return new int[][] {lo, hi};
    }

    static int[] shape(int[] lo, int[] hi) {
        int[] s = new int[lo.length];
        for (int d = 0; d < lo.length; d++) {
            s[d] = Math.max(0, hi[d] - lo[d] + 1);
        }
        return s;
    }

    static long size(int[] shape) {
        long p = 1;
        for (int x : shape) {
            p *= x;
        }
        return p;
    }

    /** A user buffer for a patch: Java array or ByteBuffer, with leading-dimension padding and an offset. */
    static final class Buf {
        final Object buf;
        final long off;
        final int[] ld;
        final long[] stride;
        final int[] shape;
        final ElemType t;

        Buf(Random rnd, ElemType t, int[] shape) {
            this.t = t;
            this.shape = shape;
            int n = shape.length;
            boolean padded = rnd.nextBoolean();
            ld = padded ? new int[n - 1] : null;
            stride = new long[n];
            long s = 1;
            for (int d = n - 1; d >= 0; d--) {
                stride[d] = s;
                if (d > 0) {
                    int e = shape[d] + (padded ? rnd.nextInt(3) : 0);
                    if (padded) {
                        ld[d - 1] = e;
                    }
                    s *= e;
                }
            }
            off = padded ? rnd.nextInt(4) : 0;
            long total = off + Math.max(1, shape[0]) * s;
            if (rnd.nextBoolean()) {
                buf = ByteBuffer.allocateDirect((int) total * t.size()).order(ByteOrder.LITTLE_ENDIAN);
            } else {
                buf = t.newArray((int) total);
            }
        }

        long pos(int k) { // k-th element of the patch in row-major order
            long p = off;
            for (int d = shape.length - 1; d >= 0; d--) {
                p += (k % shape[d]) * stride[d];
                k /= shape[d];
            }
            return p;
        }

        void set(int k, double v) {
            t.putD(buf, pos(k), v);
        }

        double get(int k) {
            return t.getD(buf, pos(k));
        }
    }

    /** Sequential model: row-major doubles holding exactly representable integers. */
    static final class Model {
        final int[] dims;
        final double[] v;

        Model(int[] dims) {
            this.dims = dims.clone();
            this.v = new double[(int) size(dims)];
        }

        int lin(int[] idx) {
            int p = 0;
            for (int d = 0; d < dims.length; d++) {
                p = p * dims[d] + idx[d];
            }
            return p;
        }

        /** Linear model index of the k-th element of patch lo..hi. */
        int lin(int[] lo, int[] shape, int k) {
            int[] idx = new int[lo.length];
            for (int d = lo.length - 1; d >= 0; d--) {
                idx[d] = lo[d] + k % shape[d];
                k /= shape[d];
            }
            return lin(idx);
        }
    }
}

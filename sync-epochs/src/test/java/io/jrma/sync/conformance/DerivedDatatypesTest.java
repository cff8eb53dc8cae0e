package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Datatype;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** put / get / accumulate / get_accumulate with vector, indexed and subarray types on origin and target. */
class DerivedDatatypesTest {
    static final int WORDS = 96;

    // origin vector: 3 blocks of 2, stride 4 -> elements 0,1,4,5,8,9
    static final Datatype VEC = Datatype.vector(3, 2, 4, Datatype.LONG).commit();
    static final int[] VEC_IDX = {0, 1, 4, 5, 8, 9};
    // indexed: blocks {1,2,3} at {0,3,10} -> 0,3,4,10,11,12
    static final Datatype IDX = Datatype.indexed(new long[] {1, 2, 3}, new long[] {0, 3, 10}, Datatype.LONG).commit();
    static final int[] IDX_IDX = {0, 3, 4, 10, 11, 12};
    // subarray of a 4x5 C array: rows 1..2, cols 1..3 -> 6,7,8,11,12,13
    static final Datatype SUB = Datatype.subarray(new long[] {4, 5}, new long[] {2, 3}, new long[] {1, 1},
            Datatype.Order.C, Datatype.LONG).commit();
    static final int[] SUB_IDX = {6, 7, 8, 11, 12, 13};
    // Fortran-order subarray of a 4x5 array (first dim fastest): i in 1..2, j in 2..3 -> i + 4*j
    static final Datatype SUBF = Datatype.subarray(new long[] {4, 5}, new long[] {2, 2}, new long[] {1, 2},
            Datatype.Order.FORTRAN, Datatype.LONG).commit();
    static final int[] SUBF_IDX = {9, 10, 13, 14};
    // vector with stride 3 on the target
    static final Datatype VEC3 = Datatype.vector(3, 2, 3, Datatype.LONG).commit();
    static final int[] VEC3_IDX = {0, 1, 3, 4, 6, 7};

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String p : Ranks.PATHS) {
            for (String sync : new String[] {"fence", "lock"}) {
                for (int n : Ranks.SIZES) {
                    out.add(Arguments.of(p, sync, n));
                }
            }
        }
        return out.stream();
    }

    static long init(int rank, int i) {
        return rank * 1000L + i;
    }

    @ParameterizedTest(name = "{0} {1} n={2}")
    @MethodSource("cases")
    @Timeout(30)
    void derivedTypes(String path, String sync, int n) {
        assertEquals(6 * 8, SUB.size());
        assertEquals(20 * 8, SUB.extent());
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            Win w = Win.allocate(world, 8L * WORDS, 8, null);
            ByteBuffer mine = w.buffer();
            for (int i = 0; i < WORDS; i++) {
                mine.putLong(8 * i, init(me, i));
            }
            long[] src = new long[20];
            for (int k = 0; k < 20; k++) {
                src[k] = me * 100_000L + k;
            }
            long[] getSub = new long[6];
            long[] getIdx = new long[13];
            long[] gaccRes = new long[20];
            world.barrier();
            boolean fence = sync.equals("fence");
            if (fence) {
                w.fence(Win.MODE_NOPRECEDE);
            } else {
                w.lock(LockType.EXCLUSIVE, t, 0);
            }
            // put: origin vector -> target indexed at disp 0
            w.put(src, 1, VEC, t, 0, 1, IDX);
            // get: target subarray at disp 20 -> origin contiguous
            w.get(getSub, 6, Datatype.LONG, t, 20, 1, SUB);
            // get: target contiguous at disp 60 -> origin indexed
            w.get(getIdx, 1, IDX, t, 60, 6, Datatype.LONG);
            // accumulate: origin contiguous -> target vector(stride 3) at disp 40
            w.accumulate(new long[] {1, 2, 3, 4, 5, 6}, 6, Datatype.LONG, t, 40, 1, VEC3, Op.SUM);
            // accumulate: origin subarray -> target contiguous at disp 50
            w.accumulate(src, 1, SUB, t, 50, 6, Datatype.LONG, Op.SUM);
            // get_accumulate: origin Fortran subarray -> target vector at disp 70, result indexed
            w.getAccumulate(src, 1, SUBF, gaccRes, 4, Datatype.LONG, t, 70, 2, Datatype.vector(1, 2, 2,
                    Datatype.LONG).commit(), Op.SUM);
            if (fence) {
                w.fence(Win.MODE_NOSUCCEED);
            } else {
                w.unlock(t);
            }
            long[] expSub = new long[6];
            for (int k = 0; k < 6; k++) {
                expSub[k] = init(t, 20 + SUB_IDX[k]);
            }
            assertArrayEquals(expSub, getSub, "get with target subarray");
            long[] expIdx = new long[13];
            for (int k = 0; k < 6; k++) {
                expIdx[IDX_IDX[k]] = init(t, 60 + k);
            }
            assertArrayEquals(expIdx, getIdx, "get with origin indexed");
            long[] expGacc = new long[20];
            for (int k = 0; k < 4; k++) {
                expGacc[k] = init(t, 70 + k);
            }
            assertArrayEquals(expGacc, gaccRes, "get_accumulate result");
            world.barrier();
            w.sync();
            long[] exp = new long[WORDS];
            for (int i = 0; i < WORDS; i++) {
                exp[i] = init(me, i);
            }
            for (int k = 0; k < 6; k++) {
                exp[IDX_IDX[k]] = o * 100_000L + VEC_IDX[k];
                exp[40 + VEC3_IDX[k]] += k + 1;
                exp[50 + k] += o * 100_000L + SUB_IDX[k];
            }
            for (int k = 0; k < 4; k++) {
                exp[70 + k] += o * 100_000L + SUBF_IDX[k];
            }
            long[] actual = new long[WORDS];
            for (int i = 0; i < WORDS; i++) {
                actual[i] = mine.getLong(8 * i);
            }
            assertArrayEquals(exp, actual, "target memory of rank " + me);
            world.barrier();
            w.free();
        });
    }
}

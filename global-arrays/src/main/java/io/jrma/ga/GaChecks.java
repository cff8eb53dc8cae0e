package io.jrma.ga;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.Arrays;

/**
 * The argument checks of {@link GlobalArray}'s calls, each throwing an {@link RmaException} with the MPI error class
 * that names what is wrong: a rank outside the communicator (ERR_RANK), a subscript or patch of the wrong rank
 * (ERR_ARG) or outside the array (ERR_RMA_RANGE), an atomic on a floating-point array (ERR_TYPE).
 *
 * <p>Threads: any thread of the rank that owns the array; they read only what never changes after creation.
 */
final class GaChecks {
    private GaChecks() {
    }

    /** ERR_RANK unless {@code rank} is in the array's communicator. */
    static void rank(GlobalArray ga, int rank) {
        if (rank < 0 || rank >= ga.nranks) {
            throw new RmaException(ErrorClass.ERR_RANK,
                    "rank " + rank + " is not in the array's communicator of size " + ga.nranks);
        }
    }

    /** ERR_ARG or ERR_RMA_RANGE unless {@code idx} is a subscript of an element of the array. */
    static void index(GlobalArray ga, int[] idx, String what) {
        if (idx == null || idx.length != ga.dims.length) {
            throw new RmaException(ErrorClass.ERR_ARG, what + ": subscript " + Arrays.toString(idx) + " needs "
                    + ga.dims.length + " indices");
        }
        for (int d = 0; d < idx.length; d++) {
            if (idx[d] < 0 || idx[d] >= ga.dims[d]) {
                throw new RmaException(ErrorClass.ERR_RMA_RANGE, what + ": subscript " + Arrays.toString(idx)
                        + " is outside array '" + ga.name + "' of dimensions " + Arrays.toString(ga.dims));
            }
        }
    }

    /** Validates lo..hi and returns its shape (zeros for an empty patch). */
    static int[] patch(GlobalArray ga, int[] lo, int[] hi, String what) {
        int n = ga.dims.length;
        if (lo == null || hi == null || lo.length != n || hi.length != n) {
            throw new RmaException(ErrorClass.ERR_ARG,
                    what + ": patch " + Arrays.toString(lo) + ".." + Arrays.toString(hi)
                    + " needs " + n + " indices on each side");
        }
        int[] shape = new int[n];
        for (int d = 0; d < n; d++) {
            if (hi[d] < lo[d] - 1) {
                throw new RmaException(ErrorClass.ERR_ARG,
                        what + ": patch " + Arrays.toString(lo) + ".." + Arrays.toString(hi)
                        + " has hi < lo - 1 in dimension " + d);
            }
            if (lo[d] < 0 || hi[d] >= ga.dims[d] || lo[d] > ga.dims[d]) {
                throw new RmaException(ErrorClass.ERR_RMA_RANGE, what + ": patch " + Arrays.toString(lo) + ".."
                        + Arrays.toString(hi) + " is outside array '" + ga.name + "' of dimensions "
                        + Arrays.toString(ga.dims));
            }
            shape[d] = hi[d] - lo[d] + 1;
        }
        return shape;
    }

    /** ERR_TYPE unless the array's elements are INT or LONG. */
    static void integer(GlobalArray ga, String what) {
        if (ga.type.isFloating()) {
            throw new RmaException(ErrorClass.ERR_TYPE,
                    what + " on '" + ga.name + "' needs an INT or LONG array, not " + ga.type);
        }
    }
}

package io.jrma.ga;

import io.jrma.Datatype;
import io.jrma.Op;

/**
 * The atomic element operations of {@link GlobalArray} (NGA_Read_inc, and compare-and-swap): one MPI fetch_and_op
 * or compare_and_swap on the element's owner, through the array's {@code lock_all} epoch; a LONG array takes the
 * window's single-long calls, an INT array the general ones and a flush.
 *
 * <p>Threads: any thread of the rank that owns the array (the window's calls are thread-safe).
 */
final class GaAtomics {
    private GaAtomics() {
    }

    /** Atomic fetch-and-add on an INT or LONG element; returns the old value. */
    static long readInc(GlobalArray ga, int[] subscript, long inc) {
        ga.checkLive();
        ga.checkIndex(subscript, "readInc on '" + ga.name + "'");
        ga.requireInteger("readInc");
        int r = ga.map.owner(subscript);
        long disp = ga.localDisp(r, subscript);
        if (ga.type == ElemType.LONG) {
            return ga.win.fetchAndAddLong(r, disp, inc);
        }
        int[] res = new int[1];
        ga.win.fetchAndOp(new int[] {(int) inc}, res, Datatype.INT, r, disp, Op.SUM);
        ga.win.flush(r);
        return res[0];
    }

    /** Atomic compare-and-swap on an INT or LONG element; returns the old value (swapped iff it equals expected). */
    static long compareAndSwap(GlobalArray ga, int[] subscript, long expected, long newValue) {
        ga.checkLive();
        ga.checkIndex(subscript, "compareAndSwap on '" + ga.name + "'");
        ga.requireInteger("compareAndSwap");
        int r = ga.map.owner(subscript);
        long disp = ga.localDisp(r, subscript);
        if (ga.type == ElemType.LONG) {
            return ga.win.compareAndSwapLong(r, disp, expected, newValue);
        }
        int[] res = new int[1];
        ga.win.compareAndSwap(new int[] {(int) newValue}, new int[] {(int) expected}, res, Datatype.INT, r, disp);
        ga.win.flush(r);
        return res[0];
    }
}

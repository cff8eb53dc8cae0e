package io.jrma.core.dt;

import io.jrma.core.err.ErrorKind;
import io.jrma.core.err.Errors;
import java.util.Arrays;

/**
 * Builds a canonical {@link TypeLayout} by appending placements of existing layouts in type-map order:
 * adjacent blocks and same-type signature runs are merged as they are appended. Internal to the datatype
 * engine (used by {@code io.jrma.Datatype}'s constructors).
 *
 * <p>All arithmetic is checked: offsets, lengths and sizes that overflow 64 bits, and layouts with more than
 * {@link TypeLayout#MAX_BLOCKS} blocks or {@link TypeLayout#MAX_RUNS} runs, throw
 * {@code RmaException(ERR_ARG)}. Work is bounded by those limits, not by the counts placed: placing a
 * contiguous layout {@code n} times appends one block, and every other placement adds at least one block
 * or run per instance, so it fails after at most the limit.
 *
 * <p>Not thread-safe; single use.
 */
public final class LayoutBuilder {
    private long[] offs = new long[8];
    private long[] lens = new long[8];
    private int blocks;
    private BasicType[] types = new BasicType[4];
    private long[] counts = new long[4];
    private int runs;
    private long size;

    /**
     * Appends {@code count} consecutive instances of {@code old}, instance {@code i} at byte displacement
     * {@code disp + i * old.extent()}.
     */
    public LayoutBuilder place(TypeLayout old, long disp, long count) {
        if (count <= 0 || old.size() == 0) {
            return this;
        }
        size = add(size, mul(count, old.size(), "size"), "size");
        long[] oo = old.blockOffsetsRef();
        long[] ol = old.blockLengthsRef();
        if (old.isContiguous()) {
            addBlock(add(disp, oo[0], "displacement"), mul(count, ol[0], "block length"));
        } else {
            long e = old.extent();
            for (long i = 0; i < count; i++) {
                long base = add(disp, mul(i, e, "displacement"), "displacement");
                for (int b = 0; b < oo.length; b++) {
                    addBlock(add(base, oo[b], "displacement"), ol[b]);
                }
            }
        }
        BasicType[] rt = old.runTypesRef();
        long[] rc = old.runCountsRef();
        if (rt.length == 1) {
            addRun(rt[0], mul(count, rc[0], "element count"));
        } else {
            for (long i = 0; i < count; i++) {
                for (int r = 0; r < rt.length; r++) {
                    addRun(rt[r], rc[r]);
                }
            }
        }
        return this;
    }

    private void addBlock(long off, long len) {
        if (blocks > 0 && offs[blocks - 1] + lens[blocks - 1] == off) {
            lens[blocks - 1] = add(lens[blocks - 1], len, "block length");
            return;
        }
        add(off, len, "block end");
        if (blocks == TypeLayout.MAX_BLOCKS) {
            throw Errors.of(ErrorKind.ERR_ARG, "type map has more than " + TypeLayout.MAX_BLOCKS
                    + " non-contiguous blocks (limit of the datatype engine)");
        }
        if (blocks == offs.length) {
            int n = Math.min(TypeLayout.MAX_BLOCKS, blocks * 2);
            offs = Arrays.copyOf(offs, n);
            lens = Arrays.copyOf(lens, n);
        }
        offs[blocks] = off;
        lens[blocks] = len;
        blocks++;
    }

    private void addRun(BasicType t, long n) {
        if (runs > 0 && types[runs - 1] == t) {
            counts[runs - 1] = add(counts[runs - 1], n, "element count");
            return;
        }
        if (runs == TypeLayout.MAX_RUNS) {
            throw Errors.of(ErrorKind.ERR_ARG, "type signature has more than " + TypeLayout.MAX_RUNS
                    + " runs of basic types (limit of the datatype engine)");
        }
        if (runs == types.length) {
            int n2 = Math.min(TypeLayout.MAX_RUNS, runs * 2);
            types = Arrays.copyOf(types, n2);
            counts = Arrays.copyOf(counts, n2);
        }
        types[runs] = t;
        counts[runs] = n;
        runs++;
    }

    /** The layout appended so far, with the given MPI lower bound and extent. */
    public TypeLayout build(long lb, long extent) {
        return new TypeLayout(Arrays.copyOf(offs, blocks), Arrays.copyOf(lens, blocks),
                Arrays.copyOf(types, runs), Arrays.copyOf(counts, runs), size, lb, extent);
    }

    static long add(long a, long b, String what) {
        try {
            return Math.addExact(a, b);
        } catch (ArithmeticException e) {
            throw Errors.of(ErrorKind.ERR_ARG, what + " " + a + " + " + b + " overflows 64 bits");
        }
    }

    static long mul(long a, long b, String what) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw Errors.of(ErrorKind.ERR_ARG, what + " " + a + " * " + b + " overflows 64 bits");
        }
    }
}

package io.jrma.core.op;


import io.jrma.core.dt.BasicType;
import io.jrma.core.err.ErrorKind;
import io.jrma.core.err.Errors;
import io.jrma.core.mem.Memory;

/**
 * The kernels of the accumulate family (MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
 * MPI_Compare_and_swap) and of local reductions, on memory addressed as (base, offset) through
 * {@link io.jrma.core.mem.Memory}: a {@code null} base means an absolute off-heap address, a Java
 * array base means an offset from the array object.
 *
 * <h2>Layout</h2>
 * Every buffer holds {@code count} elements of a {@link BasicType} back to back at stride
 * {@code t.size()}; values are little-endian. A pair element holds its value at 0 and its {@code int} index
 * at {@link BasicType#pairIndexOffset()}; a complex element holds real then imaginary part.
 *
 * <h2>Semantics</h2>
 * {@code dst[i] = dst[i] op src[i]}. Integer arithmetic wraps (two's complement); MIN/MAX of unsigned types
 * compare unsigned; float MIN/MAX behave as {@link Math#min(double, double)}/{@link Math#max(double, double)}
 * (NaN wins, -0.0 &lt; 0.0); logical ops treat nonzero as true and store 1 or 0 in the element's width;
 * complex SUM/PROD are complex arithmetic; MINLOC/MAXLOC take the source pair if its value is strictly
 * smaller/larger, or equal with a smaller index (a NaN value never replaces and is never replaced);
 * REPLACE stores the source; NO_OP leaves the target unchanged.
 *
 * <h2>Atomicity</h2>
 * When the destination is off-heap ({@code dstBase == null}), {@link #accumulate}, {@link #getAccumulate}
 * and {@link #compareAndSwap} update each element atomically with respect to every other call of these three
 * methods, from any thread, on the same address with the same type. Elements are not atomic as a group.
 * <ul>
 *   <li>Aligned 8-byte LONG/UINT64 SUM uses a locked add on the memory, as do 4-byte-aligned INT/UINT32 SUM;
 *       aligned 4- and 8-byte REPLACE use an atomic exchange.</li>
 *   <li>Every other element lying inside one aligned 8-byte word is updated by a compare-and-swap loop on that
 *       word which rewrites only the element's bytes: a concurrent change of a neighbouring byte (even by a
 *       plain store) makes the CAS fail and retry, so it is never lost. The word may extend beyond the
 *       buffer by up to 7 bytes; those bytes are read and written back unchanged, which needs them to be
 *       mapped (always true: an aligned word never crosses a page).</li>
 *   <li>These two classes are CPU atomics on the memory itself, so they stay atomic when the memory is
 *       shared with other processes.</li>
 *   <li>Elements that straddle an aligned 8-byte word, and elements wider than 8 bytes (LONG_INT,
 *       DOUBLE_INT, DOUBLE_COMPLEX), are guarded by a spin-lock word of an {@link ElementLocks} table keyed
 *       by the element's offset: the JVM-wide table by default, or the table of the destination memory when
 *       that memory is shared by several processes (then the atomicity domain is every process mapping it).
 *       The update writes only the element's bytes.</li>
 * </ul>
 * Heap destinations are for private buffers and get no atomicity. Result buffers are written with plain
 * stores. Source, compare and result buffers must not overlap the destination.
 *
 * <p>Every method validates its arguments before touching memory: an exception means nothing was written.
 * Stateless; any thread.
 */
public final class AccumulateKernel {
    private AccumulateKernel() {
    }

    /**
     * Whether {@code op} is defined on elements of type {@code t} (the rule behind
     * {@code io.jrma.Op.isValidFor(BasicType)}).
     *
     * @param op an op code, not null
     * @param t an element type, not null
     * @return true if the pair is valid
     */
    public static boolean isValid(OpCode op, BasicType t) {
        BasicType.Kind k = t.kind();
        boolean integer = k == BasicType.Kind.SIGNED || k == BasicType.Kind.UNSIGNED;
        switch (op) {
            case SUM: case PROD: return integer || k == BasicType.Kind.FLOAT || k == BasicType.Kind.COMPLEX;
            case MIN: case MAX: return integer || k == BasicType.Kind.FLOAT;
            case LAND: case LOR: case LXOR: return integer || k == BasicType.Kind.LOGICAL;
            case BAND: case BOR: case BXOR: return integer || k == BasicType.Kind.BYTE;
            case MINLOC: case MAXLOC: return k == BasicType.Kind.PAIR;
            case REPLACE: case NO_OP: return true;
            default: return false;
        }
    }

    /**
     * Checks that {@code op} may be applied to {@code t}.
     *
     * @param op the op code
     * @param t the element type
     * @throws RuntimeException (RmaException) ERR_OP naming op and type if the pair is invalid or either is
     *     null
     */
    public static void check(OpCode op, BasicType t) {
        if (op == null || t == null || !isValid(op, t)) {
            throw Errors.of(ErrorKind.ERR_OP, "op MPI_" + (op == null ? "null" : op.name())
                + " is not defined on type " + (t == null ? "null" : t.name() + " (kind " + t.kind() + ")"));
        }
    }

    /**
     * {@code dst[i] = dst[i] op src[i]} for {@code count} elements, atomically per element when
     * {@code dstBase == null} (see the class comment). REPLACE stores {@code src[i]}; NO_OP does nothing.
     *
     * @param op the op; must be valid for {@code t}
     * @param t the element type
     * @param srcBase base of the origin values ({@code null}: off-heap)
     * @param srcOffset offset or address of the first origin element
     * @param dstBase base of the target ({@code null}: off-heap, updated atomically)
     * @param dstOffset offset or address of the first target element
     * @param count number of elements, at least 0
     * @throws RuntimeException (RmaException) ERR_OP if the op is invalid for the type, ERR_COUNT if {@code count < 0}
     */
    public static void accumulate(OpCode op, BasicType t, Object srcBase, long srcOffset,
                                  Object dstBase, long dstOffset, long count) {
        accumulate(op, t, srcBase, srcOffset, dstBase, dstOffset, count, ElementLocks.JVM);
    }

    /**
     * {@link #accumulate(OpCode, BasicType, Object, long, Object, long, long)} with the elements no CPU atomic
     * covers guarded by {@code locks} (a table shared by every process mapping the destination memory).
     *
     * @param locks the element locks of the destination memory
     */
    public static void accumulate(OpCode op, BasicType t, Object srcBase, long srcOffset,
                                  Object dstBase, long dstOffset, long count, ElementLocks locks) {
        validate(op, t, count);
        if (op == OpCode.NO_OP || count == 0) {
            return;
        }
        if (dstBase != null) {
            LocalReduce.reduce(op, t, srcBase, srcOffset, dstBase, dstOffset, count);
            return;
        }
        int size = t.size();
        if (size > 8) {
            for (long i = 0; i < count; i++, srcOffset += size, dstOffset += size) {
                long w = locks.lock(dstOffset);
                try {
                    ElementMath.applyWide(op, t, srcBase, srcOffset, null, dstOffset, false, null, 0);
                } finally {
                    ElementLocks.unlock(w);
                }
            }
            return;
        }
        for (long i = 0; i < count; i++, srcOffset += size, dstOffset += size) {
            atomicUpdate(op, t, dstOffset, ElementMath.read(srcBase, srcOffset, size), locks);
        }
    }

    /**
     * For each of {@code count} elements, atomically fetches the old target value into
     * {@code result[i]} and stores {@code old op src[i]} into the target (atomic per element when
     * {@code dstBase == null}). With NO_OP only the fetch happens and {@code src} is not read (it may be
     * {@code null}/0).
     *
     * @param op the op; must be valid for {@code t}
     * @param t the element type
     * @param srcBase base of the origin values (unused for NO_OP)
     * @param srcOffset offset or address of the first origin element (unused for NO_OP)
     * @param dstBase base of the target ({@code null}: off-heap, updated atomically)
     * @param dstOffset offset or address of the first target element
     * @param resultBase base of the result buffer ({@code null}: off-heap)
     * @param resultOffset offset or address of the first result element
     * @param count number of elements, at least 0
     * @throws RuntimeException (RmaException) ERR_OP if the op is invalid for the type, ERR_COUNT if {@code count < 0}
     */
    public static void getAccumulate(OpCode op, BasicType t, Object srcBase, long srcOffset,
                                     Object dstBase, long dstOffset, Object resultBase, long resultOffset,
                                     long count) {
        getAccumulate(op, t, srcBase, srcOffset, dstBase, dstOffset, resultBase, resultOffset, count, ElementLocks.JVM);
    }

    /**
     * {@link #getAccumulate(OpCode, BasicType, Object, long, Object, long, Object, long, long)} with the
     * elements no CPU atomic covers guarded by {@code locks}.
     *
     * @param locks the element locks of the destination memory
     */
    public static void getAccumulate(OpCode op, BasicType t, Object srcBase, long srcOffset,
                                     Object dstBase, long dstOffset, Object resultBase, long resultOffset,
                                     long count, ElementLocks locks) {
        validate(op, t, count);
        int size = t.size();
        boolean fetchOnly = op == OpCode.NO_OP;
        if (size > 8) {
            for (long i = 0; i < count; i++, srcOffset += size, dstOffset += size, resultOffset += size) {
                if (dstBase != null) {
                    ElementMath.applyWide(op, t, srcBase, srcOffset, dstBase, dstOffset, true, resultBase,
                        resultOffset);
                } else {
                    long w = locks.lock(dstOffset);
                    try {
                        ElementMath.applyWide(op, t, srcBase, srcOffset, null, dstOffset, true, resultBase,
                            resultOffset);
                    } finally {
                        ElementLocks.unlock(w);
                    }
                }
            }
            return;
        }
        for (long i = 0; i < count; i++, srcOffset += size, dstOffset += size, resultOffset += size) {
            long s = fetchOnly ? 0 : ElementMath.read(srcBase, srcOffset, size);
            long old;
            if (dstBase == null) {
                old = atomicUpdate(op, t, dstOffset, s, locks);
            } else {
                old = ElementMath.read(dstBase, dstOffset, size);
                if (!fetchOnly) {
                    ElementMath.write(dstBase, dstOffset, size, ElementMath.combine(op, t, old, s));
                }
            }
            ElementMath.write(resultBase, resultOffset, size, old);
        }
    }

    /**
     * Atomically (when {@code dstBase == null}): {@code result = dst}; if {@code dst} equals {@code cmp}
     * bit for bit, {@code dst = src}. Floats compare as bit patterns (so -0.0 differs from 0.0, and a NaN
     * matches the identical NaN).
     *
     * @param t the element type; kind BYTE, LOGICAL, SIGNED, UNSIGNED or FLOAT
     * @param cmpBase base of the compare value
     * @param cmpOffset offset or address of the compare value
     * @param srcBase base of the new value
     * @param srcOffset offset or address of the new value
     * @param dstBase base of the target ({@code null}: off-heap, updated atomically)
     * @param dstOffset offset or address of the target
     * @param resultBase base of the result (receives the old target value)
     * @param resultOffset offset or address of the result
     * @return true if the old value matched {@code cmp} and {@code src} was stored
     * @throws RuntimeException (RmaException) ERR_TYPE if {@code t} is null or of kind COMPLEX or PAIR
     */
    public static boolean compareAndSwap(BasicType t, Object cmpBase, long cmpOffset, Object srcBase,
                                         long srcOffset, Object dstBase, long dstOffset, Object resultBase,
                                         long resultOffset) {
        return compareAndSwap(t, cmpBase, cmpOffset, srcBase, srcOffset, dstBase, dstOffset, resultBase, resultOffset,
            ElementLocks.JVM);
    }

    /**
     * {@link #compareAndSwap(BasicType, Object, long, Object, long, Object, long, Object, long)} with an element
     * that straddles an aligned word guarded by {@code locks}.
     *
     * @param locks the element locks of the destination memory
     * @return true if the old value matched and the new one was stored
     */
    public static boolean compareAndSwap(BasicType t, Object cmpBase, long cmpOffset, Object srcBase,
                                         long srcOffset, Object dstBase, long dstOffset, Object resultBase,
                                         long resultOffset, ElementLocks locks) {
        if (t == null || t.kind() == BasicType.Kind.COMPLEX || t.kind() == BasicType.Kind.PAIR) {
            throw Errors.of(ErrorKind.ERR_TYPE, "compare-and-swap is not defined on type "
                + (t == null ? "null" : t.name() + " (kind " + t.kind() + ")")
                + "; it needs a BYTE, LOGICAL, SIGNED, UNSIGNED or FLOAT type");
        }
        int size = t.size();
        long c = ElementMath.read(cmpBase, cmpOffset, size);
        long s = ElementMath.read(srcBase, srcOffset, size);
        long old;
        if (dstBase != null) {
            old = ElementMath.read(dstBase, dstOffset, size);
            if (old == c) {
                ElementMath.write(dstBase, dstOffset, size, s);
            }
        } else if (straddles(dstOffset, size)) {
            long w = locks.lock(dstOffset);
            try {
                old = ElementMath.read(null, dstOffset, size);
                if (old == c) {
                    ElementMath.write(null, dstOffset, size, s);
                }
            } finally {
                ElementLocks.unlock(w);
            }
        } else {
            long word = dstOffset & ~7L;
            int shift = (int) (dstOffset & 7) << 3;
            long m = ElementMath.mask(size);
            long wm = m << shift;
            while (true) {
                long w = Memory.getLongVolatile(null, word);
                old = (w >>> shift) & m;
                if (old != c || c == s
                    || Memory.casLong(null, word, w, (w & ~wm) | (s << shift))) {
                    break;
                }
            }
        }
        ElementMath.write(resultBase, resultOffset, size, old);
        return old == c;
    }

    /**
     * {@code dst[i] = dst[i] op src[i]} for {@code count} elements with plain (non-atomic) memory accesses:
     * the fast path for private buffers, as used by reductions. Same arithmetic as {@link #accumulate}.
     *
     * @param op the op; must be valid for {@code t}
     * @param t the element type
     * @param srcBase base of the origin values
     * @param srcOffset offset or address of the first origin element
     * @param dstBase base of the target
     * @param dstOffset offset or address of the first target element
     * @param count number of elements, at least 0
     * @throws RuntimeException (RmaException) ERR_OP if the op is invalid for the type, ERR_COUNT if {@code count < 0}
     */
    public static void reduceLocal(OpCode op, BasicType t, Object srcBase, long srcOffset,
                                   Object dstBase, long dstOffset, long count) {
        validate(op, t, count);
        LocalReduce.reduce(op, t, srcBase, srcOffset, dstBase, dstOffset, count);
    }

    private static void validate(OpCode op, BasicType t, long count) {
        check(op, t);
        if (count < 0) {
            throw Errors.of(ErrorKind.ERR_COUNT, "negative element count " + count + " for MPI_"
                + op.name() + " on " + t.name());
        }
    }

    /** Whether an element of {@code size <= 8} bytes at {@code address} crosses an aligned 8-byte word. */
    private static boolean straddles(long address, int size) {
        return (address & 7) + size > 8;
    }

    /**
     * Atomically applies {@code op} with source bits {@code s} to the off-heap element of {@code t}
     * ({@code t.size() <= 8}) at {@code address}.
     *
     * @return the old bits of the element, zero-extended
     */
    private static long atomicUpdate(OpCode op, BasicType t, long address, long s, ElementLocks locks) {
        int size = t.size();
        int inWord = (int) (address & 7);
        if (inWord + size > 8) {
            long w = locks.lock(address);
            try {
                long d = ElementMath.read(null, address, size);
                if (op != OpCode.NO_OP) {
                    long n = ElementMath.combine(op, t, d, s);
                    if (n != d) {
                        ElementMath.write(null, address, size, n);
                    }
                }
                return d;
            } finally {
                ElementLocks.unlock(w);
            }
        }
        boolean aligned = (inWord & (size - 1)) == 0;
        if (aligned && size >= 4) {
            if (op == OpCode.SUM && (t == BasicType.LONG || t == BasicType.UINT64)) {
                return Memory.getAndAddLong(null, address, s);
            }
            if (op == OpCode.SUM && (t == BasicType.INT || t == BasicType.UINT32)) {
                return Memory.getAndAddInt(null, address, (int) s) & 0xFFFF_FFFFL;
            }
            if (op == OpCode.REPLACE) {
                return size == 8 ? Memory.getAndSetLong(null, address, s)
                    : Memory.getAndSetInt(null, address, (int) s) & 0xFFFF_FFFFL;
            }
        }
        long word = address & ~7L;
        int shift = inWord << 3;
        long m = ElementMath.mask(size);
        long wm = m << shift;
        while (true) {
            long w = Memory.getLongVolatile(null, word);
            long d = (w >>> shift) & m;
            if (op == OpCode.NO_OP) {
                return d;
            }
            long n = ElementMath.combine(op, t, d, s);
            // An unchanged element needs no write: the volatile read is the linearization point.
            if (n == d || Memory.casLong(null, word, w, (w & ~wm) | (n << shift))) {
                return d;
            }
        }
    }
}

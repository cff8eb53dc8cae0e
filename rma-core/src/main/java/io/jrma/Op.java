package io.jrma;

import io.jrma.core.dt.BasicType;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.mem.BufferRef;
import io.jrma.core.op.AccumulateKernel;
import io.jrma.core.op.OpCode;

/**
 * A predefined MPI reduction operation, as used by accumulate, get-accumulate and fetch-and-op (and
 * by the reduction collectives of two-sided-compat, through {@link #reduceLocal}).
 *
 * <p>There is exactly one instance per {@link OpCode}; compare with {@code ==} or {@link #equals}.
 * Immutable; any thread.
 *
 * <p>Which element types an op applies to follows the MPI rules, adapted to jrma's {@link BasicType}
 * kinds (see {@link #isValidFor(BasicType)}):
 * <table>
 *   <caption>Op validity by type kind</caption>
 *   <tr><th>Op</th><th>Kinds</th></tr>
 *   <tr><td>SUM, PROD</td><td>SIGNED, UNSIGNED, FLOAT, COMPLEX</td></tr>
 *   <tr><td>MIN, MAX</td><td>SIGNED, UNSIGNED, FLOAT</td></tr>
 *   <tr><td>LAND, LOR, LXOR</td><td>SIGNED, UNSIGNED, LOGICAL</td></tr>
 *   <tr><td>BAND, BOR, BXOR</td><td>SIGNED, UNSIGNED, BYTE</td></tr>
 *   <tr><td>MINLOC, MAXLOC</td><td>PAIR</td></tr>
 *   <tr><td>REPLACE, NO_OP</td><td>every kind</td></tr>
 * </table>
 * {@link BasicType#CHAR} is an unsigned 16-bit integer.
 */
public final class Op {
    /** Sum; integers wrap, floats follow IEEE 754, complex numbers add component-wise. */
    public static final Op SUM = new Op(OpCode.SUM);
    /** Product; integers wrap, complex numbers multiply as complex numbers. */
    public static final Op PROD = new Op(OpCode.PROD);
    /** Minimum; unsigned types compare unsigned, floats as {@link Math#min(double, double)}. */
    public static final Op MIN = new Op(OpCode.MIN);
    /** Maximum; unsigned types compare unsigned, floats as {@link Math#max(double, double)}. */
    public static final Op MAX = new Op(OpCode.MAX);
    /** Logical and: nonzero is true, the result is stored as 1 or 0. */
    public static final Op LAND = new Op(OpCode.LAND);
    /** Logical or: nonzero is true, the result is stored as 1 or 0. */
    public static final Op LOR = new Op(OpCode.LOR);
    /** Logical exclusive or: nonzero is true, the result is stored as 1 or 0. */
    public static final Op LXOR = new Op(OpCode.LXOR);
    /** Bitwise and. */
    public static final Op BAND = new Op(OpCode.BAND);
    /** Bitwise or. */
    public static final Op BOR = new Op(OpCode.BOR);
    /** Bitwise exclusive or. */
    public static final Op BXOR = new Op(OpCode.BXOR);
    /** Minimum value with its index (smaller index on ties); pair types only. */
    public static final Op MINLOC = new Op(OpCode.MINLOC);
    /** Maximum value with its index (smaller index on ties); pair types only. */
    public static final Op MAXLOC = new Op(OpCode.MAXLOC);
    /** Replaces the target value by the origin value (MPI_REPLACE). */
    public static final Op REPLACE = new Op(OpCode.REPLACE);
    /** Leaves the target unchanged (MPI_NO_OP); with get-accumulate, an atomic fetch. */
    public static final Op NO_OP = new Op(OpCode.NO_OP);

    private static final Op[] BY_CODE = {
        SUM, PROD, MIN, MAX, LAND, LOR, LXOR, BAND, BOR, BXOR, MINLOC, MAXLOC, REPLACE, NO_OP
    };

    static {
        for (int i = 0; i < BY_CODE.length; i++) {
            if (BY_CODE[i].code.ordinal() != i) {
                throw new ExceptionInInitializerError("Op table out of order with OpCode at " + i);
            }
        }
        if (BY_CODE.length != OpCode.values().length) {
            throw new ExceptionInInitializerError("Op table misses OpCode constants");
        }
    }

    private final OpCode code;
    private final String name;

    private Op(OpCode code) {
        this.code = code;
        this.name = "MPI_" + code.name();
    }

    /** The wire code of this op. */
    public OpCode code() {
        return code;
    }

    /** The MPI name of this op, for example {@code "MPI_SUM"}. */
    public String name() {
        return name;
    }

    /** The MPI name of this op, as {@link #name()}. */
    @Override
    public String toString() {
        return name;
    }

    /**
     * The op for a code.
     *
     * @param code the op code, not null
     * @return the unique {@code Op} instance for {@code code}
     * @throws NullPointerException if {@code code} is null
     */
    public static Op of(OpCode code) {
        return BY_CODE[code.ordinal()];
    }

    /**
     * Whether this op may be applied to elements of type {@code t} (see the table in the class comment).
     *
     * @param t an element type; {@code null} gives {@code false}
     * @return true if MPI (as adapted by jrma) defines this op on {@code t}
     */
    public boolean isValidFor(BasicType t) {
        return t != null && AccumulateKernel.isValid(code, t);
    }

    /**
     * MPI_Reduce_local: {@code inout[i] = in[i] op inout[i]} for the elements of {@code count} instances of
     * {@code type}, whose origins are byte {@code inOffset} of {@code in} and byte {@code inoutOffset} of
     * {@code inout}. Same arithmetic as accumulate (see {@link AccumulateKernel}); every predefined op is
     * commutative, so the order of the operands only matters for floating-point rounding. Plain memory
     * accesses, nothing atomic: for private buffers. Buffers as in {@link Datatype#pack}. Local; any thread.
     *
     * @throws RmaException ERR_TYPE if {@code type} is null, not committed or not made of one predefined type,
     *     ERR_OP if this op is not defined on that type, ERR_COUNT if {@code count < 0}, ERR_BUFFER if a
     *     buffer is not usable or the data falls outside it (nothing is written then)
     */
    public void reduceLocal(Object in, long inOffset, Object inout, long inoutOffset, long count, Datatype type) {
        if (type == null) {
            throw new RmaException(ErrorClass.ERR_TYPE, "reduce_local: datatype is null");
        }
        type.requireCommitted("reduce_local");
        if (count < 0) {
            throw new RmaException(ErrorClass.ERR_COUNT, "reduce_local: count " + count + " is negative");
        }
        BasicType e = type.elementType();
        if (e == null && count > 0 && type.size() > 0) {
            throw new RmaException(ErrorClass.ERR_TYPE, "reduce_local: datatype " + type
                    + " must consist of one predefined type");
        }
        if (e != null && !AccumulateKernel.isValid(code, e)) {
            throw new RmaException(ErrorClass.ERR_OP, "reduce_local: op " + name + " is not defined on " + e);
        }
        TypeLayout l = type.layout();
        BufferRef src = BufferRef.resolve(in, "reduce_local input");
        BufferRef dst = BufferRef.resolve(inout, "reduce_local inout");
        src.checkRange(inOffset, l.dataLow(count), l.dataHigh(count), "reduce_local input");
        dst.checkRange(inoutOffset, l.dataLow(count), l.dataHigh(count), "reduce_local inout");
        if (e == null || count == 0) {
            return;
        }
        int es = e.size();
        Object sb = src.base();
        long so = src.offset() + inOffset;
        Object db = dst.base();
        long d0 = dst.offset() + inoutOffset;
        if (l.isContiguous()) {
            AccumulateKernel.reduceLocal(code, e, sb, so + l.trueLb(), db, d0 + l.trueLb(), count * l.size() / es);
            return;
        }
        TypeLayout.zip(l.cursor(count), l.cursor(count),
                (a, b, len) -> AccumulateKernel.reduceLocal(code, e, sb, so + a, db, d0 + b, len / es));
    }
}

package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A reduction operation (MPI_Op): one of the predefined ones ({@link MPI#SUM}, {@link MPI#MAXLOC}, ...), or a
 * user-defined one made from a {@link UserFunction} ({@code new Op(function, commute)}), which the reduction
 * collectives apply in rank order (so it need not be commutative). User operations cannot be used in window
 * accumulate operations (MPI's rule: ERR_OP).
 */
public final class Op implements Freeable {
    /** The predefined jrma op, or null for a user-defined one. */
    final io.jrma.Op jop;
    final UserFunction uf;
    private final boolean commute;
    private volatile boolean freed;

    Op(io.jrma.Op jop) {
        this.jop = jop;
        this.uf = null;
        this.commute = true;
    }

    /** A user-defined operation (MPI_OP_CREATE); {@code commute} says whether it is commutative. */
    public Op(UserFunction function, boolean commute) {
        this.jop = null;
        this.uf = function;
        this.commute = commute;
    }

    /** Whether the operation is commutative (MPI_OP_COMMUTATIVE). */
    public boolean isCommutative() {
        return commute;
    }

    /** Frees a user-defined operation (MPI_OP_FREE); predefined operations cannot be freed. */
    @Override
    public void free() throws MPIException {
        MPI.check();
        if (jop != null) {
            throw Err.raise(MPI.COMM_WORLD.errh, MPI.ERR_OP, "MPI_ERR_OP: the predefined operation " + jop
                    + " cannot be freed", "MPI_COMM_WORLD", null);
        }
        freed = true;
    }

    /** Whether this operation has been freed (MPI_OP_NULL). */
    public boolean isNull() {
        return freed;
    }

    /** ERR_OP unless usable. */
    static Op check(Op op) {
        if (op == null || op.freed) {
            throw new RmaException(ErrorClass.ERR_OP, "operation is " + (op == null ? "null" : "freed"));
        }
        return op;
    }

    /** The predefined jrma op behind an operation; ERR_OP for a user-defined one (accumulate operations). */
    static io.jrma.Op predefined(Op op, String what) {
        if (check(op).jop == null) {
            throw new RmaException(ErrorClass.ERR_OP,
                    what + " takes only predefined operations, not a user-defined one");
        }
        return op.jop;
    }

    /**
     * Applies the user function: {@code inOut[i] = in[i] op inOut[i]} for {@code count} elements of
     * {@code type} laid out as in memory in the two buffers. As in Open MPI, BOOLEAN data reaches the function as
     * {@code boolean[]} arrays through {@link UserFunction#call(Object, Object, int, Datatype)}; everything else
     * as direct, native-order ByteBuffers through {@link UserFunction#call(ByteBuffer, ByteBuffer, int, Datatype)}.
     */
    void apply(ByteBuffer in, ByteBuffer inOut, int count, Datatype type) throws MPIException {
        if (type.baseType == Datatype.BOOLEAN) {
            boolean[] a = new boolean[in.capacity()];
            boolean[] b = new boolean[inOut.capacity()];
            for (int i = 0; i < a.length; i++) {
                a[i] = in.get(i) != 0;
                b[i] = inOut.get(i) != 0;
            }
            uf.call(a, b, count, type);
            for (int i = 0; i < b.length; i++) {
                inOut.put(i, (byte) (b[i] ? 1 : 0));
            }
            return;
        }
        uf.call(in.clear().order(ByteOrder.nativeOrder()), inOut.clear().order(ByteOrder.nativeOrder()), count, type);
    }

    @Override
    public String toString() {
        return jop != null ? jop.toString() : "user-defined op" + (commute ? "" : " (not commutative)");
    }
}

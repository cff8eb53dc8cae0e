package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The function of a user-defined {@link Op} (MPI_User_function): it combines {@code count} elements of a
 * datatype, {@code inOutVec[i] = inVec[i] op inOutVec[i]}. Override one of the two {@code call} methods:
 * <ul>
 * <li>{@link #call(ByteBuffer, ByteBuffer, int, Datatype)} gets the data as direct ByteBuffers in native order
 *     (the elements laid out as in memory: element {@code i} of the datatype starts at byte
 *     {@code i * extent}); by default it copies them into arrays of the datatype's base type and calls</li>
 * <li>{@link #call(Object, Object, int, Datatype)}, which gets those arrays ({@code int[]} for an INT-based
 *     type, {@code byte[]} for BYTE and the pair types, ...) holding {@code count * datatype.getExtent()} base
 *     elements, and whose result in {@code inOutVec} is copied back. BOOLEAN data always comes this way, as
 *     {@code boolean[]}.</li>
 * </ul>
 */
public abstract class UserFunction {
    /**
     * Combines arrays of base elements; {@code inOutVec} receives the result.
     *
     * @throws MPIException to report an error; the default implementation throws UnsupportedOperationException
     */
    public void call(Object inVec, Object inOutVec, int count, Datatype datatype) throws MPIException {
        throw new UnsupportedOperationException("Not supported yet.");
    }

    /**
     * Combines direct, native-order ByteBuffers; {@code inOut} receives the result. The default implementation
     * copies both into arrays of the datatype's base type, calls {@link #call(Object, Object, int, Datatype)}
     * and copies {@code inOutVec} back.
     */
    public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype datatype) throws MPIException {
        int n = count * datatype.getExtent();
        in = in.duplicate().order(ByteOrder.nativeOrder()).clear();
        inOut = inOut.duplicate().order(ByteOrder.nativeOrder()).clear();
        switch (datatype.baseType) {
            case Datatype.CHAR: {
                char[] a = new char[n];
                char[] b = new char[n];
                in.asCharBuffer().get(a);
                inOut.asCharBuffer().get(b);
                call(a, b, count, datatype);
                inOut.asCharBuffer().put(b);
                break;
            }
            case Datatype.SHORT: {
                short[] a = new short[n];
                short[] b = new short[n];
                in.asShortBuffer().get(a);
                inOut.asShortBuffer().get(b);
                call(a, b, count, datatype);
                inOut.asShortBuffer().put(b);
                break;
            }
            case Datatype.INT: {
                int[] a = new int[n];
                int[] b = new int[n];
                in.asIntBuffer().get(a);
                inOut.asIntBuffer().get(b);
                call(a, b, count, datatype);
                inOut.asIntBuffer().put(b);
                break;
            }
            case Datatype.LONG: {
                long[] a = new long[n];
                long[] b = new long[n];
                in.asLongBuffer().get(a);
                inOut.asLongBuffer().get(b);
                call(a, b, count, datatype);
                inOut.asLongBuffer().put(b);
                break;
            }
            case Datatype.FLOAT: {
                float[] a = new float[n];
                float[] b = new float[n];
                in.asFloatBuffer().get(a);
                inOut.asFloatBuffer().get(b);
                call(a, b, count, datatype);
                inOut.asFloatBuffer().put(b);
                break;
            }
            case Datatype.DOUBLE: {
                double[] a = new double[n];
                double[] b = new double[n];
                in.asDoubleBuffer().get(a);
                inOut.asDoubleBuffer().get(b);
                call(a, b, count, datatype);
                inOut.asDoubleBuffer().put(b);
                break;
            }
            case Datatype.BYTE:
            case Datatype.PACKED: {
                byte[] a = new byte[n];
                byte[] b = new byte[n];
                in.get(a);
                inOut.get(b);
                call(a, b, count, datatype);
                inOut.clear();
                inOut.put(b);
                break;
            }
            default:
                throw new IllegalArgumentException("Unsupported datatype " + datatype);
        }
    }
}

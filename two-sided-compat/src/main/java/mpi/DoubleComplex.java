package mpi;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;

/**
 * A complex number of {@link MPI#DOUBLE_COMPLEX} (real and imaginary doubles, side by side) in a buffer or
 * array of them: {@code DoubleComplex.get(buffer, i).getReal()}.
 */
public final class DoubleComplex {
    private final int offset;
    private final DoubleBuffer buffer;

    private DoubleComplex(DoubleBuffer buffer, int index) {
        this.buffer = buffer;
        this.offset = index * 2;
    }

    /** The complex number at the start of {@code buffer}. */
    public static DoubleComplex get(DoubleBuffer buffer) {
        return new DoubleComplex(buffer, 0);
    }

    /** Complex number {@code index} of an array of them in {@code buffer}. */
    public static DoubleComplex get(DoubleBuffer buffer, int index) {
        return new DoubleComplex(buffer, index);
    }

    /** The complex number in the first two elements of {@code array}. */
    public static DoubleComplex get(double[] array) {
        return new DoubleComplex(DoubleBuffer.wrap(array), 0);
    }

    /** Complex number {@code index} of an array of them. */
    public static DoubleComplex get(double[] array, int index) {
        return new DoubleComplex(DoubleBuffer.wrap(array), index);
    }

    /** The complex number at the start of a byte buffer (in the buffer's byte order). */
    public static DoubleComplex get(ByteBuffer buffer) {
        return new DoubleComplex(buffer.asDoubleBuffer(), 0);
    }

    /** Complex number {@code index} of an array of them in a byte buffer. */
    public static DoubleComplex get(ByteBuffer buffer, int index) {
        return new DoubleComplex(buffer.asDoubleBuffer(), index);
    }

    public double getReal() {
        return buffer.get(offset);
    }

    public double getImag() {
        return buffer.get(offset + 1);
    }

    public void putReal(double real) {
        buffer.put(offset, real);
    }

    public void putImag(double imag) {
        buffer.put(offset + 1, imag);
    }

    /** The buffer holding this number, starting at it. */
    public DoubleBuffer getBuffer() {
        return offset == 0 ? buffer : MPI.slice(buffer, offset);
    }
}

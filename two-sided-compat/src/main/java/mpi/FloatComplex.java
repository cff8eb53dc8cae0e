package mpi;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;

/**
 * A complex number of {@link MPI#FLOAT_COMPLEX} (real and imaginary floats, side by side) in a buffer or
 * array of them: {@code FloatComplex.get(buffer, i).getReal()}.
 */
public final class FloatComplex {
    private final int offset;
    private final FloatBuffer buffer;

    private FloatComplex(FloatBuffer buffer, int index) {
        this.buffer = buffer;
        this.offset = index * 2;
    }

    /** The complex number at the start of {@code buffer}. */
    public static FloatComplex get(FloatBuffer buffer) {
        return new FloatComplex(buffer, 0);
    }

    /** Complex number {@code index} of an array of them in {@code buffer}. */
    public static FloatComplex get(FloatBuffer buffer, int index) {
        return new FloatComplex(buffer, index);
    }

    /** The complex number in the first two elements of {@code array}. */
    public static FloatComplex get(float[] array) {
        return new FloatComplex(FloatBuffer.wrap(array), 0);
    }

    /** Complex number {@code index} of an array of them. */
    public static FloatComplex get(float[] array, int index) {
        return new FloatComplex(FloatBuffer.wrap(array), index);
    }

    /** The complex number at the start of a byte buffer (in the buffer's byte order). */
    public static FloatComplex get(ByteBuffer buffer) {
        return new FloatComplex(buffer.asFloatBuffer(), 0);
    }

    /** Complex number {@code index} of an array of them in a byte buffer. */
    public static FloatComplex get(ByteBuffer buffer, int index) {
        return new FloatComplex(buffer.asFloatBuffer(), index);
    }

    public float getReal() {
        return buffer.get(offset);
    }

    public float getImag() {
        return buffer.get(offset + 1);
    }

    public void putReal(float real) {
        buffer.put(offset, real);
    }

    public void putImag(float imag) {
        buffer.put(offset + 1, imag);
    }

    /** The buffer holding this number, starting at it. */
    public FloatBuffer getBuffer() {
        return offset == 0 ? buffer : MPI.slice(buffer, offset);
    }
}

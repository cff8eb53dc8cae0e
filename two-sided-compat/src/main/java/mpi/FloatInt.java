package mpi;

/**
 * The layout of {@link MPI#FLOAT_INT} (a float value and an int index, as the C struct of MPI) for reading and
 * writing such pairs in byte buffers: {@code MPI.floatInt.getData(buffer, i).getValue()}.
 */
public final class FloatInt extends Struct {
    private final int value;
    private final int index;

    FloatInt() {
        value = addFloat();
        setOffset(4);
        index = addInt();
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One pair in a buffer. */
    public final class Data extends Struct.Data {
        /** The value. */
        public float getValue() {
            return getFloat(value);
        }

        /** The index. */
        public int getIndex() {
            return getInt(index);
        }

        /** Sets the value. */
        public void putValue(float v) {
            putFloat(value, v);
        }

        /** Sets the index. */
        public void putIndex(int v) {
            putInt(index, v);
        }
    }
}

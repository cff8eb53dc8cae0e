package mpi;

/**
 * The layout of {@link MPI#DOUBLE_INT} (a double value and an int index, as the C struct of MPI) for reading and
 * writing such pairs in byte buffers: {@code MPI.doubleInt.getData(buffer, i).getValue()}.
 */
public final class DoubleInt extends Struct {
    private final int value;
    private final int index;

    DoubleInt() {
        value = addDouble();
        setOffset(8);
        index = addInt();
        setOffset(16);
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One pair in a buffer. */
    public final class Data extends Struct.Data {
        /** The value. */
        public double getValue() {
            return getDouble(value);
        }

        /** The index. */
        public int getIndex() {
            return getInt(index);
        }

        /** Sets the value. */
        public void putValue(double v) {
            putDouble(value, v);
        }

        /** Sets the index. */
        public void putIndex(int v) {
            putInt(index, v);
        }
    }
}

package mpi;

/**
 * The layout of {@link MPI#INT2} (a int value and an int index, as the C struct of MPI) for reading and
 * writing such pairs in byte buffers: {@code MPI.int2.getData(buffer, i).getValue()}.
 */
public final class Int2 extends Struct {
    private final int value;
    private final int index;

    Int2() {
        value = addInt();
        index = addInt();
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One pair in a buffer. */
    public final class Data extends Struct.Data {
        /** The value. */
        public int getValue() {
            return getInt(value);
        }

        /** The index. */
        public int getIndex() {
            return getInt(index);
        }

        /** Sets the value. */
        public void putValue(int v) {
            putInt(value, v);
        }

        /** Sets the index. */
        public void putIndex(int v) {
            putInt(index, v);
        }
    }
}

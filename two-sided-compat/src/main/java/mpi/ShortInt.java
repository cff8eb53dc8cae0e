package mpi;

/**
 * The layout of {@link MPI#SHORT_INT} (a short value and an int index, as the C struct of MPI) for reading and
 * writing such pairs in byte buffers: {@code MPI.shortInt.getData(buffer, i).getValue()}.
 */
public final class ShortInt extends Struct {
    private final int value;
    private final int index;

    ShortInt() {
        value = addShort();
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
        public short getValue() {
            return getShort(value);
        }

        /** The index. */
        public int getIndex() {
            return getInt(index);
        }

        /** Sets the value. */
        public void putValue(short v) {
            putShort(value, v);
        }

        /** Sets the index. */
        public void putIndex(int v) {
            putInt(index, v);
        }
    }
}

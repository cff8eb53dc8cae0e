package mpi;

/**
 * The layout of {@link MPI#LONG_INT} (a long value and an int index, as the C struct of MPI) for reading and
 * writing such pairs in byte buffers: {@code MPI.longInt.getData(buffer, i).getValue()}.
 */
public final class LongInt extends Struct {
    private final int value;
    private final int index;

    LongInt() {
        value = addLong();
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
        public long getValue() {
            return getLong(value);
        }

        /** The index. */
        public int getIndex() {
            return getInt(index);
        }

        /** Sets the value. */
        public void putValue(long v) {
            putLong(value, v);
        }

        /** Sets the index. */
        public void putIndex(int v) {
            putInt(index, v);
        }
    }
}

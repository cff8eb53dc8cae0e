package mpi;

/**
 * A 64-bit count (MPI_Count), as returned by {@link Status#getElementsX}. It implements the raw
 * {@code Comparable}, as Open MPI's class does, so that {@code Comparable<Count> c = count} compiles (with an
 * unchecked warning) as it does there.
 */
@SuppressWarnings("rawtypes")
public final class Count implements Comparable {
    private long count;

    public Count(long count) {
        this.count = count;
    }

    /** The value. */
    public long getCount() {
        return count;
    }

    /** Sets the value. */
    public void setCount(long count) {
        this.count = count;
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof Count && ((Count) obj).count == count;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(count);
    }

    /** Orders by value; this count is below anything that is not a Count. */
    @Override
    public int compareTo(Object obj) {
        return obj instanceof Count ? Long.compare(count, ((Count) obj).count) : -1;
    }

    @Override
    public String toString() {
        return Long.toString(count);
    }
}

package io.jrma;

/** Passive-target lock types (MPI_LOCK_SHARED, MPI_LOCK_EXCLUSIVE, with Open MPI's values). */
public enum LockType {
    EXCLUSIVE(1), SHARED(2);

    private final int mpiValue;

    LockType(int v) {
        this.mpiValue = v;
    }

    public int mpiValue() {
        return mpiValue;
    }
}

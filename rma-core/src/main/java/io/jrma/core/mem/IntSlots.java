package io.jrma.core.mem;

/**
 * A fixed array of ints with the access modes of {@code AtomicIntegerArray} ({@link #get} volatile,
 * {@link #lazySet} release, {@link #compareAndSet}), on {@link Memory} instead of VarHandles. Compiled, the two
 * are the same instructions; interpreted and in C1 code, which is what a program runs for its first thousands of
 * operations, a VarHandle call goes through dozens of frames and an {@code Unsafe} call through one, which made
 * the epoch checks of every interpreted put several times slower.
 *
 * <p>Thread-safe as {@code AtomicIntegerArray}.
 */
public final class IntSlots {
    private static final long BASE = Memory.arrayBase(int[].class);
    private final int[] slots;

    public IntSlots(int length) {
        this.slots = new int[length];
    }

    private long at(int i) {
        if (i < 0 || i >= slots.length) {
            throw new IndexOutOfBoundsException("slot " + i + " of " + slots.length);
        }
        return BASE + (long) i * Integer.BYTES;
    }

    public int length() {
        return slots.length;
    }

    /** Volatile read. */
    public int get(int i) {
        return Memory.getIntVolatile(slots, at(i));
    }

    /** Volatile write. */
    public void set(int i, int v) {
        Memory.putIntVolatile(slots, at(i), v);
    }

    /** Release write: ordered after every earlier load and store of this thread. */
    public void lazySet(int i, int v) {
        Memory.putIntRelease(slots, at(i), v);
    }

    /** Sets {@code update} if slot {@code i} holds {@code expected} (volatile); true if it did. */
    public boolean compareAndSet(int i, int expected, int update) {
        return Memory.casInt(slots, at(i), expected, update);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < slots.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(get(i));
        }
        return sb.append(']').toString();
    }
}

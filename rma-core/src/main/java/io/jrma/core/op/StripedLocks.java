package io.jrma.core.op;

/**
 * A JVM-wide table of lock stripes for the accumulate elements that no single CPU atomic can cover: elements
 * that straddle an aligned 8-byte word, and elements wider than 8 bytes.
 *
 * <p>The stripe is chosen from the element's start address only, so every kernel call that touches the same
 * element with the same type takes the same lock. This part of the atomicity domain is per JVM: two processes
 * mapping the same memory do not see each other's stripes.
 *
 * <p>Immutable table of monitor objects; any thread.
 */
final class StripedLocks {
    private static final int BITS = 10;
    private static final Object[] LOCKS = new Object[1 << BITS];

    static {
        for (int i = 0; i < LOCKS.length; i++) {
            LOCKS[i] = new Object();
        }
    }

    private StripedLocks() {
    }

    /** The monitor guarding the element that starts at absolute address {@code address}. */
    static Object lockFor(long address) {
        return LOCKS[(int) ((address * 0x9E37_79B9_7F4A_7C15L) >>> (64 - BITS))];
    }
}

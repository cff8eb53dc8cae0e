package io.jrma.transport.disni;

/** Bit surgery for 4-byte atomics done on the 8-byte word that holds them (little-endian words). */
final class WordBits {
    private static final long INT_MASK = 0xFFFF_FFFFL;

    private WordBits() {
    }

    /** {@code word} with its 32 bits from bit {@code shift} (0 or 32) replaced by {@code value}. */
    static long replace(long word, int shift, int value) {
        return (word & ~(INT_MASK << shift)) | ((value & INT_MASK) << shift);
    }
}

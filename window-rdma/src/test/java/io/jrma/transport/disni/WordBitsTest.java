package io.jrma.transport.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The 4-byte halves of an 8-byte word, for 4-byte atomics done as 8-byte compare-swap. */
class WordBitsTest {
    @Test
    void eachHalfIsReplacedAlone() {
        long word = 0x1111_2222_3333_4444L;
        assertEquals(0x1111_2222_FFFF_FFFFL, WordBits.replace(word, 0, -1));
        assertEquals(0xFFFF_FFFF_3333_4444L, WordBits.replace(word, Integer.SIZE, -1));
        assertEquals(0x0000_0005_3333_4444L, WordBits.replace(word, Integer.SIZE, 5));
    }
}

package io.jrma.core.mem;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Copies below and above the threshold where off-heap copies go to the C library, between off-heap memory and
 * heap arrays, and overlapping in both directions (memmove semantics).
 */
class BulkCopyTest {
    private static final long BIG = Math.max(BulkCopy.NATIVE_MIN_BYTES, 1) + 4099; // odd: no size the stubs favour

    private static void fill(long addr, long bytes, long seed) {
        for (long i = 0; i < bytes; i++) {
            Memory.putBytePlain(addr + i, (byte) ((i * 31 + seed) ^ (i >>> 9)));
        }
    }

    private static byte expected(long i, long seed) {
        return (byte) ((i * 31 + seed) ^ (i >>> 9));
    }

    @Test
    void theCLibraryIsUsedOnLinux() {
        Assumptions.assumeTrue(System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux"),
                "not Linux: every copy stays in the JVM");
        Assumptions.assumeFalse("false".equals(System.getProperty("jrma.memcpy")), "-Djrma.memcpy=false given");
        assertEquals(true, BulkCopy.usesNative(), "JNA could not bind memmove of the C library");
    }

    @Test
    @Timeout(60)
    void offHeapCopiesOfEverySizeClassArriveWhole() {
        long cap = 2 * BIG + 64;
        long src = Memory.allocate(cap);
        long dst = Memory.allocate(cap);
        try {
            fill(src, cap, 7);
            for (long n : new long[] {0, 1, 8, 63, 4096, BulkCopy.NATIVE_MIN_BYTES - 1,
                    BulkCopy.NATIVE_MIN_BYTES, BIG}) {
                Memory.fill(dst, cap, (byte) 0x5A);
                BulkCopy.copy(src + 3, dst + 5, n);
                assertEquals((byte) 0x5A, Memory.getBytePlain(dst + 4), n + " bytes: the byte before the destination");
                for (long i = 0; i < n; i++) {
                    if (Memory.getBytePlain(dst + 5 + i) != expected(3 + i, 7)) {
                        assertEquals(expected(3 + i, 7), Memory.getBytePlain(dst + 5 + i), n + " bytes: byte " + i);
                    }
                }
                assertEquals((byte) 0x5A, Memory.getBytePlain(dst + 5 + n),
                        n + " bytes: the byte after the destination");
            }
        } finally {
            Memory.free(src);
            Memory.free(dst);
        }
    }

    @Test
    @Timeout(60)
    void overlappingRegionsAreMovedInBothDirections() {
        long cap = BIG + 8192;
        long mem = Memory.allocate(cap);
        try {
            for (long shift : new long[] {1, 4096, -1, -4096}) {
                fill(mem, cap, 11);
                long from = shift > 0 ? 0 : -shift;
                BulkCopy.copy(mem + from, mem + from + shift, BIG);
                for (long i = 0; i < BIG; i++) {
                    if (Memory.getBytePlain(mem + from + shift + i) != expected(from + i, 11)) {
                        assertEquals(expected(from + i, 11), Memory.getBytePlain(mem + from + shift + i),
                                "shift " + shift + ": byte " + i);
                    }
                }
            }
        } finally {
            Memory.free(mem);
        }
    }

    @Test
    @Timeout(60)
    void heapArraysStayInTheJvmAndArriveWhole() {
        byte[] heap = new byte[(int) BIG];
        for (int i = 0; i < heap.length; i++) {
            heap[i] = expected(i, 3);
        }
        long off = Memory.allocate(BIG);
        try {
            BulkCopy.copy(heap, Memory.arrayBase(byte[].class), null, off, BIG);
            byte[] back = new byte[(int) BIG];
            BulkCopy.copy(null, off, back, Memory.arrayBase(byte[].class), BIG);
            assertEquals(Arrays.hashCode(heap), Arrays.hashCode(back));
            assertEquals(heap[heap.length - 1], back[back.length - 1]);
        } finally {
            Memory.free(off);
        }
    }
}

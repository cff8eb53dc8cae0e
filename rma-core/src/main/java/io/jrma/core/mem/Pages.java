package io.jrma.core.mem;

/**
 * The page size the shared layouts are built on (segments, their directories and slots, window memory mapped in
 * whole pages) and rounding to it. 4 KiB: the base page of x86-64 and of the usual arm64 Linux kernels; a layout
 * rounded to it stays correct on a kernel with larger pages, which maps whole pages anyway. Constants only; any
 * thread.
 */
public final class Pages {
    /** Bytes in a page. */
    public static final long BYTES = 4096;

    private Pages() {
    }

    /** {@code bytes} rounded up to a whole number of pages (0 stays 0). */
    public static long roundUp(long bytes) {
        return (bytes + BYTES - 1) & -BYTES;
    }
}

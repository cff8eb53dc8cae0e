package io.jrma.core.op;

import io.jrma.core.mem.Memory;


/**
 * A table of spin-lock words guarding the accumulate elements that no single CPU atomic can cover: elements
 * that straddle an aligned 8-byte word, and elements wider than 8 bytes (LONG_INT, DOUBLE_INT,
 * DOUBLE_COMPLEX).
 *
 * <p>The table lives in off-heap memory, so it can be placed in a segment shared by several processes: then
 * its atomicity domain is every process that maps it. The word guarding an element is chosen from the
 * element's offset from {@code keyBase}, not from its absolute address, so processes that map the same memory
 * at different addresses agree on the word as long as each passes its own mapping of the memory as
 * {@code keyBase}. {@link #JVM} is the process-wide table for private memory (key = absolute address).
 *
 * <p>A holder never takes a second word (one element at a time), so the locks cannot deadlock. Critical
 * sections are a few loads and stores; a waiter spins, then yields.
 *
 * <p>Immutable; any thread, any process mapping the table.
 */
public final class ElementLocks {
    /** Words in a table; a power of two. */
    public static final int WORDS = 256;
    /** Bytes a table needs (8-byte aligned). */
    public static final int BYTES = WORDS * 8;

    /** The table for memory private to this JVM. */
    public static final ElementLocks JVM;

    static {
        long m = Memory.allocate(BYTES + 8);
        long aligned = (m + 7) & ~7L;
        Memory.fill(aligned, BYTES, (byte) 0);
        JVM = new ElementLocks(aligned, 0); // never freed: lives as long as the JVM
    }

    private final long table;
    private final long keyBase;
    /**
     * Called now and then while a lock word stays taken for long: a word in shared memory whose holder's
     * process was killed is never released, so the waiter must learn that the job is aborting (the JVM host
     * installs its job's abort check, which throws) instead of spinning forever.
     */
    private static volatile Runnable longWaitCheck = () -> { };
    /** Tries with a spin-wait hint before a waiter for a taken word yields its core between tries. */
    private static final int SPINS_BEFORE_YIELD = 100;
    /** The long-wait check runs once every this many tries plus one (a power of two, less one). */
    private static final int LONG_WAIT_CHECK_MASK = 4095;

    /**
     * A view of a zeroed table of {@link #BYTES} bytes at {@code table}.
     *
     * @param table 8-byte aligned address of the table in this process
     * @param keyBase this process's address of the memory the table guards (element key = address - keyBase)
     */
    public ElementLocks(long table, long keyBase) {
        if ((table & 7) != 0) {
            throw new IllegalArgumentException("element lock table must be 8-byte aligned: " + table);
        }
        this.table = table;
        this.keyBase = keyBase;
    }

    private long word(long address) {
        long key = address - keyBase;
        return table + (((key * 0x9E37_79B9_7F4A_7C15L) >>> (64 - 8)) << 3);
    }

    /** Takes the word guarding the element at {@code address}; returns the word to pass to {@link #unlock}. */
    long lock(long address) {
        long w = word(address);
        int spins = 0;
        while (!Memory.casLong(null, w, 0, 1)) {
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
                if ((spins & LONG_WAIT_CHECK_MASK) == 0) {
                    longWaitCheck.run();
                }
            }
        }
        return w;
    }

    /** Installs the check run while a lock word stays taken for long (it throws when the job is aborted). */
    public static void onLongWait(Runnable check) {
        longWaitCheck = check == null ? () -> { } : check;
    }

    static void unlock(long word) {
        Memory.putLongVolatile(null, word, 0);
    }
}

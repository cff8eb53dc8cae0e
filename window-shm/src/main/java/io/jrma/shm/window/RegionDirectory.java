package io.jrma.shm.window;

import io.jrma.core.mem.Memory;
import io.jrma.core.mem.Pages;
import io.jrma.core.os.CrossMemory;
import io.jrma.shm.ShmArena;
import java.nio.charset.StandardCharsets;

/**
 * The regions attached to one rank's dynamic window, published in shared memory for the origins of the other
 * JVMs of the host, so they can reach attached memory by load/store when it lies in a shared segment (memory
 * from {@code Jrma.allocateMemory} or {@code MPI.newByteBuffer} in a job of several JVMs): no cliff between
 * dynamic and allocate windows there. Regions of private memory are listed too, so an origin tells "attached
 * but private" (it sends packets, the target applies them) from "not attached" (an error at the origin).
 *
 * <p>A create window over memory private to its JVM publishes the same table with that memory as its one private
 * region, so the origins of other JVMs treat it as a dynamic window's private region (kernel copies, request slots,
 * packets), at the owner's addresses.
 *
 * <p>Layout, in the rank's own state segment after its target state (lock word, signals, element locks):
 * <pre>
 *  +0    version (long; odd while the owner rewrites the table: a sequence lock)
 *  +8    count (int)
 *  +12   overflow (int; 1 when more regions are attached than the table holds)
 *  +16   the owner's process id (long), +24 an address in the owner's process, +32 the random value (never 0)
 *        kept there in memory private to the owner ({@link CrossMemory#nonce}): an origin that reads that value
 *        at that address of that pid by cross memory attach knows the pid is the owner's, and may copy to and
 *        from the owner's private regions that way ({@link RemoteRegions#crossMemoryPid})
 *  +64   entries of {@value #ENTRY} bytes: start, end (the owner's addresses), offset in the segment, segment
 *        size, name length (int, 0 for private memory), name (UTF-8, at most {@value #NAME_MAX} bytes)
 * </pre>
 *
 * <p>One writer (the owning rank, under the monitor of its window's regions); readers in any process, any thread.
 */
public final class RegionDirectory {
    /** Regions the table holds. */
    public static final int CAPACITY = 256;
    /** Bytes of one entry. */
    public static final int ENTRY = 96;
    /** The longest segment name an entry holds, in UTF-8 bytes. */
    public static final int NAME_MAX = ENTRY - 36;
    private static final long VERSION = 0;
    private static final long COUNT = 8;
    private static final long OVERFLOW = 12;
    private static final long PID = 16;
    private static final long NONCE_ADDRESS = 24;
    private static final long NONCE = 32;
    private static final long ENTRIES = 64;

    /** Bytes the directory needs (a multiple of the page size). */
    public static final long BYTES = Pages.roundUp(ENTRIES + (long) CAPACITY * ENTRY);

    private final long base;

    /** The directory at {@code address} (zeroed when new). */
    public RegionDirectory(long address) {
        this.base = address;
    }

    /** One region as published: where the owner has it and, for shared memory, where it lives. */
    public record Region(long start, long end, String segment, long segmentSize, long offset) {
        /** Whether the region lies in a shared segment. */
        public boolean shared() {
            return segment != null;
        }
    }

    /**
     * Identifies the owner's process (once, by the owner, before the window is used): its pid, and where its
     * private nonce lies with the nonce's value, so that origins can prove a pid is the owner's before copying.
     */
    public void identify() {
        identify(ProcessHandle.current().pid(), CrossMemory.nonceAddress(), CrossMemory.nonce());
    }

    /** {@link #identify()} with the given values (tests). */
    public void identify(long pid, long nonceAddress, long nonce) {
        Memory.putLongPlain(base + PID, pid);
        Memory.putLongPlain(base + NONCE_ADDRESS, nonceAddress);
        Memory.putLongVolatile(null, base + NONCE, nonce); // release: pid and address are whole before the nonce
    }

    /** The owner's identity as {@link #identify()} wrote it: {pid, address of its nonce there, nonce}. */
    public long[] owner() {
        long nonce = Memory.getLongVolatile(null, base + NONCE); // acquire
        return new long[] {Memory.getLongPlain(base + PID), Memory.getLongPlain(base + NONCE_ADDRESS), nonce};
    }

    /** Rewrites the table from the owner's sorted regions (the owner's monitor is held). */
    public void publish(long[] starts, long[] ends) {
        long v = Memory.getLongPlain(base + VERSION);
        Memory.putLongVolatile(null, base + VERSION, v + 1); // odd: readers retry
        Memory.storeFence(); // the table's stores stay behind the odd version
        int n = Math.min(starts.length, CAPACITY);
        for (int i = 0; i < n; i++) {
            long e = base + ENTRIES + (long) i * ENTRY;
            ShmArena.Slot slot = ShmArena.lookup(starts[i], ends[i] - starts[i]);
            byte[] name = slot == null ? new byte[0] : slot.segment().getBytes(StandardCharsets.UTF_8);
            if (name.length > NAME_MAX) {
                name = new byte[0]; // cannot be named here: origins use packets for it
            }
            Memory.putLongPlain(e, starts[i]);
            Memory.putLongPlain(e + 8, ends[i]);
            Memory.putLongPlain(e + 16, slot == null ? 0 : slot.offset());
            Memory.putLongPlain(e + 24, slot == null ? 0 : slot.segmentSize());
            Memory.putIntPlain(e + 32, name.length);
            for (int k = 0; k < name.length; k++) {
                Memory.putBytePlain(e + 36 + k, name[k]);
            }
        }
        Memory.putIntPlain(base + COUNT, n);
        Memory.putIntPlain(base + OVERFLOW, starts.length > CAPACITY ? 1 : 0);
        Memory.putLongVolatile(null, base + VERSION, v + 2); // release: the table is whole again
    }

    /** The version now (even when the table is whole); a cheap test of whether a cached copy is current. */
    public long version() {
        return Memory.getLongVolatile(null, base + VERSION);
    }

    /**
     * A consistent copy of the table and its version; {@code overflow[0]} tells whether regions are missing.
     * While the owner rewrites the table this waits; {@code aborted} runs now and then meanwhile and throws when
     * the job is aborting (an owner killed in the middle of a rewrite leaves the version odd for good).
     */
    public Region[] read(long[] versionOut, boolean[] overflow, Runnable aborted) {
        for (long spins = 0; ; spins++) {
            long v = version();
            if ((v & 1) != 0) {
                if (spins < 1000) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                    if ((spins & 1023) == 0) {
                        aborted.run();
                    }
                }
                continue;
            }
            int n = Memory.getIntPlain(base + COUNT);
            if (n < 0 || n > CAPACITY) {
                n = 0;
            }
            Region[] out = new Region[n];
            boolean over = Memory.getIntPlain(base + OVERFLOW) != 0;
            for (int i = 0; i < n; i++) {
                long e = base + ENTRIES + (long) i * ENTRY;
                int len = Math.max(0, Math.min(NAME_MAX, Memory.getIntPlain(e + 32)));
                byte[] name = new byte[len];
                for (int k = 0; k < len; k++) {
                    name[k] = Memory.getBytePlain(e + 36 + k);
                }
                out[i] = new Region(Memory.getLongPlain(e), Memory.getLongPlain(e + 8),
                        len == 0 ? null : new String(name, StandardCharsets.UTF_8), Memory.getLongPlain(e + 24),
                        Memory.getLongPlain(e + 16));
            }
            Memory.loadFence();
            if (version() == v) {
                versionOut[0] = v;
                overflow[0] = over;
                return out;
            }
        }
    }
}

package io.jrma.sync;


import io.jrma.RmaException;
import io.jrma.core.mem.Memory;
import io.jrma.core.op.ElementLocks;
import io.jrma.core.os.CrossMemory;
import io.jrma.shm.ShmSegment;

/**
 * An origin's view of the regions a rank of another JVM of the host attached to a dynamic window (or the one
 * private region of its create window's memory), read from the rank's {@link RegionDirectory} and cached until the
 * rank attaches or detaches again: for each region, this process's address of it when it lies in a shared segment
 * (mapped here at first use), or 0 when it is private to the rank's JVM (puts and gets on it may be copied by the
 * kernel, see {@link #crossMemoryPid()}; single small operations may go through its request slots,
 * {@link OpSlots}; the rest travels as packets).
 *
 * <p>Thread-safe: the rank's threads share the cached snapshot; a refresh is serialized.
 */
final class RemoteRegions {
    /** {@link Snapshot#find} result for bytes that no attached region holds. */
    static final int NONE = -1;

    private final WindowImpl w;
    private final RegionDirectory directory;
    private final long lockTable;
    private volatile Snapshot snapshot;
    /** The owner's pid once proven reachable by cross memory attach; -1 when it is not; 0 before the first try. */
    private volatile int crossPid;

    RemoteRegions(WindowImpl w, RegionDirectory directory, long lockTable) {
        this.w = w;
        this.directory = directory;
        this.lockTable = lockTable;
    }

    /** The regions as attached now (one volatile load when nothing changed since the last look). */
    Snapshot current() {
        Snapshot s = snapshot;
        if (s != null && s.version == directory.version()) {
            return s;
        }
        return refresh();
    }

    /**
     * The owner's process id when this process may copy to and from the owner's private regions by cross memory
     * attach ({@link CrossMemory}), or -1. Proven once: the origin reads, through the kernel, the value the owner
     * keeps in its private memory at the address its directory names, and compares it with the directory's copy.
     * Neither another process mapping the same shared memory, nor a pid that names another process here (another
     * pid namespace), nor this process itself passes; a process that has gone since is refused at the first copy
     * ({@link #refused}).
     */
    int crossMemoryPid() {
        int c = crossPid;
        return c != 0 ? c : probe();
    }

    /**
     * A copy to the owner failed with {@code errno}: when the process is gone or the kernel no longer allows it,
     * no further copy is tried (other errors, such as a region unmapped meanwhile, concern that copy only).
     */
    void refused(int errno) {
        if (errno == CrossMemory.ESRCH || errno == CrossMemory.EPERM || errno < 0) {
            crossPid = -1;
        }
    }

    private synchronized int probe() {
        if (crossPid != 0) {
            return crossPid;
        }
        long[] owner = directory.owner(); // {pid, address of its nonce, nonce}
        if (owner[2] == 0) {
            return -1; // not identified yet: try again at the next operation
        }
        int result = -1;
        if (CrossMemory.available() && owner[0] > 0 && owner[0] <= Integer.MAX_VALUE
                && owner[0] != ProcessHandle.current().pid()) { // the owner is always another JVM
            long scratch = Memory.allocate(8);
            try {
                Memory.putLongPlain(scratch, 0);
                if (CrossMemory.read((int) owner[0], owner[1], scratch, 8) && Memory.getLongPlain(scratch) == owner[2]) {
                    result = (int) owner[0];
                }
            } finally {
                Memory.free(scratch);
            }
        }
        crossPid = result;
        return result;
    }

    private synchronized Snapshot refresh() {
        long[] version = new long[1];
        boolean[] overflow = new boolean[1];
        RegionDirectory.Region[] rs = directory.read(version, overflow, w.job::checkAborted);
        Snapshot old = snapshot;
        if (old != null && old.version == version[0]) {
            return old;
        }
        int n = rs.length;
        long[] starts = new long[n];
        long[] ends = new long[n];
        long[] local = new long[n];
        ElementLocks[] locks = new ElementLocks[n];
        for (int i = 0; i < n; i++) {
            RegionDirectory.Region r = rs[i];
            starts[i] = r.start();
            ends[i] = r.end();
            if (r.shared()) {
                try {
                    ShmSegment seg = w.mapShared(r.segment(), r.segmentSize());
                    if (r.offset() >= 0 && r.offset() + (r.end() - r.start()) <= seg.size()) {
                        local[i] = seg.address() + r.offset();
                        // keyed by the owner's address, as the owner and the packet path key them
                        locks[i] = new ElementLocks(lockTable, local[i] - r.start());
                    }
                } catch (RmaException e) {
                    local[i] = 0; // gone or unmappable (freed meanwhile): packets reach it, or tell why not
                }
            }
        }
        Snapshot s = new Snapshot(version[0], starts, ends, local, locks, overflow[0]);
        snapshot = s;
        return s;
    }

    /** The regions at one version. Immutable. */
    static final class Snapshot {
        final long version;
        final long[] starts;
        final long[] ends;
        /** This process's address of each region's start, or 0 for a private region. */
        final long[] local;
        final ElementLocks[] locks;
        /** Whether the owner attached more regions than the directory lists (unknown bytes may be attached). */
        final boolean overflow;

        Snapshot(long version, long[] starts, long[] ends, long[] local, ElementLocks[] locks, boolean overflow) {
            this.version = version;
            this.starts = starts;
            this.ends = ends;
            this.local = local;
            this.locks = locks;
            this.overflow = overflow;
        }

        /** The region holding the owner's bytes [lo, hi), or {@link #NONE}. */
        int find(long lo, long hi) {
            int i = java.util.Arrays.binarySearch(starts, lo);
            if (i < 0) {
                i = -i - 2;
            }
            return i >= 0 && lo >= starts[i] && hi <= ends[i] ? i : NONE;
        }

        /**
         * This process's address of the owner's byte {@code disp} in region {@code i}, or -1 when the region is
         * private to the owner's JVM.
         */
        long address(int i, long disp) {
            return local[i] == 0 ? -1 : local[i] + (disp - starts[i]);
        }

        String describe() {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < starts.length; i++) {
                sb.append(i == 0 ? "" : ", ").append("[0x").append(Long.toHexString(starts[i])).append(", 0x")
                        .append(Long.toHexString(ends[i])).append(local[i] != 0 ? ") shared" : ") private");
            }
            return sb.length() == 0 ? "none" : sb.toString();
        }
    }
}

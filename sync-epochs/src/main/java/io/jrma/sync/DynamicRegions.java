package io.jrma.sync;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.Arrays;

/**
 * The memory attached to one rank's dynamic window: non-overlapping [address, address + length) regions,
 * kept sorted in a copy-on-write array so that origins (direct path) and the progress agent (packet path)
 * look regions up without locks while the owner attaches and detaches.
 *
 * <p>When ranks of other JVMs of the host use the window, the regions are also published in shared memory
 * ({@link RegionDirectory}), so that those origins reach regions in shared segments by load/store.
 *
 * <p>Writers: the owning rank (synchronized). Readers: any thread.
 */
final class DynamicRegions {
    /** Sorted region starts and ends, replaced as a whole (volatile store publishes both arrays). */
    private volatile long[][] table = {new long[0], new long[0]};
    /**
     * The attached buffer objects by start address: held until detach, so that the garbage collector cannot
     * free a direct buffer (and its memory) that origins may still write to after the program dropped it.
     */
    private final java.util.Map<Long, Object> attached = new java.util.HashMap<>();
    /** Where origins of the host's other JVMs read the regions (null when none reach them by load/store). */
    private RegionDirectory directory;

    /** Publishes the regions in {@code d} from now on (set once, at creation). */
    synchronized void publishTo(RegionDirectory d) {
        directory = d;
        d.publish(table[0], table[1]);
    }

    synchronized void attach(long address, long length, String window, Object memory) {
        if (length == 0) {
            return;
        }
        long end = address + length;
        long[] s = table[0];
        long[] e = table[1];
        for (int i = 0; i < s.length; i++) {
            if (address < e[i] && s[i] < end) {
                throw new RmaException(ErrorClass.ERR_RMA_ATTACH, "window " + window + ": attaching [0x"
                        + Long.toHexString(address) + ", 0x" + Long.toHexString(end) + ") overlaps attached region [0x"
                        + Long.toHexString(s[i]) + ", 0x" + Long.toHexString(e[i]) + ")");
            }
        }
        int at = 0;
        while (at < s.length && s[at] < address) {
            at++;
        }
        long[] ns = new long[s.length + 1];
        long[] ne = new long[s.length + 1];
        System.arraycopy(s, 0, ns, 0, at);
        System.arraycopy(e, 0, ne, 0, at);
        ns[at] = address;
        ne[at] = end;
        System.arraycopy(s, at, ns, at + 1, s.length - at);
        System.arraycopy(e, at, ne, at + 1, s.length - at);
        table = new long[][] {ns, ne};
        attached.put(address, memory);
        if (directory != null) {
            directory.publish(ns, ne);
        }
    }

    synchronized void detach(long address, String window) {
        long[] s = table[0];
        long[] e = table[1];
        for (int i = 0; i < s.length; i++) {
            if (s[i] == address) {
                long[] ns = new long[s.length - 1];
                long[] ne = new long[s.length - 1];
                System.arraycopy(s, 0, ns, 0, i);
                System.arraycopy(e, 0, ne, 0, i);
                System.arraycopy(s, i + 1, ns, i, s.length - i - 1);
                System.arraycopy(e, i + 1, ne, i, s.length - i - 1);
                table = new long[][] {ns, ne};
                attached.remove(address);
                if (directory != null) {
                    directory.publish(ns, ne);
                }
                return;
            }
        }
        throw new RmaException(ErrorClass.ERR_RMA_ATTACH, "window " + window + ": no region attached at 0x"
                + Long.toHexString(address) + " (attached: " + describe() + ")");
    }

    /** Whether [low, high) lies inside one attached region. */
    boolean contains(long low, long high) {
        long[][] t = table; // acquire
        long[] s = t[0];
        long[] e = t[1];
        int i = Arrays.binarySearch(s, low);
        if (i < 0) {
            i = -i - 2;
        }
        return i >= 0 && i < e.length && low >= s[i] && high <= e[i];
    }

    int count() {
        return table[0].length;
    }

    String describe() {
        long[][] t = table;
        long[] s = t[0];
        long[] e = t[1];
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(s.length, e.length); i++) {
            sb.append(i == 0 ? "" : ", ").append("[0x").append(Long.toHexString(s[i])).append(", 0x")
                    .append(Long.toHexString(e[i])).append(')');
        }
        return sb.length() == 0 ? "none" : sb.toString();
    }
}

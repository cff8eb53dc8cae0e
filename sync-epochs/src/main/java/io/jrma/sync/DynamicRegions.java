package io.jrma.sync;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.shm.window.RegionDirectory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

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
    /**
     * Sorted region starts and ends, and each region's memory as a ByteBuffer (null when it was attached as a
     * BytesStore), replaced as a whole (the volatile store publishes all three arrays).
     */
    private record Table(long[] starts, long[] ends, ByteBuffer[] views) {
    }

    private volatile Table table = new Table(new long[0], new long[0], new ByteBuffer[0]);
    /**
     * The attached buffer objects by start address: held until detach, so that the garbage collector cannot
     * free a direct buffer (and its memory) that origins may still write to after the program dropped it.
     */
    private final Map<Long, Object> attached = new HashMap<>();
    /** Where origins of the host's other JVMs read the regions (null when none reach them by load/store). */
    private RegionDirectory directory;

    /** Publishes the regions in {@code d} from now on (set once, at creation). */
    synchronized void publishTo(RegionDirectory d) {
        directory = d;
        d.identify();
        d.publish(table.starts(), table.ends());
    }

    /**
     * Attaches [address, address + length): {@code memory} is what the program attached (held until detach),
     * {@code view} the same bytes as a ByteBuffer, or null.
     */
    synchronized void attach(long address, long length, String window, Object memory, ByteBuffer view) {
        if (length == 0) {
            return;
        }
        long end = address + length;
        long[] s = table.starts();
        long[] e = table.ends();
        ByteBuffer[] v = table.views();
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
        ByteBuffer[] nv = new ByteBuffer[s.length + 1];
        System.arraycopy(v, 0, nv, 0, at);
        nv[at] = view;
        System.arraycopy(v, at, nv, at + 1, s.length - at);
        table = new Table(ns, ne, nv);
        attached.put(address, memory);
        if (directory != null) {
            directory.publish(ns, ne);
        }
    }

    synchronized void detach(long address, String window) {
        long[] s = table.starts();
        long[] e = table.ends();
        ByteBuffer[] v = table.views();
        for (int i = 0; i < s.length; i++) {
            if (s[i] == address) {
                long[] ns = new long[s.length - 1];
                long[] ne = new long[s.length - 1];
                ByteBuffer[] nv = new ByteBuffer[s.length - 1];
                System.arraycopy(s, 0, ns, 0, i);
                System.arraycopy(e, 0, ne, 0, i);
                System.arraycopy(v, 0, nv, 0, i);
                System.arraycopy(s, i + 1, ns, i, s.length - i - 1);
                System.arraycopy(e, i + 1, ne, i, s.length - i - 1);
                System.arraycopy(v, i + 1, nv, i, s.length - i - 1);
                table = new Table(ns, ne, nv);
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
        Table t = table; // acquire
        return regionOf(t, low, high) >= 0;
    }

    /**
     * The bytes [low, high) as a ByteBuffer view (position at {@code low}, limit at {@code high}) when they lie
     * inside one region attached as a ByteBuffer; else null. Any thread.
     */
    ByteBuffer view(long low, long high) {
        Table t = table; // acquire
        int i = regionOf(t, low, high);
        ByteBuffer v = i < 0 ? null : t.views()[i];
        if (v == null || high <= low) {
            return null;
        }
        long s = t.starts()[i];
        return v.duplicate().clear().limit((int) (high - s)).position((int) (low - s));
    }

    /** The index of the region holding [low, high), or -1. */
    private static int regionOf(Table t, long low, long high) {
        long[] s = t.starts();
        long[] e = t.ends();
        int i = Arrays.binarySearch(s, low);
        if (i < 0) {
            i = -i - 2;
        }
        return i >= 0 && i < e.length && low >= s[i] && high <= e[i] ? i : -1;
    }

    int count() {
        return table.starts().length;
    }

    String describe() {
        Table t = table;
        long[] s = t.starts();
        long[] e = t.ends();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(s.length, e.length); i++) {
            sb.append(i == 0 ? "" : ", ").append("[0x").append(Long.toHexString(s[i])).append(", 0x")
                    .append(Long.toHexString(e[i])).append(')');
        }
        return sb.length() == 0 ? "none" : sb.toString();
    }
}

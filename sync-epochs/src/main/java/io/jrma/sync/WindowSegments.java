package io.jrma.sync;

import io.jrma.shm.ShmSegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The shared segments one rank's window created or mapped (its own memory and state, peers in other JVMs, regions
 * attached to dynamic windows there), each mapped once by name and unmapped when the window is freed.
 *
 * <p>Thread-safe (its own monitor): the rank's threads map regions as they first reach them.
 */
final class WindowSegments {
    private final String shmDir;
    /** Segments by name, the largest mapping of each. */
    private final Map<String, ShmSegment> byName = new HashMap<>();
    /** Every mapping made, in order (a segment mapped again larger keeps its first mapping until the end). */
    private final List<ShmSegment> all = new ArrayList<>();
    private boolean closed;

    /** @param shmDir the segments' directory as configured (jrma.shm.dir) */
    WindowSegments(String shmDir) {
        this.shmDir = shmDir;
    }

    /**
     * The segment {@code name} of at least {@code size} bytes, mapped here once; null when the window was freed.
     *
     * @throws io.jrma.RmaException when it cannot be mapped (it is gone, or too small)
     */
    synchronized ShmSegment map(String name, long size) {
        ShmSegment seg = byName.get(name);
        if (seg == null || seg.size() < size) {
            if (closed) {
                return null;
            }
            seg = ShmSegment.open(ShmSegment.directory(shmDir), name, size);
            byName.put(name, seg);
            all.add(seg);
        }
        return seg;
    }

    /** Records a segment the window created or mapped at creation, so {@link #map} finds it. */
    synchronized void add(ShmSegment seg) {
        byName.putIfAbsent(seg.name(), seg);
        all.add(seg);
    }

    /** From now on nothing new is mapped ({@link #map} returns null). */
    synchronized void close() {
        closed = true;
    }

    /** Unmaps every segment (the window is freed: no peer reaches them any more). */
    synchronized void unmapAll() {
        closed = true;
        for (ShmSegment s : all) {
            s.close();
        }
        byName.clear();
    }
}

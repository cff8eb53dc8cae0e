package io.jrma.bench.osu;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;

/**
 * The bytes the calling thread has allocated so far, where the JVM counts them (HotSpot's extension of the
 * platform's thread bean); 0 elsewhere. Kept apart from {@link OsuColl}'s probe, whose thread bean is the
 * platform's own of the same simple name. Any thread.
 */
final class ThreadAllocation {
    private ThreadAllocation() {
    }

    /** Bytes this thread has allocated so far, or 0 where the JVM does not count them. */
    static long ofCurrentThread() {
        return ManagementFactory.getThreadMXBean() instanceof ThreadMXBean t
                ? t.getThreadAllocatedBytes(Thread.currentThread().getId()) : 0;
    }
}

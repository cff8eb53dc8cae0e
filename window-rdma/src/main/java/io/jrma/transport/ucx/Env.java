package io.jrma.transport.ucx;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * The process environment as the C library sees it ({@code getenv}, {@code setenv}): UCX reads its settings there
 * when its libraries load, and the JVM offers no way to change it.
 */
final class Env {
    private Env() {
    }

    /** Binds {@code setenv} and {@code getenv} from the C library. */
    private static final class C {
        static {
            Native.register(C.class, "c");
        }

        static native int setenv(String name, String value, int overwrite);

        static native String getenv(String name);

        static native int poll(long fds, long count, int timeoutMs);
    }

    /** {@code struct pollfd}: int fd, short events, short revents. */
    private static final int POLLFD_BYTES = 8;
    private static final int POLLFD_EVENTS = 4;
    private static final int POLLFD_REVENTS = 6;
    private static final short POLLIN = 1;

    /**
     * Waits up to {@code timeoutMs} until {@code fd} is readable ({@code poll}); true when it is. A failed call
     * (interrupted) counts as not readable.
     */
    static boolean readable(int fd, int timeoutMs) {
        try (Memory p = new Memory(POLLFD_BYTES)) {
            p.setInt(0, fd);
            p.setShort(POLLFD_EVENTS, POLLIN);
            p.setShort(POLLFD_REVENTS, (short) 0);
            int n = C.poll(Pointer.nativeValue(p), 1, timeoutMs);
            return n > 0 && (p.getShort(POLLFD_REVENTS) & POLLIN) != 0;
        }
    }

    /** Sets {@code name} to {@code value} unless the environment already has it. */
    static void defaultTo(String name, String value) {
        C.setenv(name, value, 0);
    }

    /** The value of {@code name} in the process environment, or null. */
    static String get(String name) {
        return C.getenv(name);
    }
}

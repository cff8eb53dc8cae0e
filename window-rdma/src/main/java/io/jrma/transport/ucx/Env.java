package io.jrma.transport.ucx;

import com.sun.jna.Native;

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

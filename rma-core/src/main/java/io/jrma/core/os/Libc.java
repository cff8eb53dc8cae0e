package io.jrma.core.os;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.util.Locale;

/**
 * Loads a JNA view of the C library for the Linux calls jrma makes through an interface ({@code sched_setaffinity},
 * and {@code futex} where the JDK's linker is not usable), each class with its own small interface, and one rule for
 * all: only on Linux, and null (the caller falls back) when JNA cannot load it or the JVM's native-access policy
 * refuses it. Calls on a hot path go through the JDK's linker ({@link Downcall}) where it is usable, else JNA's
 * direct mapping ({@link CrossMemory}, {@code BulkCopy}'s {@code memmove}): the interface's proxy cost three
 * times a {@code process_vm_readv} here.
 */
public final class Libc {
    private Libc() {
    }

    /**
     * The C library as {@code api}, or null: not Linux, the system property {@code optOut} (if not null) is
     * {@code "false"}, or loading failed.
     */
    public static <T extends Library> T load(Class<T> api, String optOut) {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
                || optOut != null && "false".equals(System.getProperty(optOut))) {
            return null;
        }
        try {
            return Native.load("c", api);
        } catch (Throwable e) { // UnsatisfiedLinkError, or JNA refused by the JVM's native-access policy
            return null;
        }
    }

    /**
     * Binds the {@code static native} methods of {@code calls} to the C library (JNA's direct mapping), with the same
     * rule as {@link #load}; returns whether it worked.
     */
    public static boolean register(Class<?> calls, String optOut) {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
                || optOut != null && "false".equals(System.getProperty(optOut))) {
            return false;
        }
        try {
            Native.register(calls, "c");
            return true;
        } catch (Throwable e) { // UnsatisfiedLinkError, or JNA refused by the JVM's native-access policy
            return false;
        }
    }
}

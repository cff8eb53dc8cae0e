package io.jrma;

import io.jrma.core.os.Downcall;

/**
 * The JVM flags jrma needs, in one place for launchers (the Maven build's surefire argLine carries the same
 * list, and a test checks they agree). Run {@code java -cp rma-core.jar io.jrma.JvmFlags} to print the flags
 * for the running JDK.
 */
public final class JvmFlags {
    /**
     * Flags every supported JDK (17+) needs: Chronicle Bytes' mapping and Agrona's Unsafe access. {@code sun.nio.ch}
     * is open, not only exported, so that small kernel reads from other JVMs can use the JDK's own {@code pread}
     * where the JDK's linker is not used (JDK 17-21; {@code io.jrma.core.os.CrossMemory#binding}); a JVM started
     * with it merely exported still works, its small reads going through JNA.
     */
    public static final String BASE = "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED"
            + " --add-opens=java.base/java.nio=ALL-UNNAMED"
            + " --add-opens=java.base/sun.nio.ch=ALL-UNNAMED"
            + " --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED"
            + " --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED";
    /** Extra flags from JDK 24 on (the JDK restricts Unsafe memory access and native access). */
    public static final String JDK24_PLUS = "--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED";
    /**
     * The extra flag on JDK 22 and 23: native access for jrma's module, so system calls go through the JDK's
     * linker ({@code io.jrma.core.os.Downcall}) without a warning.
     */
    public static final String JDK22_PLUS = "--enable-native-access=ALL-UNNAMED";
    /**
     * Optional on JDK 17: the incubating foreign linker, so system calls skip JNA (about 0.3 µs each; the futex
     * calls, writes and reads above 4 KiB gain it, smaller reads already cost about as much through
     * {@code /proc/PID/mem}). Not among the default flags
     * because the JDK then prints {@code WARNING: Using incubator modules: jdk.incubator.foreign} as each JVM
     * starts; {@code jrmarun --jdk-linker} adds it. A JVM started with it passes it on to the JVMs it launches.
     */
    public static final String JDK17_LINKER = "--add-modules=jdk.incubator.foreign --enable-native-access=ALL-UNNAMED";

    private JvmFlags() {
    }

    /** The flags for a JDK of the given feature version. */
    public static String forVersion(int feature) {
        return feature >= 24 ? BASE + " " + JDK24_PLUS : feature >= 22 ? BASE + " " + JDK22_PLUS : BASE;
    }

    /** {@link #forVersion}, plus {@link #JDK17_LINKER} on JDK 17 (the same as {@link #forVersion} on others). */
    public static String withJdkLinker(int feature) {
        return feature == 17 ? forVersion(feature) + " " + JDK17_LINKER : forVersion(feature);
    }

    /**
     * The flags for the running JDK, including {@link #JDK17_LINKER} when this JVM was started with it (JDK 17 whose
     * incubating linker works here: the module resolved and native access granted).
     */
    public static String current() {
        int feature = Runtime.version().feature();
        return feature == 17 && "jdk.incubator.foreign".equals(Downcall.linker())
                && Downcall.usable() ? withJdkLinker(feature) : forVersion(feature);
    }

    public static void main(String[] args) {
        System.out.println(current());
    }
}

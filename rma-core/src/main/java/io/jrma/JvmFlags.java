package io.jrma;

/**
 * The JVM flags jrma needs, in one place for launchers (the Maven build's surefire argLine carries the same
 * list, and a test checks they agree). Run {@code java -cp rma-core.jar io.jrma.JvmFlags} to print the flags
 * for the running JDK.
 */
public final class JvmFlags {
    /** Flags every supported JDK (17+) needs: Chronicle Bytes' mapping and Agrona's Unsafe access. */
    public static final String BASE = "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED"
            + " --add-opens=java.base/java.nio=ALL-UNNAMED"
            + " --add-exports=java.base/sun.nio.ch=ALL-UNNAMED"
            + " --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED"
            + " --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED";
    /** Extra flags from JDK 24 on (sun.misc.Unsafe memory access and native access are restricted). */
    public static final String JDK24_PLUS = "--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED";

    private JvmFlags() {
    }

    /** The flags for a JDK of the given feature version. */
    public static String forVersion(int feature) {
        return feature >= 24 ? BASE + " " + JDK24_PLUS : BASE;
    }

    /** The flags for the running JDK. */
    public static String current() {
        return forVersion(Runtime.version().feature());
    }

    public static void main(String[] args) {
        System.out.println(current());
    }
}

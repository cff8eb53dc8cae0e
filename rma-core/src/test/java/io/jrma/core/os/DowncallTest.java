package io.jrma.core.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.invoke.MethodHandle;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The JDK's linker found by reflection: which one this JVM offers, and calls through it. Runs in the default
 * execution (JDK 17 without the incubating module: no linker; JDK 22+: the final one) and, on JDK 17, again in
 * the {@code jdk17-linker} execution with {@code -Djrma.test.jdkLinker=true}.
 */
class DowncallTest {
    /** The linker must be in use: asked for by the jdk17-linker execution, or JDK 22+ (native access granted by the
     * build's flags), on Linux, unless {@code -Djrma.ffm=false}. */
    static boolean expectLinker() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
                && !"false".equals(System.getProperty("jrma.ffm"))
                && (Boolean.getBoolean("jrma.test.jdkLinker") || Runtime.version().feature() >= 22);
    }

    @Test
    void namesTheLinkerOfThisJvm() {
        int feature = Runtime.version().feature();
        Assumptions.assumeTrue(System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
                && !"false".equals(System.getProperty("jrma.ffm")),
                "the linker is used on Linux only, and not with -Djrma.ffm=false");
        String expected = feature >= 22 ? "java.lang.foreign"
                : Boolean.getBoolean("jrma.test.jdkLinker") ? "jdk.incubator.foreign" : feature == 17 ? "none" : null;
        if (expected != null) {
            assertEquals(expected, Downcall.linker());
            assertEquals(expectLinker(), Downcall.usable(), "whether the linker binds here");
        }
    }

    @Test
    void callsTheCLibrary() throws Throwable {
        Assumptions.assumeTrue(System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux"),
                "the linker is used on Linux only");
        MethodHandle getpid = Downcall.bind("getpid", int.class);
        MethodHandle labs = Downcall.bind("labs", long.class, long.class);
        MethodHandle abs = Downcall.bind("abs", int.class, int.class);
        if (!expectLinker()) {
            assertNull(getpid, "no linker here (" + Downcall.linker() + "), yet a handle");
            return;
        }
        assertNotNull(getpid, Downcall.linker());
        assertEquals((int) ProcessHandle.current().pid(), (int) getpid.invokeExact());
        assertEquals(Long.MAX_VALUE, (long) labs.invokeExact(-Long.MAX_VALUE), "a 64-bit argument and result");
        assertEquals(123_456, (int) abs.invokeExact(-123_456));
        assertNull(Downcall.bind("jrma_no_such_function", int.class), "an unknown symbol");
    }

    @Test
    void refusesTypesOtherThanIntAndLong() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Downcall.bind("getpid", double.class));
        assertEquals("Downcall binds int and long arguments and results only, not double", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Downcall.bind("labs", long.class, Object.class));
    }
}

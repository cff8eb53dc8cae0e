package io.jrma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.config.Param;
import io.jrma.core.config.Params;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JVM flags live in two places: the parent pom's {@code jrma.jvm.flags} (+ {@code jrma.jvm.flags.extra}
 * on JDK 22+), which surefire passes as argLine and as system property {@code jrma.test.argLine}, and
 * {@link JvmFlags} (what launchers use). This test fails when they drift apart.
 */
class JvmFlagsTest {
    private static String normalize(String s) {
        return s.trim().replaceAll("\\s+", " ");
    }

    @Test
    void surefireArgLineEqualsJvmFlags() {
        String argLine = System.getProperty("jrma.test.argLine");
        assertNotNull(argLine,
                "system property jrma.test.argLine is not set: run this test through Maven (the parent pom sets it)");
        assertEquals(normalize(JvmFlags.current()), normalize(argLine),
                "the parent pom's jrma.jvm.flags/jrma.jvm.flags.extra and io.jrma.JvmFlags disagree on JDK "
                        + Runtime.version().feature());
    }

    @Test
    void theRunningJvmWasStartedWithTheFlags() {
        List<String> args = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (String f : normalize(JvmFlags.current()).split(" ")) {
            assertTrue(args.contains(f), "JVM input arguments lack " + f + ": " + args);
        }
    }

    @Test
    void jdk22PlusAddsTheExtraFlags() {
        assertEquals(JvmFlags.BASE, JvmFlags.forVersion(17));
        assertEquals(JvmFlags.BASE, JvmFlags.forVersion(21));
        assertEquals(JvmFlags.BASE + " " + JvmFlags.JDK22_PLUS, JvmFlags.forVersion(23));
        assertEquals(JvmFlags.BASE + " " + JvmFlags.JDK17_LINKER, JvmFlags.withJdkLinker(17));
        assertEquals(JvmFlags.forVersion(25), JvmFlags.withJdkLinker(25));
        assertTrue(JvmFlags.forVersion(24).endsWith(JvmFlags.JDK24_PLUS));
        assertEquals(Arrays.asList(JvmFlags.forVersion(25).split(" ")).size(),
                JvmFlags.BASE.split(" ").length + JvmFlags.JDK24_PLUS.split(" ").length);
    }

    @Test
    void jrmaInfoListsEveryParameter() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        JrmaInfo.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains(JvmFlags.current()), out);
        // rma-core alone: its own parameters (the components' are checked where they are on the class path,
        // JrmaInfoTest in the jrma module)
        for (Param p : Params.ALL) {
            assertTrue(out.contains(p.name()), "JrmaInfo does not list " + p.name());
        }
    }
}

package io.jrma.info;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.JrmaInfo;
import io.jrma.WinCounters;
import io.jrma.core.runtime.Param;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** jrma-info with every component on the class path, as the io.jrma:jrma artifact brings them. */
class JrmaInfoTest {
    private static String info(int expectedCode, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = JrmaInfo.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        assertEquals(expectedCode, code, text);
        return text;
    }

    @Test
    void aTwoJvmLayoutUsesShmAndTcpWithTheirPriorities() {
        String out = info(0);
        assertTrue(out.contains("for 2 ranks over 2 JVM(s)"), out);
        assertTrue(out.contains("+ shm: priority 50: JVMs of one host"), out);
        assertTrue(out.contains("+ tcp: priority 10: every JVM of the job"), out);
        assertTrue(out.indexOf("+ shm") < out.indexOf("+ tcp"), "highest priority first: " + out);
    }

    @Test
    void everyParameterOfEveryComponentAndEveryCounterIsListed() {
        String out = info(0);
        for (Param p : JrmaInfo.allParams()) {
            assertTrue(out.contains("  " + p.name() + "   (scope"), "jrma-info does not list " + p.name());
        }
        assertTrue(out.contains("jrma.tcp.frameBytes") && out.contains("jrma.shm.ringBytes"), out);
        for (WinCounters.Counter c : WinCounters.Counter.values()) {
            assertTrue(out.contains("  " + c.name() + ": " + c.description()), "jrma-info does not list " + c);
        }
    }

    @Test
    void anExcludedOrUselessComponentSaysWhy() {
        String out = info(0, "--param", "jrma.transports=^shm");
        assertTrue(out.contains("- shm: not selected: jrma.transports=^shm leaves it out"), out);
        assertTrue(out.contains("+ tcp: priority 10"), out);
        assertTrue(out.contains("jrma.transports") && out.contains("[job parameter]"), out);
        String one = info(0, "-n", "4", "--jvms", "1");
        assertTrue(one.contains("- shm: declined: one JVM") && one.contains("- tcp: declined: one JVM"), one);
    }

    @Test
    void aBadSelectionOrOptionIsAnError() {
        String out = info(0, "--param", "jrma.transports=^tcp");
        assertTrue(out.contains("tcp cannot be excluded"), out);
        assertTrue(info(2, "--jvms").contains("usage: jrma-info"));
        assertTrue(info(2, "--bogus").contains("unknown option --bogus"));
    }
}

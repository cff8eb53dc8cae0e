package io.jrma.transport.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where libucp cannot be loaded (here: a JVM told to load a file that does not exist), the ucx component declines
 * with the reason and opening a worker is an ERR_UNSUPPORTED_OPERATION naming it: no crash.
 */
class UcxMissingTest {
    @Test
    @Timeout(60)
    void aMissingLibucpIsADeclineWithTheReason() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                "-D" + Ucp.LIBRARY_PROPERTY + "=/nonexistent/jrma-ucx-test/libucp.so.0",
                "-cp", System.getProperty("java.class.path"), UcxMissingMain.class.getName())
                .redirectErrorStream(true).start();
        try {
            assertTrue(p.waitFor(45, TimeUnit.SECONDS), "the JVM ends");
            List<String> out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            assertEquals(0, p.exitValue(), "no crash: " + out);
            String query = out.stream().filter(l -> l.startsWith("available=")).findFirst().orElse("none: " + out);
            assertTrue(query.startsWith("available=false reason=cannot load /nonexistent/jrma-ucx-test/libucp.so.0"
                    + " (Debian/Ubuntu package libucx0"), query);
            String open = out.stream().filter(l -> l.startsWith("open=")).findFirst().orElse("none: " + out);
            assertTrue(open.startsWith("open=ERR_UNSUPPORTED_OPERATION") && open.contains("libucx0"), open);
        } finally {
            p.destroyForcibly();
        }
    }
}

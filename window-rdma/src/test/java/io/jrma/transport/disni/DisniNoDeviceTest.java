package io.jrma.transport.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With a real libdisni (built from DiSNI's sources, docs/disni.md; its directory given as
 * {@code -Djrma.test.libdisni=DIR}) on a host without an RDMA device, the component declines with librdmacm's
 * reason and nothing escapes: no UnsatisfiedLinkError, no crash; and libdisni's own {@code sizeof}/{@code offsetof}
 * of the work request (compiled against the host's verbs.h) agree with {@link SendWorkRequest}. Skips, printing why,
 * without that directory.
 */
class DisniNoDeviceTest {
    /** The directory holding a libdisni.so built for this test. */
    static final String LIBDISNI_PROPERTY = "jrma.test.libdisni";
    private static final Path RDMA_DEVICES = Path.of("/sys/class/infiniband");

    @Test
    @Timeout(60)
    void aRealLibdisniWithoutADeviceIsADeclineWithLibrdmacmsReason() throws IOException, InterruptedException {
        String dir = System.getProperty(LIBDISNI_PROPERTY, "");
        boolean built = !dir.isEmpty() && new File(dir, System.mapLibraryName(DisniProbe.LIBRARY)).isFile();
        if (!built) {
            System.out.println("DisniNoDeviceTest skips: no libdisni built for it (-D" + LIBDISNI_PROPERTY
                    + "=DIR holding " + System.mapLibraryName(DisniProbe.LIBRARY) + ")");
        }
        assumeTrue(built, "no libdisni");
        Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                "-Djava.library.path=" + dir, "-cp", System.getProperty("java.class.path"),
                DisniProbeMain.class.getName()).redirectErrorStream(true).start();
        try {
            assertTrue(p.waitFor(45, TimeUnit.SECONDS), "the JVM ends");
            List<String> out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            assertEquals(0, p.exitValue(), "no crash: " + out);
            assertFalse(out.stream().anyMatch(l -> l.contains("UnsatisfiedLinkError")), out.toString());
            String query = out.stream().filter(l -> l.startsWith("available=")).findFirst().orElse("none: " + out);
            System.out.println("DisniNoDeviceTest: " + query);
            // libdisni's compiled view of the header agrees with the offsets SendWorkRequest writes at
            String layout = out.stream().filter(l -> l.startsWith("layout ")).findFirst().orElse("none: " + out);
            assertEquals("layout wr=" + SendWorkRequest.WR_SIZE + " sge=" + SendWorkRequest.SGE_SIZE + " remote_addr="
                    + SendWorkRequest.REMOTE_ADDR_OFFSET + " rkey=" + SendWorkRequest.RDMA_RKEY_OFFSET, layout);
            if (hasRdmaDevice()) {
                assertTrue(query.startsWith("available=true"), query);
            } else {
                assertEquals("available=false reason=no RDMA device: rdma_create_event_channel failed: No such device",
                        query);
            }
        } finally {
            p.destroyForcibly();
        }
    }

    private static boolean hasRdmaDevice() throws IOException {
        if (!Files.isDirectory(RDMA_DEVICES)) {
            return false;
        }
        try (Stream<Path> devices = Files.list(RDMA_DEVICES)) {
            return devices.findAny().isPresent();
        }
    }
}

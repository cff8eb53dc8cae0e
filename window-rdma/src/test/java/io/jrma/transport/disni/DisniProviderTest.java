package io.jrma.transport.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrma.core.config.JobLayout;
import io.jrma.core.runtime.Job;
import io.jrma.spi.TransportProvider;
import io.jrma.spi.TransportQuery;
import java.io.IOException;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The disni component's query: each reason it declines for, and its place among the providers. */
class DisniProviderTest {
    private static final JobLayout TWO_JVMS = new JobLayout(4, 2, Map.of());

    /** Probe steps with chosen outcomes. */
    private record Fake(boolean classPresent, String linkError, String channelError) implements DisniProbe.Steps {
        @Override
        public void loadLibrary() {
            if (linkError != null) {
                throw new UnsatisfiedLinkError(linkError);
            }
        }

        @Override
        public void openEventChannel() throws IOException {
            if (channelError != null) {
                throw new IOException(channelError);
            }
        }
    }

    @Test
    void withoutTheJarItSaysSo() {
        String why = DisniProbe.reason(new Fake(false, null, null));
        assertTrue(why.contains("not on the class path"), why);
    }

    @Test
    void withoutLibdisniItSaysHowToBuildAndInstallIt() {
        String why = DisniProbe.reason(new Fake(true, "no disni in java.library.path", null));
        assertTrue(why.startsWith("libdisni is not loadable (no disni in java.library.path"), why);
        assertTrue(why.contains("docs/disni.md") && why.contains("java.library.path"), why);
    }

    @Test
    void withoutADeviceItGivesRdmaCmsReason() {
        String why = DisniProbe.reason(new Fake(true, null, "No such device"));
        assertEquals("no RDMA device: rdma_create_event_channel failed: No such device", why);
    }

    @Test
    void libdisnisOwnTextIsNotRepeated() {
        String why = DisniProbe.reason(new Fake(true, null,
                "j2c::createEventChannel: rdma_create_event_channel failed: No such device"));
        assertEquals("no RDMA device: rdma_create_event_channel failed: No such device", why);
    }

    @Test
    void withEverythingItAcceptsAboveTcpBelowUcx() {
        assertNull(DisniProbe.reason(new Fake(true, null, null)));
        TransportQuery q = DisniProvider.query(TWO_JVMS, null);
        assertTrue(q.available(), q.reason());
        assertTrue(q.priority() > 10 && q.priority() < 30, "between tcp (10) and ucx (30)");
    }

    @Test
    void oneJvmIsDeclined() {
        assertFalse(DisniProvider.query(new JobLayout(4, 1, Map.of()), null).available());
    }

    /**
     * A JVM whose listener cannot start (here: no libdisni, so DiSNI's native dispatcher cannot load) publishes no
     * listener and connects nothing: its peers reach it through the transport below, and no error escapes.
     */
    @Test
    void aJvmWithoutAListenerPublishesNoneAndConnectsNothing() {
        assumeTrue(DisniProbe.unavailableReason() != null, "DiSNI works here: its listener would start");
        Job job = new Job(2, Map.of(), 0, new int[] {0, 1});
        TransportProvider.Opening o = new DisniProvider().open(job, "job", "secret");
        assertEquals(DisniProvider.NO_LISTENER, o.card());
        assertNull(o.connect(new String[] {o.card(), "10.0.0.2:7471"}));
        o.abandon();
        assertFalse(DisniProvider.listens(DisniProvider.NO_LISTENER));
        assertFalse(DisniProvider.listens(""));
        assertTrue(DisniProvider.listens("10.0.0.2:7471"));
    }

    /** On this machine (no libdisni, no RDMA device): declined with the reason, and nothing thrown. */
    @Test
    void theRealQueryDeclinesHereWithAReasonAndIsFoundByServiceLoader() {
        TransportProvider disni = ServiceLoader.load(TransportProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals(DisniProvider.NAME)).findFirst().orElseThrow();
        TransportQuery q = disni.query(TWO_JVMS);
        String why = DisniProbe.unavailableReason();
        System.out.println("disni here: " + (why == null ? "available" : why));
        if (why == null) {
            assertTrue(q.available(), q.reason());
        } else {
            assertFalse(q.available());
            assertEquals(why, q.reason());
            assertTrue(why.startsWith("libdisni is not loadable") || why.startsWith("no RDMA device"), why);
        }
        assertEquals(DisniParams.ALL, disni.params());
    }
}

package io.jrma.transport.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.config.JobLayout;
import io.jrma.spi.TransportQuery;
import io.jrma.spi.Transports;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The ucx component's query and its place in {@code jrma.transports}. */
class UcxProviderTest {
    private final UcxProvider ucx = new UcxProvider();

    @Test
    void oneJvmIsDeclined() {
        TransportQuery q = ucx.query(new JobLayout(4, 1, Map.of("jrma.transports", "tcp,ucx")));
        assertFalse(q.available());
        assertTrue(q.reason().contains("one JVM"), q.reason());
    }

    @Test
    void itIsOpenedWhereNamedOrWithAutoAndSitsBetweenTcpAndShm() {
        UcxWorkerTest.assumeUcx();
        TransportQuery named = ucx.query(new JobLayout(4, 2, Map.of("jrma.transports", "tcp,ucx")));
        assertTrue(named.available(), named.reason());
        assertEquals(UcxProvider.PRIORITY, named.priority());
        assertTrue(named.priority() > 10 && named.priority() < 50, "between tcp (10) and shm (50)");
        TransportQuery byDefault = ucx.query(new JobLayout(4, 2, Map.of("jrma.transports", "shm,tcp")));
        assertFalse(byDefault.available(), "not opened unless named");
        assertTrue(byDefault.reason().contains(UcxParams.AUTO.name()), byDefault.reason());
        TransportQuery excluded = ucx.query(new JobLayout(4, 2, Map.of("jrma.transports", "^shm")));
        assertFalse(excluded.available(), "left in by an exclusion is not named");
        TransportQuery auto = ucx.query(new JobLayout(4, 2,
                Map.of("jrma.transports", "^shm", "jrma.ucx.auto", "true")));
        assertTrue(auto.available(), auto.reason());
    }

    @Test
    void theSelectionOpensTcpThenUcx() {
        UcxWorkerTest.assumeUcx();
        List<String> order = Transports.select(new JobLayout(4, 2, Map.of("jrma.transports", "tcp,ucx"))).stream()
                .map(p -> p.name()).toList();
        assertEquals(List.of("tcp", "ucx"), order, "ascending priority: tcp carries the set-up of the others");
        List<String> excluded = Transports.select(new JobLayout(4, 2, Map.of("jrma.transports", "^ucx"))).stream()
                .map(p -> p.name()).toList();
        assertFalse(excluded.contains("ucx"));
    }
}

package io.jrma.transport.disni;

import io.jrma.core.config.JobLayout;
import io.jrma.core.config.Param;
import io.jrma.core.runtime.Job;
import io.jrma.spi.TransportProvider;
import io.jrma.spi.TransportQuery;
import io.jrma.spi.transport.Transport;
import java.util.List;

/**
 * The {@code disni} transport component: verbs RDMA through IBM's DiSNI. Each JVM listens with an RDMA-CM server
 * endpoint (its card is that endpoint's {@code address:port}) and connects one RC queue pair to every other JVM;
 * window puts, gets and atomics then go straight to the targets' registered memory ({@link DisniTransport}), while
 * packets and the control plane stay on the transport that reached the peer before (TCP).
 *
 * <p>The query declines, with the reason, where DiSNI's jar, its native {@code libdisni} or an RDMA device is missing
 * ({@link DisniProbe}); it never throws. Its priority sits above TCP's, below UCX's (UCX drives the same hardware with
 * more tuning where both exist) and below shm's (the rings take the JVMs of this host back from it).
 */
public final class DisniProvider implements TransportProvider {
    /** The component's name. */
    public static final String NAME = "disni";
    /** Above TCP's (10), below UCX's (30) and shm's (50). */
    public static final int PRIORITY = 20;
    /** The card of a JVM whose listener could not start: the others reach it through the transport below. */
    static final String NO_LISTENER = "-";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public TransportQuery query(JobLayout layout) {
        return query(layout, DisniProbe.unavailableReason());
    }

    /** The query given the probe's answer ({@code why}: null when DiSNI works here). */
    static TransportQuery query(JobLayout layout, String why) {
        if (layout.jvms() < 2) {
            return TransportQuery.declined("one JVM: its ranks reach each other in memory");
        }
        if (why != null) {
            return TransportQuery.declined(why);
        }
        return TransportQuery.priority(PRIORITY, "DiSNI with an RDMA device: window puts, gets, fetch-add and "
                + "compare-swap as verbs on RC queue pairs to every JVM; packets stay on the transport below");
    }

    @Override
    public Opening open(Job job, String jobId, String secret) {
        DisniNode listening;
        try {
            listening = DisniNode.listen(job);
        } catch (RuntimeException e) {
            listening = null;
            System.err.println("jrma: JVM " + job.jvmIndex() + " reaches its peers without DiSNI: " + e.getMessage());
        }
        DisniNode node = listening;
        String card = node == null ? NO_LISTENER : node.card();
        return new Opening() {
            @Override
            public String card() {
                return card;
            }

            @Override
            public Transport connect(String[] cards) {
                return node == null ? null : DisniTransport.connect(job, node, cards);
            }

            @Override
            public void abandon() {
                if (node != null) {
                    node.close();
                }
            }
        };
    }

    /** Whether {@code card} is a listener's (not {@link #NO_LISTENER}, not missing). */
    static boolean listens(String card) {
        return card != null && !card.isEmpty() && !card.equals(NO_LISTENER);
    }

    @Override
    public List<Param> params() {
        return DisniParams.ALL;
    }
}

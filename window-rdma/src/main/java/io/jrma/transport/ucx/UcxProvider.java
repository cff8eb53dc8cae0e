package io.jrma.transport.ucx;

import io.jrma.core.config.JobLayout;
import io.jrma.core.config.Param;
import io.jrma.core.runtime.Job;
import io.jrma.spi.TransportProvider;
import io.jrma.spi.TransportQuery;
import io.jrma.spi.transport.Transport;
import java.util.Base64;
import java.util.List;

/**
 * The {@code ucx} transport component: a UCP worker per JVM ({@link UcxWorker}), packets as UCP tagged messages
 * ({@link UcxTransport}) and, for windows, put, get and atomics straight on the targets' registered memory. Its
 * card is the worker's address in base64; a JVM whose UCX fails to start publishes {@link #NO_WORKER} and the others
 * keep reaching it through TCP.
 *
 * <p>Its priority sits between TCP's and shm's: where it is opened it takes the peers from TCP, and the rings take
 * the JVMs of this host back from it. It is opened only where {@code jrma.transports} names it, unless
 * {@link UcxParams#AUTO} is true: a UCX worker costs every job start-up time and memory, and on one host the rings
 * (and window memory shared through {@code /dev/shm}) already do what UCX's shared-memory transports would.
 */
public final class UcxProvider implements TransportProvider {
    /** The component's name. */
    public static final String NAME = "ucx";
    /** Above TCP's (10), below shm's (50). */
    public static final int PRIORITY = 30;
    /** The card of a JVM without a UCX worker (its start failed): peers reach it through TCP. */
    static final String NO_WORKER = "-";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public TransportQuery query(JobLayout layout) {
        if (layout.jvms() < 2) {
            return TransportQuery.declined("one JVM: its ranks reach each other in memory");
        }
        String why = UcxWorker.unavailableReason();
        if (why != null) {
            return TransportQuery.declined(why);
        }
        if (!UcxParams.named(layout.params()) && !Boolean.parseBoolean(UcxParams.AUTO.get(layout.params()))) {
            return TransportQuery.declined("UCX " + UcxWorker.version() + " is there, but jrma.transports does not name"
                    + " ucx and " + UcxParams.AUTO.name() + "=false");
        }
        String tls = UcxParams.TLS.get(layout.params());
        boolean rdma = Boolean.parseBoolean(UcxParams.RDMA.get(layout.params()));
        boolean atomics = rdma && Boolean.parseBoolean(UcxParams.ATOMICS.get(layout.params()));
        return TransportQuery.priority(PRIORITY, "UCX " + UcxWorker.version() + " (UCX_TLS="
                + (tls.isEmpty() ? "UCX's choice" : tls) + "): packets as tagged messages to every JVM shm does not"
                + " reach" + (rdma ? "; window puts and gets straight on the targets' registered memory" : "")
                + (atomics ? "; accumulates by UCP atomics (" + UcxParams.ATOMICS.name() + ")" : ""));
    }

    @Override
    public Opening open(Job job, String jobId, String secret) {
        UcxWorker worker;
        String failed;
        try {
            worker = UcxWorker.open(UcxParams.TLS.get(job.params()), true);
            failed = null;
        } catch (RuntimeException e) {
            worker = null;
            failed = e.getMessage();
            System.err.println("jrma: JVM " + job.jvmIndex() + " reaches its peers without UCX: " + failed);
        }
        UcxWorker w = worker;
        String card = w == null ? NO_WORKER : Base64.getEncoder().encodeToString(w.address());
        return new Opening() {
            @Override
            public String card() {
                return card;
            }

            @Override
            public Transport connect(String[] cards) {
                return w == null ? null : UcxTransport.connect(job, w, cards);
            }

            @Override
            public void abandon() {
                if (w != null) {
                    w.close();
                }
            }
        };
    }

    @Override
    public List<Param> params() {
        return UcxParams.ALL;
    }
}

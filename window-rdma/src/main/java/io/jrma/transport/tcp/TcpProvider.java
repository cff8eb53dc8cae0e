package io.jrma.transport.tcp;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.Param;
import io.jrma.spi.JobLayout;
import io.jrma.spi.Transport;
import io.jrma.spi.TransportProvider;
import io.jrma.spi.TransportQuery;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code tcp} transport component: the JVM's IO agent ({@link TcpTransport}), one connection per pair of JVMs
 * shared by all their ranks. It reaches every JVM of a job, so it is opened first and carries the control plane
 * the other transports set themselves up with; its card is the listening address.
 */
public final class TcpProvider implements TransportProvider {
    /** The lowest priority: any narrower transport that reaches a peer takes it over. */
    public static final int PRIORITY = 10;

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public TransportQuery query(JobLayout layout) {
        if (layout.jvms() < 2) {
            return TransportQuery.declined("one JVM: its ranks reach each other in memory");
        }
        return TransportQuery.priority(PRIORITY, "every JVM of the job, on any host (address from "
                + NetParams.INTERFACE.name() + "); carries the start-up, the control plane, aborts and goodbyes");
    }

    @Override
    public Opening open(Job job, String jobId, String secret) {
        TcpTransport tcp = TcpTransport.listen(job, jobId, secret);
        InetSocketAddress me = tcp.endpoint();
        String card = me.getAddress().getHostAddress() + " " + me.getPort();
        return new Opening() {
            @Override
            public String card() {
                return card;
            }

            @Override
            public Transport connect(String[] cards) {
                InetSocketAddress[] endpoints = new InetSocketAddress[cards.length];
                for (int j = 0; j < cards.length; j++) {
                    endpoints[j] = parse(cards[j], j);
                }
                tcp.connectMesh(endpoints);
                int[] remote = new int[job.size()];
                int n = 0;
                for (int r = 0; r < job.size(); r++) {
                    if (job.jvmOf(r) != job.jvmIndex()) {
                        remote[n++] = r;
                    }
                }
                job.addRemote(tcp, Arrays.copyOf(remote, n));
                return tcp;
            }

            @Override
            public void abandon() {
                tcp.close(0);
            }
        };
    }

    private static InetSocketAddress parse(String card, int jvm) {
        int space = card == null ? -1 : card.lastIndexOf(' ');
        if (space < 0) {
            throw new RmaException(ErrorClass.ERR_INTERN,
                    "JVM " + jvm + " published no TCP address (got '" + card + "')");
        }
        return new InetSocketAddress(card.substring(0, space), Integer.parseInt(card.substring(space + 1)));
    }

    @Override
    public List<Param> params() {
        return NetParams.ALL;
    }
}

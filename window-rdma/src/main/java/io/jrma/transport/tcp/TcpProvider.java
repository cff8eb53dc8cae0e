package io.jrma.transport.tcp;

import io.jrma.core.config.JobLayout;
import io.jrma.core.config.Param;
import io.jrma.core.os.HostId;
import io.jrma.core.runtime.Job;
import io.jrma.spi.TransportProvider;
import io.jrma.spi.TransportQuery;
import io.jrma.spi.transport.Transport;
import java.net.InetSocketAddress;
import java.util.ArrayList;
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
        boolean v6 = NetParams.FAMILY.getChoice(job.params(), "ipv4", "ipv6").equals("ipv6");
        String card = TcpCard.of(tcp.boundAddress(), v6).encode();
        return new Opening() {
            @Override
            public String card() {
                return card;
            }

            @Override
            public Transport connect(String[] cards) {
                String here = HostId.current();
                List<List<InetSocketAddress>> endpoints = new ArrayList<>();
                for (int j = 0; j < cards.length; j++) {
                    endpoints.add(TcpCard.parse(cards[j], j).candidates(here));
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

    @Override
    public List<Param> params() {
        return NetParams.ALL;
    }
}

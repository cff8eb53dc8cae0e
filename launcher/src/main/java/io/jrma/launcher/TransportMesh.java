package io.jrma.launcher;

import io.jrma.core.config.JobLayout;
import io.jrma.core.runtime.Job;
import io.jrma.spi.TransportProvider;
import io.jrma.spi.Transports;
import io.jrma.spi.transport.Transport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Opens the transports a job selects ({@link Transports#select}) in ascending priority, trades each one's card with
 * the other JVMs through whatever started the job (jrmarun's rendezvous, a PMI key-value space), and connects them
 * in the same order once every JVM's cards are known (TCP first: the others set themselves up over its control
 * plane). On failure, what was opened is abandoned.
 */
public final class TransportMesh {
    /** Trades this JVM's cards for every JVM's: {@code result[jvm][transport]}, in the order given. */
    public interface CardTrade {
        String[][] trade(String[] mine) throws IOException;
    }

    private TransportMesh() {
    }

    /** Returns the transports that reach a peer. */
    public static List<Transport> open(Job job, String jobId, String secret, CardTrade trade) throws IOException {
        List<TransportProvider> chosen = Transports.select(new JobLayout(job.size(), job.jvmCount(), job.params()));
        List<TransportProvider.Opening> openings = new ArrayList<>();
        try {
            String[] mine = new String[chosen.size()];
            for (TransportProvider p : chosen) {
                TransportProvider.Opening o = p.open(job, jobId, secret);
                mine[openings.size()] = o.card();
                openings.add(o);
            }
            String[][] all = trade.trade(mine);
            List<Transport> opened = new ArrayList<>();
            for (int i = 0; i < openings.size(); i++) {
                String[] column = new String[all.length];
                for (int j = 0; j < all.length; j++) {
                    column[j] = all[j][i];
                }
                Transport t = openings.get(i).connect(column);
                if (t != null) {
                    opened.add(t);
                }
            }
            return opened;
        } catch (IOException | RuntimeException e) {
            openings.forEach(TransportProvider.Opening::abandon);
            throw e;
        }
    }
}

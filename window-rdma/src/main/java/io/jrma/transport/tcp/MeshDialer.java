package io.jrma.transport.tcp;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import io.jrma.core.runtime.Job;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The dialing side of the mesh: a JVM connects to every JVM with a lower index ({@link TcpTransport#connectMesh}),
 * trying the addresses that JVM published in order, and proves the job secret ({@link Handshake#client}). The JVMs
 * with a higher index dial it: the {@link TcpAcceptor} admits them.
 *
 * <p>Stateless; the thread connecting the mesh.
 */
final class MeshDialer {
    /** How long one of several addresses of a JVM may take to accept before the next is tried. */
    static final int CANDIDATE_TIMEOUT_MS = 3_000;

    private MeshDialer() {
    }

    /** Connects to JVM {@code j} at the first of {@code at} that answers, and proves the secret there. */
    static SocketChannel dial(Job job, String jobId, String secret, int handshakeTimeoutMs, int j,
            List<InetSocketAddress> at, long deadline) throws IOException {
        int me = job.jvmIndex();
        if (at.isEmpty()) {
            throw new RmaException(ErrorClass.ERR_OTHER, "JVM " + me + " cannot reach JVM " + j + ": it published no"
                    + " address this host can connect to (set " + NetParams.INTERFACE.name() + ")");
        }
        List<String> failures = new ArrayList<>();
        for (int k = 0; k < at.size(); k++) {
            long left = Math.max(1, deadline - System.currentTimeMillis());
            int timeout = (int) (k == at.size() - 1 ? left : Math.min(left, CANDIDATE_TIMEOUT_MS));
            SocketChannel ch = SocketChannel.open();
            try {
                ch.socket().connect(at.get(k), timeout);
            } catch (IOException e) {
                ch.close();
                failures.add(at.get(k) + ": " + e.getMessage());
                continue;
            }
            try {
                Handshake.client(ch.socket(), jobId, secret, me, handshakeTimeoutMs);
                return ch;
            } catch (IOException e) {
                ch.close();
                throw new RmaException(ErrorClass.ERR_OTHER, "JVM " + me + " cannot connect to JVM " + j + " at "
                        + at.get(k) + ": " + e.getMessage(), e);
            }
        }
        throw new RmaException(ErrorClass.ERR_OTHER, "JVM " + me + " cannot connect to JVM " + j + " ("
                + String.join("; ", failures) + "; " + NetParams.INTERFACE.name()
                + " chooses where the agents listen)");
    }
}

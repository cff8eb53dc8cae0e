package io.jrma.transport.tcp;

import io.jrma.core.auth.Handshake;
import io.jrma.core.runtime.Job;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The tests' job of two JVMs over TCP, both in this test JVM: {@code jobs[0]} and {@code jobs[1]} (one rank each) with
 * their IO agents {@code tcp[0]} and {@code tcp[1]}, a fresh job id and secret, connected over real sockets. Made in
 * steps where a test needs to act between them ({@link #listen}, {@link #connect}, {@link #addRemotes},
 * {@link #start}), or at once ({@link #mesh}); {@link #close} stops what was started and closes both agents.
 *
 * <p>Threads: the test's thread.
 */
final class TcpPair implements AutoCloseable {
    /** How long the two agents may take to connect. */
    private static final long MESH_TIMEOUT_S = 20;
    /** How long each agent's close waits for its goodbye to drain and the peer to close. */
    private static final long CLOSE_MS = 200;

    final String jobId = Handshake.newJobId();
    final String secret = Handshake.newSecret();
    final Job[] jobs;
    final TcpTransport[] tcp;
    private boolean started;

    private TcpPair(Map<String, String> params) {
        jobs = new Job[] {new Job(2, params, 0, new int[] {0, 1}), new Job(2, params, 1, new int[] {0, 1})};
        tcp = new TcpTransport[] {TcpTransport.listen(jobs[0], jobId, secret),
                TcpTransport.listen(jobs[1], jobId, secret)};
    }

    /** Both agents listening (at {@link NetParams#INTERFACE} from {@code params}), not yet connected. */
    static TcpPair listen(Map<String, String> params) {
        return new TcpPair(params);
    }

    /** Both agents connected, each the other's remote transport. */
    static TcpPair mesh(Map<String, String> params) throws Exception {
        TcpPair p = listen(params);
        try {
            return p.connect().addRemotes();
        } catch (Exception | Error e) {
            p.close();
            throw e;
        }
    }

    /** Connects the agents at their {@link TcpTransport#endpoint}s. */
    TcpPair connect() throws Exception {
        return connect(List.of(List.of(tcp[0].endpoint()), List.of(tcp[1].endpoint())));
    }

    /** Connects the agents, JVM {@code j} tried at the addresses {@code endpoints.get(j)} in order. */
    TcpPair connect(List<List<InetSocketAddress>> endpoints) throws Exception {
        List<List<InetSocketAddress>> eps = new ArrayList<>(endpoints);
        CompletableFuture<Void> a = CompletableFuture.runAsync(() -> tcp[0].connectMesh(eps));
        tcp[1].connectMesh(eps);
        a.get(MESH_TIMEOUT_S, TimeUnit.SECONDS);
        return this;
    }

    /** Each job reaches the other's rank through its agent. */
    TcpPair addRemotes() {
        jobs[0].addRemote(tcp[0], 1);
        jobs[1].addRemote(tcp[1], 0);
        return this;
    }

    /** Starts both jobs' progress agents (stopped by {@link #close}). */
    TcpPair start() {
        for (Job j : jobs) {
            j.start();
        }
        started = true;
        return this;
    }

    /** Stops the jobs if started and closes the agents, JVM 1's first. */
    @Override
    public void close() {
        for (int i = jobs.length - 1; i >= 0; i--) {
            if (started) {
                jobs[i].stop();
            }
            tcp[i].close(CLOSE_MS);
        }
    }
}

package io.jrma.transport.tcp;

import io.jrma.core.auth.Handshake;
import io.jrma.core.auth.HandshakeSlots;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The accepting side of a TCP agent's listening socket, for the job's lifetime: every connection's handshake
 * ({@link Handshake#server}) runs on a thread of its own, so a connection that sends nothing or dawdles (a stranger, a
 * port scanner) holds up no JVM of the job. Connections that proved the secret come out of {@link #next} with the JVM
 * index they claimed, until the mesh is complete ({@link #meshComplete}); after that each one is a duplicate and
 * refused. Refusals are counted in the transport's counter.
 *
 * <p>At most {@value #MAX_HANDSHAKES} (or the job's JVM count, if larger) handshakes run at once, so a flood cannot
 * make the agent start threads without bound. A connection beyond that evicts the handshake that has been open
 * longest ({@link HandshakeSlots}): an honest JVM's handshake ends
 * within milliseconds of its connect, so the old ones are the silent or stalled ones. (Before, the agent took the
 * connections one at a time during start-up, and each silent one delayed the mesh by the handshake timeout.)
 *
 * <p>Threads: {@link #next} from the thread connecting the mesh; {@link #meshComplete} and {@link #close} from any;
 * the accept thread and the handshake threads are daemons of this object.
 */
final class TcpAcceptor implements AutoCloseable {
    /** Handshakes that may run at once (at least the job's JVM count). */
    static final int MAX_HANDSHAKES = 64;
    /** After a failed accept (no file descriptor left, say), the acceptor pauses this long before the next. */
    private static final long ACCEPT_RETRY_NS = 10_000_000;

    /** A connection that proved the job secret, and the JVM index it claimed. */
    record Admitted(int jvm, SocketChannel channel) {
    }

    private final ServerSocketChannel server;
    private final String jobId;
    private final String secret;
    private final int timeoutMs;
    private final AtomicLong refused;
    private final AtomicInteger accepted = new AtomicInteger();
    private final LinkedBlockingQueue<Admitted> admitted = new LinkedBlockingQueue<>();
    /** The handshakes running (the one open longest gives way to a newcomer beyond the bound). */
    private final HandshakeSlots<SocketChannel> running;
    private boolean complete; // guarded by admitted
    private volatile boolean closing;

    /**
     * Starts accepting on {@code server} (a blocking channel).
     *
     * @param refused counts every refused connection (the transport's {@code handshakesRefused})
     */
    TcpAcceptor(ServerSocketChannel server, String jobId, String secret, int timeoutMs, int jvms, AtomicLong refused) {
        this.server = server;
        this.jobId = jobId;
        this.secret = secret;
        this.timeoutMs = timeoutMs;
        this.running = new HandshakeSlots<>(Math.max(MAX_HANDSHAKES, jvms));
        this.refused = refused;
        Thread t = new Thread(this::acceptLoop, "jrma-tcp-acceptor");
        t.setDaemon(true);
        t.start();
    }

    /** Connections accepted so far (tests). */
    int accepted() {
        return accepted.get();
    }

    /** The next connection that proved the secret, waiting up to {@code waitMs}; null if none came. */
    Admitted next(long waitMs) throws InterruptedException {
        return admitted.poll(Math.max(0, waitMs), TimeUnit.MILLISECONDS);
    }

    /** Every JVM is connected: connections admitted but not taken, and all later ones, are duplicates. */
    void meshComplete() {
        synchronized (admitted) {
            complete = true;
            Admitted a;
            while ((a = admitted.poll()) != null) {
                refuse(a.channel());
            }
        }
    }

    private void acceptLoop() {
        while (!closing) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                return; // the transport closed
            } catch (IOException e) {
                if (!closing) {
                    refused.incrementAndGet();
                    LockSupport.parkNanos(ACCEPT_RETRY_NS);
                }
                continue;
            }
            accepted.incrementAndGet();
            HandshakeSlots.Slot<SocketChannel> p = running.enter(ch);
            Thread t = new Thread(() -> {
                try {
                    handshake(p);
                } finally {
                    running.leave(p);
                }
            }, "jrma-tcp-handshake");
            t.setDaemon(true);
            t.start();
        }
    }

    private void handshake(HandshakeSlots.Slot<SocketChannel> p) {
        int jvm;
        try {
            jvm = Handshake.server(p.connection().socket(), jobId, secret, timeoutMs);
        } catch (IOException e) {
            refuse(p.connection());
            return;
        }
        if (!running.leave(p)) {
            refuse(p.connection()); // evicted as it proved the secret: its channel is closed
            return;
        }
        synchronized (admitted) {
            if (!complete && !closing) {
                admitted.add(new Admitted(jvm, p.connection()));
                return;
            }
        }
        refuse(p.connection()); // knows the secret, but the mesh is complete: a duplicate
    }

    private void refuse(SocketChannel ch) {
        if (!closing) {
            refused.incrementAndGet();
        }
        closeQuietly(ch);
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // dropping it
        }
    }

    /**
     * Stops admitting: the handshakes still running and the connections admitted and not taken are closed. The
     * listening socket is the transport's to close (which ends the accept thread).
     */
    @Override
    public void close() {
        closing = true;
        running.closeAll();
        synchronized (admitted) {
            complete = true;
            Admitted a;
            while ((a = admitted.poll()) != null) {
                closeQuietly(a.channel());
            }
        }
    }
}

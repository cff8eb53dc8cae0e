package io.jrma.launcher;

import io.jrma.core.auth.Handshake;
import io.jrma.core.auth.HandshakeSlots;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The launcher's side of JVMs joining a job: the rendezvous socket, and the handshake of every connection to it on a
 * thread of its own. A connection that sends nothing, garbage or a wrong proof (a process without the job secret, a
 * fuzzer) is refused within the handshake timeout and costs the JVMs that hold the secret nothing: they are not
 * queued behind it. Connections that proved the secret come out of {@link #next} with the JVM index they claimed.
 *
 * <p>At most {@value #MAX_HANDSHAKES} handshakes run at once (a flood of connections cannot make the launcher start
 * threads without bound). A connection beyond that evicts the handshake that has been open longest: it is closed and
 * counted as refused, and the newcomer takes its place. An honest JVM's handshake ends within milliseconds of its
 * connect, so the handshakes that are old when the limit is reached are the silent or stalled ones; refusing the
 * newcomer instead (as before) let 64 silent connections held open keep every JVM of the job out until the timeout.
 * (A handshake driven by a selector, with no thread per connection, would need a second, non-blocking implementation
 * of {@link Handshake}; eviction keeps the one and bounds the threads the same.)
 *
 * <p>Threads: {@link #next} and {@link #close} from the launcher thread that starts the JVMs; an accept thread and the
 * handshake threads are daemons of this object; the counters from any thread.
 */
final class RendezvousJoins implements AutoCloseable {
    /** Handshakes that may run at once. */
    static final int MAX_HANDSHAKES = 64;
    /** Connections the listening socket queues before they are accepted. */
    private static final int BACKLOG = 64;

    /** A connection that proved the job secret, and the JVM index it claimed. */
    record Joined(int jvm, Socket socket) {
    }

    /** Tests only: told of every rendezvous that opens (its port and counters), before any JVM is started. */
    static volatile Consumer<RendezvousJoins> openedForTests;

    private final ServerSocket server;
    private final String linkId;
    private final String secret;
    private final int timeoutMs;
    private final LinkedBlockingQueue<Joined> joined = new LinkedBlockingQueue<>();
    /** The handshakes running (the one open longest gives way to a newcomer beyond the bound). */
    private final HandshakeSlots<Socket> running = new HandshakeSlots<>(MAX_HANDSHAKES);
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private volatile String lastRefusal;
    private boolean closed; // guarded by joined

    /**
     * Listens on an ephemeral port of {@code bind} and starts accepting.
     *
     * @param timeoutMs how long each handshake waits for the client's next message
     */
    RendezvousJoins(InetAddress bind, String linkId, String secret, int timeoutMs) throws IOException {
        this.server = new ServerSocket(0, BACKLOG, bind);
        this.linkId = linkId;
        this.secret = secret;
        this.timeoutMs = timeoutMs;
        Thread t = new Thread(this::acceptLoop, "jrma-launcher-rendezvous");
        t.setDaemon(true);
        t.start();
        Consumer<RendezvousJoins> hook = openedForTests;
        if (hook != null) {
            hook.accept(this);
        }
    }

    int port() {
        return server.getLocalPort();
    }

    /** Connections accepted so far (each is either joined or refused, once its handshake ended). */
    int accepted() {
        return accepted.get();
    }

    /** Connections refused so far: a failed or timed-out handshake, or one evicted by a newcomer. */
    int refused() {
        return refused.get();
    }

    /** Why the last connection was refused, or null. */
    String lastRefusal() {
        return lastRefusal;
    }

    /** The next connection that proved the secret, waiting up to {@code waitMs}; null if none came. */
    Joined next(long waitMs) throws InterruptedException {
        return joined.poll(Math.max(0, waitMs), TimeUnit.MILLISECONDS);
    }

    private void acceptLoop() {
        while (true) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            accepted.incrementAndGet();
            HandshakeSlots.Slot<Socket> p = running.enter(s);
            Thread t = new Thread(() -> {
                try {
                    handshake(p);
                } finally {
                    running.leave(p);
                }
            }, "jrma-launcher-handshake");
            t.setDaemon(true);
            t.start();
        }
    }

    private void handshake(HandshakeSlots.Slot<Socket> p) {
        Socket s = p.connection();
        int jvm;
        try {
            jvm = Handshake.server(s, linkId, secret, timeoutMs);
            s.setTcpNoDelay(true);
        } catch (IOException e) {
            refuse(s, p.evicted() ? "open longest of " + MAX_HANDSHAKES + " handshakes at once: closed for a newcomer"
                    : e.getMessage());
            return;
        }
        if (!running.leave(p)) { // evicted just as it proved the secret: its socket is closed
            refuse(s, "open longest of " + MAX_HANDSHAKES + " handshakes at once: closed for a newcomer");
            return;
        }
        synchronized (joined) {
            if (!closed) {
                joined.add(new Joined(jvm, s));
                return;
            }
        }
        Rendezvous.closeQuietly(s); // the JVMs are all in (or start-up failed): a late one is not wanted
    }

    private void refuse(Socket s, String why) {
        lastRefusal = why;
        refused.incrementAndGet();
        Rendezvous.closeQuietly(s);
    }

    /** Stops accepting; handshakes still running and connections not taken by {@link #next} are closed. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        running.closeAll(); // a handshake still running now cannot be wanted
        synchronized (joined) {
            closed = true;
            Joined j;
            while ((j = joined.poll()) != null) {
                Rendezvous.closeQuietly(j.socket());
            }
        }
    }
}

package io.jrma.core.auth;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The handshakes a listening side runs at once, each on a thread of its own, bounded: a connection beyond the bound
 * takes the place of the handshake that has been open longest, whose connection is closed (its thread's read fails
 * and it refuses). Honest clients answer within milliseconds, so the handshakes open longest are the silent ones: a
 * stranger holding many connections open cannot keep a client that holds the secret out, nor make the side start
 * threads without bound. Used by jrmarun's rendezvous and by the TCP agent.
 *
 * <p>Threads: {@link #enter} from the accepting thread, {@link #leave} from each handshake's thread, {@link #closeAll}
 * from any; all under this object's lock.
 *
 * @param <C> the connection (a socket or a channel)
 */
public final class HandshakeSlots<C extends Closeable> {
    /** One handshake's place; {@link #evicted} once a newcomer took it. */
    public static final class Slot<C> {
        private final C connection;
        private volatile boolean evicted;

        private Slot(C connection) {
            this.connection = connection;
        }

        /** The handshake's connection. */
        public C connection() {
            return connection;
        }

        /** Whether a newcomer took this handshake's place (its connection is closed). */
        public boolean evicted() {
            return evicted;
        }
    }

    private final int max;
    /** The handshakes running, oldest first. */
    private final LinkedHashSet<Slot<C>> running = new LinkedHashSet<>(); // guarded by this

    /** At most {@code max} handshakes at once. */
    public HandshakeSlots(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("at least one handshake at once, not " + max);
        }
        this.max = max;
    }

    /** The bound. */
    public int max() {
        return max;
    }

    /**
     * A handshake on {@code connection} begins; when {@link #max} run already, the one open longest is evicted and its
     * connection closed.
     */
    public Slot<C> enter(C connection) {
        Slot<C> s = new Slot<>(connection);
        Slot<C> oldest = null;
        synchronized (this) {
            if (running.size() >= max) {
                oldest = running.iterator().next();
                running.remove(oldest);
                oldest.evicted = true; // under the lock: a handshake that ended first is kept
            }
            running.add(s);
        }
        if (oldest != null) {
            closeQuietly(oldest.connection); // its thread's read fails now; it refuses
        }
        return s;
    }

    /**
     * A handshake ended (call it before handing a connection that proved the secret on, and again when the thread
     * ends: the second call changes nothing); false if it was evicted first, whose connection is closed.
     */
    public boolean leave(Slot<C> s) {
        synchronized (this) {
            return running.remove(s) || !s.evicted;
        }
    }

    /** Closes the connections of every handshake still running (the side stops admitting). */
    public void closeAll() {
        List<Slot<C>> left;
        synchronized (this) {
            left = new ArrayList<>(running);
        }
        for (Slot<C> s : left) {
            closeQuietly(s.connection);
        }
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // dropping it
        }
    }
}

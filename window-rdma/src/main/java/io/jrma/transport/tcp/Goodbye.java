package io.jrma.transport.tcp;

import java.util.concurrent.locks.LockSupport;

/**
 * The orderly end of a TCP agent's connections ({@link TcpTransport#close(long)}): a BYE to every JVM after
 * everything queued ({@link #say}), then, once the transport counts as closing (a peer that closes from now on is no
 * error), FIN after the BYE and what the peers still send read until each has closed its side too ({@link #linger}).
 *
 * <p>Stateless; the thread closing the transport.
 */
final class Goodbye {
    /** How often a closing transport looks whether its peers have closed their sides. */
    private static final long LINGER_POLL_NS = 200_000;

    private Goodbye() {
    }

    /** Queues a BYE behind everything on every open connection and writes until the output drained or deadline. */
    static void say(TcpConnection[] all, long deadline) {
        for (TcpConnection c : all) {
            if (!c.closed) {
                c.enqueue(Frames.small(FrameDescriptor.BYE, new byte[0]));
                c.tryWrite();
            }
        }
        for (TcpConnection c : all) {
            while (!c.closed && c.queuedBytes.get() > 0 && System.currentTimeMillis() < deadline) {
                c.tryWrite();
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Shuts every drained connection's output, reads what the peers send until each has closed its side or until
     * {@code deadline}, then closes every connection.
     */
    static void linger(TcpConnection[] all, long deadline) {
        // An orderly end on both sides: FIN after the BYE, then what the peers still send is read until each has
        // closed its side as well. Closing with their frames unread would reset the connections, and a reset
        // discards what the kernel still holds of this side's output, so a peer still running (its END late) saw
        // the connection end without a goodbye and aborted a finished job (issue 34, fault 4).
        for (TcpConnection c : all) {
            if (!c.closed && c.queuedBytes.get() == 0) {
                c.shutdownOutput();
            }
        }
        boolean allEnded = false;
        while (!allEnded && System.currentTimeMillis() < deadline) {
            allEnded = true;
            for (TcpConnection c : all) {
                allEnded &= c.discardInput();
            }
            if (!allEnded) {
                LockSupport.parkNanos(LINGER_POLL_NS);
            }
        }
        for (TcpConnection c : all) {
            c.discardInput(); // what came since: a socket closed with unread input is reset
            c.close();
        }
    }
}

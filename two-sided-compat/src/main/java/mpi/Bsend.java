package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.msg.Messenger;
import io.jrma.msg.MsgRequest;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The buffer of buffered-mode sends (MPI_BUFFER_ATTACH, MPI_BSEND): a buffered send copies the message out of
 * the user's buffer and returns at once, whether or not a receive has been posted; the copy travels as a
 * standard nonblocking send. A message of at most {@link #EAGER_LIMIT} bytes goes as Open MPI sends it, eagerly
 * without the attached buffer: it needs none and takes no room in it (programs written for Open MPI rely on
 * this). A larger copy must fit in the attached buffer, as MPI says: it takes its packed size plus
 * {@link MPI#BSEND_OVERHEAD} bytes until it has been sent, and with no buffer attached or no room left the send
 * fails with ERR_BUFFER. The Java array given to attachBuffer only sets the capacity (jrma keeps its copies on
 * the heap), and is given back by detachBuffer once every buffered message has been sent.
 *
 * <p>One per rank (the {@code mpi} package is loaded per rank); its methods are synchronized, so any thread of
 * the rank may send.
 */
final class Bsend {
    /** A buffered message still in flight. */
    private static final class Pending {
        final Comm comm;
        final MsgRequest req;
        final long bytes;

        Pending(Comm comm, MsgRequest req, long bytes) {
            this.comm = comm;
            this.req = req;
            this.bytes = bytes;
        }
    }

    /**
     * The largest message (packed bytes) sent without the attached buffer: Open MPI's eager limit between ranks
     * of a host (its shared-memory transport's 4 KiB), up to which its buffered sends copy the message straight
     * into a transport fragment and never use the attached buffer.
     */
    static final int EAGER_LIMIT = 4096;

    private byte[] buffer;
    private long used;
    private final List<Pending> pending = new ArrayList<>();

    synchronized void attach(byte[] b) {
        if (b == null) {
            throw new RmaException(ErrorClass.ERR_BUFFER, "attachBuffer: the buffer is null");
        }
        if (buffer != null) {
            throw new RmaException(ErrorClass.ERR_BUFFER, "attachBuffer: a buffer of " + buffer.length
                    + " bytes is already attached (detach it first)");
        }
        buffer = b;
    }

    /** Waits until every buffered message has been sent, then detaches and returns the buffer (or null). */
    synchronized byte[] detach() {
        drain(null);
        byte[] b = buffer;
        buffer = null;
        return b;
    }

    /** Copies {@code count} elements of {@code type} from {@code b} and sends the copy without waiting. */
    synchronized void send(Comm comm, Messenger m, Bufs.Msg b, int count, Datatype type, int dest, int tag) {
        if (count < 0) {
            throw new RmaException(ErrorClass.ERR_COUNT, "bSend: negative count " + count);
        }
        reap();
        long bytes = (long) count * Datatype.jt(type).size();
        if (bytes <= EAGER_LIMIT) {
            byte[] copy = UserOps.pack(b, count, type);
            pending.add(new Pending(comm, m.isend(copy, 0, copy.length, io.jrma.Datatype.BYTE, dest, tag), 0));
            return;
        }
        long need = bytes + MPI.BSEND_OVERHEAD;
        if (buffer == null) {
            throw new RmaException(ErrorClass.ERR_BUFFER, "bSend: no buffer is attached for buffered sends"
                    + " (MPI.attachBuffer(new byte[size + MPI.BSEND_OVERHEAD]))");
        }
        if (used + need > buffer.length) {
            throw new RmaException(ErrorClass.ERR_BUFFER, "bSend: the attached buffer of " + buffer.length
                    + " bytes has " + (buffer.length - used) + " free, the message needs " + need
                    + " (its size plus MPI.BSEND_OVERHEAD)");
        }
        byte[] copy = UserOps.pack(b, count, type);
        MsgRequest r = m.isend(copy, 0, copy.length, io.jrma.Datatype.BYTE, dest, tag);
        used += need;
        pending.add(new Pending(comm, r, need));
    }

    /** Completes the buffered messages of {@code comm} (all of them if null): before the communicator is freed. */
    synchronized void drain(Comm comm) {
        for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (comm == null || p.comm == comm) {
                try {
                    p.req.waitFor();
                } finally {
                    used -= p.bytes;
                    it.remove();
                }
            }
        }
    }

    /** Releases the room of the messages that have been sent. */
    private void reap() {
        for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            boolean done;
            try {
                done = p.req.test();
            } catch (RmaException e) {
                done = true; // the failure belongs to a send that already returned; its room is free again
            }
            if (done) {
                used -= p.bytes;
                it.remove();
            }
        }
    }
}

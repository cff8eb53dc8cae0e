package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.Buffer;

/**
 * A matched message (MPI_Message) from {@link #mProbe} or {@link #imProbe}, to be received with {@link #mRecv}
 * or {@link #imRecv}. jrma's messaging engine has no matched-probe queue: the message is received as the next
 * one from its source with its tag, which is the probed message as long as no other receive of this rank takes
 * it in between (MPI's non-overtaking rule); a program that probes in one thread and receives with wildcards in
 * another may see them swapped.
 */
public final class Message {
    private Comm comm;
    private int source = MPI.UNDEFINED;
    private int tag;
    private boolean noProc;

    /** A null message (MPI_MESSAGE_NULL). */
    public Message() {
    }

    /** Whether this is MPI_MESSAGE_NULL (never probed, or already received). */
    public boolean isNull() {
        return comm == null && !noProc;
    }

    /** Whether this is MPI_MESSAGE_NO_PROC (a probe of PROC_NULL). */
    public boolean isNoProc() {
        return noProc;
    }

    /** Waits for a matching message and matches it (MPI_MPROBE). */
    public Status mProbe(int source, int tag, Comm comm) throws MPIException {
        Status s = comm.probe(source, tag);
        match(comm, s);
        return s;
    }

    /** Matches a message if one has arrived (MPI_IMPROBE): its status, or null. */
    public Status imProbe(int source, int tag, Comm comm) throws MPIException {
        Status s = comm.iProbe(source, tag);
        if (s != null) {
            match(comm, s);
        }
        return s;
    }

    private void match(Comm c, Status s) {
        noProc = s.getSource() == MPI.PROC_NULL;
        comm = noProc ? null : c;
        source = s.getSource();
        tag = s.getTag();
    }

    /** Receives the matched message (MPI_MRECV); the message becomes null. */
    public Status mRecv(Object buf, int count, Datatype type) throws MPIException {
        Comm c = take();
        if (c == null) {
            return new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, false, 0, 0);
        }
        return c.recv(buf, count, type, source, tag);
    }

    /** Receives the matched message into a direct buffer (MPI_IMRECV). */
    public Request imRecv(Buffer buf, int count, Datatype type) throws MPIException {
        Comm c = take();
        if (c == null) {
            MPI.assertDirectBuffer(buf);
            return Request.done(MPI.COMM_WORLD, new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, false, 0, 0));
        }
        return c.iRecv(buf, count, type, source, tag);
    }

    private Comm take() throws MPIException {
        MPI.check();
        if (noProc) {
            noProc = false;
            return null;
        }
        Comm c = comm;
        if (c == null) {
            throw Err.handle(MPI.COMM_WORLD.errh, "MPI_COMM_WORLD", new RmaException(ErrorClass.ERR_REQUEST,
                    "mRecv: the message is MESSAGE_NULL (not probed, or already received)"));
        }
        comm = null;
        return c;
    }
}

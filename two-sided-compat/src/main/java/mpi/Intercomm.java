package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;

/**
 * An inter-communicator. jrma has none: creating one ({@link Comm#createIntercomm}, spawn, connect, ...) fails
 * with ERR_UNSUPPORTED_OPERATION, and {@link #getParent()} returns a null communicator, as for a program that
 * was not spawned.
 */
public final class Intercomm extends Comm {
    Intercomm() {
        super(null, null);
    }

    private static RmaException unsupported() {
        return new RmaException(ErrorClass.ERR_UNSUPPORTED_OPERATION, "inter-communicators are not supported by jrma");
    }

    @Override
    public Intercomm clone() {
        return (Intercomm) super.clone();
    }

    @Override
    public Intercomm dup() throws MPIException {
        return run(() -> {
            throw unsupported();
        });
    }

    @Override
    public Intercomm iDup() throws MPIException {
        return dup();
    }

    @Override
    public Intercomm dupWithInfo(Info info) throws MPIException {
        return dup();
    }

    /** Size of the remote group (MPI_COMM_REMOTE_SIZE). */
    public int getRemoteSize() throws MPIException {
        return run(() -> {
            throw unsupported();
        });
    }

    /** The remote group (MPI_COMM_REMOTE_GROUP). */
    public Group getRemoteGroup() throws MPIException {
        return run(() -> {
            throw unsupported();
        });
    }

    /** An intra-communicator of both groups (MPI_INTERCOMM_MERGE). */
    public Intracomm merge(boolean high) throws MPIException {
        return run(() -> {
            throw unsupported();
        });
    }

    /** The parent of a spawned program (MPI_COMM_GET_PARENT): in jrma always a null communicator. */
    public static Intercomm getParent() throws MPIException {
        MPI.check();
        return new Intercomm();
    }
}

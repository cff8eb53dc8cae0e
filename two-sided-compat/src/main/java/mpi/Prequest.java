package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.msg.MsgRequest;
import java.util.function.Supplier;

/**
 * A persistent request (MPI_SEND_INIT, MPI_RECV_INIT, ...): created inactive, started with {@link #start}, and
 * inactive again (not null) once a wait or test reports it complete, ready to be started again.
 */
public final class Prequest extends Request {
    private final Supplier<MsgRequest> starter;
    private final Bufs.Msg buffer;

    Prequest(Site site, Supplier<MsgRequest> starter, Bufs.Msg buffer) {
        this.site = site;
        this.starter = starter;
        this.buffer = buffer;
    }

    @Override
    boolean persistent() {
        return true;
    }

    /** Starts the operation (MPI_START); ERR_REQUEST if it is already active or the request was freed. */
    public void start() throws MPIException {
        MPI.check();
        try {
            if (isNull() || active) {
                throw new RmaException(ErrorClass.ERR_REQUEST, "persistent request " + (isNull() ? "was freed"
                        : "is already active: wait for it before starting it again"));
            }
            start(starter.get(), buffer);
        } catch (RuntimeException e) {
            throw Err.handle(site.errh(), site.siteName(), e);
        }
    }

    /** Starts every request of the array (MPI_STARTALL). */
    public static void startAll(Prequest[] requests) throws MPIException {
        for (Prequest r : requests) {
            r.start();
        }
    }
}

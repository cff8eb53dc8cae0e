package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;

/**
 * What a receive, probe or wait learned about a message (MPI_Status): its source, tag and size, the error of
 * the operation, whether it was cancelled, and (for waitAny and friends) the index of the request.
 */
public final class Status {
    private int source;
    private final int tag;
    private int error;
    private boolean cancelled;
    /** Bytes of data received (or waiting, for a probe). */
    private long bytes;
    /**
     * As in Open MPI's binding: 0 unless the status comes from waitAny, testAny, waitSome or testSome (the
     * request's index there, UNDEFINED when no request was active).
     */
    private int index;
    private boolean indexed;

    Status(int source, int tag, int error, boolean cancelled, long bytes, int index) {
        this.source = source;
        this.tag = tag;
        this.error = error;
        this.cancelled = cancelled;
        this.bytes = bytes;
        this.index = index;
    }

    /** From the messaging engine's status. */
    Status(io.jrma.msg.Status s) {
        this(s.source(), s.tag(), s.error().code(), s.cancelled(), s.bytes(), 0);
    }

    /**
     * From the messaging engine's status of a message on {@code site}: on an inter-communicator the source
     * is a rank of the remote group.
     */
    static Status of(io.jrma.msg.Status s, Site site) {
        Status st = new Status(s);
        if (site instanceof Intercomm ic) {
            st.source = ic.remoteRankOf(st.source);
        }
        return st;
    }

    /** This status of a message received on {@code site}, its source made a rank of the remote group there. */
    Status remoteOn(Site site) {
        if (site instanceof Intercomm ic) {
            source = ic.remoteRankOf(source);
        }
        return this;
    }

    /**
     * Makes the status of a successful blocking receive straight from what the messaging engine learned (one object
     * per receive, not two); the source is the communicator's, see {@code Comm.remote}.
     */
    static final io.jrma.msg.Status.Maker<Status> MAKER =
            (source, tag, bytes) -> new Status(source, tag, MPI.SUCCESS, false, bytes, 0);

    /** The empty status: of a completed send, of a null request, of an RMA request. */
    static Status empty() {
        return new Status(MPI.ANY_SOURCE, MPI.ANY_TAG, MPI.SUCCESS, false, 0, 0);
    }

    Status withIndex(int i) {
        index = i;
        indexed = true;
        return this;
    }

    Status withError(int e) {
        error = e;
        return this;
    }

    /**
     * Elements of {@code datatype} received (MPI_GET_COUNT), or {@link MPI#UNDEFINED} if the data is not a
     * whole number of them.
     */
    public int getCount(Datatype datatype) throws MPIException {
        MPI.check();
        long size = type(datatype).size();
        if (size == 0) {
            return bytes == 0 ? 0 : MPI.UNDEFINED;
        }
        return bytes % size == 0 ? (int) (bytes / size) : MPI.UNDEFINED;
    }

    /** Whether the operation was cancelled (MPI_TEST_CANCELLED). */
    public boolean isCancelled() throws MPIException {
        MPI.check();
        return cancelled;
    }

    /** Basic elements received (MPI_GET_ELEMENTS), or {@link MPI#UNDEFINED}. */
    public int getElements(Datatype datatype) throws MPIException {
        MPI.check();
        type(datatype);
        long n = datatype.elements(bytes);
        return n > Integer.MAX_VALUE ? MPI.UNDEFINED : (int) n;
    }

    /** Basic elements received, as a 64-bit count (MPI_GET_ELEMENTS_X). */
    public Count getElementsX(Datatype datatype) throws MPIException {
        MPI.check();
        type(datatype);
        return new Count(datatype.elements(bytes));
    }

    /** Sets the number of basic elements of {@code datatype} this status reports (MPI_STATUS_SET_ELEMENTS). */
    public void setElements(Datatype datatype, int count) throws MPIException {
        setElementsX(datatype, new Count(count));
    }

    /** Sets the number of basic elements (MPI_STATUS_SET_ELEMENTS_X). */
    public void setElementsX(Datatype datatype, Count count) throws MPIException {
        MPI.check();
        io.jrma.Datatype t = type(datatype);
        long per = t.layout().elementCount();
        if (count.getCount() < 0) {
            throw Err.raise(MPI.COMM_WORLD.errh, MPI.ERR_COUNT, "MPI_ERR_COUNT: negative element count",
                    "MPI_COMM_WORLD", null);
        }
        bytes = per == 0 ? 0 : count.getCount() * t.size() / per;
    }

    /** Sets the cancelled flag (MPI_STATUS_SET_CANCELLED). */
    public void setCancelled(boolean flag) throws MPIException {
        MPI.check();
        cancelled = flag;
    }

    /** The source rank (MPI_SOURCE): {@link MPI#PROC_NULL} for a receive from it. */
    public int getSource() {
        return source;
    }

    /** The tag (MPI_TAG). */
    public int getTag() {
        return tag;
    }

    /** The error class of the operation (MPI_ERROR), e.g. {@link MPI#ERR_TRUNCATE}. */
    public int getError() {
        return error;
    }

    /**
     * The index of the request this status belongs to in the array given to waitAny, testAny, waitSome or
     * testSome (UNDEFINED there when no request was active); 0 for any other status, as in Open MPI.
     */
    public int getIndex() {
        return index;
    }

    /** Bytes of data (jrma extension, for tests and diagnostics). */
    long bytes() {
        return bytes;
    }

    private static io.jrma.Datatype type(Datatype d) throws MPIException {
        if (d == null || d.t == null) {
            throw Err.raise(MPI.COMM_WORLD.errh, MPI.ERR_TYPE,
                    "MPI_ERR_TYPE: datatype is null or freed", "MPI_COMM_WORLD",
                    new RmaException(ErrorClass.ERR_TYPE, "datatype is null"));
        }
        return d.t;
    }

    @Override
    public String toString() {
        return "Status[source=" + source + ", tag=" + tag + ", bytes=" + bytes + (error == 0 ? "" : ", error=" + error)
                + (cancelled ? ", cancelled" : "") + (indexed ? ", index=" + index : "") + "]";
    }
}

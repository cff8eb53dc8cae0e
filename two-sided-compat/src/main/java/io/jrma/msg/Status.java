package io.jrma.msg;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Group;

/**
 * What a receive or a probe learned about a message (MPI_Status): the source rank, the tag, the size of the
 * data, and the error class of the receive ({@link ErrorClass#SUCCESS} or {@link ErrorClass#ERR_TRUNCATE}).
 *
 * <p>Immutable; any thread.
 */
public final class Status {
    /** {@link #count()} of a message that is not a whole number of elements (MPI_UNDEFINED). */
    public static final int UNDEFINED = Group.UNDEFINED;

    static final Status EMPTY_SEND = new Status(Messenger.ANY_SOURCE, Messenger.ANY_TAG, 0, null, ErrorClass.SUCCESS);
    static final Status PROC_NULL = new Status(Messenger.PROC_NULL, Messenger.ANY_TAG, 0, null, ErrorClass.SUCCESS);

    private final int source;
    private final int tag;
    private final long bytes;
    private final Datatype type;
    private final ErrorClass error;
    private final boolean cancelled;

    Status(int source, int tag, long bytes, Datatype type, ErrorClass error) {
        this(source, tag, bytes, type, error, false);
    }

    private Status(int source, int tag, long bytes, Datatype type, ErrorClass error, boolean cancelled) {
        this.source = source;
        this.tag = tag;
        this.bytes = bytes;
        this.type = type;
        this.error = error;
        this.cancelled = cancelled;
    }

    /**
     * Makes a caller's own status object from what a blocking receive learned ({@link Messenger#recv(Object, long,
     * long, Datatype, int, int, Maker)}): a binding that returns statuses of its own (the {@code mpi} package) makes
     * one object per receive instead of two. Pass a lambda that captures nothing (one instance, never allocated).
     *
     * @param <T> the caller's status type
     */
    @FunctionalInterface
    public interface Maker<T> {
        /** The status of a receive of {@code bytes} bytes (stored) from {@code source} with {@code tag}. */
        T make(int source, int tag, long bytes);
    }

    /** The status of a receive cancelled before it matched a message (MPI_Test_cancelled is true). */
    static Status cancelledReceive(Datatype type) {
        return new Status(Messenger.ANY_SOURCE, Messenger.ANY_TAG, 0, type, ErrorClass.SUCCESS, true);
    }

    /** The sender's rank in the messenger's communicator ({@link Messenger#PROC_NULL} for a receive from it). */
    public int source() {
        return source;
    }

    /** The message's tag ({@link Messenger#ANY_TAG} for a receive from PROC_NULL and for send statuses). */
    public int tag() {
        return tag;
    }

    /**
     * Bytes of data: for a receive, what was stored in the buffer (at most its capacity); for a probe, the size
     * of the waiting message.
     */
    public long bytes() {
        return bytes;
    }

    /**
     * Elements received, in the receive's datatype (MPI_Get_count); {@link #UNDEFINED} if the data is not a
     * whole number of elements. For a probe (no datatype yet) this is {@link #bytes()}: use
     * {@link #count(Datatype)}.
     */
    public long count() {
        return type == null ? bytes : count(type);
    }

    /** {@link #bytes()} in elements of {@code t}, or {@link #UNDEFINED} if not a whole number of them. */
    public long count(Datatype t) {
        long size = t.size();
        if (size == 0) {
            return bytes == 0 ? 0 : UNDEFINED;
        }
        return bytes % size == 0 ? bytes / size : UNDEFINED;
    }

    /** {@link ErrorClass#SUCCESS}, or {@link ErrorClass#ERR_TRUNCATE} if the message was larger than the buffer. */
    public ErrorClass error() {
        return error;
    }

    /** Whether the operation was cancelled (MPI_Test_cancelled); only a receive that never matched can be. */
    public boolean cancelled() {
        return cancelled;
    }

    @Override
    public String toString() {
        return "Status[source=" + source + ", tag=" + tag + ", bytes=" + bytes
                + (error == ErrorClass.SUCCESS ? "" : ", " + error)
                + (cancelled ? ", cancelled" : "") + "]";
    }
}

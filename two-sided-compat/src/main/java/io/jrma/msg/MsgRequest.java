package io.jrma.msg;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.ArrayList;
import java.util.Arrays;
import io.jrma.Datatype;
import java.util.List;

/**
 * A nonblocking send or receive of a {@link Messenger} (MPI_Request). It completes when the messenger makes
 * progress, which happens only inside the messenger's calls ({@link #test}, {@link #waitFor}, the static
 * multi-request calls, and every send, receive and probe), as in MPI.
 *
 * <p>A send completes when its buffer may be reused (eager messages: once the data is in the receiver's
 * memory; rendezvous and synchronous sends: once the receiver has taken the data). A receive completes when
 * the data is in its buffer; its {@link #status()} then tells source, tag and size.
 *
 * <p><b>Active and inactive.</b> A request reported complete by any test or wait becomes inactive, as MPI
 * turns it into MPI_REQUEST_NULL: {@link #testAny}, {@link #waitAny} and {@link #waitSome} skip inactive
 * requests and {@code null} entries. {@link #status()} stays readable.
 *
 * <p><b>Errors.</b> A receive whose message was larger than its buffer completes with
 * {@link ErrorClass#ERR_TRUNCATE} in its status, and {@link #test} / {@link #waitFor} throw an
 * {@link RmaException} of that class. Calls on several requests complete them all, then throw
 * {@link ErrorClass#ERR_IN_STATUS} naming the failed ones (the single-index calls throw the request's own
 * error).
 *
 * <p>Thread-safe: completion is published by a volatile store; any thread of the owning rank may test or
 * wait (waiting threads take turns driving the messenger's progress).
 */
public final class MsgRequest {
    static final int SEND = 1;
    static final int RECV = 2;

    final Messenger owner;
    final int kind;
    private volatile boolean done;
    private volatile boolean inactive;
    /** The status, made on first demand from the fields below for a receive (a blocking call may never ask). */
    private Status status;
    private RmaException error;
    /** A completed receive: source, tag, bytes stored, the receive's datatype and its error class. */
    private int source;
    private int tag;
    private long bytes;
    private Datatype type;
    private ErrorClass errorClass;

    MsgRequest(Messenger owner, int kind) {
        this.owner = owner;
        this.kind = kind;
    }

    /**
     * A send request that is already complete (its data went another way, e.g. as a copy sent by a buffered
     * send): for persistent requests whose start does its work at once.
     */
    public static MsgRequest completedSend(Messenger owner) {
        return completed(owner, SEND, Status.EMPTY_SEND);
    }

    static MsgRequest completed(Messenger owner, int kind, Status s) {
        MsgRequest r = new MsgRequest(owner, kind);
        r.complete(s, null);
        return r;
    }

    /** Completes the request (messenger thread holding its lock); the volatile store publishes status and error. */
    void complete(Status s, RmaException e) {
        status = s;
        error = e;
        done = true;
    }

    /**
     * Completes a receive with what it learned; its {@link Status} is made only if asked for. The last touch of
     * the request by the completing thread: a blocking call's waiting thread reuses the request once it sees it done.
     */
    void completeRecv(int src, int msgTag, long stored, Datatype t, ErrorClass ec, RmaException e) {
        status = null;
        source = src;
        tag = msgTag;
        bytes = stored;
        type = t;
        errorClass = ec;
        error = e;
        done = true;
    }

    /** Makes a completed request of a blocking call pending again, for its next use (one thread only). */
    void reset() {
        done = false;
        inactive = false;
        status = null;
        error = null;
        type = null;
        errorClass = null;
    }

    /** A completed receive's source (valid once done and made by {@link #completeRecv}). */
    int source() {
        return source;
    }

    int tag() {
        return tag;
    }

    long bytes() {
        return bytes;
    }

    ErrorClass errorClass() {
        return errorClass;
    }

    /** The status of a completed request (made now for a receive that never needed one). */
    private Status madeStatus() {
        Status s = status;
        if (s == null && errorClass != null) {
            s = new Status(source, tag, bytes, type, errorClass);
            status = s; // racing threads make equal statuses
        }
        return s;
    }

    /** Whether the request completed with an error. */
    boolean failed() {
        return done && error != null;
    }

    /** Whether the request has completed; does not drive progress. */
    public boolean isComplete() {
        return done;
    }

    /** The status once complete, else null. For sends: source ANY_SOURCE, tag ANY_TAG, 0 bytes. */
    public Status status() {
        return done ? madeStatus() : null;
    }

    /** Drives progress once; true (and the request inactive) if it has completed. Throws its error if it failed. */
    public boolean test() {
        if (!done) {
            owner.progressOnce();
        }
        if (!done) {
            return false;
        }
        inactive = true;
        throwIfFailed();
        return true;
    }

    /** Waits for completion (driving progress; spins, then yields, then parks) and returns the status. */
    public Status waitFor() {
        if (!done) {
            owner.await(this);
        }
        inactive = true;
        throwIfFailed();
        return madeStatus();
    }

    /**
     * Waits for completion as {@link #waitFor()} (throwing its error), without making a status: for callers that may
     * not need one ({@code mpi.Request.waitAll}), which ask {@link #status()} later if they do.
     */
    public void await() {
        waitQuietly();
    }

    /** As {@link #waitFor()} without making a status (blocking calls that return none, or make their own). */
    void waitQuietly() {
        if (!done) {
            owner.await(this);
        }
        inactive = true;
        throwIfFailed();
    }

    void throwIfFailed() {
        RmaException e = error;
        if (e != null) {
            throw new RmaException(e.errorClass(), stripClass(e), e);
        }
    }

    private static String stripClass(RmaException e) {
        String m = e.getMessage();
        String prefix = e.errorClass().name() + ": ";
        return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
    }

    private boolean active() {
        return !inactive;
    }

    // ------------------------------------------------------------------ several requests

    /** True if every request (nulls ignored) has completed; they all become inactive then. */
    public static boolean testAll(MsgRequest... requests) {
        progressOwners(requests);
        for (MsgRequest r : requests) {
            if (r != null && !r.done) {
                return false;
            }
        }
        finishAll(requests);
        return true;
    }

    /**
     * Index of a completed active request (now inactive), or -1 if none has completed yet, or
     * {@link Status#UNDEFINED} if no request is active. Throws the chosen request's error if it failed.
     */
    public static int testAny(MsgRequest... requests) {
        if (firstActive(requests) < 0) {
            return Status.UNDEFINED;
        }
        progressOwners(requests);
        return takeDone(requests);
    }

    /** Waits until every request (nulls ignored) has completed; returns their statuses (null for null entries). */
    public static Status[] waitAll(MsgRequest... requests) {
        await(requests, ALL);
        return finishAll(requests);
    }

    /**
     * Waits until an active request completes and returns its index (it becomes inactive), or
     * {@link Status#UNDEFINED} if none is active. Throws that request's error if it failed.
     */
    public static int waitAny(MsgRequest... requests) {
        if (firstActive(requests) < 0) {
            return Status.UNDEFINED;
        }
        await(requests, ANY);
        return takeDone(requests);
    }

    /**
     * Waits until at least one active request completes and returns the indices of all completed active
     * requests (they become inactive); an empty array if none is active.
     */
    public static int[] waitSome(MsgRequest... requests) {
        if (firstActive(requests) < 0) {
            return new int[0];
        }
        await(requests, ANY);
        List<Integer> idx = new ArrayList<>();
        StringBuilder failed = new StringBuilder();
        RmaException first = null;
        for (int i = 0; i < requests.length; i++) {
            MsgRequest r = requests[i];
            if (r != null && r.active() && r.done) {
                r.inactive = true;
                idx.add(i);
                if (r.error != null) {
                    failed.append(failed.length() == 0 ? "" : ", ").append(i).append(": ").append(r.error.errorClass());
                    first = first == null ? r.error : first;
                }
            }
        }
        if (first != null) {
            throw new RmaException(ErrorClass.ERR_IN_STATUS, "waitSome: requests failed (" + failed
                    + "); completed: " + idx, first);
        }
        return idx.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int firstActive(MsgRequest[] requests) {
        for (int i = 0; i < requests.length; i++) {
            if (requests[i] != null && requests[i].active()) {
                return i;
            }
        }
        return -1;
    }

    private static boolean anyActiveDone(MsgRequest[] requests) {
        for (MsgRequest r : requests) {
            if (r != null && r.active() && r.done) {
                return true;
            }
        }
        return false;
    }

    private static int takeDone(MsgRequest[] requests) {
        for (int i = 0; i < requests.length; i++) {
            MsgRequest r = requests[i];
            if (r != null && r.active() && r.done) {
                r.inactive = true;
                r.throwIfFailed();
                return i;
            }
        }
        return -1;
    }

    private static Status[] finishAll(MsgRequest[] requests) {
        Status[] out = new Status[requests.length];
        StringBuilder failed = new StringBuilder();
        RmaException first = null;
        for (int i = 0; i < requests.length; i++) {
            MsgRequest r = requests[i];
            if (r == null) {
                continue;
            }
            r.inactive = true;
            out[i] = r.madeStatus();
            if (r.error != null) {
                failed.append(failed.length() == 0 ? "" : ", ").append(i).append(": ").append(r.error.errorClass());
                first = first == null ? r.error : first;
            }
        }
        if (first != null) {
            throw new RmaException(ErrorClass.ERR_IN_STATUS,
                    "requests failed (" + failed + "); see their status()", first);
        }
        return out;
    }

    /** Progresses each distinct messenger of the pending requests once; returns the work done. */
    private static int progressOwners(MsgRequest[] requests) {
        Messenger single = null; // the common case, one messenger: no array of owners to allocate
        for (MsgRequest r : requests) {
            if (r != null && !r.done) {
                if (single == null) {
                    single = r.owner;
                } else if (single != r.owner) {
                    return progressDistinctOwners(requests);
                }
            }
        }
        return single == null ? 0 : single.progressOnce();
    }

    private static int progressDistinctOwners(MsgRequest[] requests) {
        int work = 0;
        Messenger[] seen = new Messenger[4];
        int n = 0;
        outer:
        for (MsgRequest r : requests) {
            if (r == null || r.done) {
                continue;
            }
            for (int i = 0; i < n; i++) {
                if (seen[i] == r.owner) {
                    continue outer;
                }
            }
            if (n == seen.length) {
                seen = Arrays.copyOf(seen, 2 * n);
            }
            seen[n++] = r.owner;
            work += r.owner.progressOnce();
        }
        return work;
    }

    /** {@link #await} until every request is done. */
    private static final int ALL = 0;
    /** {@link #await} until an active request is done. */
    private static final int ANY = 1;

    private static boolean allDone(MsgRequest[] requests) {
        for (MsgRequest r : requests) {
            if (r != null && !r.done) {
                return false;
            }
        }
        return true;
    }

    /**
     * Drives the owners' progress until {@code ALL} requests or {@code ANY} active one is done, idling between rounds
     * that found no work (no lambda: a capturing one was allocated by every wait).
     */
    private static void await(MsgRequest[] requests, int until) {
        Messenger any = null;
        for (MsgRequest r : requests) {
            if (r != null) {
                any = r.owner;
                break;
            }
        }
        if (any == null || (until == ALL ? allDone(requests) : anyActiveDone(requests))) {
            return;
        }
        Waiter w = any.blocking.takeWaiter();
        while (true) {
            int work = progressOwners(requests);
            if (until == ALL ? allDone(requests) : anyActiveDone(requests)) {
                any.blocking.giveWaiter(w);
                return;
            }
            w.idle(work, any);
        }
    }

    @Override
    public String toString() {
        return (kind == SEND ? "send" : "recv") + " request" + (done ? " " + madeStatus() : " (pending)");
    }
}

package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.msg.Messenger;
import io.jrma.msg.MsgRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.LockSupport;

/**
 * A nonblocking operation (MPI_Request): a send or receive, a request-based RMA operation, or a nonblocking
 * collective. As in MPI, a request that completes in a wait or a successful test becomes the null request
 * ({@link #isNull()}), and a persistent request ({@link Prequest}) becomes inactive until started again.
 * Waiting drives progress; it spins briefly, then yields, then parks.
 *
 * <p>Nonblocking collectives run on their communicator's collective thread; their request completes when the
 * collective has.
 */
public class Request implements Freeable {
    /** The operation: a message request, an RMA request, or neither (completed at once: {@link #ready}). */
    MsgRequest msg;
    io.jrma.Request rma;
    /** A nonblocking collective running on its communicator's collective thread. */
    private CompletableFuture<?> fut;
    private Status ready;
    private Messenger messenger;
    Site site;
    /** Whether the request stands for an operation that is started and not yet reported complete. */
    boolean active;
    /** Whether this is MPI_REQUEST_NULL (freed, or completed non-persistent). */
    boolean isNullReq;
    private Bufs.Msg stage;
    private Object keep;
    private Object keep2;

    // completion once observed, until reported
    private boolean complete;
    private Status outcome;
    private RmaException failure;

    Request() {
    }

    static Request nullRequest() {
        Request r = new Request();
        r.isNullReq = true;
        return r;
    }

    /** A request for a message of the messaging engine; {@code b} is copied back / kept reachable until done. */
    static Request msg(Site site, Messenger m, MsgRequest req, Bufs.Msg b) {
        Request r = new Request();
        r.site = site;
        r.messenger = m;
        r.start(req, b);
        return r;
    }

    /** A request for an RMA operation; keeps its buffers reachable until it completes. */
    static Request rma(Site site, io.jrma.Request req, Object keep, Object keep2) {
        Request r = new Request();
        r.site = site;
        r.rma = req;
        r.keep = keep;
        r.keep2 = keep2;
        r.active = true;
        return r;
    }

    /** A request for work done by another thread (nonblocking collectives). */
    static Request future(Site site, CompletableFuture<?> f) {
        Request r = new Request();
        r.site = site;
        r.fut = f;
        r.active = true;
        return r;
    }

    /** A request that completed when it was started. */
    static Request done(Site site, Status s) {
        Request r = new Request();
        r.site = site;
        r.ready = s;
        r.active = true;
        return r;
    }

    void start(MsgRequest req, Bufs.Msg b) {
        msg = req;
        stage = b;
        active = true;
        complete = false;
        outcome = null;
        failure = null;
    }

    void setMessenger(Messenger m) {
        messenger = m;
    }

    // ------------------------------------------------------------------------------------------ completion

    /** Drives progress once; whether the operation is complete (its outcome recorded). Inactive: true. */
    boolean poll() {
        if (!active || complete) {
            return true;
        }
        try {
            if (msg != null) {
                if (msg.test()) {
                    record(null, null); // the status is made from msg if asked for (see outcome)
                }
            } else if (rma != null) {
                if (rma.test()) {
                    record(Status.empty(), null);
                }
            } else if (fut != null) {
                if (fut.isDone()) {
                    recordFuture();
                }
            } else {
                record(ready, null);
            }
        } catch (RmaException e) {
            record(msg != null && msg.status() != null ? Status.of(msg.status(), site)
                    : Status.empty().withError(e.errorCode()), e);
        }
        return complete;
    }

    /** Blocks until the operation is complete (outcome recorded). */
    private void block() {
        if (!active || complete) {
            return;
        }
        try {
            if (msg != null) {
                msg.await();
                record(null, null); // the status is made from msg if asked for (see outcome)
            } else if (rma != null) {
                rma.waitFor();
                record(Status.empty(), null);
            } else if (fut != null) {
                for (int round = 0; !fut.isDone(); round++) {
                    idle(round);
                }
                recordFuture();
            } else {
                record(ready, null);
            }
        } catch (RmaException e) {
            record(msg != null && msg.status() != null ? Status.of(msg.status(), site)
                    : Status.empty().withError(e.errorCode()), e);
        }
    }

    /**
     * The outcome of a finished nonblocking collective: its error (an MPIException under ERRORS_RETURN) is kept
     * with its class to be thrown by the wait or test; runtime failures (the job aborted) pass through.
     */
    private void recordFuture() {
        try {
            fut.join();
            record(Status.empty(), null);
        } catch (CompletionException | CancellationException e) {
            Throwable c = e.getCause() != null ? e.getCause() : e;
            if (c instanceof MPIException) {
                MPIException m = (MPIException) c;
                ErrorClass ec = ErrorClass.of(m.getErrorClass());
                String msg = m.getMessage();
                String prefix = "MPI_" + ec.name() + ": ";
                record(Status.empty().withError(m.getErrorClass()), new RmaException(ec,
                        msg != null && msg.startsWith(prefix) ? msg.substring(prefix.length()) : msg, m));
            } else if (c instanceof RuntimeException) {
                throw (RuntimeException) c;
            } else if (c instanceof Error) {
                throw (Error) c;
            } else {
                record(Status.empty().withError(MPI.ERR_OTHER),
                        new RmaException(ErrorClass.ERR_OTHER, c.toString(), c));
            }
        }
    }

    private void record(Status s, RmaException e) {
        outcome = s;
        failure = e;
        complete = true;
    }

    /** The recorded outcome's status: made now from the message request if the wait did not make it. */
    private Status outcome() {
        if (outcome == null && msg != null) {
            outcome = Status.of(msg.status(), site);
        }
        return outcome;
    }

    /**
     * Reports a completed operation: copies staged data back, releases the buffers, makes the request null
     * (inactive for a persistent one) and returns its status; its failure, if any, is left in {@link #failure}.
     */
    private Status finish() {
        Status s = outcome();
        release();
        return s;
    }

    /** {@link #finish} without the status (waitAll without statuses makes none). */
    private void release() {
        if (stage != null) {
            stage.done();
        }
        active = false;
        complete = false;
        outcome = null;
        msg = null;
        rma = null;
        fut = null;
        ready = null;
        stage = null;
        keep = null;
        keep2 = null;
        if (!persistent()) {
            isNullReq = true;
        }
    }

    boolean persistent() {
        return false;
    }

    private RmaException takeFailure() {
        RmaException e = failure;
        failure = null;
        return e;
    }

    private MPIException error(RmaException e) {
        Site s = site != null ? site : MPI.COMM_WORLD;
        return Err.handle(s.errh(), s.siteName(), e);
    }

    // ------------------------------------------------------------------------------------------ one request

    /** Frees the request (MPI_REQUEST_FREE): it becomes null; an operation in progress still completes. */
    @Override
    public void free() throws MPIException {
        if (!isNull()) {
            MPI.check();
            active = false;
            isNullReq = true;
            msg = null;
            rma = null;
        }
    }

    /**
     * Asks to cancel the operation (MPI_CANCEL). A receive that has not matched a message yet is cancelled: it
     * completes, and its status says {@link Status#isCancelled()}. Other operations cannot be cancelled in jrma
     * and complete normally (MPI allows a cancel to fail).
     */
    public final void cancel() throws MPIException {
        MPI.check();
        if (active && msg != null && messenger != null) {
            try {
                messenger.cancel(msg);
            } catch (RmaException e) {
                throw error(e);
            }
        }
    }

    /** Whether this is the null request (never started, freed, or completed by a wait or test). */
    public final boolean isNull() {
        return isNullReq;
    }

    /** Waits for completion and returns the status (MPI_WAIT); the request becomes null. */
    public final Status waitStatus() throws MPIException {
        MPI.check();
        if (!active) {
            return Status.empty();
        }
        block();
        Status s = finish();
        RmaException e = takeFailure();
        if (e != null) {
            throw error(e);
        }
        return s;
    }

    /** Waits for completion (MPI_WAIT); the request becomes null. */
    public final void waitFor() throws MPIException {
        waitStatus();
    }

    /** The status if the operation is complete (then the request becomes null), else null (MPI_TEST). */
    public final Status testStatus() throws MPIException {
        MPI.check();
        if (!active) {
            return Status.empty();
        }
        if (!poll()) {
            return null;
        }
        Status s = finish();
        RmaException e = takeFailure();
        if (e != null) {
            throw error(e);
        }
        return s;
    }

    /** The status if the operation is complete, else null; the request stays as it is (MPI_REQUEST_GET_STATUS). */
    public final Status getStatus() throws MPIException {
        MPI.check();
        if (!active) {
            return Status.empty();
        }
        return poll() ? outcome() : null;
    }

    /** Whether the operation is complete (MPI_TEST); if so the request becomes null. */
    public final boolean test() throws MPIException {
        return testStatus() != null;
    }

    // ------------------------------------------------------------------------------------- several requests

    private static boolean live(Request r) {
        return r != null && r.active;
    }

    /** Waits until one active request completes; its status, whose {@link Status#getIndex} says which (MPI_WAITANY). */
    public static Status waitAnyStatus(Request[] requests) throws MPIException {
        MPI.check();
        boolean any = false;
        for (Request r : requests) {
            any |= live(r);
        }
        if (!any) {
            return Status.empty().withIndex(MPI.UNDEFINED);
        }
        for (int round = 0; ; round++) {
            for (int i = 0; i < requests.length; i++) {
                Request r = requests[i];
                if (live(r) && r.poll()) {
                    return report(r, i);
                }
            }
            idle(round);
        }
    }

    /** Waits until one active request completes and returns its index, or UNDEFINED if none is active (MPI_WAITANY). */
    public static int waitAny(Request[] requests) throws MPIException {
        return waitAnyStatus(requests).getIndex();
    }

    /**
     * If an active request is complete, its status (index in {@link Status#getIndex}); null if none is yet; an
     * empty status with index UNDEFINED if none is active (MPI_TESTANY).
     */
    public static Status testAnyStatus(Request[] requests) throws MPIException {
        MPI.check();
        boolean any = false;
        for (int i = 0; i < requests.length; i++) {
            Request r = requests[i];
            if (live(r)) {
                any = true;
                if (r.poll()) {
                    return report(r, i);
                }
            }
        }
        return any ? null : Status.empty().withIndex(MPI.UNDEFINED);
    }

    /** The index of a completed active request (it becomes null), or UNDEFINED if none completed (MPI_TESTANY). */
    public static int testAny(Request[] requests) throws MPIException {
        Status s = testAnyStatus(requests);
        return s == null ? MPI.UNDEFINED : s.getIndex();
    }

    private static Status report(Request r, int i) throws MPIException {
        Status s = r.finish().withIndex(i);
        RmaException e = r.takeFailure();
        if (e != null) {
            throw r.error(e);
        }
        return s;
    }

    /**
     * Waits until every request has completed and returns their statuses, the empty status (source ANY_SOURCE,
     * tag ANY_TAG, count 0) for requests that were null or inactive (MPI_WAITALL). If some failed, throws
     * ERR_IN_STATUS once all are complete.
     */
    public static Status[] waitAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        for (Request r : requests) {
            if (live(r)) {
                r.block();
            }
        }
        return reportAll(requests, null);
    }

    /** Waits until every request has completed (MPI_WAITALL); makes no statuses. */
    public static void waitAll(Request[] requests) throws MPIException {
        MPI.check();
        boolean failed = false;
        for (Request r : requests) {
            if (live(r)) {
                r.block();
                failed |= r.failure != null;
            }
        }
        if (failed) {
            reportAll(requests, null); // throws ERR_IN_STATUS naming them
            return;
        }
        for (Request r : requests) {
            if (live(r)) {
                r.release();
            }
        }
    }

    /** The statuses of all requests if every one has completed (they become null), else null (MPI_TESTALL). */
    public static Status[] testAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        boolean all = true;
        for (Request r : requests) {
            if (live(r)) {
                all &= r.poll();
            }
        }
        return all ? reportAll(requests, null) : null;
    }

    /** Whether every request has completed; if so they all become null (MPI_TESTALL). */
    public static boolean testAll(Request[] requests) throws MPIException {
        return testAllStatus(requests) != null;
    }

    /**
     * Waits until at least one active request completes; the statuses of all that have, with their indices;
     * null if none is active (MPI_WAITSOME).
     */
    public static Status[] waitSomeStatus(Request[] requests) throws MPIException {
        MPI.check();
        for (int round = 0; ; round++) {
            Status[] s = someDone(requests);
            if (s == null || s.length > 0) {
                return s;
            }
            idle(round);
        }
    }

    /** Waits until at least one active request completes; the indices of all that have; null if none is active. */
    public static int[] waitSome(Request[] requests) throws MPIException {
        return indices(waitSomeStatus(requests));
    }

    /**
     * The statuses of the active requests that have completed (possibly none); null if none is active (MPI_TESTSOME).
     */
    public static Status[] testSomeStatus(Request[] requests) throws MPIException {
        MPI.check();
        return someDone(requests);
    }

    /** The indices of the active requests that have completed (possibly none); null if none is active. */
    public static int[] testSome(Request[] requests) throws MPIException {
        return indices(testSomeStatus(requests));
    }

    private static Status[] someDone(Request[] requests) throws MPIException {
        boolean any = false;
        boolean[] done = new boolean[requests.length];
        int n = 0;
        for (int i = 0; i < requests.length; i++) {
            Request r = requests[i];
            if (live(r)) {
                any = true;
                if (r.poll()) {
                    done[i] = true;
                    n++;
                }
            }
        }
        if (!any) {
            return null;
        }
        Status[] all = reportAll(requests, done);
        Status[] out = new Status[n];
        for (int i = 0, k = 0; i < requests.length; i++) {
            if (done[i]) {
                out[k++] = all[i];
            }
        }
        return out;
    }

    private static int[] indices(Status[] s) {
        if (s == null) {
            return null;
        }
        int[] idx = new int[s.length];
        for (int i = 0; i < s.length; i++) {
            idx[i] = s[i].getIndex();
        }
        return idx;
    }

    /** Reports the completed requests (all live ones, or those marked in {@code which}); ERR_IN_STATUS on failures. */
    private static Status[] reportAll(Request[] requests, boolean[] which) throws MPIException {
        Status[] out = new Status[requests.length];
        List<String> failed = new ArrayList<>();
        Request firstFailed = null;
        RmaException first = null;
        for (int i = 0; i < requests.length; i++) {
            Request r = requests[i];
            if (!live(r) || (which != null && !which[i])) {
                if (which == null) {
                    out[i] = Status.empty(); // MPI_WAITALL gives a null or inactive request the empty status
                }
                continue;
            }
            // waitSome/testSome statuses carry the request's index; waitAll/testAll ones do not (index 0)
            out[i] = which == null ? r.finish() : r.finish().withIndex(i);
            RmaException e = r.takeFailure();
            if (e != null) {
                failed.add(i + ": " + e.errorClass());
                if (first == null) {
                    first = e;
                    firstFailed = r;
                }
            }
        }
        if (first != null) {
            Site s = firstFailed.site != null ? firstFailed.site : MPI.COMM_WORLD;
            throw Err.handle(s.errh(), s.siteName(), new RmaException(ErrorClass.ERR_IN_STATUS, "requests failed ("
                    + String.join(", ", failed) + "); first: " + first.getMessage(), first));
        }
        return out;
    }

    /** Backs off while waiting for several requests: spins, then yields, then parks up to 200 microseconds. */
    static void idle(int round) {
        if (round < 200) {
            Thread.onSpinWait();
        } else if (round < 400) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(Math.min(200_000L, 1_000L << Math.min(8, (round - 400) / 64)));
        }
    }
}

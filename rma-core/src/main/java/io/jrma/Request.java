package io.jrma;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * A request-based RMA operation (rput, rget, raccumulate, rget_accumulate). Completion of an rput or
 * raccumulate request is local completion (the origin buffer may be reused); of an rget or rget_accumulate,
 * the result buffer holds the data. Remote completion still needs a flush or the end of the epoch.
 *
 * <p>Thread-safe: any thread may test or wait.
 */
public interface Request {
    /** Whether the operation has completed; drives progress. Throws if it failed. */
    boolean test();

    /** Waits for completion (drives progress, spins then parks). Throws if it failed. */
    void waitFor();

    /**
     * A future completed (on a library thread) when the operation completes, or completed exceptionally with
     * an {@link RmaException}. Asking for it makes sure the operation is on its way.
     */
    CompletableFuture<Void> toFuture();

    /** Waits for all requests. */
    static void waitAll(Request... requests) {
        for (Request r : requests) {
            r.waitFor();
        }
    }

    /**
     * Index of a completed request, waiting until there is one (spinning, then parking briefly; each
     * {@link #test()} drives progress and fails if the job was aborted).
     */
    static int waitAny(Request... requests) {
        if (requests.length == 0) {
            throw new RmaException(ErrorClass.ERR_ARG, "waitAny needs at least one request");
        }
        for (long round = 0; ; round++) {
            for (int i = 0; i < requests.length; i++) {
                if (requests[i].test()) {
                    return i;
                }
            }
            if (round < RequestWaits.SPIN_ROUNDS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(RequestWaits.PARK_NS);
            }
        }
    }
}

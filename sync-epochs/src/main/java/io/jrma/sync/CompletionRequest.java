package io.jrma.sync;

import io.jrma.Request;
import io.jrma.RmaException;
import io.jrma.core.runtime.Job;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link Request} of a request-based RMA call. Completed once, by the issuing thread (direct path, or
 * data already packed) or by the progress agent (a reply arrived). {@code done} is volatile: its store
 * (release) publishes the result buffer's contents and {@code error}.
 *
 * <p>Thread-safe.
 */
final class CompletionRequest implements Request {
    private final Job job;
    private final Runnable kick;
    private volatile boolean done;
    private volatile RmaException error;
    private CompletableFuture<Void> future;

    CompletionRequest(Job job, Runnable kick) {
        this.job = job;
        this.kick = kick;
    }

    static CompletionRequest completed(Job job) {
        CompletionRequest r = new CompletionRequest(job, null);
        r.done = true;
        return r;
    }

    void complete() {
        CompletableFuture<Void> f;
        synchronized (this) {
            done = true;
            f = future;
        }
        if (f != null) {
            f.complete(null);
        }
    }

    void fail(RmaException e) {
        CompletableFuture<Void> f;
        synchronized (this) {
            error = e;
            done = true;
            f = future;
        }
        if (f != null) {
            f.completeExceptionally(e);
        }
    }

    boolean isDone() {
        return done;
    }

    @Override
    public boolean test() {
        if (!done) {
            if (kick != null) {
                kick.run();
            }
            job.agent().tryProgress();
        }
        if (done) {
            throwIfFailed();
            return true;
        }
        job.checkAborted(); // a loop of test() calls must not outlive a failed rank
        return false;
    }

    @Override
    public void waitFor() {
        if (!done && kick != null) {
            kick.run();
        }
        job.waitPolicy().await(job, () -> done);
        throwIfFailed();
    }

    private void throwIfFailed() {
        RmaException e = error;
        if (e != null) {
            throw new RmaException(e.errorClass(), e.getMessage().substring(e.errorClass().name().length() + 2), e);
        }
    }

    @Override
    public CompletableFuture<Void> toFuture() {
        synchronized (this) {
            if (future == null) {
                future = new CompletableFuture<>();
                if (done) {
                    if (error != null) {
                        future.completeExceptionally(error);
                    } else {
                        future.complete(null);
                    }
                }
            }
        }
        if (!done && kick != null) {
            kick.run();
        }
        return future;
    }
}

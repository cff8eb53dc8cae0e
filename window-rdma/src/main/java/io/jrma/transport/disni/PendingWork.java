package io.jrma.transport.disni;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The work requests posted and not yet reaped, by work-request id: a poster {@link #begin}s one (bounded by the queue
 * depth), whoever polls the completion queue {@link #complete}s it with its status, and the poster reads the status
 * and {@link #release}s it. Device-free, so its accounting is tested without one. Threads: any.
 */
final class PendingWork {
    /** Status of a request not yet completed. */
    static final int PENDING = -1;

    /** One posted request: its target and, once complete, its status. */
    static final class Slot {
        final int worldRank;
        volatile int status = PENDING;
        volatile int vendorError;

        Slot(int worldRank) {
            this.worldRank = worldRank;
        }
    }

    private final int depth;
    private final AtomicLong nextId = new AtomicLong(1);
    private final ConcurrentHashMap<Long, Slot> slots = new ConcurrentHashMap<>();

    PendingWork(int depth) {
        if (depth <= 0) {
            throw new IllegalArgumentException("queue depth " + depth);
        }
        this.depth = depth;
    }

    /** A new request id to world rank {@code worldRank}, or 0 when {@code depth} requests are outstanding. */
    long begin(int worldRank) {
        if (slots.size() >= depth) {
            return 0;
        }
        long id = nextId.getAndIncrement();
        slots.put(id, new Slot(worldRank));
        return id;
    }

    /** Records the completion of request {@code id}; false when no such request is outstanding. */
    boolean complete(long id, int status, int vendorError) {
        Slot s = slots.get(id);
        if (s == null) {
            return false;
        }
        s.vendorError = vendorError;
        s.status = status; // volatile write publishes vendorError to the poster
        return true;
    }

    /** The status of request {@code id}: {@link #PENDING}, or its completion status. */
    int status(long id) {
        Slot s = slots.get(id);
        if (s == null) {
            throw new IllegalStateException("work request " + id + " is not outstanding");
        }
        return s.status;
    }

    /** The vendor error of completed request {@code id}. */
    int vendorError(long id) {
        return slots.get(id).vendorError;
    }

    /** Forgets request {@code id} (its poster read its status, or gave up on it). */
    void release(long id) {
        slots.remove(id);
    }

    /** Requests outstanding (posted, not released). */
    int outstanding() {
        return slots.size();
    }
}

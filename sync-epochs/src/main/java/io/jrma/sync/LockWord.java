package io.jrma.sync;

import io.jrma.core.mem.Memory;


/**
 * A fair (FIFO) reader-writer lock in three 8-byte words of off-heap memory, so that an origin sharing the
 * address space takes a passive-target lock itself, without the target's help, and the target's progress
 * agent takes the same lock on behalf of remote origins.
 *
 * <pre>
 *  +0  next ticket     (fetch-and-add by every acquirer)
 *  +8  now serving     (advanced by the holder of the ticket being served)
 *  +16 active readers  (shared holders inside)
 * </pre>
 *
 * A shared acquirer whose ticket is served enters (readers + 1), then passes service to the next ticket, so
 * consecutive shared requests run together; an exclusive acquirer whose ticket is served also waits for the
 * readers to leave, and passes service on at release. Requests are granted strictly in ticket order: no
 * starvation of either kind.
 *
 * <p>A shared acquirer may first try {@link #tryEnterShared()}: with no ticket outstanding (next = serving: nobody
 * holds the lock exclusively or waits for it) it enters by the readers count alone, one atomic instead of three.
 * It counts itself in, then looks at the tickets; an exclusive acquirer takes its ticket, then looks at the
 * readers. Both steps are fenced read-modify-writes, so at least one of the two sees the other: the reader backs
 * out (and queues for a ticket) or the writer waits for it to leave. Once a writer holds a ticket no reader gets
 * past it this way, so the queue stays fair.
 *
 * <p>Lock-free; any thread, any process mapping the words.
 */
final class LockWord {
    static final int BYTES = 24;
    private static final long NEXT = 0;
    private static final long SERVING = 8;
    private static final long READERS = 16;

    private final long address;
    /** Told whenever a waiter may now enter (service passed on, readers left), to wake sleeping waiters. */
    private final Runnable changed;

    LockWord(long address) {
        this(address, () -> { });
    }

    LockWord(long address, Runnable changed) {
        if ((address & 7) != 0) {
            throw new IllegalArgumentException("lock word must be 8-byte aligned: " + address);
        }
        this.address = address;
        this.changed = changed;
    }

    /** Takes a ticket (the place in the FIFO). */
    long takeTicket() {
        return Memory.getAndAddLong(null, address + NEXT, 1);
    }

    /**
     * Tries to enter with a ticket taken earlier; returns true once granted (then must not be called again
     * for this ticket).
     */
    boolean tryEnter(long ticket, boolean exclusive) {
        if (Memory.getLongVolatile(null, address + SERVING) != ticket) {
            return false;
        }
        if (exclusive) {
            return Memory.getLongVolatile(null, address + READERS) == 0;
        }
        Memory.getAndAddLong(null, address + READERS, 1); // enter before passing service on
        Memory.getAndAddLong(null, address + SERVING, 1); // release: the next ticket may be served
        changed.run();
        return true;
    }

    /**
     * Enters shared without a ticket if no ticket is outstanding; false (nothing held, nothing changed for
     * others) if one is, and the caller queues with {@link #takeTicket()}.
     */
    boolean tryEnterShared() {
        return tryEnterShared(null);
    }

    /** {@link #tryEnterShared()}, running {@code between} (tests: a writer arriving) after the first look. */
    boolean tryEnterShared(Runnable between) {
        if (Memory.getLongVolatile(null, address + NEXT) != Memory.getLongVolatile(null, address + SERVING)) {
            return false; // a writer holds or waits: queue behind it
        }
        if (between != null) {
            between.run();
        }
        Memory.getAndAddLong(null, address + READERS, 1); // counted in (fenced) before looking at the tickets again
        if (Memory.getLongVolatile(null, address + NEXT) == Memory.getLongVolatile(null, address + SERVING)) {
            return true;
        }
        Memory.getAndAddLong(null, address + READERS, -1); // a writer took a ticket meanwhile: back out
        changed.run(); // it may be waiting for the readers to leave
        return false;
    }

    void releaseExclusive() {
        Memory.getAndAddLong(null, address + SERVING, 1); // release: publishes the epoch's writes
        changed.run();
    }

    void releaseShared() {
        Memory.getAndAddLong(null, address + READERS, -1); // release: publishes the epoch's writes
        changed.run();
    }

    /** Whether nobody holds or waits for the lock (diagnostics, tests). */
    boolean isFree() {
        return Memory.getLongVolatile(null, address + NEXT) == Memory.getLongVolatile(null, address + SERVING)
                && Memory.getLongVolatile(null, address + READERS) == 0;
    }
}

package io.jrma.msg;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.SharedMemory;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The large slots of the shared-memory reductions ({@link Reductions}, beyond the inboxes' 4 KiB slots): an allocate
 * window on the messenger's communicator, made by the first reduction that needs it and grown (freed and made again,
 * collectively) when a larger one comes, whose memory every rank maps ({@link Win#sharedQuery}: threads of a JVM, JVMs
 * of a host whose windows live in shared segments, which is what {@link Messenger#flagBarrier} has established for
 * the inboxes). Each rank has two slots of {@link #slotBytes}, used alternately, as {@link SharedColl}'s: a slot is
 * written again two large reductions later, after every rank has passed a barrier that it enters only once its reads
 * of the slot are over.
 *
 * <p>Every rank grows the window at the same call (the decision depends only on the reduction's size, which MPI
 * requires to be the same on every rank). Owned by its {@link Collectives}; one call at a time.
 */
final class BigSlots {
    /** The smallest slot made (bytes): small growth steps would each cost a collective window creation. */
    private static final long MIN_SLOT = 64 << 10;
    /** Slots per rank. */
    private static final int SLOTS = 2;

    private final Collectives c;
    private final int me;
    private final int p;
    private Win win;
    /** Per rank: its slots as mapped here (this rank's own too). */
    private final ByteBuffer[] mem;
    /** Per rank: the address of {@link #mem} in this process. */
    private final long[] address;
    /** Bytes of one slot (0 before the window is made). */
    private long slotBytes;
    /** Large reductions this rank has made: the slot of the next is their parity. */
    private long epochs;
    /** Reductions larger than this go by messages: their slots could not be had. */
    private long refusedFrom = Long.MAX_VALUE;

    BigSlots(Collectives c) {
        this.c = c;
        this.me = c.me;
        this.p = c.p;
        this.mem = new ByteBuffer[p];
        this.address = new long[p];
    }

    /**
     * Whether every rank's slots hold {@code bytes}, after growing them if need be (collective when they grow: every
     * rank calls this with the same {@code bytes}). False when the memory could not be had (a /dev/shm too small
     * fails the window on every rank alike): the caller goes by messages, and so does every later reduction of this
     * size or more.
     */
    boolean reserve(long bytes) {
        if (bytes <= slotBytes) {
            return true;
        }
        if (bytes > refusedFrom) {
            return false;
        }
        try {
            grow(bytes);
            return true;
        } catch (RmaException e) {
            if (e.errorClass() != ErrorClass.ERR_NO_MEM) {
                throw e;
            }
            refusedFrom = bytes - 1;
            return false;
        }
    }

    /** The slot of this reduction, whose size {@link #reserve} has made sure of (every rank calls this once). */
    int next() {
        return (int) (epochs++ & 1);
    }

    /** The buffer of {@code rank}'s slots (mapped here). */
    ByteBuffer mem(int rank) {
        return mem[rank];
    }

    /** The addresses of every rank's slots in this process (to be read, not changed). */
    long[] addresses() {
        return address;
    }

    /** Where slot {@code slot} starts in {@link #mem}. */
    int at(int slot) {
        return (int) (slot * slotBytes);
    }

    private void grow(long bytes) {
        long size = Math.max(MIN_SLOT, Long.highestOneBit(bytes - 1) << 1);
        if (SLOTS * size > Integer.MAX_VALUE - 4096) {
            throw new RmaException(ErrorClass.ERR_NO_MEM, "shared reduction slots of " + size + " bytes exceed 2 GiB");
        }
        if (win != null) {
            c.barrier(); // every rank's reads of the old slots are over
            free();
        }
        Win w = Win.allocate(c.m.comm, SLOTS * size, 1, null);
        w.setName("coll-slots:" + c.m.comm.name());
        w.lockAll(Win.MODE_NOCHECK);
        for (int r = 0; r < p; r++) {
            ByteBuffer b = r == me ? w.buffer() : mapped(w, r);
            if (b == null || b.capacity() < SLOTS * size) {
                w.unlockAll();
                w.free();
                throw new RmaException(ErrorClass.ERR_INTERN, "rank " + me + " cannot map the shared reduction slots"
                        + " of rank " + r + " though it maps its inbox: set jrma.coll.sharedLargeMax=0");
            }
            mem[r] = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            address[r] = Win.address(mem[r]);
        }
        win = w;
        slotBytes = size;
    }

    private static ByteBuffer mapped(Win w, int r) {
        SharedMemory sm = w.sharedQuery(r);
        return sm == null || sm.size() == 0 ? null : sm.buffer();
    }

    /** Frees the window, if made (collective: every rank made it at the same call). */
    void free() {
        if (win != null) {
            win.unlockAll();
            win.free();
            win = null;
            slotBytes = 0;
            Arrays.fill(mem, null);
        }
    }
}

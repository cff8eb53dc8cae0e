package io.jrma.msg;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The data-movement collectives on shared memory, for communicators whose every rank maps every other's inbox
 * (threads of a JVM, JVMs of a host: {@link Messenger#flagBarrier}). Each rank publishes what the others need in
 * one of the two scratch slots of its own inbox ({@value InboxLayout#SCRATCH_BYTES} bytes each), one barrier on
 * shared flags ({@link Collectives#barrier}: ceil(log2 P) rounds of one store and one load per rank) makes every
 * slot visible, and each rank copies what it needs straight from the others' slots into its receive buffer. No
 * message, no request, no allocation, one copy in and one copy out:
 * <table>
 *   <caption>What each rank publishes and reads</caption>
 *   <tr><th>collective</th><th>published</th><th>read</th></tr>
 *   <tr><td>bcast</td><td>the root: its data</td><td>every other rank: the root's slot</td></tr>
 *   <tr><td>gather</td><td>every rank but the root: its block</td><td>the root: P - 1 slots</td></tr>
 *   <tr><td>scatter</td><td>the root: all P blocks</td><td>every other rank: its block of the root's slot</td></tr>
 *   <tr><td>allgather(v)</td><td>every rank: its block</td><td>every rank: every slot</td></tr>
 *   <tr><td>alltoall</td><td>every rank: its P blocks</td><td>every rank: block {@code me} of every slot</td></tr>
 *   <tr><td>gatherv, scatterv, alltoallv</td><td>as gather, scatter, alltoall, after a directory of the
 *       blocks' lengths; a block that does not fit goes by message (length -1), posted before the barrier and
 *       received after it</td><td>as gather, scatter, alltoall</td></tr>
 * </table>
 * The reductions on shared memory are in {@link Reductions}; they publish and read through this class, and beyond
 * its slots through {@link #big} ({@link LargeReductions}).
 *
 * <p>Slots: the e-th shared collective of a rank on this communicator uses slot {@code e mod 2} (every rank counts
 * them, whether it publishes or not, so all agree). A slot is written again two shared collectives later, by which
 * time every rank has passed the barrier of the one in between, which it enters only after its reads of this one.
 *
 * <p>Which path a collective takes is decided from the sizes its arguments give every rank alike (MPI requires
 * the send and receive signatures to match); a rank whose arguments disagree with the others' is an erroneous
 * program, as in MPI. Owned by its {@link Collectives}; one call at a time.
 */
final class SharedColl {
    /** Bytes of one scratch slot: the most a rank publishes in one shared collective. */
    static final int SLOT = InboxLayout.SCRATCH_BYTES;
    /**
     * Most bytes a shared reduction has every rank read and combine (P contributions of the reduction's size): past
     * it, recursive doubling's log2 P exchanges move less.
     */
    static final long COMBINE_BUDGET = 64 << 10;

    private final Collectives c;
    private final Messenger m;
    private final int me;
    private final int p;
    /** Whether this communicator's collectives may use shared memory at all (jrma.coll.shared and the mapping). */
    private final boolean on;
    /** Shared collectives this rank has made on this communicator: the slot of the next is their parity. */
    private long epochs;
    /** Smallest and largest bcast or reduction (bytes) done through {@link #big} (jrma.coll.sharedLargeMin, Max). */
    private final long bigMin;
    private final long bigMax;
    /** The large slots of the reductions and bcasts beyond the inboxes' slots, made when first needed. */
    final BigSlots big;

    SharedColl(Collectives c, boolean enabled) {
        this.c = c;
        this.m = c.m;
        this.me = c.me;
        this.p = c.p;
        this.on = enabled && p > 1 && m.flagBarrier();
        this.bigMin = CollParams.count(m, "jrma.coll.sharedLargeMin");
        this.bigMax = CollParams.count(m, "jrma.coll.sharedLargeMax");
        this.big = new BigSlots(c);
    }

    /**
     * Whether a reduction of {@code bytes} packed bytes that {@link #reduces} refuses goes through the large slots
     * ({@link BigSlots}; same on every rank). Collective: it makes or grows the slots when they are too small.
     */
    boolean reducesBig(long bytes) {
        return on && bytes >= bigMin && bytes <= bigMax && !reduces(bytes) && big.reserve(bytes);
    }

    /**
     * Whether a bcast of {@code bytes} too large for the inboxes' slots goes through the large slots (same on every
     * rank). Collective: it makes or grows the slots when they are too small.
     */
    boolean bcastsBig(long bytes) {
        return on && bytes > SLOT && bytes >= bigMin && bytes <= bigMax && big.reserve(bytes);
    }

    /**
     * Bcast of {@code u} through the large slots: the root packs it into its large slot, one barrier, every other
     * rank unpacks it from there (one copy in, one copy out per rank, no message).
     */
    void bcastBig(UserBuf u, int root) {
        int at = big.at(big.next());
        if (me == root) {
            u.packInto(big.mem(me), at);
        }
        c.barrier();
        if (me != root) {
            u.unpackFrom(big.mem(root), at, u.bytes);
        }
    }

    /** Frees the large slots (collective, from {@link Messenger#free}). */
    void free() {
        big.free();
    }

    /** Whether a shared collective publishing up to {@code bytes} bytes per rank may run (same on every rank). */
    boolean fits(long bytes) {
        return on && bytes >= 0 && bytes <= SLOT;
    }

    /** Whether a shared reduction of {@code bytes} packed bytes may run: it fits a slot and the combine budget. */
    boolean reduces(long bytes) {
        return fits(bytes) && bytes * p <= COMBINE_BUDGET;
    }

    /** The slot of the next shared collective (every rank calls this once per shared collective). */
    int next() {
        return (int) (epochs++ & 1);
    }

    /** The buffer that holds {@code rank}'s slots (mapped here). */
    ByteBuffer mem(int rank) {
        return m.scratchMem(rank);
    }

    /** Where slot {@code slot} starts in {@link #mem}. */
    int at(int slot) {
        return m.scratchAt(slot);
    }

    /** Copies {@code bytes} of {@code src} (from 0) into this rank's slot {@code slot}. */
    void write(int slot, ByteBuffer src, int bytes) {
        mem(me).put(at(slot), src, 0, bytes);
    }

    // ------------------------------------------------------------------ data movement

    /** Bcast of {@code u} (at most {@link #SLOT} bytes): the root publishes, the others unpack from its slot. */
    void bcast(UserBuf u, int root) {
        int slot = next();
        if (me == root) {
            u.packInto(mem(me), at(slot));
        }
        c.barrier();
        if (me != root) {
            u.unpackFrom(mem(root), at(slot), u.bytes);
        }
    }

    /**
     * Gather of blocks of {@code block} bytes: the others publish their send data, the root unpacks slot r into
     * block r of its receive buffer and copies its own block itself.
     */
    void gather(Object sendBuf, long sendOffset, long sendCount, Datatype sendType,
                Object recvBuf, long recvOffset, long recvCount, Datatype recvType, int root, long block) {
        int slot = next();
        if (me != root) {
            UserBuf.of(sendBuf, sendOffset, sendCount, sendType, "gather send buffer").packInto(mem(me), at(slot));
            c.barrier();
            return;
        }
        UserBuf.of(recvBuf, recvOffset, p * recvCount, recvType, "gather receive buffer"); // checks the bounds
        c.barrier();
        long ext = recvType.extent();
        for (int r = 0; r < p; r++) {
            if (r != root) {
                recvType.unpack(mem(r), at(slot), block, recvBuf, (recvOffset + r * recvCount) * ext, recvCount);
            }
        }
        c.work.localCopy(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset + root * recvCount, recvCount,
                recvType);
    }

    /** Scatter of blocks of {@code block} bytes ({@code p * block <= SLOT}): the root publishes all P blocks. */
    void scatter(Object sendBuf, long sendOffset, long sendCount, Datatype sendType, UserBuf r, int root,
                 long block) {
        int slot = next();
        if (me == root) {
            UserBuf all = UserBuf.of(sendBuf, sendOffset, p * sendCount, sendType, "scatter send buffer");
            all.packInto(mem(me), at(slot));
        }
        c.barrier();
        if (block > r.bytes) { // after the barrier: the other ranks are not left waiting for this one
            throw new RmaException(ErrorClass.ERR_TRUNCATE, "scatter: rank " + me + " is sent " + block
                    + " bytes but its receive buffer holds " + r.bytes);
        }
        r.unpackFrom(mem(root), at(slot) + me * block, block);
    }

    /**
     * Allgatherv whose every block fits a slot: each rank publishes its send data, then unpacks every other rank's
     * slot into that rank's block ({@code counts[r]} elements at element {@code recvOffset + displs[r]}).
     */
    void allgatherv(UserBuf s, Object recvBuf, long recvOffset, long[] counts, long[] displs, Datatype recvType) {
        int slot = next();
        s.packInto(mem(me), at(slot));
        long ext = recvType.extent();
        for (int r = 0; r < p; r++) {
            UserBuf.of(recvBuf, recvOffset + displs[r], counts[r], recvType, "allgather receive buffer");
        }
        c.barrier();
        if (s.bytes > counts[me] * recvType.size()) { // after the barrier: no rank is left waiting for this one
            throw new RmaException(ErrorClass.ERR_TRUNCATE, "allgather: rank " + me + " sends " + s.bytes
                    + " bytes but its receive block holds " + counts[me] * recvType.size());
        }
        for (int r = 0; r < p; r++) {
            long bytes = counts[r] * recvType.size();
            if (bytes > 0) {
                recvType.unpack(mem(r), at(slot), bytes, recvBuf, (recvOffset + displs[r]) * ext, counts[r]);
            }
        }
    }

    /**
     * Alltoall of blocks of {@code block} bytes ({@code p * block <= SLOT}): each rank publishes its P blocks, then
     * unpacks block {@code me} of every rank's slot into block r of its receive buffer.
     */
    void alltoall(Object sendBuf, long sendOffset, long sendCount, Datatype sendType,
                  Object recvBuf, long recvOffset, long recvCount, Datatype recvType, long block) {
        int slot = next();
        UserBuf all = UserBuf.of(sendBuf, sendOffset, p * sendCount, sendType, "alltoall send buffer");
        UserBuf.of(recvBuf, recvOffset, p * recvCount, recvType, "alltoall receive buffer"); // checks the bounds
        all.packInto(mem(me), at(slot));
        c.barrier();
        long ext = recvType.extent();
        for (int r = 0; r < p; r++) {
            recvType.unpack(mem(r), at(slot) + me * block, block, recvBuf, (recvOffset + r * recvCount) * ext,
                    recvCount);
        }
    }

    // ------------------------------------------------------------------ the v variants: directory, then blocks

    /** Entries of a slot's directory: one long per block, its packed length, or -1 when it goes by message. */
    private static final long BY_MESSAGE = -1;

    private static long getLong(ByteBuffer b, int at) {
        long v = b.getLong(at);
        return b.order() == ByteOrder.LITTLE_ENDIAN ? v : Long.reverseBytes(v);
    }

    private static void putLong(ByteBuffer b, int at, long v) {
        b.putLong(at, b.order() == ByteOrder.LITTLE_ENDIAN ? v : Long.reverseBytes(v));
    }

    /**
     * Gatherv: every other rank publishes its block's length and data in its slot (a block longer than the slot's
     * {@code SLOT - 8} bytes is sent by message and announced as -1); the root, after the barrier, unpacks every
     * published block into place and receives the others. Each rank's counts are its own: no rank needs another's.
     */
    void gatherv(Object sendBuf, long sendOffset, long sendCount, Datatype sendType,
                 Object recvBuf, long recvOffset, long[] recvCounts, long[] displs, Datatype recvType, int root) {
        int slot = next();
        int at = at(slot);
        if (me != root) {
            UserBuf s = UserBuf.of(sendBuf, sendOffset, sendCount, sendType, "gatherv send buffer");
            MsgRequest x = null;
            if (s.bytes <= SLOT - Long.BYTES) {
                putLong(mem(me), at, s.bytes);
                s.packInto(mem(me), at + Long.BYTES);
            } else {
                putLong(mem(me), at, BY_MESSAGE);
                x = c.isend(sendBuf, sendOffset, sendCount, sendType, root, Collectives.TAG_GATHER);
            }
            c.barrier();
            if (x != null) {
                c.await(x, null);
            }
            return;
        }
        c.barrier();
        MsgRequest[] rs = c.requests();
        long ext = recvType.extent();
        RmaException err = null;
        for (int r = 0; r < p; r++) {
            if (r == root) {
                continue;
            }
            long len = getLong(mem(r), at);
            if (len == BY_MESSAGE) {
                rs[r] = c.irecv(recvBuf, recvOffset + displs[r], recvCounts[r], recvType, r, Collectives.TAG_GATHER);
            } else if (len > Collectives.bytes(recvCounts[r], recvType)) {
                err = new RmaException(ErrorClass.ERR_TRUNCATE, "gatherv: rank " + r + " sends " + len
                        + " bytes but its block at the root holds " + Collectives.bytes(recvCounts[r], recvType));
            } else if (len > 0) {
                UserBuf.of(recvBuf, recvOffset + displs[r], recvCounts[r], recvType, "gatherv receive buffer");
                recvType.unpack(mem(r), at + Long.BYTES, len, recvBuf, (recvOffset + displs[r]) * ext, recvCounts[r]);
            }
        }
        c.work.localCopy(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset + displs[root], recvCounts[root],
                recvType);
        c.await(rs, p);
        if (err != null) {
            throw err;
        }
    }

    /**
     * Scatterv: the root publishes a directory of P lengths, then as many blocks as fit its slot in rank order (the
     * rest go by message, -1 in the directory); every other rank, after the barrier, unpacks its block from the
     * root's slot or receives it.
     */
    void scatterv(Object sendBuf, long sendOffset, long[] sendCounts, long[] displs, Datatype sendType,
                  Object recvBuf, long recvOffset, long recvCount, Datatype recvType, int root) {
        int slot = next();
        int at = at(slot);
        if (me == root) {
            MsgRequest[] rs = c.requests();
            publishBlocks(at, sendBuf, sendOffset, sendCounts, displs, sendType, "scatterv send buffer",
                    Collectives.TAG_SCATTER, rs, 1, 0);
            c.barrier();
            c.work.localCopy(sendBuf, sendOffset + displs[root], sendCounts[root], sendType, recvBuf, recvOffset,
                    recvCount, recvType);
            c.await(rs, p);
            return;
        }
        c.barrier();
        ByteBuffer rm = mem(root);
        long len = getLong(rm, at + me * Long.BYTES);
        if (len == BY_MESSAGE) {
            c.recv(recvBuf, recvOffset, recvCount, recvType, root, Collectives.TAG_SCATTER);
            return;
        }
        long from = blockStart(rm, at, me);
        UserBuf u = UserBuf.of(recvBuf, recvOffset, recvCount, recvType, "scatterv receive buffer");
        if (len > u.bytes) {
            throw new RmaException(ErrorClass.ERR_TRUNCATE, "scatterv: rank " + me + " is sent " + len
                    + " bytes but its receive buffer holds " + u.bytes);
        }
        u.unpackFrom(rm, at + from, len);
    }

    /**
     * Alltoallv: every rank publishes a directory of P lengths and as many of its blocks as fit its slot (the rest go
     * by message, posted before the barrier); after it, each rank unpacks block {@code me} of every slot that holds
     * one and receives the others.
     */
    void alltoallv(Object sendBuf, long sendOffset, long[] sendCounts, long[] sendDispls, Datatype sendType,
                   Object recvBuf, long recvOffset, long[] recvCounts, long[] recvDispls, Datatype recvType) {
        int slot = next();
        int at = at(slot);
        MsgRequest[] rs = c.requests();
        publishBlocks(at, sendBuf, sendOffset, sendCounts, sendDispls, sendType, "alltoallv send buffer",
                Collectives.TAG_ALLTOALL, rs, 2, 1);
        c.barrier();
        long ext = recvType.extent();
        RmaException err = null;
        for (int r = 0; r < p; r++) {
            if (r == me) {
                continue;
            }
            ByteBuffer rm = mem(r);
            long len = getLong(rm, at + me * Long.BYTES);
            if (len == BY_MESSAGE) {
                rs[2 * r] = c.irecv(recvBuf, recvOffset + recvDispls[r], recvCounts[r], recvType, r,
                        Collectives.TAG_ALLTOALL);
                continue;
            }
            if (len > Collectives.bytes(recvCounts[r], recvType)) {
                err = new RmaException(ErrorClass.ERR_TRUNCATE, "alltoallv: rank " + r + " sends " + len
                        + " bytes but rank " + me + "'s block holds " + Collectives.bytes(recvCounts[r], recvType));
                continue;
            }
            long from = blockStart(rm, at, me);
            if (len > 0) {
                UserBuf.of(recvBuf, recvOffset + recvDispls[r], recvCounts[r], recvType, "alltoallv receive buffer");
                recvType.unpack(rm, at + (int) from, len, recvBuf, (recvOffset + recvDispls[r]) * ext, recvCounts[r]);
            }
        }
        c.work.localCopy(sendBuf, sendOffset + sendDispls[me], sendCounts[me], sendType,
                recvBuf, recvOffset + recvDispls[me], recvCounts[me], recvType);
        c.await(rs, 2 * p);
        if (err != null) {
            throw err;
        }
    }

    /**
     * Publishes, in this rank's slot at {@code at}, a directory of P lengths and then, in rank order, the block for
     * each other rank r ({@code counts[r]} elements at {@code displs[r]}) while it fits; a block that does not fit is
     * marked {@link #BY_MESSAGE} in the directory and sent now, its request in {@code rs[stride * r + first]}. This
     * rank's own block is marked so too and not sent (the caller copies it).
     */
    private void publishBlocks(int at, Object buf, long offset, long[] counts, long[] displs, Datatype type,
                               String what, int tag, MsgRequest[] rs, int stride, int first) {
        long used = (long) p * Long.BYTES;
        for (int r = 0; r < p; r++) {
            UserBuf b = UserBuf.of(buf, offset + displs[r], counts[r], type, what);
            if (r != me && used + b.bytes <= SLOT) {
                putLong(mem(me), at + r * Long.BYTES, b.bytes);
                b.packInto(mem(me), at + used);
                used += b.bytes;
            } else {
                putLong(mem(me), at + r * Long.BYTES, BY_MESSAGE);
                if (r != me) {
                    rs[stride * r + first] = c.isend(buf, offset + displs[r], counts[r], type, r, tag);
                }
            }
        }
    }

    /**
     * Where block {@code index} starts in the slot at {@code at} of {@code slotMem}: after the directory and the
     * blocks before it that travel in the slot.
     */
    private long blockStart(ByteBuffer slotMem, int at, int index) {
        long from = (long) p * Long.BYTES;
        for (int r = 0; r < index; r++) {
            from += Math.max(0, getLong(slotMem, at + r * Long.BYTES));
        }
        return from;
    }
}

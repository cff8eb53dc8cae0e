package io.jrma.msg;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.Op;
import io.jrma.RmaException;
import java.util.Arrays;

/**
 * MPI's collective operations over a {@link Messenger}'s communicator, built on its point-to-point messages
 * in a context of their own (so they never match user receives, wildcards included).
 *
 * <h2>Arguments</h2>
 * Buffers, offsets (in elements of the buffer's datatype), counts and datatypes as in {@link Messenger};
 * displacement arrays of the {@code v} variants are in elements of their datatype too. Arguments that MPI
 * calls significant only at the root are read only there. Reductions take any predefined {@link Op} that MPI
 * allows in collectives (every one but {@link Op#REPLACE} and {@link Op#NO_OP}, which are for accumulate) on
 * datatypes made of one predefined type for which the op is defined ({@link Op#isValidFor}); all predefined
 * ops are commutative, which the algorithms rely on. The reductions accept the same memory as send and receive
 * buffer (MPI_IN_PLACE): they pack their whole input before they write any result. The data-movement collectives
 * take the in-place forms MPI defines as a send block that is the rank's own block of the receive buffer.
 *
 * <h2>On shared memory</h2>
 * Where every rank maps every other's inbox (threads of a JVM, JVMs of a host) and {@code jrma.coll.shared} is on,
 * barrier uses shared flags ({@link FlagBarrier}; dissemination: ceil(log2 P) rounds of one store and one load, no
 * message) and the small collectives go through the ranks' scratch slots and one such barrier, with no message:
 * bcast, gather(v), scatter(v), allgather(v), alltoall(v) ({@link SharedColl}; the v variants send the blocks that do
 * not fit by message), allreduce, reduce, reduce_scatter(_block), scan and exscan ({@link Reductions}), up to
 * {@value SharedColl#SLOT} bytes per slot. Larger bcast, allreduce, reduce and reduce_scatter(_block) go through
 * large shared slots ({@link BigSlots}; bcast: the root publishes, the others copy; the reductions: {@link
 * LargeReductions}, each rank combines 1/P of the vector, one or two such barriers, no message) up to {@code
 * jrma.coll.sharedLargeMax} bytes.
 *
 * <h2>By messages (chosen by size, as MPICH does)</h2>
 * <table>
 *   <caption>Algorithm per collective</caption>
 *   <tr><th>collective</th><th>algorithm</th></tr>
 *   <tr><td>barrier</td><td>dissemination: ceil(log2 P) rounds of empty messages (of shared flags where every
 *       inbox is mapped)</td></tr>
 *   <tr><td>bcast</td><td>binomial tree; from {@value #BCAST_LONG} bytes on 3+ ranks, scatter from the root
 *       then ring allgather (van de Geijn), which moves about 2x the data instead of log2 P times</td></tr>
 *   <tr><td>reduce</td><td>binomial tree; from {@value #REDUCE_LONG} bytes on 3+ ranks, ring reduce-scatter
 *       then gather to the root (Rabenseifner)</td></tr>
 *   <tr><td>allreduce</td><td>recursive doubling (non-powers of two fold the extra ranks in first) up to
 *       {@value #ALLREDUCE_SHORT} bytes; beyond, ring reduce-scatter then ring allgather, bandwidth-optimal</td></tr>
 *   <tr><td>reduce_scatter(_block)</td><td>on 3+ ranks up to {@code jrma.coll.reduceScatterShort} bytes of
 *       vector (8 KiB): recursive-doubling allreduce of the vector, each rank keeping its block (log2 P steps
 *       instead of P-1 dependent ones); beyond, ring reduce-scatter with the requested block sizes</td></tr>
 *   <tr><td>scan, exscan</td><td>recursive doubling (log2 P rounds)</td></tr>
 *   <tr><td>allgather</td><td>on 3+ ranks up to {@code jrma.coll.allgatherShort} bytes of all blocks (64 KiB):
 *       Bruck's (ceil(log2 P) messages per rank, packed blocks rotated into place at the end); beyond, and
 *       on 2 ranks, ring (P-1 steps of one block)</td></tr>
 *   <tr><td>allgatherv</td><td>ring (P-1 steps of one block)</td></tr>
 *   <tr><td>gather(v), scatter(v)</td><td>linear: the root posts every receive (send) at once</td></tr>
 *   <tr><td>alltoall(v)</td><td>every rank posts all its receives and sends at once (pairwise order)</td></tr>
 * </table>
 * Reductions work on packed copies (the sender's data packed once, results unpacked once), so any
 * single-type datatype works and blocks split at element boundaries.
 *
 * <h2>Waiting</h2>
 * Waits use one {@link Waiter} of this object, which spins {@code jrma.coll.spinNs} (2 ms when ranks &lt;= cores,
 * else 0) before it yields or parks, and the small-message path allocates nothing of its own: scratch buffers,
 * counts, displacements and request arrays are kept between calls.
 *
 * <p>Owned by the rank of its messenger. Every rank of the communicator must call the same collectives in
 * the same order, one at a time (MPI's rule); scratch buffers are kept between calls.
 */
public final class Collectives {
    /** Bytes from which bcast scatters then allgathers (on 3 or more ranks). */
    public static final int BCAST_LONG = 256 << 10;
    /** Bytes from which reduce uses reduce-scatter then gather (on 3 or more ranks). */
    public static final int REDUCE_LONG = 256 << 10;
    /** Largest allreduce (bytes) done by recursive doubling; larger ones use the ring. */
    public static final int ALLREDUCE_SHORT = 64 << 10;

    static final int TAG_BARRIER = 1;
    static final int TAG_BCAST = 2;
    static final int TAG_REDUCE = 3;
    static final int TAG_ALLREDUCE = 4;
    static final int TAG_GATHER = 5;
    static final int TAG_SCATTER = 6;
    static final int TAG_ALLGATHER = 7;
    static final int TAG_ALLTOALL = 8;
    static final int TAG_REDUCE_SCATTER = 9;
    static final int TAG_SCAN = 10;

    final Messenger m;
    final int me;
    final int p;
    private final Reductions red;
    /** The collectives on shared memory (jrma.coll.shared, every inbox mapped here). */
    final SharedColl shared;
    /** The data-movement collectives by messages. */
    final MessageColl msg;
    /** Largest allgather (bytes of all blocks) done by Bruck's algorithm on 3+ ranks (jrma.coll.allgatherShort). */
    final long allgatherShort;
    /** Largest reduce_scatter (bytes of the vector) done as an allreduce on 3+ ranks (jrma.coll.reduceScatterShort). */
    final long reduceScatterShort;
    /** Scratch buffers, block splits and local copies (see {@link CollScratch}). */
    final CollScratch work;
    /** The waiter of this rank's collective waits, reused from one wait to the next (jrma.coll.spinNs). */
    private final Waiter waiter;
    /** Counts, displacements and requests of the calls that build them, kept between calls (p entries; 2p). */
    private final long[] counts1;
    private final long[] displs1;
    private final long[] counts2;
    private final long[] displs2;
    final long[] lo;
    private final MsgRequest[] reqs;

    Collectives(Messenger m) {
        this.m = m;
        this.me = m.me;
        this.p = m.size;
        this.allgatherShort = CollParams.count(m, "jrma.coll.allgatherShort");
        this.reduceScatterShort = CollParams.count(m, "jrma.coll.reduceScatterShort");
        this.waiter = CollParams.waiter(m, p);
        this.work = new CollScratch(me, p);
        this.counts1 = new long[p];
        this.displs1 = new long[p];
        this.counts2 = new long[p];
        this.displs2 = new long[p];
        this.lo = new long[p];
        this.reqs = new MsgRequest[2 * p];
        this.shared = new SharedColl(this, Boolean.parseBoolean(Jrma.parameter(m.comm, "jrma.coll.shared").trim()));
        this.msg = new MessageColl(this);
        this.red = new Reductions(this);
    }

    /** Frees what the collectives hold beyond the messenger (collective, from {@link Messenger#free}). */
    void free() {
        shared.free();
    }

    // ------------------------------------------------------------------ synchronization and data movement

    /** Returns once every rank has entered the barrier (MPI_Barrier). */
    public void barrier() {
        if (p > 1 && m.flagBarrier()) {
            m.flags.barrier(waiter);
            return;
        }
        for (int k = 1; k < p; k <<= 1) {
            MsgRequest r = irecv(null, 0, 0, Datatype.BYTE, (me - k + p) % p, TAG_BARRIER);
            MsgRequest s = isend(null, 0, 0, Datatype.BYTE, (me + k) % p, TAG_BARRIER);
            await(r, s);
        }
    }

    /** Broadcasts the root's data to every rank (MPI_Bcast). */
    public void bcast(Object buf, long offset, long count, Datatype type, int root) {
        checkRoot(root, "bcast");
        UserBuf u = UserBuf.of(buf, offset, count, type, "bcast");
        if (p == 1 || u.bytes == 0) {
            return;
        }
        if (shared.fits(u.bytes)) {
            shared.bcast(u, root);
        } else if (shared.bcastsBig(u.bytes)) {
            shared.bcastBig(u, root);
        } else {
            msg.bcast(u, buf, offset, count, type, root);
        }
    }

    /** Gathers {@code sendCount} elements from every rank into the root's buffer, rank r's at block r (MPI_Gather). */
    public void gather(Object sendBuf, long sendOffset, long sendCount, Datatype sendType,
                       Object recvBuf, long recvOffset, long recvCount, Datatype recvType, int root) {
        checkRoot(root, "gather");
        long block = me == root ? bytes(recvCount, recvType) : bytes(sendCount, sendType);
        if (block > 0 && shared.fits(block)) {
            shared.gather(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, recvCount, recvType, root,
                    block);
            return;
        }
        long[] counts = null;
        long[] displs = null;
        if (me == root) {
            counts = counts2;
            displs = displs2;
            for (int r = 0; r < p; r++) {
                counts[r] = recvCount;
                displs[r] = r * recvCount;
            }
        }
        gatherv(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, counts, displs, recvType, root);
    }

    /** Gathers varying counts: rank r's data lands at element {@code recvOffset + displs[r]} (MPI_Gatherv). */
    public void gatherv(Object sendBuf, long sendOffset, long sendCount, Datatype sendType,
                        Object recvBuf, long recvOffset, long[] recvCounts, long[] displs,
                        Datatype recvType, int root) {
        checkRoot(root, "gatherv");
        if (me == root) {
            checkCounts(recvCounts, displs, "gatherv");
        }
        if (shared.fits(0)) {
            shared.gatherv(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, recvCounts, displs, recvType,
                    root);
            return;
        }
        msg.gatherv(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, recvCounts, displs, recvType, root);
    }

    /** Sends block r of the root's buffer to rank r (MPI_Scatter). */
    public void scatter(Object sendBuf, long sendOffset, long sendCount, Datatype sendType,
                        Object recvBuf, long recvOffset, long recvCount, Datatype recvType, int root) {
        checkRoot(root, "scatter");
        long block = me == root ? bytes(sendCount, sendType) : bytes(recvCount, recvType);
        if (block > 0 && shared.fits(p * block)) {
            UserBuf r = UserBuf.of(recvBuf, recvOffset, recvCount, recvType, "scatter receive buffer");
            shared.scatter(sendBuf, sendOffset, sendCount, sendType, r, root, block);
            return;
        }
        long[] counts = null;
        long[] displs = null;
        if (me == root) {
            counts = counts2;
            displs = displs2;
            for (int r = 0; r < p; r++) {
                counts[r] = sendCount;
                displs[r] = r * sendCount;
            }
        }
        scatterv(sendBuf, sendOffset, counts, displs, sendType, recvBuf, recvOffset, recvCount, recvType, root);
    }

    /** Sends {@code sendCounts[r]} elements from element {@code sendOffset + displs[r]} to rank r (MPI_Scatterv). */
    public void scatterv(Object sendBuf, long sendOffset, long[] sendCounts, long[] displs, Datatype sendType,
                         Object recvBuf, long recvOffset, long recvCount, Datatype recvType, int root) {
        checkRoot(root, "scatterv");
        if (me == root) {
            checkCounts(sendCounts, displs, "scatterv");
        }
        if (shared.fits(0)) {
            shared.scatterv(sendBuf, sendOffset, sendCounts, displs, sendType, recvBuf, recvOffset, recvCount,
                    recvType, root);
            return;
        }
        msg.scatterv(sendBuf, sendOffset, sendCounts, displs, sendType, recvBuf, recvOffset, recvCount, recvType, root);
    }

    /**
     * Every rank gets every rank's block, rank r's at block r (MPI_Allgather). On 3 or more ranks, up to
     * {@code jrma.coll.allgatherShort} bytes in all, Bruck's algorithm: ceil(log2 P) messages per rank.
     */
    public void allgather(Object sendBuf, long sendOffset, long sendCount, Datatype sendType,
                          Object recvBuf, long recvOffset, long recvCount, Datatype recvType) {
        long block = bytes(recvCount, recvType);
        boolean uniform = block > 0 && bytes(sendCount, sendType) == block;
        if (p > 2 && uniform && !shared.fits(block) && block * p <= allgatherShort) {
            msg.bruckAllgather(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, recvCount, recvType,
                    block);
            return;
        }
        for (int r = 0; r < p; r++) {
            counts1[r] = recvCount;
            displs1[r] = r * recvCount;
        }
        allgatherv(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, counts1, displs1, recvType);
    }

    /**
     * Allgather with varying counts; rank r's data lands at element {@code recvOffset + displs[r]} (MPI_Allgatherv).
     */
    public void allgatherv(Object sendBuf, long sendOffset, long sendCount, Datatype sendType,
                           Object recvBuf, long recvOffset, long[] recvCounts, long[] displs, Datatype recvType) {
        checkCounts(recvCounts, displs, "allgatherv");
        UserBuf s = UserBuf.of(sendBuf, sendOffset, sendCount, sendType, "allgather send buffer");
        boolean fits = s.bytes <= SharedColl.SLOT;
        for (int r = 0; r < p && fits; r++) {
            fits = shared.fits(bytes(recvCounts[r], recvType));
        }
        if (fits) {
            shared.allgatherv(s, recvBuf, recvOffset, recvCounts, displs, recvType);
        } else {
            msg.allgatherv(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, recvCounts, displs,
                    recvType);
        }
    }

    /** Block j of every rank's send buffer goes to rank j, landing at block i for sender i (MPI_Alltoall). */
    public void alltoall(Object sendBuf, long sendOffset, long sendCount, Datatype sendType,
                         Object recvBuf, long recvOffset, long recvCount, Datatype recvType) {
        long block = bytes(recvCount, recvType);
        if (block > 0 && bytes(sendCount, sendType) == block && shared.fits(p * block)) {
            shared.alltoall(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, recvCount, recvType, block);
            return;
        }
        long[] sc = counts1;
        long[] sd = displs1;
        long[] rc = counts2;
        long[] rd = displs2;
        for (int r = 0; r < p; r++) {
            sc[r] = sendCount;
            sd[r] = r * sendCount;
            rc[r] = recvCount;
            rd[r] = r * recvCount;
        }
        alltoallv(sendBuf, sendOffset, sc, sd, sendType, recvBuf, recvOffset, rc, rd, recvType);
    }

    /** Alltoall with per-rank counts and displacements (in elements) on both sides (MPI_Alltoallv). */
    public void alltoallv(Object sendBuf, long sendOffset, long[] sendCounts, long[] sendDispls, Datatype sendType,
                          Object recvBuf, long recvOffset, long[] recvCounts, long[] recvDispls, Datatype recvType) {
        checkCounts(sendCounts, sendDispls, "alltoallv send");
        checkCounts(recvCounts, recvDispls, "alltoallv receive");
        if (shared.fits(0)) {
            shared.alltoallv(sendBuf, sendOffset, sendCounts, sendDispls, sendType, recvBuf, recvOffset, recvCounts,
                    recvDispls, recvType);
            return;
        }
        msg.alltoallv(sendBuf, sendOffset, sendCounts, sendDispls, sendType, recvBuf, recvOffset, recvCounts,
                recvDispls, recvType);
    }

    // ------------------------------------------------------------------ reductions (see Reductions)

    /** Combines every rank's data with {@code op} into the root's receive buffer (MPI_Reduce). */
    public void reduce(Object sendBuf, long sendOffset, Object recvBuf, long recvOffset, long count, Datatype type,
                       Op op, int root) {
        checkRoot(root, "reduce");
        red.reduce(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op, root);
    }

    /** Combines every rank's data with {@code op}; every rank gets the result (MPI_Allreduce). */
    public void allreduce(Object sendBuf, long sendOffset, Object recvBuf, long recvOffset, long count,
            Datatype type, Op op) {
        red.allreduce(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op);
    }

    /**
     * Combines every rank's {@code sum(recvCounts)} elements with {@code op} and leaves block r of the result
     * ({@code recvCounts[r]} elements) at rank r (MPI_Reduce_scatter).
     */
    public void reduceScatter(Object sendBuf, long sendOffset, Object recvBuf, long recvOffset, long[] recvCounts,
                              Datatype type, Op op) {
        red.reduceScatter(sendBuf, sendOffset, recvBuf, recvOffset, recvCounts, type, op);
    }

    /** {@link #reduceScatter} with {@code recvCount} elements for every rank (MPI_Reduce_scatter_block). */
    public void reduceScatterBlock(Object sendBuf, long sendOffset, Object recvBuf, long recvOffset, long recvCount,
                                   Datatype type, Op op) {
        long[] counts = new long[p];
        Arrays.fill(counts, recvCount);
        red.reduceScatter(sendBuf, sendOffset, recvBuf, recvOffset, counts, type, op);
    }

    /** Inclusive prefix reduction: rank r gets data(0) op ... op data(r) (MPI_Scan). */
    public void scan(Object sendBuf, long sendOffset, Object recvBuf, long recvOffset, long count,
            Datatype type, Op op) {
        red.scan(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op, false);
    }

    /**
     * Exclusive prefix reduction: rank r > 0 gets data(0) op ... op data(r-1); rank 0's buffer is untouched
     * (MPI_Exscan).
     */
    public void exscan(Object sendBuf, long sendOffset, Object recvBuf, long recvOffset, long count,
            Datatype type, Op op) {
        red.scan(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op, true);
    }

    // ------------------------------------------------------------------ shared helpers

    /** Smallest tag of {@link #isendOwn} / {@link #irecvOwn}; the collectives of this class use tags below it. */
    public static final int OWN_TAG_BASE = 1 << 20;

    /**
     * A send on the collective context with a tag of {@code OWN_TAG_BASE} or more, for collective operations
     * built outside this class (the {@code mpi} package's inter-communicator collectives and port rendezvous):
     * such messages never meet user point-to-point traffic nor this class's collectives.
     *
     * @throws RmaException ERR_TAG for a tag below {@link #OWN_TAG_BASE}
     */
    public MsgRequest isendOwn(Object buf, long offset, long count, Datatype type, int dest, int tag) {
        return isend(buf, offset, count, type, dest, ownTag(tag));
    }

    /** The receive matching {@link #isendOwn}; {@code source} may be {@link Messenger#ANY_SOURCE}. */
    public MsgRequest irecvOwn(Object buf, long offset, long count, Datatype type, int source, int tag) {
        return irecv(buf, offset, count, type, source, ownTag(tag));
    }

    private static int ownTag(int tag) {
        if (tag < OWN_TAG_BASE) {
            throw new RmaException(ErrorClass.ERR_TAG, "tag " + tag + " is below Collectives.OWN_TAG_BASE");
        }
        return tag;
    }

    MsgRequest isend(Object buf, long offset, long count, Datatype type, int dest, int tag) {
        return m.startSend(buf, offset, count, type, dest, tag, Messenger.CTX_COLL, false);
    }

    MsgRequest irecv(Object buf, long offset, long count, Datatype type, int source, int tag) {
        return m.startRecv(buf, offset, count, type, source, tag, Messenger.CTX_COLL);
    }

    void send(Object buf, long offset, long count, Datatype type, int dest, int tag) {
        await(isend(buf, offset, count, type, dest, tag), null);
    }

    void recv(Object buf, long offset, long count, Datatype type, int source, int tag) {
        await(irecv(buf, offset, count, type, source, tag), null);
    }

    // ------------------------------------------------------------------ waiting

    /** The kept request array, emptied (a collective that threw may have left requests in it). */
    MsgRequest[] requests() {
        Arrays.fill(reqs, null);
        return reqs;
    }

    /**
     * Waits for one or two requests ({@code b} may be null) of this messenger with the collectives' waiter, which
     * spins {@code jrma.coll.spinNs} before it yields or parks, and allocates nothing. Errors are thrown as
     * {@link MsgRequest#waitAll} throws them.
     */
    void await(MsgRequest a, MsgRequest b) {
        if (!a.isComplete() || (b != null && !b.isComplete())) {
            Waiter w = waiter;
            w.reset();
            while (true) {
                int work = m.progressOnce();
                if (a.isComplete() && (b == null || b.isComplete())) {
                    break;
                }
                w.idle(work, m);
            }
        }
        if (b == null) {
            a.waitFor(); // complete: marks it inactive, throws its error
        } else if (a.failed() || b.failed()) {
            MsgRequest.waitAll(a, b);
        } else {
            a.waitFor();
            b.waitFor();
        }
    }

    /**
     * {@link #await(MsgRequest, MsgRequest)} for the first {@code n} entries of {@code rs} (nulls skipped), which it
     * clears.
     */
    void await(MsgRequest[] rs, int n) {
        Waiter w = waiter;
        w.reset();
        while (true) {
            boolean all = true;
            for (int i = 0; i < n && all; i++) {
                all = rs[i] == null || rs[i].isComplete();
            }
            if (all) {
                break;
            }
            w.idle(m.progressOnce(), m);
        }
        boolean failed = false;
        for (int i = 0; i < n; i++) {
            failed |= rs[i] != null && rs[i].failed();
        }
        if (failed) {
            MsgRequest[] copy = Arrays.copyOf(rs, n);
            Arrays.fill(rs, 0, n, null);
            MsgRequest.waitAll(copy);
        }
        for (int i = 0; i < n; i++) {
            if (rs[i] != null) {
                rs[i].waitFor();
                rs[i] = null;
            }
        }
    }

    /** Packed bytes of {@code count} elements of {@code type} (0 for a null type: an argument not significant here). */
    static long bytes(long count, Datatype type) {
        return type == null || count <= 0 ? 0 : count * type.size();
    }

    void checkRoot(int root, String what) {
        if (root < 0 || root >= p) {
            throw new RmaException(ErrorClass.ERR_ROOT,
                    what + ": root " + root + " is not in a communicator of size " + p);
        }
    }

    void checkCounts(long[] counts, long[] displs, String what) {
        if (counts == null || displs == null || counts.length < p || displs.length < p) {
            throw new RmaException(ErrorClass.ERR_ARG, what + ": counts and displacements need " + p + " entries each");
        }
        for (int r = 0; r < p; r++) {
            if (counts[r] < 0) {
                throw new RmaException(ErrorClass.ERR_COUNT,
                        what + ": count[" + r + "] = " + counts[r] + " is negative");
            }
            if (displs[r] < 0) {
                throw new RmaException(ErrorClass.ERR_ARG,
                        what + ": displacement[" + r + "] = " + displs[r] + " is negative");
            }
        }
    }
}

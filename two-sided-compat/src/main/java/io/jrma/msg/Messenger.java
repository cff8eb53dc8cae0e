package io.jrma.msg;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.core.mem.Memory;
import io.jrma.core.os.Futex;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

/**
 * MPI point-to-point messaging (send, receive, probe, nonblocking requests) for one communicator, built only
 * on jrma's public one-sided API: it works the same whether the ranks are threads of one JVM or live in
 * different JVMs, because everything a rank tells another travels through windows.
 *
 * <pre>{@code
 * try (Messenger msg = Messenger.create(world)) {
 *     if (world.rank() == 0) {
 *         msg.send(new long[] {1, 2, 3}, 0, 3, Datatype.LONG, 1, 7);
 *     } else if (world.rank() == 1) {
 *         long[] in = new long[3];
 *         Status s = msg.recv(in, 0, 3, Datatype.LONG, Messenger.ANY_SOURCE, 7);
 *     }
 * }
 * }</pre>
 *
 * <h2>Buffers</h2>
 * {@code count} elements of a committed {@link Datatype}, starting at element {@code offset} (in units of the
 * type's extent) of a primitive array or a ByteBuffer (direct or heap, addressed from its first byte). Any
 * datatype works; predefined types without padding move without extra copies.
 *
 * <h2>Semantics</h2>
 * MPI's: messages from one sender are matched in the order they were sent (non-overtaking), per
 * communicator; {@link #ANY_SOURCE} and {@link #ANY_TAG} match anything; sends to and receives from
 * {@link #PROC_NULL} complete at once; a message larger than the receive buffer fills the buffer (nothing
 * beyond it is written) and the receive fails with {@link ErrorClass#ERR_TRUNCATE}. A standard send
 * completes when its buffer may be reused (small messages: once they are in the receiver's memory, whether
 * or not a receive is posted); {@link #ssend} completes once the receiver has matched the message.
 * Progress is made only inside messenger calls (MPI's weak progress), and a call that waits drives every
 * messenger of the rank with operations in flight ({@link RankMessengers}): a rank computing for a long
 * time delays its senders' rendezvous messages and, once their space is used up, their eager ones.
 *
 * <h2>Protocol</h2>
 * Each rank's receive queue is its own memory in an allocate window (the {@linkplain InboxLayout inbox}):
 * for each sender a ring of envelope slots and an area for medium payloads, validated by a tail word the
 * sender writes last; the receiver only polls its own memory. Small messages travel inside the envelope,
 * medium ones through the area, large ones by rendezvous: the receiver gets the data straight from the
 * sender's exposure window (a dynamic window). To a rank of the same JVM, messages from {@code jrma.msg.handoffMin}
 * on are handed off instead: the receiver copies straight from the sender's buffer (one copy) and completes the
 * send. Both windows stay in a {@code lockAll(MODE_NOCHECK)} epoch for the messenger's lifetime; completion is by
 * flush. See {@link Outbox} and {@link Inbox}; {@link PeerInboxes} (the direct path), {@link Handoffs},
 * {@link BlockingCalls} (the allocation-free blocking calls) and {@link MessengerSetup} hold the rest.
 *
 * <h2>Threads</h2>
 * A messenger belongs to one rank (create one per rank, collectively). Any thread of that rank may call it:
 * calls serialize on an internal lock, and waiting threads take turns driving progress.
 * {@link #create} and {@link #free} are collective and must not race with other calls.
 */
public final class Messenger implements AutoCloseable {
    /** Source that matches any sender (MPI_ANY_SOURCE). */
    public static final int ANY_SOURCE = -1;
    /** Tag that matches any tag in a receive or probe (MPI_ANY_TAG). */
    public static final int ANY_TAG = -1;
    /** Rank whose sends and receives complete at once and move nothing (MPI_PROC_NULL). */
    public static final int PROC_NULL = Win.PROC_NULL;
    /** Largest tag (MPI_TAG_UB). */
    public static final int TAG_UB = Integer.MAX_VALUE;

    static final int CTX_USER = 0;
    static final int CTX_COLL = 1;
    static final int CONTEXTS = 2;

    final Comm comm;
    final int me;
    final int size;
    final MsgConfig cfg;
    final InboxLayout lay;
    final Win inbox;
    final Win expose;
    /** This rank's inbox memory (little-endian). */
    final ByteBuffer mem;
    /**
     * Every peer's inbox is mapped here: envelopes, payloads, tails and credits arrive as stores, so a progress
     * round need not run the JVM's progress agent each time (between JVMs a duty cycle costs a read syscall per
     * connection, longer than a message takes to arrive); it runs every {@link #AGENT_EVERY}th round, and the
     * progress thread serves the sockets meanwhile (a copy of {@link PeerInboxes#allDirect}).
     */
    private final boolean allDirect;
    private static final int AGENT_EVERY = 32;
    private int rounds;
    final StagingPool pool;
    private final Matcher[] matchers = {new Matcher(), new Matcher()};
    private final Outbox outbox;
    private final Inbox in;
    private final ReentrantLock lock = new ReentrantLock();
    /** The rank's messengers: waits drive the others too (see {@link RankMessengers}). */
    private final RankMessengers rank = RankMessengers.ofCaller();
    private volatile boolean freed;
    private Collectives collectives;

    /** The inboxes this process maps: the direct path (see {@link PeerInboxes}). */
    final PeerInboxes peers;
    /** Hand-offs between ranks of this JVM (see {@link Handoffs}). */
    final Handoffs handoffs;
    /** Hand-offs this rank has received (lock held), for tests. */
    long handoffsTaken;
    /** The blocking calls and their spare ops and waiter (see {@link BlockingCalls}). */
    final BlockingCalls blocking;
    /** The barrier on shared flags (see {@link FlagBarrier}). */
    final FlagBarrier flags;

    /** Made by {@link MessengerSetup#create}, once the windows are in their epochs. */
    Messenger(Comm comm, MsgConfig cfg, InboxLayout lay, Win inbox, Win expose) {
        this.comm = comm;
        this.me = comm.rank();
        this.size = comm.size();
        this.cfg = cfg;
        this.lay = lay;
        this.inbox = inbox;
        this.expose = expose;
        this.mem = inbox.buffer();
        this.peers = new PeerInboxes(this, inbox);
        this.allDirect = peers.allDirect;
        this.pool = new StagingPool(expose);
        this.handoffs = new Handoffs(this);
        this.blocking = new BlockingCalls(this);
        this.flags = new FlagBarrier(this);
        this.outbox = new Outbox(this);
        this.in = new Inbox(this);
        rank.add(this);
        handoffs.register();
    }

    /**
     * Sleeps on this rank's futex word for at most {@code ns} unless a poll after announcing the sleep finds work.
     * Returns false (nothing done) when this messenger cannot be woken that way: then the caller parks.
     */
    boolean sleep(long ns) {
        if (!peers.futexSleep || in.pending() > 0 || rank.othersBusy(this)) {
            // a rendezvous read in flight may complete through the progress agent, which cannot wake us, and
            // messages for the rank's other messengers with operations in flight arrive in their inboxes
            return false;
        }
        long word = peers.myAddress + lay.wake;
        int seen = Memory.getIntVolatile(null, word);
        Memory.getAndAddInt(null, word + 4, 1);
        try {
            // announced (a full fence): a flag raised before this point is seen here, one raised after it wakes us
            if (progressOnce() == 0 && !flags.ready()) {
                Futex.await(word, seen, ns);
            }
        } finally {
            Memory.getAndAddInt(null, word + 4, -1);
        }
        return true;
    }

    /**
     * Whether barriers on this communicator may use the flag words of the inboxes instead of messages: every peer's
     * inbox is mapped here (threads of this JVM, JVMs of this host) and the rounds fit the flag words. Every rank of
     * the communicator comes to the same answer: mapping is mutual, and the size is the communicator's.
     */
    boolean flagBarrier() {
        return allDirect && peers.futexWake && size <= 1 << InboxLayout.BARRIER_ROUNDS;
    }

    /**
     * The buffer that holds {@code rank}'s scratch slots (its inbox, mapped here), for collectives that read or
     * combine a slot in place ({@link SharedColl}); its slot {@code s} starts at {@link #scratchAt}.
     */
    ByteBuffer scratchMem(int rank) {
        return rank == me ? mem : peers.mem[rank];
    }

    /** Where scratch slot {@code slot} (0 or 1) starts in every inbox's buffer ({@link #scratchMem}). */
    int scratchAt(int slot) {
        return (int) lay.scratch(slot);
    }

    /** Creates a messenger for {@code comm} with default settings. Collective over {@code comm}. */
    public static Messenger create(Comm comm) {
        return create(comm, null);
    }

    /**
     * Creates a messenger for {@code comm}. Collective over {@code comm}; every rank must pass the same sizes.
     * Info keys (all optional): {@code jrma_msg_slots}, {@code jrma_msg_slot_bytes},
     * {@code jrma_msg_area_bytes}, {@code jrma_msg_eager_limit}, {@code jrma_msg_handoff_min},
     * {@code jrma_msg_rendezvous_slots},
     * {@code jrma_msg_zero_copy}, {@code jrma_msg_wait_spins}, {@code jrma_msg_wait_yields},
     * {@code jrma_msg_wait_max_park_ns} (see docs/two-sided.md).
     *
     * @throws RmaException ERR_INFO_VALUE for a malformed setting, ERR_NO_MEM if the inbox would exceed 2 GiB
     */
    public static Messenger create(Comm comm, Info info) {
        return MessengerSetup.create(comm, info);
    }

    /** The communicator. */
    public Comm comm() {
        return comm;
    }

    /** This rank's rank in the communicator. */
    public int rank() {
        return me;
    }

    /** Number of ranks. */
    public int size() {
        return size;
    }

    /** The collective operations over this messenger's communicator (one object per messenger). */
    public synchronized Collectives collectives() {
        if (collectives == null) {
            collectives = new Collectives(this);
        }
        return collectives;
    }

    // ------------------------------------------------------------------ sends

    /** Standard-mode send (MPI_Send): returns once the buffer may be reused. */
    public void send(Object buf, long offset, long count, Datatype type, int dest, int tag) {
        blocking.send(buf, offset, count, type, dest, tag, false);
    }

    /** Synchronous send (MPI_Ssend): returns once the receiver has matched the message and taken its data. */
    public void ssend(Object buf, long offset, long count, Datatype type, int dest, int tag) {
        blocking.send(buf, offset, count, type, dest, tag, true);
    }

    /** Nonblocking standard-mode send (MPI_Isend). Do not modify the buffer until the request completes. */
    public MsgRequest isend(Object buf, long offset, long count, Datatype type, int dest, int tag) {
        return startSend(buf, offset, count, type, dest, tag, CTX_USER, false);
    }

    /** Nonblocking synchronous send (MPI_Issend). */
    public MsgRequest issend(Object buf, long offset, long count, Datatype type, int dest, int tag) {
        return startSend(buf, offset, count, type, dest, tag, CTX_USER, true);
    }

    // ------------------------------------------------------------------ receives

    /** Blocking receive (MPI_Recv). Throws ERR_TRUNCATE (after filling the buffer) if the message is larger. */
    public Status recv(Object buf, long offset, long count, Datatype type, int source, int tag) {
        return blocking.recv(buf, offset, count, type, source, tag);
    }

    /**
     * Blocking receive (MPI_Recv) whose status the caller makes ({@code maker}, given the source, tag and bytes
     * stored): as {@link #recv(Object, long, long, Datatype, int, int)}, but it allocates nothing itself.
     */
    public <T> T recv(Object buf, long offset, long count, Datatype type, int source, int tag, Status.Maker<T> maker) {
        return blocking.recv(buf, offset, count, type, source, tag, maker);
    }

    /** Nonblocking receive (MPI_Irecv). */
    public MsgRequest irecv(Object buf, long offset, long count, Datatype type, int source, int tag) {
        return startRecv(buf, offset, count, type, source, tag, CTX_USER);
    }

    /** Sends and receives at once (MPI_Sendrecv); returns the receive's status. */
    public Status sendrecv(Object sendBuf, long sendOffset, long sendCount, Datatype sendType, int dest, int sendTag,
                           Object recvBuf, long recvOffset, long recvCount, Datatype recvType,
                           int source, int recvTag) {
        return blocking.sendrecv(sendBuf, sendOffset, sendCount, sendType, dest, sendTag, recvBuf, recvOffset,
                recvCount, recvType, source, recvTag);
    }

    /** As {@link #sendrecv}, the receive's status made by {@code maker} (see {@link Status.Maker}). */
    public <T> T sendrecv(Object sendBuf, long sendOffset, long sendCount, Datatype sendType, int dest, int sendTag,
                          Object recvBuf, long recvOffset, long recvCount, Datatype recvType,
                          int source, int recvTag, Status.Maker<T> maker) {
        return blocking.sendrecv(sendBuf, sendOffset, sendCount, sendType, dest, sendTag, recvBuf, recvOffset,
                recvCount, recvType, source, recvTag, maker);
    }

    // ------------------------------------------------------------------ cancel

    /**
     * Cancels a receive of this messenger that has not matched a message yet (MPI_Cancel): it completes at once
     * with a status whose {@link Status#cancelled()} is true, and moves no data. Returns false, changing
     * nothing, for a receive that already matched (it completes normally) and for sends, which this messenger
     * does not cancel (MPI lets a cancel fail; the send then completes as usual).
     */
    public boolean cancel(MsgRequest req) {
        if (req == null || req.owner != this || req.kind != MsgRequest.RECV) {
            return false;
        }
        lock.lock();
        try {
            checkNotFreed();
            if (req.isComplete() || !matchers[CTX_USER].removePosted(req)) {
                return false;
            }
            req.complete(Status.cancelledReceive(null), null);
            return true;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ probes

    /**
     * Whether a message matching {@code source} and {@code tag} has arrived (MPI_Iprobe): its status, or null.
     * The message stays to be received.
     */
    public Status iprobe(int source, int tag) {
        checkSource(source, "iprobe");
        checkTag(tag, true, "iprobe");
        if (source == PROC_NULL) {
            return Status.PROC_NULL;
        }
        return probeOnce(source, tag, new int[1]);
    }

    /** Waits until a matching message has arrived (MPI_Probe) and returns its status; it stays to be received. */
    public Status probe(int source, int tag) {
        checkSource(source, "probe");
        checkTag(tag, true, "probe");
        if (source == PROC_NULL) {
            return Status.PROC_NULL;
        }
        Waiter w = blocking.takeWaiter();
        int[] work = new int[1];
        while (true) {
            Status s = probeOnce(source, tag, work);
            if (s != null) {
                blocking.giveWaiter(w);
                return s;
            }
            w.idle(work[0], this);
        }
    }

    /** One progress round, then a look for a matching unexpected message; {@code work[0]}: work done. */
    private Status probeOnce(int source, int tag, int[] work) {
        lock.lock();
        try {
            checkNotFreed();
            work[0] = progress();
            Arrival a = matchers[CTX_USER].peekUnexpected(source, tag);
            return a == null ? null : new Status(a.source, a.tag, a.bytes, null, ErrorClass.SUCCESS);
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ lifecycle

    /**
     * Frees the messenger's windows (collective). Every request must be complete: throws ERR_REQUEST otherwise
     * (before any collective step). Messages sent to this rank and never received are discarded; the
     * acknowledgements this rank owes rendezvous senders are delivered first.
     */
    public void free() {
        lock.lock();
        try {
            checkNotFreed();
            int pending = outbox.pending() + in.pending() + matchers[CTX_USER].postedCount()
                    + matchers[CTX_COLL].postedCount();
            if (pending > 0) {
                throw new RmaException(ErrorClass.ERR_REQUEST, "messenger free on rank " + me + " with " + pending
                        + " send or receive requests still pending: wait for them first");
            }
        } finally {
            lock.unlock();
        }
        // FINs this rank owes rendezvous senders may still wait for ring credits: deliver them first, as the
        // senders' requests complete only with them
        Waiter w = newWaiter();
        while (true) {
            int work;
            lock.lock();
            try {
                work = progress();
                if (outbox.queued() == 0) {
                    freed = true;
                    handoffs.unregister();
                    rank.remove(this);
                    pool.release();
                    inbox.unlockAll();
                    expose.unlockAll();
                    break;
                }
            } finally {
                lock.unlock();
            }
            w.idle(work, this);
        }
        Collectives coll;
        synchronized (this) {
            coll = collectives;
        }
        if (coll != null) {
            coll.free();
        }
        expose.free();
        inbox.free();
    }

    /** Same as {@link #free()}. */
    @Override
    public void close() {
        free();
    }

    // ------------------------------------------------------------------ internals

    Matcher matcher(int ctx) {
        return matchers[ctx];
    }

    Outbox outbox() {
        return outbox;
    }

    MsgRequest startSend(Object buf, long offset, long count, Datatype type, int dest, int tag, int ctx, boolean sync) {
        checkDest(dest);
        checkTag(tag, false, "send");
        UserBuf data = UserBuf.of(buf, offset, count, type, "send to rank", dest);
        if (dest == PROC_NULL) {
            return MsgRequest.completed(this, MsgRequest.SEND, Status.EMPTY_SEND);
        }
        MsgRequest req = new MsgRequest(this, MsgRequest.SEND);
        post(new SendOp(req, data, dest, tag, ctx, sync));
        return req;
    }

    /** Hands a send to this rank itself or to the outbox. */
    void post(SendOp op) {
        lock.lock();
        try {
            checkNotFreed();
            if (op.dest == me) {
                in.deliverLocal(op);
            } else {
                outbox.enqueue(op);
            }
        } finally {
            lock.unlock();
        }
    }

    MsgRequest startRecv(Object buf, long offset, long count, Datatype type, int source, int tag, int ctx) {
        checkSource(source, "receive");
        checkTag(tag, true, "receive");
        UserBuf data = UserBuf.of(buf, offset, count, type, "receive from rank", source);
        if (source == PROC_NULL) {
            return MsgRequest.completed(this, MsgRequest.RECV, Status.PROC_NULL);
        }
        MsgRequest req = new MsgRequest(this, MsgRequest.RECV);
        post(new RecvOp(req, data, source, tag, ctx));
        return req;
    }

    /** Posts a receive: matched against the messages already here first, keeping the arrival order. */
    void post(RecvOp op) {
        lock.lock();
        try {
            checkNotFreed();
            in.poll();
            in.post(op);
        } finally {
            lock.unlock();
        }
    }

    /** Waits for {@code r}, driving progress; allocates nothing (a wait that throws drops its waiter). */
    void await(MsgRequest r) {
        Waiter w = blocking.takeWaiter();
        while (!r.isComplete()) {
            int work = progressOnce();
            if (r.isComplete()) {
                break;
            }
            w.idle(work, this);
        }
        blocking.giveWaiter(w);
    }

    /** One round of the rank's other messengers that have operations in flight (see {@link RankMessengers}). */
    int progressOthers() {
        return rank.progressOthers(this);
    }

    /** One progress round if operations are in flight and no other thread is running one; the work done. */
    int progressIfBusy() {
        if (!lock.tryLock()) {
            return 0;
        }
        try {
            return !freed && inFlight() > 0 ? progress() : 0;
        } finally {
            lock.unlock();
        }
    }

    /** Whether operations are in flight, or another thread holds the lock (it may be waiting for some). */
    boolean busy() {
        if (!lock.tryLock()) {
            return true;
        }
        try {
            return !freed && inFlight() > 0;
        } finally {
            lock.unlock();
        }
    }

    /** Sends, FINs and receives not yet complete, and reads in flight (lock held). */
    private int inFlight() {
        return outbox.pending() + outbox.queued() + in.pending() + matchers[CTX_USER].postedCount()
                + matchers[CTX_COLL].postedCount();
    }

    /** One progress round, unless another thread of the rank is running one; returns the work done. */
    int progressOnce() {
        if (!lock.tryLock()) {
            return 0;
        }
        try {
            checkNotFreed();
            return progress();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Progress with the lock held: the JVM's progress agent (it applies other JVMs' packets to this rank's
     * inbox), then new envelopes, finished rendezvous reads, fins, queued sends.
     */
    private int progress() {
        int agent = !allDirect || (++rounds & (AGENT_EVERY - 1)) == 0 || in.pending() > 0 ? Jrma.progress(comm) : 0;
        return agent + in.poll() + outbox.poll();
    }

    /** Throws if the job was aborted (MPI_Win_sync checks it) or the messenger freed. */
    void checkLive() {
        checkNotFreed();
        inbox.sync();
    }

    Waiter newWaiter() {
        return new Waiter(cfg.waitSpins, cfg.waitYields, cfg.waitMaxParkNs);
    }

    private void checkNotFreed() {
        if (freed) {
            throw new RmaException(ErrorClass.ERR_COMM, "messenger of rank " + me + " was freed");
        }
    }

    void checkDest(int dest) {
        if (dest != PROC_NULL && (dest < 0 || dest >= size)) {
            throw new RmaException(ErrorClass.ERR_RANK,
                    "send: destination rank " + dest + " is not in a communicator of size " + size);
        }
    }

    void checkSource(int source, String what) {
        if (source != PROC_NULL && source != ANY_SOURCE && (source < 0 || source >= size)) {
            throw new RmaException(ErrorClass.ERR_RANK,
                    what + ": source rank " + source + " is not in a communicator of size " + size);
        }
    }

    static void checkTag(int tag, boolean wildcardOk, String what) {
        if (tag < 0 && !(wildcardOk && tag == ANY_TAG)) {
            throw new RmaException(ErrorClass.ERR_TAG, what + ": tag " + tag + " is negative"
                    + (wildcardOk ? " and not ANY_TAG" : ""));
        }
    }

    @Override
    public String toString() {
        return "Messenger[rank " + me + " of " + size + ", " + comm.name() + "]";
    }
}

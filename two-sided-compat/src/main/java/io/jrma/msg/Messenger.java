package io.jrma.msg;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.RmaException;
import io.jrma.SharedMemory;
import io.jrma.Win;
import io.jrma.core.mem.Memory;
import io.jrma.core.os.CrossMemory;
import io.jrma.core.os.Futex;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
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
 * flush. See {@link Outbox} and {@link Inbox}.
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
     * Per rank: its inbox memory as this process reaches it by load/store (ranks of this JVM, and of this host
     * when the inbox lives in a shared segment), or null where only the packet path reaches it. Envelopes,
     * payloads, tails and credits to such a rank are plain stores and a release store instead of RMA calls.
     */
    final ByteBuffer[] peerMem;
    /** Addresses of {@link #peerMem} in this process, and of this rank's inbox. */
    private final long[] peerAddress;
    private final long myAddress;
    /** Every peer stores directly (see {@link #signal}): waiting threads may sleep on the futex word. */
    private final boolean futexSleep;
    /**
     * Every peer's inbox is mapped here: envelopes, payloads, tails and credits arrive as stores, so a progress
     * round need not run the JVM's progress agent each time (between JVMs a duty cycle costs a read syscall per
     * connection, longer than a message takes to arrive); it runs every {@link #AGENT_EVERY}th round, and the
     * progress thread serves the sockets meanwhile.
     */
    private final boolean allDirect;
    private static final int AGENT_EVERY = 32;
    private int rounds;
    /** This rank wakes sleeping peers after its direct stores. */
    private final boolean futexWake;
    private final long myPid;
    /** Rendezvous data of ranks in other processes of the host is read by process_vm_readv (until refused once). */
    private volatile boolean crossRead;
    final StagingPool pool;
    private final Matcher[] matchers = {new Matcher(), new Matcher()};
    private final Outbox outbox;
    private final Inbox in;
    private final ReentrantLock lock = new ReentrantLock();
    /** The rank's messengers: waits drive the others too (see {@link RankMessengers}). */
    private final RankMessengers rank = RankMessengers.ofCaller();
    private volatile boolean freed;
    private Collectives collectives;

    // ------------------------------------------------------------------ hand-offs between ranks of this JVM

    /** The live messengers of this JVM by the address of their inbox memory (receivers find senders here). */
    private static final ConcurrentHashMap<Long, Messenger> BY_INBOX = new ConcurrentHashMap<>();
    /** Per peer: 1 if it is a rank of this JVM (its inbox names this process), -1 if not, 0 not known yet. */
    private final byte[] sameJvm;
    /** Per peer, found on its first hand-off to this rank: its messenger. */
    private final Messenger[] senders;
    /**
     * Per destination of this JVM (made on the first hand-off to it): the ops of the hand-offs published into its
     * ring, by slot; the destination takes each out when it reads the envelope, before returning the slot's credit.
     */
    private final SendOp[][] handedOff;
    /** Hand-offs this rank has received (lock held), for tests. */
    long handoffsTaken;
    /** Hand-offs this rank published and their receivers have not completed yet (they count as pending sends). */
    private final AtomicInteger handoffsOut = new AtomicInteger();

    private Messenger(Comm comm, MsgConfig cfg, InboxLayout lay, Win inbox, Win expose) {
        this.comm = comm;
        this.me = comm.rank();
        this.size = comm.size();
        this.cfg = cfg;
        this.lay = lay;
        this.inbox = inbox;
        this.expose = expose;
        this.mem = inbox.buffer();
        // jrma.path=packet asks for the packet path everywhere (to test it, or to compare): envelopes too
        this.peerMem = reachable(inbox, size, me, cfg.directPublish
                && !"packet".equals(Jrma.parameter(comm, "jrma.path")));
        this.peerAddress = new long[size];
        boolean allDirect = size > 1;
        for (int r = 0; r < size; r++) {
            if (r != me) {
                allDirect &= peerMem[r] != null;
                peerAddress[r] = peerMem[r] == null ? 0 : Win.address(peerMem[r]);
            }
        }
        this.myAddress = Win.address(mem);
        this.myPid = ProcessHandle.current().pid();
        Memory.putLongRelease(null, myAddress + lay.wake + 8, myPid); // peers read it after our first message to them
        this.crossRead = cfg.crossRead && CrossMemory.available();
        // a waiting thread sleeps on the futex word only when every peer stores directly, so that every message
        // and credit comes with a wake-up; waking costs a sender a fence and a load when nobody sleeps
        this.futexWake = Futex.available();
        this.futexSleep = allDirect && futexWake;
        this.allDirect = allDirect;
        this.pool = new StagingPool(expose);
        this.sameJvm = new byte[size];
        this.senders = new Messenger[size];
        this.handedOff = new SendOp[size][];
        this.outbox = new Outbox(this);
        this.in = new Inbox(this);
        rank.add(this);
        BY_INBOX.put(myAddress, this);
    }

    /**
     * Whether messages to {@code d} may be handed off by reference: {@code d} is a rank of this JVM (its inbox is
     * mapped here and its owner's process id, written when its messenger was made, is this process's).
     */
    boolean handoffTo(int d) {
        byte known = sameJvm[d];
        if (known != 0) {
            return known > 0;
        }
        if (peerMem[d] == null) {
            sameJvm[d] = -1;
            return false;
        }
        long pid = Memory.getLongVolatile(null, peerAddress[d] + lay.wake + 8);
        if (pid == 0) {
            return false; // its messenger is not made yet: ask again next time
        }
        sameJvm[d] = (byte) (pid == myPid ? 1 : -1);
        return pid == myPid;
    }

    /** Records the op of a hand-off to {@code d} in ring position {@code msg}, before the tail that publishes it. */
    void handOff(int d, long msg, SendOp op) {
        SendOp[] slots = handedOff[d];
        if (slots == null) {
            slots = new SendOp[cfg.slots];
            handedOff[d] = slots;
        }
        slots[(int) (msg % cfg.slots)] = op;
        handoffsOut.incrementAndGet();
    }

    /** Hand-offs published by this rank and not yet completed by their receivers. */
    int handoffsInFlight() {
        return handoffsOut.get();
    }

    /** The receiver of a hand-off of this rank has completed it (called by the receiver's thread). */
    void handoffDone() {
        handoffsOut.decrementAndGet();
    }

    /** The op of the hand-off that rank {@code s} of this JVM published in ring position {@code msg} to this rank. */
    SendOp takeHandoff(int s, long msg) {
        Messenger from = senders[s];
        if (from == null) {
            from = BY_INBOX.get(peerAddress[s]);
            if (from == null) {
                throw new RmaException(ErrorClass.ERR_INTERN, "messenger rank " + me + ": hand-off " + msg
                        + " from rank " + s + ", whose messenger is not in this JVM");
            }
            senders[s] = from;
        }
        SendOp[] slots = from.handedOff[me];
        int at = (int) (msg % cfg.slots);
        SendOp op = slots == null ? null : slots[at];
        if (op == null) {
            throw new RmaException(ErrorClass.ERR_INTERN, "messenger rank " + me + ": hand-off " + msg
                    + " from rank " + s + " has no send");
        }
        slots[at] = null;
        return op;
    }

    /** The messenger of rank {@code s} of this JVM, found by {@link #takeHandoff} (after a hand-off from it). */
    Messenger sender(int s) {
        return senders[s];
    }

    /** The inboxes this process reaches by load/store (see {@link #peerMem}). */
    private static ByteBuffer[] reachable(Win inbox, int size, int me, boolean wanted) {
        ByteBuffer[] peers = new ByteBuffer[size];
        if (!wanted) {
            return peers;
        }
        for (int r = 0; r < size; r++) {
            if (r == me) {
                continue;
            }
            SharedMemory sm;
            try {
                sm = inbox.sharedQuery(r);
            } catch (RmaException e) {
                return new ByteBuffer[size]; // no shared_query on this window: the packet path for everyone
            }
            if (sm != null && sm.size() > 0 && sm.buffer() != null) {
                peers[r] = sm.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
            }
        }
        return peers;
    }

    /**
     * Stores {@code value} into the long at {@code offset} of the inbox of {@code rank} (one this process maps) with
     * release semantics. The words of the inboxes are reached through {@link Memory} at their addresses (native
     * order, little-endian on every platform jrma runs on), not through VarHandles: before the JIT has compiled them,
     * a VarHandle access costs dozens of interpreted frames, and every message polls and publishes several such
     * words.
     */
    void storeRelease(int rank, long offset, long value) {
        ByteBuffer peer = peerMem[rank];
        if (offset < 0 || offset + Long.BYTES > peer.capacity()) {
            throw new IndexOutOfBoundsException("word at " + offset + " of an inbox of " + peer.capacity() + " bytes");
        }
        Memory.putLongRelease(null, peerAddress[rank] + offset, value);
    }

    /**
     * After stores into {@code d}'s inbox that {@code d} may be waiting for (a tail, credits): wakes its threads
     * asleep on its futex word, if any. The full fence orders those stores before the read of the sleeper count
     * (a sleeper registers, then polls again, then sleeps: one of the two sides sees the other).
     */
    void signal(int d) {
        ByteBuffer peer = peerMem[d];
        if (!futexWake || peer == null) {
            return;
        }
        VarHandle.fullFence();
        if (Memory.getIntVolatile(null, peerAddress[d] + lay.wake + 4) > 0) {
            Memory.getAndAddInt(null, peerAddress[d] + lay.wake, 1);
            Futex.wakeAll(peerAddress[d] + lay.wake);
        }
    }

    /**
     * The process of rank {@code s} when its rendezvous data can be read from it by a single kernel copy (a rank
     * of another JVM of this host whose inbox this process maps), else 0 (same JVM: the window path is a
     * single copy already; other hosts; reads refused).
     */
    int crossReadPid(int s) {
        ByteBuffer peer = peerMem[s];
        if (!crossRead || peer == null) {
            return 0;
        }
        long pid = Memory.getLongVolatile(null, peerAddress[s] + lay.wake + 8);
        return pid == myPid || pid <= 0 || pid > Integer.MAX_VALUE ? 0 : (int) pid;
    }

    /** The kernel refused a cross-process read: rendezvous data is read through the exposure window from now on. */
    void crossReadRefused() {
        crossRead = false;
    }

    /** {seq, sleepers} of {@code rank}'s futex word as this process sees it now (for tests); null if unreachable. */
    int[] wakeWord(int rank) {
        ByteBuffer b = rank == me ? mem : peerMem[rank];
        if (b == null) {
            return null;
        }
        long at = (rank == me ? myAddress : peerAddress[rank]) + lay.wake;
        return new int[] {Memory.getIntVolatile(null, at), Memory.getIntVolatile(null, at + 4)};
    }

    /**
     * Sleeps on this rank's futex word for at most {@code ns} unless a poll after announcing the sleep finds work.
     * Returns false (nothing done) when this messenger cannot be woken that way: then the caller parks.
     */
    boolean sleep(long ns) {
        if (!futexSleep || in.pending() > 0 || rank.othersBusy(this)) {
            // a rendezvous read in flight may complete through the progress agent, which cannot wake us, and
            // messages for the rank's other messengers with operations in flight arrive in their inboxes
            return false;
        }
        int seen = Memory.getIntVolatile(null, myAddress + lay.wake);
        Memory.getAndAddInt(null, myAddress + lay.wake + 4, 1);
        try {
            // announced (a full fence): a flag raised before this point is seen here, one raised after it wakes us
            if (progressOnce() == 0 && !flagReady()) {
                Futex.await(myAddress + lay.wake, seen, ns);
            }
        } finally {
            Memory.getAndAddInt(null, myAddress + lay.wake + 4, -1);
        }
        return true;
    }

    // ------------------------------------------------------------------ the flag barrier (Collectives#barrier)

    /** The barrier flag this rank's thread is waiting for ({@link #awaitFlag}), or -1; the epoch it waits for. */
    private int awaitedFlag = -1;
    private long awaitedEpoch;

    /**
     * Whether barriers on this communicator may use the flag words of the inboxes instead of messages: every peer's
     * inbox is mapped here (threads of this JVM, JVMs of this host) and the rounds fit the flag words. Every rank of
     * the communicator comes to the same answer: mapping is mutual, and the size is the communicator's.
     */
    boolean flagBarrier() {
        return allDirect && futexWake && size <= 1 << InboxLayout.BARRIER_ROUNDS;
    }

    /** Raises round {@code round}'s flag in the inbox of {@code rank} to {@code epoch}, and wakes it if it sleeps. */
    void raiseFlag(int rank, int round, long epoch) {
        Memory.putLongRelease(null, peerAddress[rank] + lay.barrierFlag(round), epoch);
        signal(rank);
    }

    /** This rank's flag of round {@code round}: the epoch of the last barrier whose round reached it. */
    long flag(int round) {
        return Memory.getLongVolatile(null, myAddress + lay.barrierFlag(round));
    }

    /** Tells {@link #sleep} which flag this thread waits for ({@code round} -1: none), so it never sleeps past it. */
    void awaitFlag(int round, long epoch) {
        awaitedEpoch = epoch;
        awaitedFlag = round;
    }

    private boolean flagReady() {
        int r = awaitedFlag;
        return r >= 0 && flag(r) >= awaitedEpoch;
    }

    /** Copies {@code bytes} of {@code src} into this rank's scratch slot {@code slot} ({@link InboxLayout#scratch}). */
    void writeScratch(int slot, ByteBuffer src, int bytes) {
        mem.put((int) lay.scratch(slot), src, 0, bytes);
    }

    /**
     * Copies {@code bytes} of the scratch slot {@code slot} of {@code rank} (mapped here) to {@code dst} at {@code at}.
     */
    void readScratch(int rank, int slot, ByteBuffer dst, int at, int bytes) {
        ByteBuffer from = rank == me ? mem : peerMem[rank];
        dst.put(at, from, (int) lay.scratch(slot), bytes);
    }

    /**
     * The buffer that holds {@code rank}'s scratch slots (its inbox, mapped here), for collectives that read or
     * combine a slot in place ({@link SharedColl}); its slot {@code s} starts at {@link #scratchAt}.
     */
    ByteBuffer scratchMem(int rank) {
        return rank == me ? mem : peerMem[rank];
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
        MsgConfig cfg = new MsgConfig(info, comm.size(), sizeParam(comm, "jrma.msg.handoffMin"),
                sizeParam(comm, "jrma.msg.eagerLimit"));
        InboxLayout lay = new InboxLayout(comm.size(), cfg);
        if (lay.total > Integer.MAX_VALUE - 4096) {
            throw new RmaException(ErrorClass.ERR_NO_MEM,
                    "messenger inbox of " + lay.total + " bytes for " + comm.size()
                    + " ranks exceeds 2 GiB: lower jrma_msg_area_bytes or jrma_msg_slots");
        }
        // issue at flush_local: on the packet path a batch's envelopes and payloads are queued and leave with the
        // tail that publishes them, in one frame, when the messenger flushes locally (eager issue sent each as a
        // frame of its own: two writes per message, and 16.8 -> 8.2 us one-way over TCP); the path applies one
        // origin's packets in order, so no flush has to wait between them (see Outbox); jrma_rdma=false keeps them
        // packets where UCX reaches the peer: on the RDMA lane and in the atomic domain (docs/ucx.md) the tail's
        // accumulate would be a UCP atomic, done at once, ahead of the envelopes still queued as packets
        Win inbox = Win.allocate(comm, lay.total, 1, Info.of("jrma_issue", "flush_local", "jrma_rdma", "false"));
        Win expose = Win.createDynamic(comm, null);
        inbox.setName("msg-inbox:" + comm.name());
        expose.setName("msg-expose:" + comm.name());
        inbox.lockAll(Win.MODE_NOCHECK);
        expose.lockAll(Win.MODE_NOCHECK);
        Messenger m = new Messenger(comm, cfg, lay, inbox, expose);
        // every rank's process id is in its inbox before anyone sends: the protocol to a rank of this JVM (hand-off)
        // is then the same from the first message on, not the area's until the receiver's messenger is made
        comm.barrier();
        return m;
    }

    /** A size parameter of the job (bytes); -1 for {@code auto} or unset. */
    private static long sizeParam(Comm comm, String name) {
        String v = Jrma.parameter(comm, name);
        if (v == null || v.isBlank() || "auto".equals(v.trim())) {
            return -1;
        }
        try {
            long x = Long.parseLong(v.trim());
            if (x >= 0) {
                return x;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new RmaException(ErrorClass.ERR_ARG, name + " = \"" + v + "\" is not a size in bytes or auto");
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
        blockingSend(buf, offset, count, type, dest, tag, false);
    }

    /** Synchronous send (MPI_Ssend): returns once the receiver has matched the message and taken its data. */
    public void ssend(Object buf, long offset, long count, Datatype type, int dest, int tag) {
        blockingSend(buf, offset, count, type, dest, tag, true);
    }

    /** A blocking send with this messenger's spare op (see {@link #takeSend}): allocates nothing. */
    private void blockingSend(Object buf, long offset, long count, Datatype type, int dest, int tag, boolean sync) {
        checkDest(dest);
        checkTag(tag, false, "send");
        SendOp op = takeSend();
        op.data.set(buf, offset, count, type, "send to rank", dest);
        if (dest != PROC_NULL) {
            post(op.init(dest, tag, CTX_USER, sync));
            op.req.waitQuietly();
        }
        giveSend(op);
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
        RecvOp op = startBlockingRecv(buf, offset, count, type, source, tag);
        if (op == null) {
            return Status.PROC_NULL;
        }
        awaitBlockingRecv(op);
        Status s = op.req.status();
        giveRecv(op);
        return s;
    }

    /**
     * Blocking receive (MPI_Recv) whose status the caller makes ({@code maker}, given the source, tag and bytes
     * stored): as {@link #recv(Object, long, long, Datatype, int, int)}, but it allocates nothing itself.
     */
    public <T> T recv(Object buf, long offset, long count, Datatype type, int source, int tag, Status.Maker<T> maker) {
        RecvOp op = startBlockingRecv(buf, offset, count, type, source, tag);
        if (op == null) {
            return maker.make(PROC_NULL, ANY_TAG, 0);
        }
        awaitBlockingRecv(op);
        MsgRequest r = op.req;
        T s = maker.make(r.source(), r.tag(), r.bytes());
        giveRecv(op);
        return s;
    }

    /** Posts a blocking receive with this messenger's spare op (see {@link #takeRecv}); null for PROC_NULL. */
    private RecvOp startBlockingRecv(Object buf, long offset, long count, Datatype type, int source, int tag) {
        checkSource(source, "receive");
        checkTag(tag, true, "receive");
        RecvOp op = takeRecv();
        op.data.set(buf, offset, count, type, "receive from rank", source);
        if (source == PROC_NULL) {
            giveRecv(op);
            return null;
        }
        post(op.init(source, tag, CTX_USER));
        return op;
    }

    /** Waits for a blocking receive; on an error (ERR_TRUNCATE) gives its op back and throws. */
    private void awaitBlockingRecv(RecvOp op) {
        MsgRequest r = op.req;
        if (!r.isComplete()) {
            await(r);
        }
        if (r.failed()) {
            giveRecv(op);
            r.throwIfFailed();
        }
    }

    /** Nonblocking receive (MPI_Irecv). */
    public MsgRequest irecv(Object buf, long offset, long count, Datatype type, int source, int tag) {
        return startRecv(buf, offset, count, type, source, tag, CTX_USER);
    }

    /** Sends and receives at once (MPI_Sendrecv); returns the receive's status. */
    public Status sendrecv(Object sendBuf, long sendOffset, long sendCount, Datatype sendType, int dest, int sendTag,
                           Object recvBuf, long recvOffset, long recvCount, Datatype recvType,
                           int source, int recvTag) {
        RecvOp op = blockingSendrecv(sendBuf, sendOffset, sendCount, sendType, dest, sendTag,
                recvBuf, recvOffset, recvCount, recvType, source, recvTag);
        if (op == null) {
            return Status.PROC_NULL;
        }
        Status s = op.req.status();
        giveRecv(op);
        return s;
    }

    /** As {@link #sendrecv}, the receive's status made by {@code maker} (see {@link Status.Maker}). */
    public <T> T sendrecv(Object sendBuf, long sendOffset, long sendCount, Datatype sendType, int dest, int sendTag,
                          Object recvBuf, long recvOffset, long recvCount, Datatype recvType,
                          int source, int recvTag, Status.Maker<T> maker) {
        RecvOp op = blockingSendrecv(sendBuf, sendOffset, sendCount, sendType, dest, sendTag,
                recvBuf, recvOffset, recvCount, recvType, source, recvTag);
        if (op == null) {
            return maker.make(PROC_NULL, ANY_TAG, 0);
        }
        MsgRequest r = op.req;
        T s = maker.make(r.source(), r.tag(), r.bytes());
        giveRecv(op);
        return s;
    }

    /** Both halves of a sendrecv with the spare ops; the completed receive op (the caller gives it back) or null. */
    private RecvOp blockingSendrecv(Object sendBuf, long sendOffset, long sendCount, Datatype sendType, int dest,
                                    int sendTag, Object recvBuf, long recvOffset, long recvCount, Datatype recvType,
                                    int source, int recvTag) {
        checkDest(dest);
        checkTag(sendTag, false, "send");
        SendOp s = takeSend();
        s.data.set(sendBuf, sendOffset, sendCount, sendType, "send to rank", dest); // checked before anything is posted
        RecvOp r = startBlockingRecv(recvBuf, recvOffset, recvCount, recvType, source, recvTag);
        if (dest != PROC_NULL) {
            post(s.init(dest, sendTag, CTX_USER, false));
        }
        try {
            if (r != null) {
                awaitBlockingRecv(r); // throws the receive's own error (ERR_TRUNCATE) ...
            }
        } finally {
            if (dest != PROC_NULL) {
                s.req.waitQuietly(); // ... but never leaves the send pending
            }
            giveSend(s);
        }
        return r;
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
        Waiter w = takeWaiter();
        int[] work = new int[1];
        while (true) {
            Status s = probeOnce(source, tag, work);
            if (s != null) {
                giveWaiter(w);
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
                    BY_INBOX.remove(myAddress, this);
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
    private void post(SendOp op) {
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
    private void post(RecvOp op) {
        lock.lock();
        try {
            checkNotFreed();
            in.poll();
            in.post(op);
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ spare objects of the blocking calls

    /**
     * The spare op of the blocking sends, the spare op of the blocking receives, and the spare waiter: a blocking
     * call takes one with an atomic exchange (another thread of the rank calling at the same time finds none and
     * makes its own), uses it and puts it back once its request has completed, so that a blocking send, receive or
     * wait allocates nothing.
     */
    @SuppressWarnings("unused") // accessed through SPARE_SEND
    private volatile SendOp spareSend;
    @SuppressWarnings("unused") // accessed through SPARE_RECV
    private volatile RecvOp spareRecv;
    @SuppressWarnings("unused") // accessed through SPARE_WAITER
    private volatile Waiter spareWaiter;
    private static final VarHandle SPARE_SEND;
    private static final VarHandle SPARE_RECV;
    private static final VarHandle SPARE_WAITER;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            SPARE_SEND = l.findVarHandle(Messenger.class, "spareSend", SendOp.class);
            SPARE_RECV = l.findVarHandle(Messenger.class, "spareRecv", RecvOp.class);
            SPARE_WAITER = l.findVarHandle(Messenger.class, "spareWaiter", Waiter.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private SendOp takeSend() {
        SendOp op = (SendOp) SPARE_SEND.getAndSet(this, (SendOp) null);
        if (op == null) {
            return new SendOp(new MsgRequest(this, MsgRequest.SEND), new UserBuf(), 0, 0, CTX_USER, false);
        }
        op.req.reset();
        return op;
    }

    /** Puts back a send op whose request has completed. */
    private void giveSend(SendOp op) {
        op.data.clear();
        SPARE_SEND.setRelease(this, op);
    }

    private RecvOp takeRecv() {
        RecvOp op = (RecvOp) SPARE_RECV.getAndSet(this, (RecvOp) null);
        if (op == null) {
            return new RecvOp(new MsgRequest(this, MsgRequest.RECV), new UserBuf(), ANY_SOURCE, ANY_TAG, CTX_USER);
        }
        op.req.reset();
        return op;
    }

    /** Puts back a receive op whose request has completed. */
    private void giveRecv(RecvOp op) {
        op.data.clear();
        SPARE_RECV.setRelease(this, op);
    }

    /** A waiter for one wait of the calling thread, reset; {@link #giveWaiter} it back when the wait ends. */
    Waiter takeWaiter() {
        Waiter w = (Waiter) SPARE_WAITER.getAndSet(this, (Waiter) null);
        if (w == null) {
            return newWaiter();
        }
        w.reset();
        return w;
    }

    void giveWaiter(Waiter w) {
        SPARE_WAITER.setRelease(this, w);
    }

    /** Waits for {@code r}, driving progress; allocates nothing (a wait that throws drops its waiter). */
    void await(MsgRequest r) {
        Waiter w = takeWaiter();
        while (!r.isComplete()) {
            int work = progressOnce();
            if (r.isComplete()) {
                break;
            }
            w.idle(work, this);
        }
        giveWaiter(w);
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

    /** A volatile load of a long of this rank's inbox (a word other ranks write). */
    long loadVolatile(long offset) {
        return Memory.getLongVolatile(null, myAddress + offset);
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

    private void checkDest(int dest) {
        if (dest != PROC_NULL && (dest < 0 || dest >= size)) {
            throw new RmaException(ErrorClass.ERR_RANK,
                    "send: destination rank " + dest + " is not in a communicator of size " + size);
        }
    }

    private void checkSource(int source, String what) {
        if (source != PROC_NULL && source != ANY_SOURCE && (source < 0 || source >= size)) {
            throw new RmaException(ErrorClass.ERR_RANK,
                    what + ": source rank " + source + " is not in a communicator of size " + size);
        }
    }

    private static void checkTag(int tag, boolean wildcardOk, String what) {
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

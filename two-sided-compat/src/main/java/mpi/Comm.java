package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.msg.Collectives;
import io.jrma.msg.Messenger;
import io.jrma.msg.MsgRequest;
import java.lang.ref.Reference;
import java.nio.Buffer;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A communicator (MPI_Comm): point-to-point messages, collectives, attributes and error handling over a group
 * of ranks, on jrma's messaging engine ({@link Messenger} and {@link Collectives}), which works the same
 * whether the ranks share a JVM or not.
 *
 * <h2>Buffers</h2>
 * Blocking calls take a primitive array ({@code int[]}, {@code double[]}, {@code byte[]}, {@code boolean[]},
 * ...) or a {@code java.nio} buffer, direct or not; nonblocking and persistent calls take direct buffers, as in
 * Open MPI's bindings. Counts are elements of the datatype; data starts at the first element of the array or
 * buffer (the position of a buffer is ignored; a heap buffer starts at its array offset: use
 * {@link MPI#slice} to start further in). Displacements of the {@code v} collectives are in extents of their
 * datatype, those of {@link #allToAllw} in bytes.
 *
 * <h2>Errors</h2>
 * A failing call is handled by the communicator's error handler: {@link MPI#ERRORS_ARE_FATAL} (the default)
 * aborts the job with the error class as exit code, {@link MPI#ERRORS_RETURN} throws an {@link MPIException}.
 *
 * <p>Nonblocking collectives run on a thread of the communicator's own, one after the other in the order they
 * were started; a blocking collective first waits for the nonblocking ones started before it.
 */
public class Comm implements Freeable, Cloneable, Site {
    /** Split type of {@link Intracomm#splitType}: ranks that can share memory (the ranks of one host). */
    public static final int TYPE_SHARED = 0;

    /** The jrma communicator; null for COMM_NULL (freed, or not a member). */
    volatile io.jrma.Comm core;
    private volatile Messenger msg;
    volatile Errhandler errh = MPI.ERRORS_ARE_FATAL;
    private volatile String name;
    private final boolean predefined;
    private final Map<Integer, byte[]> attrs = new ConcurrentHashMap<>();
    private volatile io.jrma.Info info = new io.jrma.Info();
    private Request request;
    /** The topology (Cartesian, graph, distributed graph), or null. */
    volatile Topo topo;

    /** A predefined communicator (COMM_WORLD, COMM_SELF), bound at MPI.Init. */
    Comm(String name) {
        this.name = name;
        this.predefined = true;
    }

    /** A communicator made from {@code parent} (null core: COMM_NULL); inherits its error handler. */
    Comm(io.jrma.Comm core, Comm parent) {
        this.name = "";
        this.predefined = false;
        if (parent != null) {
            this.errh = parent.errh;
        }
        if (core != null) {
            bind(core, true);
        }
    }

    /** Binds to a jrma communicator; the messenger is made now (collective) unless the communicator has one rank. */
    final void bind(io.jrma.Comm c, boolean named) {
        core = c;
        if (c.size() > 1) {
            msg = Messenger.create(c);
        }
    }

    /** A new communicator of this kind around {@code c} (made from this one). */
    Comm derive(io.jrma.Comm c) {
        return new Comm(c, this);
    }

    // ------------------------------------------------------------------------------------------- internals

    @Override
    public Errhandler errh() {
        return errh;
    }

    @Override
    public String siteName() {
        String n = name;
        return n == null || n.isEmpty() ? "a communicator" : n;
    }

    final io.jrma.Comm core() {
        io.jrma.Comm c = core;
        if (c == null) {
            throw new RmaException(ErrorClass.ERR_COMM,
                    "the communicator is COMM_NULL (freed, or this rank is not a member)");
        }
        return c;
    }

    final Messenger m() {
        io.jrma.Comm c = core();
        Messenger m = msg;
        if (m == null) {
            synchronized (this) {
                if (msg == null) {
                    msg = Messenger.create(c); // one rank: nobody else takes part
                }
                m = msg;
            }
        }
        return m;
    }

    /** The collectives of this communicator, once the nonblocking ones started before have completed. */
    final Collectives coll() {
        drainAsync();
        return m().collectives();
    }

    final int me() {
        return core().rank();
    }

    /**
     * The messenger rank of a point-to-point peer: the rank itself on an intra-communicator; an
     * inter-communicator maps ranks of the remote group to ranks of the communicator under it.
     */
    int peer(int rank) {
        return rank;
    }

    /** The status of a message received on this communicator. */
    final Status status(io.jrma.msg.Status s) {
        return Status.of(s, this);
    }

    /**
     * A status made by {@link Status#MAKER} for a message received on this communicator: its source as a rank of
     * the remote group on an inter-communicator.
     */
    final Status remote(Status s) {
        return this instanceof Intercomm ? s.remoteOn(this) : s;
    }

    /** MPI_COMM_SIZE: the local group's size. */
    int localSize() {
        return core().size();
    }

    /** MPI_COMM_RANK: the rank in the local group. */
    int localRank() {
        return core().rank();
    }

    /** MPI_COMM_GROUP: the local group. */
    io.jrma.Group localGroup() {
        return core().group();
    }

    /** This communicator as an inter-communicator, or null. */
    final Intercomm inter() {
        return this instanceof Intercomm ic ? ic : null;
    }

    /** Raises ERR_COMM through the error handler on an inter-communicator (in-place and neighborhood collectives). */
    final void requireIntra(String what) throws MPIException {
        if (this instanceof Intercomm) {
            exec(() -> intraOnly(what));
        }
    }

    /** ERR_COMM for a call that MPI defines on intra-communicators only. */
    final void intraOnly(String what) {
        if (this instanceof Intercomm) {
            throw new RmaException(ErrorClass.ERR_COMM, what + " is not defined on an inter-communicator");
        }
    }

    final int size() {
        return core().size();
    }

    final <T> T run(Work<T> w) throws MPIException {
        MPI.check();
        try {
            return w.run();
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** The body of a call that returns nothing. */
    @FunctionalInterface
    interface Act {
        void run() throws MPIException;
    }

    final void exec(Act a) throws MPIException {
        run(() -> {
            a.run();
            return null;
        });
    }

    static io.jrma.Datatype jt(Datatype d) {
        return Datatype.jt(d);
    }

    /** The jrma type of an argument significant only at the root: null is allowed where it is not read. */
    static io.jrma.Datatype jtOpt(Datatype d) {
        return d == null ? null : d.t;
    }

    static Bufs.Msg b(Object buf, Datatype t) {
        return Bufs.msg(buf, t == null ? null : t.t);
    }

    static long[] longs(int[] a) {
        if (a == null) {
            return null;
        }
        long[] l = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            l[i] = a[i];
        }
        return l;
    }

    /** Adds a buffer's element offset to every displacement. */
    static long[] shift(int[] displs, long off) {
        if (displs == null) {
            return null;
        }
        long[] l = new long[displs.length];
        for (int i = 0; i < displs.length; i++) {
            l[i] = displs[i] + off;
        }
        return l;
    }

    // ------------------------------------------------------------------ nonblocking collectives

    /** The thread that runs this communicator's nonblocking collectives, in the order they were started. */
    private volatile ExecutorService async;
    private volatile Thread asyncThread;
    private final AtomicInteger asyncPending = new AtomicInteger();

    /**
     * Starts a nonblocking collective: {@code body} (the blocking collective) runs on this communicator's
     * collective thread, after the nonblocking collectives started before it; the request completes with it.
     * The calling thread goes on at once, so it may send, receive and compute while the collective progresses.
     */
    final Request async(Act body) throws MPIException {
        MPI.check();
        ExecutorService ex = asyncExecutor();
        asyncPending.incrementAndGet();
        CompletableFuture<Void> f = new CompletableFuture<>();
        ex.execute(() -> {
            try {
                body.run();
                f.complete(null);
            } catch (Throwable t) {
                f.completeExceptionally(t);
            } finally {
                asyncPending.decrementAndGet();
            }
        });
        return Request.future(this, f);
    }

    private ExecutorService asyncExecutor() {
        ExecutorService ex = async;
        if (ex == null) {
            synchronized (this) {
                if (async == null) {
                    async = Executors.newSingleThreadExecutor(r -> {
                        Thread t = new Thread(r, "mpi-collectives-" + siteName()); // a child of the rank: same world
                        t.setDaemon(true);
                        asyncThread = t;
                        return t;
                    });
                }
                ex = async;
            }
        }
        return ex;
    }

    /**
     * Before a blocking collective: waits for the nonblocking collectives started earlier on this communicator
     * (MPI orders a rank's collectives on a communicator as they are called). Nothing to wait for on the
     * collective thread itself.
     */
    final void drainAsync() {
        if (Thread.currentThread() == asyncThread) {
            return;
        }
        for (int round = 0; asyncPending.get() > 0; round++) {
            Request.idle(round);
        }
    }

    private void stopAsync() {
        ExecutorService ex = async;
        if (ex != null) {
            ex.shutdown();
        }
    }

    // ---------------------------------------------------------------------------------- management

    /** Same as {@link #dup}, with MPIException wrapped in a RuntimeException. */
    @Override
    public Comm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new RuntimeException(e.getMessage(), e);
        }
    }

    /**
     * A new communicator with the same group, a new context, and this one's attributes and error handler
     * (MPI_COMM_DUP).
     */
    public Comm dup() throws MPIException {
        return run(() -> {
            Comm c = derive(core().dup());
            c.attrs.putAll(attrs);
            c.info = info.dup();
            return c;
        });
    }

    /** {@link #dup}, done at once; {@link #getRequest()} returns its (complete) request (MPI_COMM_IDUP). */
    public Comm iDup() throws MPIException {
        Comm c = dup();
        c.request = Request.done(c, Status.empty());
        return c;
    }

    /** {@link #dup} with the hints of {@code info} (MPI_COMM_DUP_WITH_INFO). */
    public Comm dupWithInfo(Info info) throws MPIException {
        Comm c = dup();
        c.info = Info.ji(info) == null ? new io.jrma.Info() : Info.ji(info).dup();
        return c;
    }

    /** The request of a communicator made by {@link #iDup}, or null. */
    public final Request getRequest() {
        return request;
    }

    /** Number of ranks (MPI_COMM_SIZE). */
    public final int getSize() throws MPIException {
        return run(() -> localSize());
    }

    /** This process's rank (MPI_COMM_RANK). */
    public final int getRank() throws MPIException {
        return run(() -> localRank());
    }

    /**
     * {@link MPI#IDENT} if both are the same communicator, {@link MPI#CONGRUENT} if they have the same group in
     * the same order, {@link MPI#SIMILAR} if the same members in another order, else {@link MPI#UNEQUAL}
     * (MPI_COMM_COMPARE).
     */
    public static int compare(Comm comm1, Comm comm2) throws MPIException {
        MPI.check();
        try {
            io.jrma.Comm a = comm1.core();
            io.jrma.Comm b = comm2.core();
            if (a == b) {
                return MPI.IDENT;
            }
            int g = a.group().compare(b.group());
            return g == io.jrma.Group.IDENT ? MPI.CONGRUENT : g == io.jrma.Group.SIMILAR ? MPI.SIMILAR : MPI.UNEQUAL;
        } catch (RuntimeException e) {
            throw Err.handle(comm1.errh, comm1.siteName(), e);
        }
    }

    /**
     * Frees the communicator (MPI_COMM_FREE); collective. It becomes COMM_NULL. Every request on it must be
     * complete. COMM_WORLD and COMM_SELF cannot be freed.
     */
    @Override
    public final void free() throws MPIException {
        exec(() -> {
            io.jrma.Comm c = core();
            if (predefined) {
                throw new RmaException(ErrorClass.ERR_COMM, name + " cannot be freed");
            }
            drainAsync();
            stopAsync();
            MPI.bsend.drain(this);
            Messenger m = msg;
            if (m != null) {
                m.free();
            }
            Topo t = topo;
            if (t != null) {
                t.free();
            }
            c.free();
            msg = null;
            core = null;
        });
    }

    /** Whether this is COMM_NULL: freed, or made by a split/create this rank is not a member of. */
    public final boolean isNull() {
        return core == null;
    }

    /** Sets hints (MPI_COMM_SET_INFO); jrma keeps them and honours none. */
    public final void setInfo(Info info) throws MPIException {
        exec(() -> {
            core();
            io.jrma.Info i = Info.ji(info);
            this.info = i == null ? new io.jrma.Info() : i.dup();
        });
    }

    /** A copy of the hints in force (MPI_COMM_GET_INFO). */
    public final Info getInfo() throws MPIException {
        return run(() -> {
            core();
            return Info.of(info);
        });
    }

    /** Same as {@link #free} (MPI_COMM_DISCONNECT). */
    public final void disconnect() throws MPIException {
        free();
    }

    /** The group of this communicator (MPI_COMM_GROUP). */
    public final Group getGroup() throws MPIException {
        return run(() -> new Group(localGroup()));
    }

    /** Whether this is an inter-communicator (MPI_COMM_TEST_INTER). */
    public final boolean isInter() throws MPIException {
        return run(() -> {
            core();
            return this instanceof Intercomm;
        });
    }

    /**
     * An inter-communicator between the group of {@code localComm} and another, disjoint group
     * (MPI_INTERCOMM_CREATE). Collective over both groups: every member of each calls it with its own
     * {@code localComm} and the rank of its leader there; this communicator (the peer communicator) is read at
     * the leaders only, which exchange their groups through it with {@code tag}, {@code remoteLeader} being the
     * other leader's rank in it.
     */
    public final Intercomm createIntercomm(Comm localComm, int localLeader, int remoteLeader,
            int tag) throws MPIException {
        return run(() -> {
            if (localComm == null) {
                throw new RmaException(ErrorClass.ERR_COMM, "createIntercomm: the local communicator is null");
            }
            localComm.intraOnly("createIntercomm's local communicator");
            int[] remote = Intercomm.exchangeLeaders(localComm, localLeader,
                    ranks -> {
                        intraOnly("createIntercomm's peer communicator");
                        Messenger m = m();
                        int[] n = new int[1];
                        m.sendrecv(new int[] {ranks.length}, 0, 1, io.jrma.Datatype.INT, remoteLeader, tag,
                                n, 0, 1, io.jrma.Datatype.INT, remoteLeader, tag);
                        int[] other = new int[n[0]];
                        m.sendrecv(ranks, 0, ranks.length, io.jrma.Datatype.INT, remoteLeader, tag,
                                other, 0, other.length, io.jrma.Datatype.INT, remoteLeader, tag);
                        return other;
                    });
            return Intercomm.create(localComm, remote);
        });
    }

    // ---------------------------------------------------------------------------------- point to point

    // The calls a program makes in its loops (send, recv, sendRecv, iSend, iRecv, barrier, bcast, reduce, allReduce)
    // are written out without the lambdas of run/exec and, for arrays and ByteBuffers, without a Bufs.Msg: a call
    // site shared by every call is megamorphic, so each call allocated its lambda and dispatched through it, which
    // the interpreter and C1 (a program's first thousands of iterations) pay in full.

    /** Blocking standard-mode send (MPI_SEND). */
    public final void send(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        MPI.check();
        try {
            if (Bufs.plain(buf)) {
                m().send(buf, 0, count, jt(type), peer(dest), tag);
                Reference.reachabilityFence(buf);
            } else {
                Bufs.Msg b = b(buf, type);
                m().send(b.obj, b.off, count, jt(type), peer(dest), tag);
                b.done();
            }
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Blocking receive (MPI_RECV); ERR_TRUNCATE if the message is longer than the buffer. */
    public final Status recv(Object buf, int count, Datatype type, int source, int tag) throws MPIException {
        MPI.check();
        try {
            if (Bufs.plain(buf)) {
                try {
                    return remote(m().recv(buf, 0, count, jt(type), peer(source), tag, Status.MAKER));
                } finally {
                    Reference.reachabilityFence(buf);
                }
            }
            Bufs.Msg b = b(buf, type);
            try {
                return remote(m().recv(b.obj, b.off, count, jt(type), peer(source), tag, Status.MAKER));
            } finally {
                b.done();
            }
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Sends and receives at once (MPI_SENDRECV); returns the receive's status. */
    public final Status sendRecv(Object sendbuf, int sendcount, Datatype sendtype, int dest, int sendtag,
                                 Object recvbuf, int recvcount, Datatype recvtype, int source, int recvtag)
            throws MPIException {
        MPI.check();
        try {
            if (Bufs.plain(sendbuf) && Bufs.plain(recvbuf)) { // no Bufs.Msg: nothing to copy back
                try {
                    return remote(m().sendrecv(sendbuf, 0, sendcount, jt(sendtype), peer(dest), sendtag,
                            recvbuf, 0, recvcount, jt(recvtype), peer(source), recvtag, Status.MAKER));
                } finally {
                    Reference.reachabilityFence(sendbuf);
                    Reference.reachabilityFence(recvbuf);
                }
            }
            Bufs.Msg s = b(sendbuf, sendtype);
            Bufs.Msg r = b(recvbuf, recvtype);
            try {
                return remote(m().sendrecv(s.obj, s.off, sendcount, jt(sendtype), peer(dest), sendtag,
                        r.obj, r.off, recvcount, jt(recvtype), peer(source), recvtag, Status.MAKER));
            } finally {
                s.done();
                r.done();
            }
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Sends the buffer's content and receives a message into the same buffer (MPI_SENDRECV_REPLACE). */
    public final Status sendRecvReplace(Object buf, int count, Datatype type, int dest, int sendtag, int source,
                                        int recvtag) throws MPIException {
        return run(() -> {
            Bufs.Msg b = b(buf, type);
            byte[] out = UserOps.pack(b, count, type);
            Messenger m = m();
            MsgRequest s = m.isend(out, 0, out.length, io.jrma.Datatype.BYTE, peer(dest), sendtag);
            try {
                return status(m.recv(b.obj, b.off, count, jt(type), peer(source), recvtag));
            } finally {
                s.waitFor();
                b.done();
            }
        });
    }

    /**
     * Buffered-mode send (MPI_BSEND): copies the message into room of the buffer attached with
     * {@link MPI#attachBuffer} and returns without waiting for a receive; ERR_BUFFER if no buffer is attached
     * or it has no room for the message plus {@link MPI#BSEND_OVERHEAD}. As in Open MPI, a message of at most
     * 4 KiB is copied and sent without the attached buffer.
     */
    public final void bSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        exec(() -> {
            Bufs.Msg b = b(buf, type);
            if (dest == MPI.PROC_NULL) {
                return;
            }
            MPI.bsend.send(this, m(), b, count, type, peer(dest), tag);
        });
    }

    /** Synchronous send (MPI_SSEND): returns once the receiver has matched the message. */
    public final void sSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        exec(() -> {
            Bufs.Msg b = b(buf, type);
            m().ssend(b.obj, b.off, count, jt(type), peer(dest), tag);
            b.done();
        });
    }

    /** Ready-mode send (MPI_RSEND): a standard send in jrma (always correct, as a matching receive is posted). */
    public final void rSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        send(buf, count, type, dest, tag);
    }

    private Request isendReq(Buffer buf, int count, Datatype type, int dest, int tag,
            boolean sync) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        try {
            Bufs.Msg b = b(buf, type);
            Messenger m = m();
            int to = peer(dest);
            MsgRequest r = sync ? m.issend(b.obj, b.off, count, jt(type), to, tag)
                    : m.isend(b.obj, b.off, count, jt(type), to, tag);
            return Request.msg(this, m, r, b);
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Nonblocking standard-mode send of a direct buffer (MPI_ISEND). */
    public final Request iSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return isendReq(buf, count, type, dest, tag, false);
    }

    /**
     * Nonblocking buffered-mode send (MPI_IBSEND): the message is copied into the attached buffer as by
     * {@link #bSend}, so the request is complete at once.
     */
    public final Request ibSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        bSend(buf, count, type, dest, tag);
        return Request.done(this, Status.empty());
    }

    /** Nonblocking synchronous send (MPI_ISSEND). */
    public final Request isSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return isendReq(buf, count, type, dest, tag, true);
    }

    /** Nonblocking ready-mode send (MPI_IRSEND): a standard one in jrma. */
    public final Request irSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return isendReq(buf, count, type, dest, tag, false);
    }

    /** Nonblocking receive into a direct buffer (MPI_IRECV). */
    public final Request iRecv(Buffer buf, int count, Datatype type, int source, int tag) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        try {
            Bufs.Msg b = b(buf, type);
            Messenger m = m();
            return Request.msg(this, m, m.irecv(b.obj, b.off, count, jt(type), peer(source), tag), b);
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    private static final int P_SEND = 0;
    private static final int P_SSEND = 1;
    private static final int P_RECV = 2;
    private static final int P_BSEND = 3;

    private Prequest persistent(Buffer buf, int count, Datatype type, int rank, int tag, int kind) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        return run(() -> {
            Bufs.Msg b = b(buf, type);
            io.jrma.Datatype t = jt(type);
            Messenger m = m();
            int peer = peer(rank);
            Prequest p = new Prequest(this, () -> {
                switch (kind) {
                    case P_SEND:
                        return m.isend(b.obj, b.off, count, t, peer, tag);
                    case P_SSEND:
                        return m.issend(b.obj, b.off, count, t, peer, tag);
                    case P_BSEND:
                        // the buffer's content at start is copied into the attached buffer's room and sent from
                        // there: the request is complete at once, as for ibSend
                        if (peer != MPI.PROC_NULL) {
                            MPI.bsend.send(this, m, b, count, type, peer, tag);
                        }
                        return MsgRequest.completedSend(m);
                    default:
                        return m.irecv(b.obj, b.off, count, t, peer, tag);
                }
            }, b);
            p.setMessenger(m);
            return p;
        });
    }

    /** A persistent standard-mode send (MPI_SEND_INIT); start it with {@link Prequest#start}. */
    public final Prequest sendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistent(buf, count, type, dest, tag, P_SEND);
    }

    /**
     * A persistent buffered-mode send (MPI_BSEND_INIT): each {@link Prequest#start} copies the buffer into room
     * of the buffer given to {@link MPI#attachBuffer} and sends the copy, as {@link #bSend} does (ERR_BUFFER
     * at start if no buffer is attached or it has no room); the request is then complete.
     */
    public final Prequest bSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistent(buf, count, type, dest, tag, P_BSEND);
    }

    /** A persistent synchronous send (MPI_SSEND_INIT). */
    public final Prequest sSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistent(buf, count, type, dest, tag, P_SSEND);
    }

    /** A persistent ready-mode send (MPI_RSEND_INIT): standard mode in jrma. */
    public final Prequest rSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistent(buf, count, type, dest, tag, P_SEND);
    }

    /** A persistent receive (MPI_RECV_INIT). */
    public final Prequest recvInit(Buffer buf, int count, Datatype type, int source, int tag) throws MPIException {
        return persistent(buf, count, type, source, tag, P_RECV);
    }

    // ---------------------------------------------------------------------------------- pack and unpack

    /**
     * Packs {@code incount} elements of {@code type} from {@code inbuf} into {@code outbuf} at byte
     * {@code position}; returns the position after them (MPI_PACK).
     */
    public final int pack(Object inbuf, int incount, Datatype type, byte[] outbuf, int position) throws MPIException {
        return run(() -> {
            io.jrma.Datatype t = jt(type);
            if (outbuf == null) {
                throw new RmaException(ErrorClass.ERR_BUFFER, "pack: the output buffer is null");
            }
            Bufs.Origin o = Bufs.reachBack(inbuf, t, incount);
            if (o != null) {
                return (int) (position + t.pack(o.obj, o.byteOff, incount, outbuf, position));
            }
            Bufs.Msg b = b(inbuf, type);
            long n = incount == 0 ? 0 : t.pack(b.obj, b.off * t.extent(), incount, outbuf, position);
            b.done();
            return (int) (position + n);
        });
    }

    /**
     * Unpacks {@code outcount} elements of {@code type} from {@code inbuf} at byte {@code position} into
     * {@code outbuf}; returns the position after them (MPI_UNPACK). ERR_TRUNCATE if {@code inbuf} holds fewer.
     */
    public final int unpack(byte[] inbuf, int position, Object outbuf, int outcount,
            Datatype type) throws MPIException {
        return run(() -> {
            io.jrma.Datatype t = jt(type);
            if (inbuf == null) {
                throw new RmaException(ErrorClass.ERR_BUFFER, "unpack: the input buffer is null");
            }
            if (outcount < 0) {
                throw new RmaException(ErrorClass.ERR_COUNT, "unpack: count " + outcount + " is negative");
            }
            long need = outcount * t.size();
            if (position < 0 || position + need > inbuf.length) {
                throw new RmaException(ErrorClass.ERR_TRUNCATE, "unpack: " + outcount + " x " + type + " need " + need
                        + " bytes from position " + position + " but the input has " + inbuf.length);
            }
            Bufs.Origin o = Bufs.reachBack(outbuf, t, outcount);
            if (o != null) {
                return (int) (position + t.unpack(inbuf, position, need, o.obj, o.byteOff, outcount));
            }
            Bufs.Msg b = b(outbuf, type);
            long n = outcount == 0 ? 0 : t.unpack(inbuf, position, need, b.obj, b.off * t.extent(), outcount);
            b.done();
            return (int) (position + n);
        });
    }

    /** Bytes {@link #pack} needs for {@code incount} elements of {@code type} (MPI_PACK_SIZE). */
    public final int packSize(int incount, Datatype type) throws MPIException {
        return run(() -> {
            if (incount < 0) {
                throw new RmaException(ErrorClass.ERR_COUNT, "pack size: count " + incount + " is negative");
            }
            return Math.toIntExact(incount * jt(type).size());
        });
    }

    // ---------------------------------------------------------------------------------- probe

    /** The status of a matching message that has arrived, or null; the message stays to be received (MPI_IPROBE). */
    public final Status iProbe(int source, int tag) throws MPIException {
        return run(() -> {
            io.jrma.msg.Status s = m().iprobe(peer(source), tag);
            return s == null ? null : status(s);
        });
    }

    /** Waits for a matching message and returns its status; it stays to be received (MPI_PROBE). */
    public final Status probe(int source, int tag) throws MPIException {
        return run(() -> status(m().probe(peer(source), tag)));
    }

    // ---------------------------------------------------------------------------------- attributes

    /** A new attribute key for communicators (MPI_COMM_CREATE_KEYVAL); {@link #dup} copies the attribute. */
    public static int createKeyval() throws MPIException {
        MPI.check();
        return MPI.env.newKeyval(Env.KeyKind.COMM);
    }

    /** Frees an attribute key (MPI_COMM_FREE_KEYVAL). */
    public static void freeKeyval(int keyval) throws MPIException {
        MPI.check();
        try {
            MPI.env.freeKeyval(Env.KeyKind.COMM, keyval);
        } catch (RuntimeException e) {
            throw Err.handle(MPI.COMM_WORLD.errh, MPI.COMM_WORLD.siteName(), e);
        }
    }

    /** Caches a (serializable) value under {@code keyval} (MPI_COMM_SET_ATTR); {@link #getAttr} returns a copy. */
    public final void setAttr(int keyval, Object value) throws MPIException {
        exec(() -> {
            core();
            MPI.env.checkKeyval(Env.KeyKind.COMM, keyval, attrs);
            attrs.put(keyval, MPI.attrSet(value));
        });
    }

    /**
     * The value under {@code keyval}, or null (MPI_COMM_GET_ATTR). Predefined keys: {@link MPI#TAG_UB},
     * {@link MPI#HOST}, {@link MPI#IO}, {@link MPI#APPNUM}, {@link MPI#LASTUSEDCODE}, {@link MPI#UNIVERSE_SIZE}
     * ({@code Integer}) and {@link MPI#WTIME_IS_GLOBAL} ({@code Boolean}).
     */
    public final Object getAttr(int keyval) throws MPIException {
        return run(() -> {
            core();
            switch (keyval) {
                case MPI.TAG_UB:
                    return Messenger.TAG_UB;
                case MPI.HOST:
                    return MPI.PROC_NULL;
                case MPI.IO:
                    return MPI.ANY_SOURCE;
                case MPI.WTIME_IS_GLOBAL:
                    return Boolean.FALSE;
                case MPI.APPNUM:
                    return 0;
                case MPI.LASTUSEDCODE:
                    return MPI.ERR_LASTCODE;
                case MPI.UNIVERSE_SIZE:
                    return MPI.env.world.size();
                default:
                    MPI.env.checkKeyval(Env.KeyKind.COMM, keyval, attrs);
                    return MPI.attrGet(attrs.get(keyval));
            }
        });
    }

    /** Removes the value under {@code keyval} (MPI_COMM_DELETE_ATTR); ERR_KEYVAL for an invalid or predefined key. */
    public final void deleteAttr(int keyval) throws MPIException {
        exec(() -> {
            core();
            MPI.env.checkKeyval(Env.KeyKind.COMM, keyval, attrs);
            attrs.remove(keyval);
        });
    }

    // ---------------------------------------------------------------------------------- topology, errors

    /**
     * The topology: {@link MPI#CART}, {@link MPI#GRAPH}, {@link MPI#DIST_GRAPH} or {@link MPI#UNDEFINED}
     * (MPI_TOPO_TEST).
     */
    public final int getTopology() throws MPIException {
        return run(() -> {
            core();
            return topology();
        });
    }

    int topology() {
        Topo t = topo;
        return t == null ? MPI.UNDEFINED : t.kind;
    }

    /**
     * Aborts the whole job (MPI_ABORT): every rank stops, and the job (jrmarun, or a singleton process) exits with
     * {@code errorcode}. Does not return.
     */
    public final void abort(int errorcode) throws MPIException {
        MPI.check();
        System.err.println("jrma mpi: rank " + MPI.env.world.rank() + " called abort(" + errorcode + ") on "
                + siteName());
        throw MPI.env.abort(errorcode);
    }

    /** Sets the error handler (MPI_COMM_SET_ERRHANDLER). */
    public final void setErrhandler(Errhandler errhandler) throws MPIException {
        exec(() -> {
            if (errhandler == null) {
                throw new RmaException(ErrorClass.ERR_ARG, "error handler is null");
            }
            errh = errhandler;
        });
    }

    /** The error handler (MPI_COMM_GET_ERRHANDLER). */
    public final Errhandler getErrhandler() throws MPIException {
        MPI.check();
        return errh;
    }

    /**
     * Invokes the error handler with {@code errorCode} (MPI_COMM_CALL_ERRHANDLER): under ERRORS_ARE_FATAL the job
     * is aborted with that code; under ERRORS_RETURN the handler returns, and so does this call, normally (MPI
     * says it then returns MPI_SUCCESS, so Open MPI's binding throws nothing).
     */
    public void callErrhandler(int errorCode) throws MPIException {
        MPI.check();
        if (errh.fatal && errorCode != MPI.SUCCESS) {
            throw Err.raise(errh, errorCode, "MPI error " + errorCode + " raised by callErrhandler", siteName(), null);
        }
    }

    // ---------------------------------------------------------------------------------- collectives

    /** Blocks until every rank has called it (MPI_BARRIER). */
    public final void barrier() throws MPIException {
        MPI.check();
        try {
            if (size() > 1) {
                coll().barrier();
            }
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Nonblocking barrier (MPI_IBARRIER); completes in this call. */
    public final Request iBarrier() throws MPIException {
        return async(() -> barrier());
    }

    /** Broadcasts the root's buffer to every rank (MPI_BCAST). */
    public final void bcast(Object buf, int count, Datatype type, int root) throws MPIException {
        if (this instanceof Intercomm ic) {
            ic.xBcast(buf, count, type, root);
            return;
        }
        MPI.check();
        try {
            if (Bufs.plain(buf)) {
                coll().bcast(buf, 0, count, jt(type), root);
                Reference.reachabilityFence(buf);
            } else {
                Bufs.Msg b = b(buf, type);
                coll().bcast(b.obj, b.off, count, jt(type), root);
                b.done();
            }
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Nonblocking broadcast (MPI_IBCAST); completes in this call. */
    public final Request iBcast(Buffer buf, int count, Datatype type, int root) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return async(() -> bcast(buf, count, type, root));
    }

    /** Gathers every rank's send buffer into the root's receive buffer, rank r's at block r (MPI_GATHER). */
    public final void gather(Object sendbuf, int sendcount, Datatype sendtype,
                             Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        if (this instanceof Intercomm ic) {
            ic.xGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
            return;
        }
        MPI.check();
        try {
            if (Bufs.plain(sendbuf) && Bufs.plain(recvbuf)) { // arrays, ByteBuffers: no preparation
                coll().gather(sendbuf, 0, sendcount, jt(sendtype), recvbuf, 0, recvcount, jtOpt(recvtype), root);
                Reference.reachabilityFence(sendbuf);
                Reference.reachabilityFence(recvbuf);
                return;
            }
            Bufs.Msg s = b(sendbuf, sendtype);
            Bufs.Msg r = b(recvbuf, recvtype);
            coll().gather(s.obj, s.off, sendcount, jt(sendtype), r.obj, r.off, recvcount, jtOpt(recvtype), root);
            r.done();
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /**
     * Gather in place (MPI_GATHER with MPI_IN_PLACE): at the root {@code buf} receives every block and its own
     * block is already in place; at the other ranks {@code buf} holds the {@code count} elements to send.
     */
    public final void gather(Object buf, int count, Datatype type, int root) throws MPIException {
        requireIntra("gather in place");
        exec(() -> {
            Bufs.Msg b = b(buf, type);
            io.jrma.Datatype t = jt(type);
            if (me() == root) {
                coll().gather(b.obj, b.off + (long) root * count, count, t, b.obj, b.off, count, t, root);
            } else {
                coll().gather(b.obj, b.off, count, t, null, 0, count, t, root);
            }
            b.done();
        });
    }

    /** Nonblocking gather (MPI_IGATHER); completes in this call. */
    public final Request iGather(Buffer sendbuf, int sendcount, Datatype sendtype,
                                 Buffer recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root));
    }

    /** Nonblocking in-place gather (MPI_IGATHER with MPI_IN_PLACE); completes in this call. */
    public final Request iGather(Buffer buf, int count, Datatype type, int root) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return async(() -> gather(buf, count, type, root));
    }

    /** Gathers varying counts: rank r's data lands at {@code displs[r]} extents of the receive type (MPI_GATHERV). */
    public final void gatherv(Object sendbuf, int sendcount, Datatype sendtype,
                              Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root)
            throws MPIException {
        if (this instanceof Intercomm ic) {
            ic.xGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root);
            return;
        }
        exec(() -> {
            Bufs.Msg s = b(sendbuf, sendtype);
            Bufs.Msg r = b(recvbuf, recvtype);
            coll().gatherv(s.obj, s.off, sendcount, jt(sendtype), r.obj, r.off, longs(recvcount), longs(displs),
                    jtOpt(recvtype), root);
            r.done();
        });
    }

    /** Gatherv in place at the root (its own block is already at {@code displs[root]}); call it at the root only. */
    public final void gatherv(Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root)
            throws MPIException {
        requireIntra("gatherv in place");
        exec(() -> {
            Bufs.Msg r = b(recvbuf, recvtype);
            io.jrma.Datatype t = jt(recvtype);
            if (me() != root) {
                throw new RmaException(ErrorClass.ERR_ROOT, "gatherv(recvbuf, recvcount, displs, recvtype, root) is the"
                        + " in-place form for the root only; other ranks call gatherv(sendbuf, sendcount, sendtype, "
                        + "root)");
            }
            checkCounts(recvcount, displs);
            coll().gatherv(r.obj, r.off + displs[root], recvcount[root], t, r.obj, r.off, longs(recvcount),
                    longs(displs), t, root);
            r.done();
        });
    }

    /** Gatherv in place, at the ranks other than the root: sends {@code sendcount} elements. */
    public final void gatherv(Object sendbuf, int sendcount, Datatype sendtype, int root) throws MPIException {
        requireIntra("gatherv in place");
        exec(() -> {
            Bufs.Msg s = b(sendbuf, sendtype);
            if (me() == root) {
                throw new RmaException(ErrorClass.ERR_ROOT,
                        "gatherv(sendbuf, sendcount, sendtype, root) is the in-place"
                        + " form for the non-root ranks; the root calls gatherv(recvbuf, recvcount, displs, recvtype, "
                        + "root)");
            }
            coll().gatherv(s.obj, s.off, sendcount, jt(sendtype), null, 0, null, null, null, root);
        });
    }

    private void checkCounts(int[] counts, int[] displs) {
        int p = size();
        if (counts == null || displs == null || counts.length < p || displs.length < p) {
            throw new RmaException(ErrorClass.ERR_ARG, "counts and displacements need " + p + " entries each");
        }
    }

    /** Nonblocking gatherv (MPI_IGATHERV); completes in this call. */
    public final Request iGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
                                  int[] recvcount, int[] displs, Datatype recvtype, int root) throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root));
    }

    /** Nonblocking in-place gatherv at the root; completes in this call. */
    public final Request iGatherv(Buffer recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root)
            throws MPIException {
        MPI.assertDirectBuffer(recvbuf);
        return async(() -> gatherv(recvbuf, recvcount, displs, recvtype, root));
    }

    /** Nonblocking in-place gatherv at the other ranks; completes in this call. */
    public final Request iGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, int root) throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        return async(() -> gatherv(sendbuf, sendcount, sendtype, root));
    }

    /** Sends block r of the root's send buffer to rank r (MPI_SCATTER). */
    public final void scatter(Object sendbuf, int sendcount, Datatype sendtype,
                              Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        if (this instanceof Intercomm ic) {
            ic.xScatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
            return;
        }
        MPI.check();
        try {
            if (Bufs.plain(sendbuf) && Bufs.plain(recvbuf)) { // arrays, ByteBuffers: no preparation
                coll().scatter(sendbuf, 0, sendcount, jtOpt(sendtype), recvbuf, 0, recvcount, jt(recvtype), root);
                Reference.reachabilityFence(sendbuf);
                Reference.reachabilityFence(recvbuf);
                return;
            }
            Bufs.Msg s = b(sendbuf, sendtype);
            Bufs.Msg r = b(recvbuf, recvtype);
            coll().scatter(s.obj, s.off, sendcount, jtOpt(sendtype), r.obj, r.off, recvcount, jt(recvtype), root);
            r.done();
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /**
     * Scatter in place (MPI_SCATTER with MPI_IN_PLACE): at the root {@code buf} holds every block and keeps its
     * own; the other ranks receive {@code count} elements into {@code buf}.
     */
    public final void scatter(Object buf, int count, Datatype type, int root) throws MPIException {
        requireIntra("scatter in place");
        exec(() -> {
            Bufs.Msg b = b(buf, type);
            io.jrma.Datatype t = jt(type);
            if (me() == root) {
                coll().scatter(b.obj, b.off, count, t, b.obj, b.off + (long) root * count, count, t, root);
            } else {
                coll().scatter(null, 0, count, t, b.obj, b.off, count, t, root);
            }
            b.done();
        });
    }

    /** Nonblocking scatter (MPI_ISCATTER); completes in this call. */
    public final Request iScatter(Buffer sendbuf, int sendcount, Datatype sendtype,
                                  Buffer recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root));
    }

    /** Nonblocking in-place scatter; completes in this call. */
    public final Request iScatter(Buffer buf, int count, Datatype type, int root) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return async(() -> scatter(buf, count, type, root));
    }

    /** Sends {@code sendcount[r]} elements from {@code displs[r]} extents to rank r (MPI_SCATTERV). */
    public final void scatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype,
                               Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        if (this instanceof Intercomm ic) {
            ic.xScatterv(sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root);
            return;
        }
        exec(() -> {
            Bufs.Msg s = b(sendbuf, sendtype);
            Bufs.Msg r = b(recvbuf, recvtype);
            coll().scatterv(s.obj, s.off, longs(sendcount), longs(displs), jtOpt(sendtype), r.obj, r.off, recvcount,
                    jt(recvtype), root);
            r.done();
        });
    }

    /** Scatterv in place at the root (it keeps its own block); call it at the root only. */
    public final void scatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype, int root)
            throws MPIException {
        requireIntra("scatterv in place");
        exec(() -> {
            Bufs.Msg s = b(sendbuf, sendtype);
            io.jrma.Datatype t = jt(sendtype);
            if (me() != root) {
                throw new RmaException(ErrorClass.ERR_ROOT,
                        "scatterv(sendbuf, sendcount, displs, sendtype, root) is the"
                        + " in-place form for the root only; other ranks call scatterv(recvbuf, recvcount, recvtype, "
                        + "root)");
            }
            checkCounts(sendcount, displs);
            coll().scatterv(s.obj, s.off, longs(sendcount), longs(displs), t, s.obj, s.off + displs[root],
                    sendcount[root], t, root);
        });
    }

    /** Scatterv in place, at the ranks other than the root: receives {@code recvcount} elements. */
    public final void scatterv(Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        requireIntra("scatterv in place");
        exec(() -> {
            Bufs.Msg r = b(recvbuf, recvtype);
            if (me() == root) {
                throw new RmaException(ErrorClass.ERR_ROOT,
                        "scatterv(recvbuf, recvcount, recvtype, root) is the in-place"
                        + " form for the non-root ranks; the root calls scatterv(sendbuf, sendcount, displs, "
                        + "sendtype, root)");
            }
            coll().scatterv(null, 0, null, null, null, r.obj, r.off, recvcount, jt(recvtype), root);
            r.done();
        });
    }

    /** Nonblocking scatterv (MPI_ISCATTERV); completes in this call. */
    public final Request iScatterv(Buffer sendbuf, int[] sendcount, int[] displs, Datatype sendtype,
                                   Buffer recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> scatterv(sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root));
    }

    /** Nonblocking in-place scatterv at the root; completes in this call. */
    public final Request iScatterv(Buffer sendbuf, int[] sendcount, int[] displs, Datatype sendtype, int root)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        return async(() -> scatterv(sendbuf, sendcount, displs, sendtype, root));
    }

    /** Nonblocking in-place scatterv at the other ranks; completes in this call. */
    public final Request iScatterv(Buffer recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        MPI.assertDirectBuffer(recvbuf);
        return async(() -> scatterv(recvbuf, recvcount, recvtype, root));
    }

    /** Every rank gets every rank's block, rank r's at block r (MPI_ALLGATHER). */
    public final void allGather(Object sendbuf, int sendcount, Datatype sendtype,
                                Object recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        if (this instanceof Intercomm ic) {
            ic.xAllGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
            return;
        }
        MPI.check();
        try {
            if (Bufs.plain(sendbuf) && Bufs.plain(recvbuf)) { // arrays, ByteBuffers: no preparation
                coll().allgather(sendbuf, 0, sendcount, jt(sendtype), recvbuf, 0, recvcount, jt(recvtype));
                Reference.reachabilityFence(sendbuf);
                Reference.reachabilityFence(recvbuf);
                return;
            }
            Bufs.Msg s = b(sendbuf, sendtype);
            Bufs.Msg r = b(recvbuf, recvtype);
            coll().allgather(s.obj, s.off, sendcount, jt(sendtype), r.obj, r.off, recvcount, jt(recvtype));
            r.done();
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Allgather in place: every rank's own block is already at block rank of {@code buf} (MPI_IN_PLACE). */
    public final void allGather(Object buf, int count, Datatype type) throws MPIException {
        requireIntra("allGather in place");
        exec(() -> {
            Bufs.Msg b = b(buf, type);
            io.jrma.Datatype t = jt(type);
            coll().allgather(b.obj, b.off + (long) me() * count, count, t, b.obj, b.off, count, t);
            b.done();
        });
    }

    /** Nonblocking allgather (MPI_IALLGATHER); completes in this call. */
    public final Request iAllGather(Buffer sendbuf, int sendcount, Datatype sendtype,
                                    Buffer recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> allGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
    }

    /** Nonblocking in-place allgather; completes in this call. */
    public final Request iAllGather(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return async(() -> allGather(buf, count, type));
    }

    /** Allgather with varying counts; rank r's data lands at {@code displs[r]} extents (MPI_ALLGATHERV). */
    public final void allGatherv(Object sendbuf, int sendcount, Datatype sendtype,
                                 Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        if (this instanceof Intercomm ic) {
            ic.xAllGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype);
            return;
        }
        exec(() -> {
            Bufs.Msg s = b(sendbuf, sendtype);
            Bufs.Msg r = b(recvbuf, recvtype);
            coll().allgatherv(s.obj, s.off, sendcount, jt(sendtype), r.obj, r.off, longs(recvcount), longs(displs),
                    jt(recvtype));
            r.done();
        });
    }

    /** Allgatherv in place: every rank's block is already at {@code displs[rank]} (MPI_IN_PLACE). */
    public final void allGatherv(Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        requireIntra("allGatherv in place");
        exec(() -> {
            Bufs.Msg r = b(recvbuf, recvtype);
            io.jrma.Datatype t = jt(recvtype);
            checkCounts(recvcount, displs);
            int me = me();
            coll().allgatherv(r.obj, r.off + displs[me], recvcount[me], t, r.obj, r.off, longs(recvcount),
                    longs(displs), t);
            r.done();
        });
    }

    /** Nonblocking allgatherv (MPI_IALLGATHERV); completes in this call. */
    public final Request iAllGatherv(Buffer sendbuf, int sendcount, Datatype sendtype,
                                     Buffer recvbuf, int[] recvcount, int[] displs, Datatype recvtype)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> allGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype));
    }

    /** Nonblocking in-place allgatherv; completes in this call. */
    public final Request iAllGatherv(Buffer buf, int[] count, int[] displs, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return async(() -> allGatherv(buf, count, displs, type));
    }

    /** Block j of every rank's send buffer goes to rank j, landing at block i for sender i (MPI_ALLTOALL). */
    public final void allToAll(Object sendbuf, int sendcount, Datatype sendtype,
                               Object recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        if (this instanceof Intercomm ic) {
            ic.xAllToAll(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
            return;
        }
        MPI.check();
        try {
            if (Bufs.plain(sendbuf) && Bufs.plain(recvbuf)) { // arrays, ByteBuffers: no preparation
                coll().alltoall(sendbuf, 0, sendcount, jt(sendtype), recvbuf, 0, recvcount, jt(recvtype));
                Reference.reachabilityFence(sendbuf);
                Reference.reachabilityFence(recvbuf);
                return;
            }
            Bufs.Msg s = b(sendbuf, sendtype);
            Bufs.Msg r = b(recvbuf, recvtype);
            coll().alltoall(s.obj, s.off, sendcount, jt(sendtype), r.obj, r.off, recvcount, jt(recvtype));
            r.done();
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Nonblocking alltoall (MPI_IALLTOALL); completes in this call. */
    public final Request iAllToAll(Buffer sendbuf, int sendcount, Datatype sendtype,
                                   Buffer recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> allToAll(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
    }

    /** Alltoall with per-rank counts and displacements (in extents) on both sides (MPI_ALLTOALLV). */
    public final void allToAllv(Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                                Object recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        if (this instanceof Intercomm ic) {
            ic.xAllToAllv(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype);
            return;
        }
        exec(() -> {
            Bufs.Msg s = b(sendbuf, sendtype);
            Bufs.Msg r = b(recvbuf, recvtype);
            coll().alltoallv(s.obj, s.off, longs(sendcount), longs(sdispls), jt(sendtype), r.obj, r.off,
                    longs(recvcount), longs(rdispls), jt(recvtype));
            r.done();
        });
    }

    /** Nonblocking alltoallv (MPI_IALLTOALLV); completes in this call. */
    public final Request iAllToAllv(Buffer sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                                    Buffer recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> allToAllv(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype));
    }

    /**
     * Alltoall with a datatype per peer on both sides and displacements in bytes (MPI_ALLTOALLW), on intra- and
     * inter-communicators (where the peers are the remote group). jrma packs each block, exchanges the packed
     * bytes, and unpacks them with the receive types.
     */
    public final void allToAllw(Buffer sendBuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes,
                                Buffer recvBuf, int[] recvCount, int[] rDispls,
                                Datatype[] recvTypes) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(sendBuf, recvBuf);
        if (this instanceof Intercomm) {
            Intercomm ic = (Intercomm) this;
            int p = ic.getRemoteSize();
            exec(() -> {
                AllToAllw w = AllToAllw.pack(p, sendBuf, sendCount, sDispls, sendTypes, recvCount, rDispls, recvTypes);
                ic.allToAllvBytes(w.out, w.sc, w.sd, w.in, w.rc, w.rd);
                w.unpack(recvBuf, recvCount, rDispls, recvTypes);
            });
            return;
        }
        exec(() -> {
            AllToAllw w = AllToAllw.pack(size(), sendBuf, sendCount, sDispls, sendTypes, recvCount, rDispls, recvTypes);
            coll().alltoallv(w.out, 0, longs(w.sc), longs(w.sd), io.jrma.Datatype.BYTE, w.in, 0, longs(w.rc),
                    longs(w.rd), io.jrma.Datatype.BYTE);
            w.unpack(recvBuf, recvCount, rDispls, recvTypes);
        });
    }

    /** Nonblocking alltoallw (MPI_IALLTOALLW); completes in this call. */
    public final Request iAllToAllw(Buffer sendBuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes,
                                    Buffer recvBuf, int[] recvCount, int[] rDispls, Datatype[] recvTypes)
            throws MPIException {
        return async(() -> allToAllw(sendBuf, sendCount, sDispls, sendTypes, recvBuf, recvCount, rDispls, recvTypes));
    }

    // ------------------------------------------------------------------------ neighborhood collectives

    /** Sends this rank's block to every neighbor and receives one block from each (MPI_NEIGHBOR_ALLGATHER). */
    public final void neighborAllGather(Object sendbuf, int sendcount, Datatype sendtype,
                                        Object recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        requireIntra("neighborAllGather");
        exec(() -> topo().allGather(sendbuf, sendcount, sendtype, recvbuf, new int[] {recvcount}, null,
                recvtype));
    }

    /** Nonblocking neighbor allgather (MPI_INEIGHBOR_ALLGATHER); completes in this call. */
    public final Request iNeighborAllGather(Buffer sendbuf, int sendcount, Datatype sendtype,
                                            Buffer recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> neighborAllGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
    }

    /** Neighbor allgather with varying counts and displacements (in extents) per neighbor (MPI_NEIGHBOR_ALLGATHERV). */
    public final void neighborAllGatherv(Object sendbuf, int sendcount, Datatype sendtype,
                                         Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype)
            throws MPIException {
        requireIntra("neighborAllGatherv");
        exec(() -> topo().allGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype));
    }

    /** Nonblocking neighbor allgatherv (MPI_INEIGHBOR_ALLGATHERV); completes in this call. */
    public final Request iNeighborAllGatherv(Buffer sendbuf, int sendcount, Datatype sendtype,
                                             Buffer recvbuf, int[] recvcount, int[] displs, Datatype recvtype)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> neighborAllGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype));
    }

    /** Sends block k to neighbor k and receives block k from neighbor k (MPI_NEIGHBOR_ALLTOALL). */
    public final void neighborAllToAll(Object sendbuf, int sendcount, Datatype sendtype,
                                       Object recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        requireIntra("neighborAllToAll");
        exec(() -> topo().allToAll(sendbuf, new int[] {sendcount}, null, sendtype, recvbuf,
                new int[] {recvcount}, null, recvtype));
    }

    /** Nonblocking neighbor alltoall (MPI_INEIGHBOR_ALLTOALL); completes in this call. */
    public final Request iNeighborAllToAll(Buffer sendbuf, int sendcount, Datatype sendtype,
                                           Buffer recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> neighborAllToAll(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
    }

    /** Neighbor alltoall with counts and displacements (in extents) per neighbor (MPI_NEIGHBOR_ALLTOALLV). */
    public final void neighborAllToAllv(Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                                        Object recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype)
            throws MPIException {
        requireIntra("neighborAllToAllv");
        exec(() -> topo().allToAll(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls,
                recvtype));
    }

    /** Nonblocking neighbor alltoallv (MPI_INEIGHBOR_ALLTOALLV); completes in this call. */
    public final Request iNeighborAllToAllv(Buffer sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                                            Buffer recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> neighborAllToAllv(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount,
                rdispls, recvtype));
    }

    /** The communicator's topology; ERR_TOPOLOGY if it has none. */
    final Topo topo() {
        core();
        drainAsync();
        Topo t = topo;
        if (t == null) {
            throw new RmaException(ErrorClass.ERR_TOPOLOGY,
                    "neighborhood collectives need a communicator with a topology"
                    + " (createCart, createGraph, createDistGraph...)");
        }
        return t;
    }

    // ------------------------------------------------------------------------------------------ reductions

    /** Combines every rank's send buffer with {@code op} into the root's receive buffer (MPI_REDUCE). */
    public final void reduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op,
            int root) throws MPIException {
        if (this instanceof Intercomm ic) {
            ic.xReduce(sendbuf, recvbuf, count, type, op, root);
            return;
        }
        MPI.check();
        try {
            Op.check(op);
            if (op.jop != null && Bufs.plain(sendbuf) && Bufs.plain(recvbuf)) {
                coll().reduce(sendbuf, 0, recvbuf, 0, count, jt(type), op.jop, root);
                Reference.reachabilityFence(sendbuf);
                Reference.reachabilityFence(recvbuf);
                return;
            }
            reduce(b(sendbuf, type), b(recvbuf, type), count, type, op, root);
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Reduce in place: at the root {@code buf} holds its contribution and receives the result (MPI_IN_PLACE). */
    public final void reduce(Object buf, int count, Datatype type, Op op, int root) throws MPIException {
        requireIntra("reduce in place");
        exec(() -> {
            Bufs.Msg b = b(buf, type);
            Bufs.Msg s = me() == root ? copy(b, type, op) : b;
            reduce(s, b, count, type, op, root);
        });
    }

    /**
     * The input of an in-place reduction over {@code b}: {@code b} itself for a predefined op (jrma's reductions
     * pack the whole input before they write any result, so input and output may be the same memory), else a
     * prepared buffer holding a copy of its content (user-defined ops combine in the receive buffer).
     */
    static Bufs.Msg copy(Bufs.Msg b, Datatype type, Op op) {
        return op != null && op.jop != null ? b : Bufs.copyOf(b);
    }

    private void reduce(Bufs.Msg s, Bufs.Msg r, int count, Datatype type, Op op, int root) throws MPIException {
        Op.check(op);
        if (op.jop == null) {
            if (root < 0 || root >= size()) {
                throw new RmaException(ErrorClass.ERR_ROOT,
                        "reduce: root " + root + " is not in a communicator of size "
                        + size());
            }
            UserOps.reduce(coll(), me(), size(), s, r, count, type, op, root);
            return;
        }
        coll().reduce(s.obj, s.off, r.obj, r.off, count, jt(type), op.jop, root);
        r.done();
    }

    /** Nonblocking reduce (MPI_IREDUCE); completes in this call. */
    public final Request iReduce(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op, int root)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> reduce(sendbuf, recvbuf, count, type, op, root));
    }

    /** Nonblocking in-place reduce; completes in this call. */
    public final Request iReduce(Buffer buf, int count, Datatype type, Op op, int root) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return async(() -> reduce(buf, count, type, op, root));
    }

    /** Combines every rank's send buffer with {@code op}; every rank gets the result (MPI_ALLREDUCE). */
    public final void allReduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        if (this instanceof Intercomm ic) {
            ic.xAllReduce(sendbuf, recvbuf, count, type, op);
            return;
        }
        MPI.check();
        try {
            Op.check(op);
            if (op.jop != null && Bufs.plain(sendbuf) && Bufs.plain(recvbuf)) {
                coll().allreduce(sendbuf, 0, recvbuf, 0, count, jt(type), op.jop);
                Reference.reachabilityFence(sendbuf);
                Reference.reachabilityFence(recvbuf);
            } else {
                allReduce(b(sendbuf, type), b(recvbuf, type), count, type, op);
            }
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Allreduce in place: {@code buf} holds this rank's contribution and receives the result (MPI_IN_PLACE). */
    public final void allReduce(Object buf, int count, Datatype type, Op op) throws MPIException {
        requireIntra("allReduce in place");
        exec(() -> {
            Bufs.Msg b = b(buf, type);
            allReduce(copy(b, type, op), b, count, type, op);
        });
    }

    private void allReduce(Bufs.Msg s, Bufs.Msg r, int count, Datatype type, Op op) throws MPIException {
        Op.check(op);
        if (op.jop == null) {
            UserOps.allreduce(coll(), size(), s, r, count, type, op);
            return;
        }
        coll().allreduce(s.obj, s.off, r.obj, r.off, count, jt(type), op.jop);
        r.done();
    }

    /** Nonblocking allreduce (MPI_IALLREDUCE); completes in this call. */
    public final Request iAllReduce(Buffer sendbuf, Buffer recvbuf, int count, Datatype type,
            Op op) throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> allReduce(sendbuf, recvbuf, count, type, op));
    }

    /** Nonblocking in-place allreduce; completes in this call. */
    public final Request iAllReduce(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return async(() -> allReduce(buf, count, type, op));
    }

    /**
     * Combines every rank's {@code sum(recvcounts)} elements with {@code op} and leaves block r of the result
     * ({@code recvcounts[r]} elements) at rank r (MPI_REDUCE_SCATTER).
     */
    public final void reduceScatter(Object sendbuf, Object recvbuf, int[] recvcounts, Datatype type, Op op)
            throws MPIException {
        if (this instanceof Intercomm ic) {
            ic.xReduceScatter(sendbuf, recvbuf, recvcounts, type, op);
            return;
        }
        exec(() -> reduceScatter(b(sendbuf, type), b(recvbuf, type), recvcounts, type, op));
    }

    /** Reduce-scatter in place: {@code buf} holds the whole input and receives this rank's block at its start. */
    public final void reduceScatter(Object buf, int[] counts, Datatype type, Op op) throws MPIException {
        requireIntra("reduceScatter in place");
        exec(() -> {
            Bufs.Msg b = b(buf, type);
            reduceScatter(copy(b, type, op), b, counts, type, op);
        });
    }

    private void reduceScatter(Bufs.Msg s, Bufs.Msg r, int[] counts, Datatype type, Op op) throws MPIException {
        Op.check(op);
        if (op.jop == null) {
            UserOps.reduceScatter(coll(), me(), size(), s, r, counts, type, op);
            return;
        }
        coll().reduceScatter(s.obj, s.off, r.obj, r.off, longs(counts), jt(type), op.jop);
        r.done();
    }

    /** Nonblocking reduce-scatter (MPI_IREDUCE_SCATTER); completes in this call. */
    public final Request iReduceScatter(Buffer sendbuf, Buffer recvbuf, int[] recvcounts, Datatype type, Op op)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> reduceScatter(sendbuf, recvbuf, recvcounts, type, op));
    }

    /** Nonblocking in-place reduce-scatter; completes in this call. */
    public final Request iReduceScatter(Buffer buf, int[] counts, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return async(() -> reduceScatter(buf, counts, type, op));
    }

    /** {@link #reduceScatter} with {@code recvcount} elements for every rank (MPI_REDUCE_SCATTER_BLOCK). */
    public final void reduceScatterBlock(Object sendbuf, Object recvbuf, int recvcount, Datatype type, Op op)
            throws MPIException {
        if (this instanceof Intercomm ic) {
            ic.xReduceScatterBlock(sendbuf, recvbuf, recvcount, type, op);
            return;
        }
        exec(() -> reduceScatter(b(sendbuf, type), b(recvbuf, type), blocks(recvcount), type, op));
    }

    /** Reduce-scatter-block in place. */
    public final void reduceScatterBlock(Object buf, int count, Datatype type, Op op) throws MPIException {
        requireIntra("reduceScatterBlock in place");
        exec(() -> {
            Bufs.Msg b = b(buf, type);
            reduceScatter(copy(b, type, op), b, blocks(count), type, op);
        });
    }

    private int[] blocks(int count) {
        int[] c = new int[size()];
        Arrays.fill(c, count);
        return c;
    }

    /** Nonblocking reduce-scatter-block (MPI_IREDUCE_SCATTER_BLOCK); completes in this call. */
    public final Request iReduceScatterBlock(Buffer sendbuf, Buffer recvbuf, int recvcount, Datatype type, Op op)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> reduceScatterBlock(sendbuf, recvbuf, recvcount, type, op));
    }

    /** Nonblocking in-place reduce-scatter-block; completes in this call. */
    public final Request iReduceScatterBlock(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return async(() -> reduceScatterBlock(buf, count, type, op));
    }

    /** {@code inOutBuf[i] = inBuf[i] op inOutBuf[i]} locally (MPI_REDUCE_LOCAL). */
    public static void reduceLocal(Object inBuf, Object inOutBuf, int count, Datatype type, Op op) throws MPIException {
        MPI.check();
        try {
            Bufs.Msg in = b(inBuf, type);
            Bufs.Msg inout = b(inOutBuf, type);
            io.jrma.Datatype t = jt(type);
            Op.check(op);
            if (op.jop == null) {
                UserOps.reduceLocal(in, inout, count, type, op);
                return;
            }
            if (op.jop == io.jrma.Op.REPLACE || op.jop == io.jrma.Op.NO_OP) {
                throw new RmaException(ErrorClass.ERR_OP, op + " is only allowed in accumulate operations");
            }
            op.jop.reduceLocal(in.obj, in.off * t.extent(), inout.obj, inout.off * t.extent(), count, t);
            inout.done();
        } catch (RuntimeException e) {
            throw Err.handle(MPI.COMM_WORLD.errh, "MPI_COMM_WORLD (reduceLocal)", e);
        }
    }

    // ---------------------------------------------------------------------------------- naming

    /** Sets the communicator's name (MPI_COMM_SET_NAME). */
    public final void setName(String name) throws MPIException {
        exec(() -> {
            core();
            if (name == null || name.length() > MPI.MAX_OBJECT_NAME) {
                throw new RmaException(ErrorClass.ERR_ARG,
                        "a communicator name must have at most " + MPI.MAX_OBJECT_NAME
                        + " characters");
            }
            this.name = name;
        });
    }

    /** The communicator's name (MPI_COMM_GET_NAME): "MPI_COMM_WORLD", "MPI_COMM_SELF", or what was set, else "". */
    public final String getName() throws MPIException {
        return run(() -> {
            core();
            return name;
        });
    }

    @Override
    public String toString() {
        io.jrma.Comm c = core;
        return c == null ? "MPI_COMM_NULL" : siteName() + "[rank " + c.rank() + " of " + c.size() + "]";
    }
}

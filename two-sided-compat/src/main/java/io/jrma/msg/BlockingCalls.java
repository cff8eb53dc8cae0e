package io.jrma.msg;

import static io.jrma.msg.Messenger.ANY_SOURCE;
import static io.jrma.msg.Messenger.ANY_TAG;
import static io.jrma.msg.Messenger.CTX_USER;
import static io.jrma.msg.Messenger.PROC_NULL;

import io.jrma.Datatype;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A messenger's blocking point-to-point calls (send, ssend, recv, sendrecv; {@link Messenger} documents them) and
 * their spare objects: one send op, one receive op (each with its request and buffer description) and one waiter.
 * A blocking call takes one with an atomic exchange (another thread of the rank calling at the same time finds
 * none and makes its own), uses it and puts it back once its request has completed, so that a blocking send,
 * receive or wait allocates nothing. One per messenger; any thread of its rank.
 */
final class BlockingCalls {
    private final Messenger m;
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
            SPARE_SEND = l.findVarHandle(BlockingCalls.class, "spareSend", SendOp.class);
            SPARE_RECV = l.findVarHandle(BlockingCalls.class, "spareRecv", RecvOp.class);
            SPARE_WAITER = l.findVarHandle(BlockingCalls.class, "spareWaiter", Waiter.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    BlockingCalls(Messenger m) {
        this.m = m;
    }

    /** A blocking send (MPI_Send, or MPI_Ssend if {@code sync}) with the spare op: allocates nothing. */
    void send(Object buf, long offset, long count, Datatype type, int dest, int tag, boolean sync) {
        m.checkDest(dest);
        Messenger.checkTag(tag, false, "send");
        SendOp op = takeSend();
        op.data.set(buf, offset, count, type, "send to rank", dest);
        if (dest != PROC_NULL) {
            m.post(op.init(dest, tag, CTX_USER, sync));
            op.req.waitQuietly();
        }
        giveSend(op);
    }

    /** A blocking receive (MPI_Recv) with the spare op; throws ERR_TRUNCATE (after filling the buffer). */
    Status recv(Object buf, long offset, long count, Datatype type, int source, int tag) {
        RecvOp op = startRecv(buf, offset, count, type, source, tag);
        if (op == null) {
            return Status.PROC_NULL;
        }
        awaitRecv(op);
        Status s = op.req.status();
        giveRecv(op);
        return s;
    }

    /** As {@link #recv(Object, long, long, Datatype, int, int)}, the status made by {@code maker}. */
    <T> T recv(Object buf, long offset, long count, Datatype type, int source, int tag, Status.Maker<T> maker) {
        RecvOp op = startRecv(buf, offset, count, type, source, tag);
        if (op == null) {
            return maker.make(PROC_NULL, ANY_TAG, 0);
        }
        awaitRecv(op);
        MsgRequest r = op.req;
        T s = maker.make(r.source(), r.tag(), r.bytes());
        giveRecv(op);
        return s;
    }

    /** Posts a blocking receive with the spare op (see {@link #takeRecv}); null for PROC_NULL. */
    private RecvOp startRecv(Object buf, long offset, long count, Datatype type, int source, int tag) {
        m.checkSource(source, "receive");
        Messenger.checkTag(tag, true, "receive");
        RecvOp op = takeRecv();
        op.data.set(buf, offset, count, type, "receive from rank", source);
        if (source == PROC_NULL) {
            giveRecv(op);
            return null;
        }
        m.post(op.init(source, tag, CTX_USER));
        return op;
    }

    /** Waits for a blocking receive; on an error (ERR_TRUNCATE) gives its op back and throws. */
    private void awaitRecv(RecvOp op) {
        MsgRequest r = op.req;
        if (!r.isComplete()) {
            m.await(r);
        }
        if (r.failed()) {
            giveRecv(op);
            r.throwIfFailed();
        }
    }

    /** A blocking sendrecv (MPI_Sendrecv) with the spare ops; returns the receive's status. */
    Status sendrecv(Object sendBuf, long sendOffset, long sendCount, Datatype sendType, int dest, int sendTag,
                    Object recvBuf, long recvOffset, long recvCount, Datatype recvType, int source, int recvTag) {
        RecvOp op = sendrecvOp(sendBuf, sendOffset, sendCount, sendType, dest, sendTag,
                recvBuf, recvOffset, recvCount, recvType, source, recvTag);
        if (op == null) {
            return Status.PROC_NULL;
        }
        Status s = op.req.status();
        giveRecv(op);
        return s;
    }

    /** As {@link #sendrecv}, the receive's status made by {@code maker}. */
    <T> T sendrecv(Object sendBuf, long sendOffset, long sendCount, Datatype sendType, int dest, int sendTag,
                   Object recvBuf, long recvOffset, long recvCount, Datatype recvType, int source, int recvTag,
                   Status.Maker<T> maker) {
        RecvOp op = sendrecvOp(sendBuf, sendOffset, sendCount, sendType, dest, sendTag,
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
    private RecvOp sendrecvOp(Object sendBuf, long sendOffset, long sendCount, Datatype sendType, int dest,
                              int sendTag, Object recvBuf, long recvOffset, long recvCount, Datatype recvType,
                              int source, int recvTag) {
        m.checkDest(dest);
        Messenger.checkTag(sendTag, false, "send");
        SendOp s = takeSend();
        s.data.set(sendBuf, sendOffset, sendCount, sendType, "send to rank", dest); // checked before anything is posted
        RecvOp r = startRecv(recvBuf, recvOffset, recvCount, recvType, source, recvTag);
        if (dest != PROC_NULL) {
            m.post(s.init(dest, sendTag, CTX_USER, false));
        }
        try {
            if (r != null) {
                awaitRecv(r); // throws the receive's own error (ERR_TRUNCATE) ...
            }
        } finally {
            if (dest != PROC_NULL) {
                s.req.waitQuietly(); // ... but never leaves the send pending
            }
            giveSend(s);
        }
        return r;
    }

    /** The spare send op, its request reset, or a new one if another thread has it. */
    private SendOp takeSend() {
        SendOp op = (SendOp) SPARE_SEND.getAndSet(this, (SendOp) null);
        if (op == null) {
            return new SendOp(new MsgRequest(m, MsgRequest.SEND), new UserBuf(), 0, 0, CTX_USER, false);
        }
        op.req.reset();
        return op;
    }

    /** Puts back a send op whose request has completed. */
    private void giveSend(SendOp op) {
        op.data.clear();
        SPARE_SEND.setRelease(this, op);
    }

    /** The spare receive op, its request reset, or a new one if another thread has it. */
    private RecvOp takeRecv() {
        RecvOp op = (RecvOp) SPARE_RECV.getAndSet(this, (RecvOp) null);
        if (op == null) {
            return new RecvOp(new MsgRequest(m, MsgRequest.RECV), new UserBuf(), ANY_SOURCE,
                    ANY_TAG, CTX_USER);
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
            return m.newWaiter();
        }
        w.reset();
        return w;
    }

    /** Puts back a waiter whose wait has ended. */
    void giveWaiter(Waiter w) {
        SPARE_WAITER.setRelease(this, w);
    }
}

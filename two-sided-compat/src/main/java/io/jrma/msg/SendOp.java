package io.jrma.msg;

import java.nio.ByteBuffer;

/**
 * One posted send: its request, data and envelope, and while it is a rendezvous the memory it exposes; or a
 * FIN the messenger owes a rendezvous sender.
 *
 * <p>Owned by its messenger; touched only under the messenger's lock, except by the receiver of a
 * {@linkplain #handoff hand-off}. Blocking sends reuse theirs ({@link #init}), and FINs come from a pool of the
 * outbox: no field may be read after the op's request completed (or, for a FIN, after it was published).
 */
final class SendOp {
    final MsgRequest req;
    final UserBuf data;
    int dest;
    int tag;
    int ctx;
    /** Synchronous mode: completes only once the receiver has matched it (always rendezvous). */
    boolean sync;

    /** A FIN envelope (no request, no data): tells {@code dest} its rendezvous send {@code token} is read. */
    final boolean fin;
    /**
     * Hand-off: the receiver is a rank of this JVM, which reads the data straight from {@link #data} (one copy)
     * and completes the request itself; the sender keeps no record of the op once it is published.
     */
    boolean handoff;
    /** Rendezvous: the message's token, echoed by the receiver's FIN. */
    long token;
    /** Rendezvous: the user's own direct buffer slice, attached to the exposure window (zero copy). */
    ByteBuffer attached;
    /** Rendezvous: a pooled staging buffer holding a packed copy of the data. */
    ByteBuffer staging;

    SendOp(MsgRequest req, UserBuf data, int dest, int tag, int ctx, boolean sync) {
        this.req = req;
        this.data = data;
        this.fin = false;
        init(dest, tag, ctx, sync);
    }

    /** Sets the envelope of a new send with this op's request and buffer; this. */
    SendOp init(int dest, int tag, int ctx, boolean sync) {
        this.dest = dest;
        this.tag = tag;
        this.ctx = ctx;
        this.sync = sync;
        this.handoff = false;
        this.token = 0;
        this.attached = null;
        this.staging = null;
        return this;
    }

    private SendOp(int dest, long token) {
        this.req = null;
        this.data = null;
        this.dest = dest;
        this.tag = 0;
        this.ctx = 0;
        this.sync = false;
        this.fin = true;
        this.token = token;
    }

    /** A FIN for rendezvous message {@code token} of rank {@code dest}. */
    static SendOp fin(int dest, long token) {
        return new SendOp(dest, token);
    }

    /** This FIN op, reused for rendezvous message {@code token} of rank {@code dest}. */
    SendOp refin(int dest, long token) {
        this.dest = dest;
        this.token = token;
        return this;
    }
}

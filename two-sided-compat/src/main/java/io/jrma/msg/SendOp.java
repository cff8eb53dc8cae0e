package io.jrma.msg;

import java.nio.ByteBuffer;

/**
 * One posted send: its request, data and envelope, and while it is a rendezvous the memory it exposes; or a
 * FIN the messenger owes a rendezvous sender.
 *
 * <p>Owned by its messenger; touched only under the messenger's lock.
 */
final class SendOp {
    final MsgRequest req;
    final UserBuf data;
    final int dest;
    final int tag;
    final int ctx;
    /** Synchronous mode: completes only once the receiver has matched it (always rendezvous). */
    final boolean sync;

    /** A FIN envelope (no request, no data): tells {@code dest} its rendezvous send {@code token} is read. */
    final boolean fin;
    /** Rendezvous: the message's token, echoed by the receiver's FIN. */
    long token;
    /** Rendezvous: the user's own direct buffer slice, attached to the exposure window (zero copy). */
    ByteBuffer attached;
    /** Rendezvous: a pooled staging buffer holding a packed copy of the data. */
    ByteBuffer staging;

    SendOp(MsgRequest req, UserBuf data, int dest, int tag, int ctx, boolean sync) {
        this.req = req;
        this.data = data;
        this.dest = dest;
        this.tag = tag;
        this.ctx = ctx;
        this.sync = sync;
        this.fin = false;
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
}

package io.jrma.msg;

import java.nio.ByteBuffer;

/**
 * One posted send: its request, data and envelope, and while it is a rendezvous the memory it exposes and the
 * exchange slot its receiver will mark.
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

    /** Rendezvous: token the receiver writes into fin[dest][finSlot] when it has read the data. */
    long token;
    int finSlot = -1;
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
    }
}

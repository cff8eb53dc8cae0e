package io.jrma.msg;

import io.jrma.Request;
import java.nio.ByteBuffer;

/**
 * One posted receive: its request, buffer and match pattern (source and tag, possibly wildcards, in one
 * context), and while it reads a rendezvous message the get in flight and what to tell the sender.
 *
 * <p>Owned by its messenger; touched only under the messenger's lock. Blocking receives reuse theirs
 * ({@link #init}): no field may be read after the op's request completed.
 */
final class RecvOp {
    final MsgRequest req;
    final UserBuf data;
    int source;
    int tag;
    int ctx;

    /** Rendezvous in progress: the get, the staging buffer (or null), and the message's identity. */
    Request get;
    ByteBuffer staging;
    int msgSource;
    int msgTag;
    long msgBytes;
    long stored;
    long token;
    /** Neighbours in the matcher's queue of posted receives (an intrusive list: matching allocates nothing). */
    RecvOp prev;
    RecvOp next;

    RecvOp(MsgRequest req, UserBuf data, int source, int tag, int ctx) {
        this.req = req;
        this.data = data;
        init(source, tag, ctx);
    }

    /** Sets the match pattern of a new receive with this op's request and buffer; this. */
    RecvOp init(int source, int tag, int ctx) {
        this.source = source;
        this.tag = tag;
        this.ctx = ctx;
        this.get = null;
        this.staging = null;
        this.token = 0;
        return this;
    }

    /** Whether a message from {@code src} with {@code msgTag} (in this op's context) matches this receive. */
    boolean matches(int src, int msgTag) {
        return (source == Messenger.ANY_SOURCE || source == src) && (tag == Messenger.ANY_TAG || tag == msgTag);
    }
}

package io.jrma.sync;

import io.jrma.core.dt.TypeLayout;
import java.nio.ByteBuffer;

/**
 * An issued packet-path operation waiting for its data reply (get, get_accumulate, fetch_and_op,
 * compare_and_swap): where to put the data when the reply arrives, and whom to tell. Written by the issuing
 * thread before the packet is sent; read by the progress agent after (the transport hand-off orders them).
 */
final class PendingOp {
    final int kind;
    final int target;
    final Object base;
    final long offset;
    final long count;
    final TypeLayout layout;
    final CompletionRequest request;
    /**
     * For a large contiguous get into a direct buffer over a transport that places payloads (TCP): the origin
     * bytes the reply fills, which the transport may read the reply's payload into
     * ({@link OriginReplies#replyPlacement}); else null.
     */
    ByteBuffer into;

    PendingOp(int kind, int target, Object base, long offset, long count, TypeLayout layout,
            CompletionRequest request) {
        this.kind = kind;
        this.target = target;
        this.base = base;
        this.offset = offset;
        this.count = count;
        this.layout = layout;
        this.request = request;
    }
}

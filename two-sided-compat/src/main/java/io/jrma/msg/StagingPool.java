package io.jrma.msg;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Direct buffers for packed copies of message data (rendezvous sends from arrays or derived types, receives
 * into them, medium sends that cannot be put from the user's buffer). Every buffer is attached to the
 * messenger's exposure window for its whole life, so a staged rendezvous send costs no attach/detach; sizes
 * are powers of two from 4 KiB, and at most {@link #MAX_POOLED_BYTES} are kept when idle.
 *
 * <p>Owned by its messenger; used only under the messenger's lock.
 */
final class StagingPool {
    /** Idle bytes kept for reuse; buffers returned beyond this are detached and dropped. */
    static final long MAX_POOLED_BYTES = 64L << 20;

    private final Win expose;
    private final List<ByteBuffer> idle = new ArrayList<>();
    private final List<ByteBuffer> all = new ArrayList<>();
    private long idleBytes;

    StagingPool(Win expose) {
        this.expose = expose;
    }

    /** A buffer of at least {@code bytes} bytes (attached to the exposure window). */
    ByteBuffer take(long bytes) {
        int best = -1;
        for (int i = 0; i < idle.size(); i++) {
            int cap = idle.get(i).capacity();
            if (cap >= bytes && (best < 0 || cap < idle.get(best).capacity())) {
                best = i;
            }
        }
        if (best >= 0) {
            ByteBuffer b = idle.remove(best);
            idleBytes -= b.capacity();
            return b;
        }
        long size = Math.max(4096, Long.highestOneBit(Math.max(1, bytes - 1)) << 1);
        if (size > Integer.MAX_VALUE) {
            size = bytes;
        }
        ByteBuffer b;
        try {
            b = ByteBuffer.allocateDirect((int) size).order(ByteOrder.LITTLE_ENDIAN);
        } catch (OutOfMemoryError e) {
            throw new RmaException(ErrorClass.ERR_NO_MEM,
                    "cannot allocate a staging buffer of " + size + " bytes: " + e.getMessage());
        }
        expose.attach(b);
        all.add(b);
        return b;
    }

    /** Returns a buffer taken earlier. */
    void give(ByteBuffer b) {
        if (idleBytes + b.capacity() > MAX_POOLED_BYTES) {
            expose.detach(b);
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i) == b) { // identity: ByteBuffer.equals compares contents
                    all.remove(i);
                    break;
                }
            }
            return;
        }
        idle.add(b);
        idleBytes += b.capacity();
    }

    /** Detaches every buffer (before the exposure window is freed). */
    void release() {
        for (ByteBuffer b : all) {
            expose.detach(b);
        }
        all.clear();
        idle.clear();
        idleBytes = 0;
    }
}

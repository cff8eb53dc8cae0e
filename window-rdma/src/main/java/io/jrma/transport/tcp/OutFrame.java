package io.jrma.transport.tcp;

import io.jrma.core.wire.Batch;
import java.nio.ByteBuffer;

/**
 * A frame waiting to be written on a {@link TcpConnection}: a gathering write of its header ({@code bufs[0]}) and
 * its body's slices, the credit it consumes, and the batch whose last frame it is (marked consumed when written).
 *
 * <p>Threads: made by any sending thread; written by whichever thread holds the connection's write lock.
 */
final class OutFrame {
    final ByteBuffer[] bufs;
    final long bytes;
    final int credit;
    final Batch batch;
    /** A CREDIT frame: nothing but the credit written into its header when it goes out. */
    final boolean creditOnly;
    int idx;

    OutFrame(ByteBuffer[] bufs, long bytes, int credit, Batch batch) {
        this(bufs, bytes, credit, batch, false);
    }

    OutFrame(ByteBuffer[] bufs, long bytes, int credit, Batch batch, boolean creditOnly) {
        this.bufs = bufs;
        this.bytes = bytes;
        this.credit = credit;
        this.batch = batch;
        this.creditOnly = creditOnly;
    }
}

package io.jrma.core.wire;

import java.nio.ByteBuffer;
import org.agrona.DirectBuffer;

/**
 * What a progress agent hands delivered batches to: the window engine. Called only from the agent's
 * (single) duty cycle.
 */
public interface BatchReceiver {
    /** Processes as much of the batch as it can now; the receiver marks it consumed when done with it. */
    void onBatch(Batch batch);

    /** Continues work left blocked earlier (e.g. operations waiting for a lock); returns work done. */
    int poll();

    /**
     * Whether {@link #poll} would find work that arrived outside the transports (a request another process wrote
     * into shared memory the receiver watches): asked, under the duty cycle's flag, by a progress thread about to
     * sleep after it announced the sleep to those processes, so that it does not sleep on such work. Default false.
     */
    default boolean hasInput() {
        return false;
    }

    /**
     * Where a transport may write the payload of a packet before delivering it, or null (the default): the packet's
     * header is at {@code at} of {@code header}, its payload has not arrived. A non-null answer is a view of exactly
     * the payload's bytes in their destination, given only when delivering the packet at this moment would write
     * them there and do nothing else first: window memory for a contiguous PUT that waits for no lock and ends no
     * access; the origin buffer of a large get for its reply. A transport may deliver the packet later, once its
     * last byte has arrived (pieces over several duty cycles): the answer still holds then, because only packets
     * from the same origin, which arrive behind this one on the same ordered stream, could change it.
     * The transport then delivers the packet as a batch of one, its payload added with {@link Batch#addExternal}
     * as that same view, and the receiver skips the copy.
     *
     * <p>Asked only from the duty cycle, and only when every batch the transport delivered before on the same
     * ordered stream has been consumed (so nothing from that origin is waiting ahead of this packet).
     */
    default ByteBuffer placement(DirectBuffer header, int at) {
        return null;
    }
}

package io.jrma.sync;

import io.jrma.ErrorClass;
import io.jrma.Win;
import io.jrma.core.wire.PacketType;
import io.jrma.sync.Epochs.Access;
import io.jrma.sync.Epochs.Exposure;

/**
 * Fence, by completion counting: each rank signals every peer once it has completed its own operations (directly on
 * the peer's {@link TargetState} or behind the packets queued for it), then waits until all peers signalled it
 * (markers alternate between two counters, by the parity of the fence's number). Active-target synchronization
 * with the whole group; the state it moves is {@link Epochs}'.
 *
 * <p>Threads: under the epoch mutex; any of the rank's threads.
 */
final class FenceEpochs {
    private static final int MODE_FENCE = Win.MODE_NOSTORE | Win.MODE_NOPUT | Win.MODE_NOPRECEDE | Win.MODE_NOSUCCEED;

    private final Epochs e;
    private final WindowImpl w;
    private final int n;
    /** Fences so far (under the epoch mutex): its parity picks the marker counter. */
    private int fenceEpoch;

    FenceEpochs(Epochs e) {
        this.e = e;
        this.w = e.w;
        this.n = e.n;
    }

    void fence(int assertion) {
        e.checkAssert(assertion, MODE_FENCE, "fence");
        e.lock.lock();
        try {
            Access acc = e.access();
            Exposure exp = e.exposure();
            if (!(acc == Access.NONE || acc == Access.FENCE) || !(exp == Exposure.NONE || exp == Exposure.FENCE)) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC,
                        "fence inside another epoch (" + e.state() + "; expected none or fence)");
            }
            if ((assertion & Win.MODE_NOPRECEDE) != 0 && e.opsSinceFence) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC,
                        "fence asserted MODE_NOPRECEDE but operations were issued since the last fence");
            }
            int epoch = fenceEpoch++;
            if (w.rdma != null) { // the RDMA lane's puts are in place at their targets before the FENCE signals
                w.rdma.flushAll();
            }
            if (w.mixedPeers) { // every target has all of this rank's operations before any is signalled
                e.settleAll(true);
            }
            for (int p = 0; p < n; p++) {
                e.signal(p, PacketType.FENCE, epoch);
            }
            TargetState ts = w.target;
            e.await(() -> ts.fenceCount(epoch & 1) >= n && w.packets.pendingReplies() == 0, ts);
            ts.fenceConsume(epoch & 1, n);
            w.packets.checkAsyncErrors();
            // With every peer direct, each rank signalled after its own stores completed: the markers are the barrier.
            if ((assertion & Win.MODE_NOPRECEDE) == 0 && n > 1 && w.anyPacketPeer) {
                // Every operation targeting this rank is now applied here, but not yet everywhere: a rank that
                // leaves first could read another target (directly, or by a packet that overtakes the puts from a
                // third rank) before that target has applied them. The next epoch starts when all have.
                w.ctrl.barrier();
            }
            e.opsSinceFence = false;
            boolean end = (assertion & Win.MODE_NOSUCCEED) != 0;
            e.setAccess(end ? Access.NONE : Access.FENCE);
            e.setExposure(end ? Exposure.NONE : Exposure.FENCE);
        } finally {
            e.lock.unlock();
        }
    }
}

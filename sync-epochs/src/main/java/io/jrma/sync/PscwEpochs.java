package io.jrma.sync;

import io.jrma.ErrorClass;
import io.jrma.Group;
import io.jrma.Win;
import io.jrma.core.wire.PacketType;
import io.jrma.sync.Epochs.Access;
import io.jrma.sync.Epochs.Exposure;
import java.lang.invoke.VarHandle;

/**
 * Post-start-complete-wait (general active-target synchronization), matched by groups: {@code start} waits for a
 * POST signal from each target of its group (unless MODE_NOCHECK), {@code complete} signals COMPLETE to each after
 * this rank's operations to it are complete there, {@code post} signals POST to each origin of its group, and
 * {@code wait}/{@code test} count the COMPLETE signals. Signals are counters in the target's {@link TargetState},
 * stored directly or carried by packets behind the operations; each rank remembers how many of each it consumed.
 *
 * <p>Threads: under the epoch mutex; any of the rank's threads.
 */
final class PscwEpochs {
    private static final int MODE_POST = Win.MODE_NOCHECK | Win.MODE_NOSTORE | Win.MODE_NOPUT;

    private final Epochs e;
    private final WindowImpl w;
    private int[] startRanks = new int[0];
    private boolean startNoCheck;
    private int[] postRanks = new int[0];
    /** Per origin rank: POST signals consumed by this rank's starts. */
    private final long[] postConsumed;
    /** Per origin rank: COMPLETE signals consumed by this rank's waits and tests. */
    private final long[] completeConsumed;

    PscwEpochs(Epochs e) {
        this.e = e;
        this.w = e.w;
        this.postConsumed = new long[e.n];
        this.completeConsumed = new long[e.n];
    }

    void start(Group g, int assertion) {
        e.checkAssert(assertion, Win.MODE_NOCHECK, "start");
        e.lock.lock();
        try {
            if (!e.accessFree()) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC,
                        "start inside another access epoch (" + e.state() + "; expected none)");
            }
            int[] ranks = e.toWindowRanks(g, "start");
            boolean noCheck = (assertion & Win.MODE_NOCHECK) != 0;
            if (!noCheck) {
                for (int t : ranks) {
                    long want = postConsumed[t] + 1;
                    TargetState ts = w.target;
                    e.await(() -> ts.posts(t) >= want, ts);
                    postConsumed[t] = want;
                }
            }
            boolean[] member = new boolean[e.n];
            for (int t : ranks) {
                member[t] = true;
            }
            e.startMember = member;
            startRanks = ranks;
            startNoCheck = noCheck;
            e.opsSinceFence = false;
            e.setAccess(Access.PSCW);
        } finally {
            e.lock.unlock();
        }
    }

    void complete() {
        e.lock.lock();
        try {
            if (e.access() != Access.PSCW) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC,
                        "complete without start (" + e.state() + "; expected PSCW access)");
            }
            if (w.rdma != null) {
                w.rdma.flush(startRanks);
            }
            if (w.mixedPeers) {
                e.settle(true, startRanks);
            }
            for (int t : startRanks) {
                e.signal(t, PacketType.COMPLETE, 0);
            }
            e.await(() -> w.packets.pendingReplies() == 0);
            w.packets.awaitLocal(startRanks); // large puts sent from the user's buffers: out of them by now
            w.packets.checkAsyncErrors();
            e.setAccess(Access.NONE);
        } finally {
            e.lock.unlock();
        }
    }

    void post(Group g, int assertion) {
        e.checkAssert(assertion, MODE_POST, "post");
        e.lock.lock();
        try {
            Exposure exp = e.exposure();
            if (!(exp == Exposure.NONE || (exp == Exposure.FENCE && !e.opsSinceFence))) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC,
                        "post inside another exposure epoch (" + e.state() + "; expected none)");
            }
            int[] ranks = e.toWindowRanks(g, "post");
            if (exp == Exposure.FENCE && e.accessState == Epochs.A_FENCE) {
                e.setAccess(Access.NONE);
            }
            postRanks = ranks;
            e.setExposure(Exposure.POST);
            VarHandle.fullFence();
            if ((assertion & Win.MODE_NOCHECK) == 0) {
                for (int o : ranks) {
                    e.signal(o, PacketType.POST, 0);
                }
            }
        } finally {
            e.lock.unlock();
        }
    }

    void waitFor() {
        e.lock.lock();
        try {
            if (e.exposure() != Exposure.POST) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC, "wait without post (" + e.state() + "; expected PSCW exposure)");
            }
            TargetState ts = w.target;
            for (int o : postRanks) {
                long want = completeConsumed[o] + 1;
                e.await(() -> ts.completes(o) >= want, ts);
                completeConsumed[o] = want;
            }
            e.setExposure(Exposure.NONE);
        } finally {
            e.lock.unlock();
        }
    }

    boolean test() {
        e.lock.lock();
        try {
            if (e.exposure() != Exposure.POST) {
                throw w.fail(ErrorClass.ERR_RMA_SYNC, "test without post (" + e.state() + "; expected PSCW exposure)");
            }
            w.job.agent().tryProgress();
            TargetState ts = w.target;
            for (int o : postRanks) {
                if (ts.completes(o) < completeConsumed[o] + 1) {
                    return false;
                }
            }
            for (int o : postRanks) {
                completeConsumed[o]++;
            }
            e.setExposure(Exposure.NONE);
            return true;
        } finally {
            e.lock.unlock();
        }
    }
}

package io.jrma.bench.micro;

import static io.jrma.bench.micro.FlushLockMicro.RATE_WINDOW;

import io.jrma.Datatype;
import io.jrma.Win;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * A helper thread of rank 0 in {@link FlushLockMicro}'s message-rate case (it inherits the rank): issues its share of
 * the 8-byte puts, {@link FlushLockMicro#RATE_WINDOW} then a flush, between the repetition's start and end barriers,
 * until interrupted.
 */
final class RateWorker extends Thread {
    private final Win w;
    private final int t;
    private final int slot;
    private final CyclicBarrier start;
    private final CyclicBarrier end;
    private final int[] iters;

    RateWorker(Win w, int t, int slot, CyclicBarrier start, CyclicBarrier end, int[] iters) {
        super("rate-worker-" + slot);
        setDaemon(true);
        this.w = w;
        this.t = t;
        this.slot = slot;
        this.start = start;
        this.end = end;
        this.iters = iters;
    }

    static void puts(Win w, int t, int slot, int n) {
        long[] src = {slot};
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < RATE_WINDOW; j++) {
                w.put(src, 1, Datatype.LONG, t, slot * RATE_WINDOW + j);
            }
            w.flush(t);
        }
    }

    @Override
    public void run() {
        try {
            while (true) {
                start.await();
                puts(w, t, slot, iters[0]);
                end.await();
            }
        } catch (InterruptedException | BrokenBarrierException e) {
            // done
        }
    }
}

package io.jrma.core.wire;

/**
 * What a progress agent hands delivered batches to: the window engine. Called only from the agent's
 * (single) duty cycle.
 */
public interface BatchReceiver {
    /** Processes as much of the batch as it can now; the receiver marks it consumed when done with it. */
    void onBatch(Batch batch);

    /** Continues work left blocked earlier (e.g. operations waiting for a lock); returns work done. */
    int poll();
}

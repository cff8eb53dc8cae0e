package io.jrma.core.runtime;

import io.jrma.core.wire.Batch;
import io.jrma.spi.transport.Transport;

/**
 * The in-JVM active-message channel: a batch is handed to the progress agent of this JVM by reference, so the
 * receiver reads the packets where the sender encoded them (zero copy). Order per sender and receiver is that
 * of the agent's FIFO inbox. Never back-pressured.
 *
 * <p>Thread-safe.
 */
final class LocalTransport implements Transport {
    private final Job job;

    LocalTransport(Job job) {
        this.job = job;
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public boolean reaches(int worldRank) {
        return worldRank >= 0 && worldRank < job.size();
    }

    @Override
    public boolean send(Batch batch) {
        job.agent().deliver(batch);
        return true;
    }

    @Override
    public int progress() {
        return 0;
    }
}

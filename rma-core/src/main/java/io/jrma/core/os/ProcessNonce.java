package io.jrma.core.os;

import io.jrma.core.mem.Memory;
import java.security.SecureRandom;

/**
 * The random value behind {@link CrossMemory#nonce()}: drawn once (never 0) and kept for the JVM's lifetime in
 * memory private to this process, so that another process can prove a pid is this one by reading it through the
 * kernel. Initialized on first use; immutable afterwards; any thread.
 */
final class ProcessNonce {
    static final long VALUE;
    static final long ADDRESS;

    static {
        long nonce;
        do {
            nonce = new SecureRandom().nextLong();
        } while (nonce == 0);
        VALUE = nonce;
        ADDRESS = Memory.allocate(Long.BYTES); // for the JVM's lifetime
        Memory.putLongVolatile(null, ADDRESS, nonce);
    }

    private ProcessNonce() {
    }
}

package io.jrma;

/**
 * How {@link Request#waitAny} waits: it spins (each round tests every request, which drives progress), then parks
 * briefly between rounds. Constants only.
 */
final class RequestWaits {
    /** Rounds of tests with a spin-wait hint before the waiter starts to park. */
    static final long SPIN_ROUNDS = 10_000;

    /** How long the waiter parks between later rounds. */
    static final long PARK_NS = 20_000;

    private RequestWaits() {
    }
}

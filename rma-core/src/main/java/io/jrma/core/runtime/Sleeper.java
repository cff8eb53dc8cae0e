package io.jrma.core.runtime;

/**
 * Something a waiting thread can sleep on until it changes (a futex word in window memory that every signal
 * to the awaited state bumps), instead of parking for a guessed time.
 *
 * <p>Implementations are thread-safe.
 */
public interface Sleeper {
    /** The current wake sequence; read before checking the awaited condition. */
    int sequence();

    /** Sleeps at most {@code timeoutNs} unless the sequence has moved on from {@code seen}. */
    void sleep(int seen, long timeoutNs);
}

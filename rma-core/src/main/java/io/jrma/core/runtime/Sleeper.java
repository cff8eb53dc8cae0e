package io.jrma.core.runtime;

/**
 * Something a waiting thread can sleep on until it changes (a futex word in window memory), instead of parking
 * for a guessed time. Signallers bump the word and wake only when a sleeper has announced itself, so a signal
 * nobody waits for costs a load, not an atomic and a system call.
 *
 * <p>Protocol (a Dekker pair: the signaller changes the awaited state, then reads the sleeper count; the waiter
 * counts itself, then reads the state, so one of them sees the other): {@link #prepareSleep}, re-check the
 * awaited condition, then {@link #sleep} if it still does not hold, else {@link #cancelSleep}.
 *
 * <p>Implementations are thread-safe.
 */
public interface Sleeper {
    /**
     * Counts the calling thread as a sleeper (with a full fence) and returns the wake sequence to pass to
     * {@link #sleep}; the caller must check its condition after this and then sleep or cancel.
     */
    int prepareSleep();

    /**
     * Sleeps at most {@code timeoutNs} unless the sequence has moved on from {@code seen}, then stops counting
     * the calling thread as a sleeper.
     */
    void sleep(int seen, long timeoutNs);

    /** Stops counting the calling thread as a sleeper without sleeping (its condition held after all). */
    void cancelSleep();
}

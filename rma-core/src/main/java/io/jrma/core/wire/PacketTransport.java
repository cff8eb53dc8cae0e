package io.jrma.core.wire;

/**
 * The transport seam of DESIGN.md: moves batches of wire-ready packets between ranks. A transport sees
 * bytes and ranks only, never a datatype, an op, an epoch or a group.
 *
 * <p>Implementations are thread-safe: any thread of the JVM may call {@link #send}.
 */
public interface PacketTransport {
    /** Short name shown in diagnostics ({@code local}, {@code tcp}, {@code shm}). */
    String name();

    /** Whether this transport can deliver to the given world rank. */
    boolean reaches(int worldRank);

    /**
     * Hands a batch to the transport for delivery to {@code batch.dstRank()}, in order with every earlier batch
     * from the same sender to the same receiver.
     *
     * @return {@code false} when back-pressured: nothing was taken; drive progress and try again
     */
    boolean send(Batch batch);

    /**
     * Whether batches to {@code worldRank} may ask to be acknowledged through memory ({@link RingAck},
     * {@link PacketType#F_ACK_BY_RING}): the transport then reports each such batch's position to its
     * {@link Batch#ringAck} when the batch is written, and publishes what its receiving side applied.
     */
    default boolean acksThroughMemory(int worldRank) {
        return false;
    }

    /**
     * Whether {@link #send} takes packets whose payload is carried by reference ({@link Batch#addExternal}).
     * A transport that writes into a stream (TCP) gathers them without a copy; the others are never given any.
     */
    default boolean carriesExternal() {
        return false;
    }

    /** Does pending transport work; returns how much was done (0 = idle). Never blocks. */
    int progress();

    /**
     * Whether the idle progress thread may block in {@link #awaitInput} (a transport with a selector); the
     * in-JVM channel cannot: nothing arrives on it that the agent's own inbox does not already see.
     */
    default boolean canAwaitInput() {
        return false;
    }

    /** Blocks the idle progress thread up to {@code timeoutNs} until input may have arrived. */
    default void awaitInput(long timeoutNs) {
    }

    /** Wakes a thread blocked in {@link #awaitInput}. Any thread. */
    default void wakeup() {
    }

    /**
     * After the caller published work for world rank {@code worldRank} outside this transport (into memory that
     * rank's receivers watch, {@link BatchReceiver#hasInput}): wakes the progress thread of that rank's JVM if it
     * announced that it sleeps. Any thread; default nothing (the transport has no such announcement).
     */
    default void wakeIfAsleep(int worldRank) {
    }
}

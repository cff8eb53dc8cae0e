package io.jrma.spi;

/**
 * A {@link TransportProvider}'s answer to a job layout, as Open MPI's component query: a priority (higher wins
 * where two transports reach the same peer) or the reason it declines, which {@code jrma-info} shows.
 *
 * @param priority the priority when {@link #available()}; 0 otherwise
 * @param reason one sentence: why the transport is used, or why not
 */
public record TransportQuery(boolean available, int priority, String reason) {
    /** The transport can serve the layout with {@code priority}; {@code why} says whom it reaches. */
    public static TransportQuery priority(int priority, String why) {
        return new TransportQuery(true, priority, why);
    }

    /** The transport declines, for {@code reason}. */
    public static TransportQuery declined(String reason) {
        return new TransportQuery(false, 0, reason);
    }
}

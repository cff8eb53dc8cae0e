package io.jrma.spi.transport;

import io.jrma.core.wire.Batch;
import io.jrma.core.wire.BatchReceiver;
import io.jrma.core.wire.PacketType;
import io.jrma.core.wire.RingAck;

/**
 * The transport contract (DESIGN.md, "Seams"): moves batches of wire-ready packets between ranks, carries the
 * control plane's messages between JVMs, wakes a peer JVM's sleeping progress thread and tells the peers of an
 * abort. A transport sees bytes, memory, offsets and ranks only, never a datatype, an op, an epoch or a group.
 * Transports are components: a {@code TransportProvider} found with {@code ServiceLoader} opens one for a job
 * when the job's layout and {@code jrma.transports} select it.
 *
 * <p>What a transport may call back into: the batches' receiver ({@link BatchReceiver}, which
 * also says where a payload may be placed before delivery), {@link RingAck} marks for
 * transports that acknowledge through memory, and the job's control plane for control messages it receives.
 *
 * <p>Implementations are thread-safe: any thread of the JVM may call {@link #send}, {@link #sendControl},
 * {@link #wakeJvm} and {@link #abortPeers}; {@link #progress} and {@link #awaitInput} are called by the thread
 * running the JVM's progress agent.
 */
public interface Transport {
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

    /**
     * Sends a control-plane message ({@code io.jrma.core.runtime.ControlPlane}) to JVM {@code jvm}, in order with
     * the earlier ones this transport took for that JVM. Returns false when this transport cannot carry it (no
     * route to that JVM, or the message is too large for it): the control plane then offers it to the next
     * transport by priority. Never blocks for long, never drops a message it took.
     */
    default boolean sendControl(int jvm, byte[] message) {
        return false;
    }

    /**
     * Wakes the progress thread of JVM {@code jvm} (a doorbell for input it will find outside this transport, e.g.
     * in a shared-memory ring). Returns false when this transport cannot reach that JVM.
     */
    default boolean wakeJvm(int jvm) {
        return false;
    }

    /** Tells every peer this transport reaches that the job is aborting, with {@code reason}; best effort. */
    default void abortPeers(String reason) {
    }

    /** Closes the transport: says goodbye to its peers and waits up to {@code timeoutMs} for them to hear it. */
    default void close(long timeoutMs) {
    }

    /**
     * The transport's access to peers' registered memory (the window engine's RDMA lane), or null (the default) when
     * it has none or its parameters turn it off.
     */
    default RemoteMemory remoteMemory() {
        return null;
    }

    /** This transport's counters as {@code name=value} pairs for diagnostics; empty when it keeps none. */
    default String counters() {
        return "";
    }
}

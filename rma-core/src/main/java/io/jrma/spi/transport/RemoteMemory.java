package io.jrma.spi.transport;

import java.nio.ByteBuffer;

/**
 * The memory side of a transport that can reach a peer's registered memory without the peer's CPU (RDMA, or UCX's
 * emulation of it over shared memory and TCP): what the window engine's RDMA lane uses. It sees addresses, lengths,
 * packed keys and world ranks only, never a datatype, an op, an epoch or a group. A transport offers it through
 * {@link Transport#remoteMemory()}.
 *
 * <p>Completion: {@link #put} returns when the origin bytes may be reused (local completion), {@link #get} and the
 * atomics when their result is in place; the target sees puts and atomics once {@link #flush} to it (or
 * {@link #flushAll}) returned (remote completion). Operations to one rank are not ordered with each other before a
 * flush, nor with the transport's packets to that rank.
 *
 * <p>Failures ({@code RmaException}): ERR_PROC_ABORTED when the job aborts while an operation waits, ERR_OTHER with
 * the transport's reason when the operation fails. Threads: any.
 */
public interface RemoteMemory {
    /**
     * The smallest put or get worth doing through this interface: smaller ones are cheaper as packets, which the
     * window engine queues and sends in batches, while each operation here waits for its own completion.
     */
    default long minBytes() {
        return 0;
    }

    /** Registers {@code length} bytes at {@code address} of this process for peers' access; returns its key. */
    Registration register(long address, long length);

    /**
     * Zeroed memory of {@code length} bytes that the transport allocates, registered: for a window whose memory the
     * library allocates, where memory of the transport's own reaches peers in more ways than memory registered where
     * it lay (UCX maps memory it allocated into the processes its shared-memory transports reach, {@link #pointer}).
     * Freed by {@link #unregister}. Null when the transport has no memory of its own to give; an
     * {@code RmaException} ERR_NO_MEM when it cannot allocate that much.
     */
    default Allocation allocate(long length) {
        return null;
    }

    /**
     * Where the memory at {@code remote} of the registration behind {@code handle} ({@link #attach}) is mapped in
     * this process, or 0 when it is not: loads and stores at that address are the peer's memory (the peer sees a
     * store once a full fence on this side followed it). Valid until {@link #detach}.
     */
    default long pointer(long handle, long remote) {
        return 0;
    }

    /** Undoes {@link #register} (and frees memory {@link #allocate} gave); no peer may access it any more. */
    void unregister(Registration registration);

    /** A handle to reach world rank {@code worldRank}'s memory registered with {@code key}; 0 if it cannot. */
    long attach(int worldRank, byte[] key);

    /** Releases a handle {@link #attach} returned. */
    void detach(long handle);

    /** Writes {@code length} bytes at local {@code address} to {@code remote} of world rank {@code worldRank}. */
    void put(int worldRank, long address, long length, long remote, long handle);

    /** Reads {@code length} bytes at {@code remote} of world rank {@code worldRank} into local {@code address}. */
    void get(int worldRank, long address, long length, long remote, long handle);

    /**
     * Adds {@code value} to the {@code size}-byte (4 or 8) integer at {@code remote} atomically and returns what it
     * held before.
     */
    long fetchAdd(int worldRank, long value, int size, long remote, long handle);

    /** Stores {@code value} at {@code remote} atomically and returns what it held before. */
    long swap(int worldRank, long value, int size, long remote, long handle);

    /** Stores {@code value} at {@code remote} if it holds {@code compare}, atomically; returns what it held before. */
    long compareAndSwap(int worldRank, long compare, long value, int size, long remote, long handle);

    /**
     * One remote atomic on the {@code size}-byte (4 or 8) integer at {@code remote}: {@code op} with operand
     * {@code value} ({@link AtomicOp#CSWAP}: stores {@code value} if it holds {@code compare}); returns what it held
     * before. The default does AND, OR and XOR by a compare-and-swap loop; a transport with those atomics overrides it.
     */
    default long fetchOp(int worldRank, AtomicOp op, long value, long compare, int size, long remote, long handle) {
        switch (op) {
            case ADD:
                return fetchAdd(worldRank, value, size, remote, handle);
            case SWAP:
                return swap(worldRank, value, size, remote, handle);
            case CSWAP:
                return compareAndSwap(worldRank, compare, value, size, remote, handle);
            default:
                long guess = 0;
                while (true) {
                    long next = op == AtomicOp.AND ? guess & value : op == AtomicOp.OR ? guess | value : guess ^ value;
                    long old = compareAndSwap(worldRank, guess, next, size, remote, handle);
                    if (size == Integer.BYTES ? (int) old == (int) guess : old == guess) {
                        return old;
                    }
                    guess = old;
                }
        }
    }

    /**
     * {@link #fetchOp} on {@code n} words of world rank {@code worldRank}: {@code op} with {@code values[i]} (and
     * {@code compares[i]} for {@link AtomicOp#CSWAP}) at {@code remotes[i]}, what each held before into
     * {@code results[i]}; returns when all are done. They may be applied in any order (a transport may post them all
     * before it waits); the default does them one after the other.
     */
    default void fetchOps(int worldRank, AtomicOp op, long[] values, long[] compares, int size, long[] remotes, int n,
            long handle, long[] results) {
        for (int i = 0; i < n; i++) {
            results[i] = fetchOp(worldRank, op, values[i], compares == null ? 0 : compares[i], size, remotes[i],
                    handle);
        }
    }

    /**
     * Whether {@link #attach} and the operations reach the registered memory of world rank {@code worldRank}, a rank
     * of this JVM included (through the transport's own loopback): what a window's atomic domain needs of every rank.
     */
    default boolean reachesMemoryOf(int worldRank) {
        return false;
    }

    /**
     * Whether windows whose every rank reaches every other through this memory side do every accumulate of supported
     * shape by this interface's atomics (their atomic domain), so that all accumulates to a location stay atomic with
     * each other whatever lane they come by (the user's setting: {@code jrma.ucx.atomics} for the ucx transport).
     */
    default boolean atomicDomain() {
        return false;
    }

    /** Completes at world rank {@code worldRank} every operation issued to it so far. */
    void flush(int worldRank);

    /** Completes at their targets every operation issued so far. */
    void flushAll();

    /** The remote atomic operations, as UCP names them. */
    enum AtomicOp {
        ADD, SWAP, CSWAP, AND, OR, XOR
    }

    /**
     * Registered memory.
     *
     * @param handle the transport's handle of the registration
     * @param key what a peer passes to {@link #attach} to reach it
     */
    record Registration(long handle, byte[] key) {
    }

    /**
     * Memory the transport allocated ({@link #allocate}).
     *
     * @param address where it starts in this process
     * @param length its length in bytes
     * @param buffer a little-endian view of it, or null when it is larger than a ByteBuffer can be
     * @param registration its registration, whose key peers attach
     */
    record Allocation(long address, long length, ByteBuffer buffer, Registration registration) {
    }
}

package io.jrma.spi;

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

    /** Undoes {@link #register}; no peer may access the memory any more. */
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

    /** Completes at world rank {@code worldRank} every operation issued to it so far. */
    void flush(int worldRank);

    /** Completes at their targets every operation issued so far. */
    void flushAll();

    /**
     * Registered memory.
     *
     * @param handle the transport's handle of the registration
     * @param key what a peer passes to {@link #attach} to reach it
     */
    record Registration(long handle, byte[] key) {
    }
}

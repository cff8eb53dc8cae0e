package io.jrma.sync;

/**
 * The named ways an operation reaches a peer's window memory, in the spirit of UCX's protocol names. A window's
 * {@link Lanes} gives every peer one of {@link #DIRECT_STORE}, {@link #PRIVATE_MEMORY}, {@link #PACKET} or
 * {@link #RDMA} when the window is created; a peer on {@link #PRIVATE_MEMORY} has each operation take
 * {@link #DIRECT_STORE}, {@link #KERNEL_COPY}, {@link #REQUEST_SLOT} or {@link #PACKET} by the rules of
 * {@link Lanes}.
 *
 * <p>Immutable; any thread.
 */
enum Lane {
    /** Loads and stores into memory mapped here: a rank of this JVM, or a shared segment of another JVM of the host. */
    DIRECT_STORE("direct-store"),
    /**
     * Memory private to another JVM of the host, reached through the region directory it publishes: by store where a
     * region lies in a shared segment, else by kernel copy, request slot or packet (the rules of {@link Lanes}).
     */
    PRIVATE_MEMORY("private-memory"),
    /** A copy by the kernel between this process and the target's (cross memory attach): no part for its CPU. */
    KERNEL_COPY("kernel-copy"),
    /** The target's request slot: one cache line each way, applied by the target's progress agent. */
    REQUEST_SLOT("request-slot"),
    /** Packets through the transport that reaches the peer (its name follows: packet/shm, packet/tcp, ...). */
    PACKET("packet"),
    /** Puts and gets straight into the peer's registered memory (a transport's RemoteMemory); the rest as packets. */
    RDMA("rdma");

    /** The name {@code win.info()} shows. */
    final String label;

    Lane(String label) {
        this.label = label;
    }
}

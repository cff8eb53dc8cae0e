package io.jrma.transport.disni;

import io.jrma.core.config.Param;
import java.util.List;

/** Run-time parameters of the {@code disni} transport component, each with one sentence. */
public final class DisniParams {
    public static final Param ADDRESS = new Param("jrma.disni.address", "", "jvm",
            "the IP address of this host's RDMA interface (IPoIB or RoCE netdev) the RDMA-CM listener binds to and the "
            + "peers connect to; empty: the address this host's name resolves to");
    public static final Param TIMEOUT_MS = new Param("jrma.disni.timeoutMs", "2000", "job",
            "milliseconds RDMA-CM may take to resolve a peer's address and route, and a connection to be accepted");
    public static final Param QUEUE_DEPTH = new Param("jrma.disni.queueDepth", "256", "job",
            "work requests a queue pair may have outstanding (its send queue and completion queue size); an operation "
            + "beyond it waits for completions");
    public static final Param STAGING_BYTES = new Param("jrma.disni.stagingBytes", String.valueOf(1 << 20), "job",
            "bytes of registered staging memory a JVM keeps for puts and gets whose local buffer is not registered "
            + "(a heap array, a buffer outside every window); larger transfers go through it in pieces");
    public static final Param MIN_BYTES = new Param("jrma.disni.rdmaMinBytes", "4096", "job",
            "puts and gets of fewer bytes take the packets instead of RDMA (each RDMA operation waits for its own "
            + "completion, packets are batched); 0: every put and get with a contiguous target is RDMA");

    public static final List<Param> ALL = List.of(ADDRESS, TIMEOUT_MS, QUEUE_DEPTH, STAGING_BYTES, MIN_BYTES);

    private DisniParams() {
    }
}

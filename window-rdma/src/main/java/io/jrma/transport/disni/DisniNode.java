package io.jrma.transport.disni;

import com.ibm.disni.RdmaEndpoint;
import com.ibm.disni.RdmaEndpointGroup;
import com.ibm.disni.RdmaPassiveEndpointGroup;
import com.ibm.disni.RdmaServerEndpoint;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.RdmaCmId;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.runtime.Job;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedList;
import java.util.List;

/**
 * One JVM's DiSNI resources before it is connected: a passive endpoint group (the caller polls the completion queues,
 * no DiSNI thread does) and an RDMA-CM server endpoint listening on {@link DisniParams#ADDRESS}. Its {@link #card} is
 * the listener's {@code address:port}. Owned by the provider's opening, then by the transport.
 *
 * <p>Never run on a device: written against DiSNI 2.1's API on a machine without RDMA.
 */
final class DisniNode {
    /** Connection requests RDMA-CM queues before {@code accept}. */
    private static final int BACKLOG = 128;
    /** One scatter/gather element per work request. */
    private static final int MAX_SGE = 1;

    /** Transport retries of a request before its completion fails ({@code retry_count}; 7 is the most). */
    private static final byte RETRY_COUNT = 7;
    /** Retries after the peer had no receive posted ({@code rnr_retry_count}): 7 means without end. */
    private static final byte RNR_RETRY_FOREVER = 7;
    /** Bytes of the hello, the connecting JVM's index. */
    static final int HELLO_BYTES = Long.BYTES;

    /**
     * An RC endpoint of the passive group: DiSNI creates its queue pair and completion queue. An accepted one posts a
     * receive for the connecting JVM's hello in {@link #init}, which DiSNI calls before it accepts the connection, so
     * the hello never finds the queue without a receive.
     */
    static final class Endpoint extends RdmaEndpoint {
        private ByteBuffer hello;
        private IbvMr helloMr;

        Endpoint(RdmaEndpointGroup<Endpoint> group, RdmaCmId id, boolean serverSide) throws IOException {
            super(group, id, serverSide);
        }

        @Override
        protected synchronized void init() throws IOException {
            super.init();
            if (!isServerSide()) {
                return;
            }
            hello = ByteBuffer.allocateDirect(HELLO_BYTES).order(ByteOrder.nativeOrder());
            helloMr = registerMemory(hello).execute().free().getMr();
            IbvSge sge = new IbvSge();
            sge.setAddr(helloMr.getAddr());
            sge.setLength(HELLO_BYTES);
            sge.setLkey(helloMr.getLkey());
            IbvRecvWR recv = new IbvRecvWR();
            recv.setSg_list(new LinkedList<>(List.of(sge)));
            recv.setNum_sge(1);
            postRecv(List.of(recv)).execute().free();
        }

        /** The hello received (after its completion), its memory deregistered. */
        synchronized long takeHello() throws IOException {
            long jvm = hello.getLong(0);
            deregisterMemory(helloMr);
            return jvm;
        }
    }

    final RdmaPassiveEndpointGroup<Endpoint> group;
    final RdmaServerEndpoint<Endpoint> server;
    final int timeoutMs;
    private final String card;

    private DisniNode(RdmaPassiveEndpointGroup<Endpoint> group, RdmaServerEndpoint<Endpoint> server, int timeoutMs,
            String card) {
        this.group = group;
        this.server = server;
        this.timeoutMs = timeoutMs;
        this.card = card;
    }

    /** Creates the group and the listener; ERR_OTHER with DiSNI's reason when it cannot. */
    static DisniNode listen(Job job) {
        int timeoutMs = (int) DisniParams.TIMEOUT_MS.getLong(job.params());
        int depth = (int) DisniParams.QUEUE_DEPTH.getLong(job.params());
        try {
            RdmaPassiveEndpointGroup<Endpoint> group = new RdmaPassiveEndpointGroup<>(timeoutMs, depth, MAX_SGE,
                    depth);
            group.init((id, serverSide) -> new Endpoint(group, id, serverSide));
            // DiSNI's native connect and accept offer the device's max_qp_rd_atom as initiator depth and responder
            // resources (reads and atomics need them); the retry counts are ours, its default 0 makes a lost packet
            // fatal
            group.getConnParam().setRetry_count(RETRY_COUNT);
            group.getConnParam().setRnr_retry_count(RNR_RETRY_FOREVER);
            RdmaServerEndpoint<Endpoint> server = group.createServerEndpoint();
            InetAddress address = address(DisniParams.ADDRESS.get(job.params()));
            server.bind(new InetSocketAddress(address, 0), BACKLOG);
            InetSocketAddress bound = (InetSocketAddress) server.getSrcAddr();
            return new DisniNode(group, server, timeoutMs, address.getHostAddress() + ":" + bound.getPort());
        } catch (Exception | LinkageError e) {
            throw new RmaException(ErrorClass.ERR_OTHER, "disni: cannot listen for RDMA-CM connections (" + e
                    + "); " + DisniParams.ADDRESS.name() + " names the IP address of this host's RDMA interface", e);
        }
    }

    /** What peers connect to: {@code address:port}. */
    String card() {
        return card;
    }

    /** Closes the listener and the group (and every endpoint of it). */
    void close() {
        try {
            server.close();
            group.close();
        } catch (IOException e) {
            System.err.println("jrma: disni: closing the endpoint group failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static InetAddress address(String configured) throws IOException {
        if (!configured.isEmpty()) {
            return InetAddress.getByName(configured);
        }
        // getLocalHost() throws where the host name does not resolve (DESIGN.md 8): read the name first
        String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        return InetAddress.getByName(host);
    }
}

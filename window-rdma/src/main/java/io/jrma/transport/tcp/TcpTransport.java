package io.jrma.transport.tcp;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import io.jrma.core.runtime.Job;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import io.jrma.spi.transport.Transport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.DirectBuffer;

/**
 * The TCP IO agent of one JVM: one connection to every other JVM of the job, shared by all ranks of both
 * (as the IO process of Lockless MPI), carrying wire-ready packet batches, control-plane messages, credit
 * and abort notices ({@link FrameDescriptor}). Every connection opens with the per-job secret handshake
 * ({@link Handshake}), run by the {@link TcpAcceptor} for the job's lifetime, each on a thread of its own; refused
 * handshakes are dropped and counted ({@link #handshakesRefused()}), late or stray connections are refused.
 *
 * <p>Progress is the progress agent's: {@link #progress()} (non-blocking reads, writes, credit return) runs in
 * its duty cycle, whoever holds it; the dedicated progress thread idles in {@link #awaitInput} (the
 * selector: epoll), so passive-target epochs complete while every rank computes.
 *
 * <p>Threads: {@link #send} and {@link #sendControl} from any thread; {@link #progress} and
 * {@link #awaitInput} from the thread running the progress agent.
 */
public final class TcpTransport implements Transport, AutoCloseable {
    private final Job job;
    private final String jobId;
    private final String secret;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final TcpConnection[] byJvm;
    private volatile TcpConnection[] all = new TcpConnection[0];
    private final long credits;
    private final int frameBytes;
    private final long sendQueueBytes;
    final long creditDelayNs;
    private final int handshakeTimeoutMs;
    private volatile boolean closing;
    private final TcpAcceptor acceptor;

    final AtomicLong framesSent = new AtomicLong();
    final AtomicLong framesReceived = new AtomicLong();
    final AtomicLong bytesSent = new AtomicLong();
    final AtomicLong bytesReceived = new AtomicLong();
    final AtomicLong framesRejected = new AtomicLong();
    private final AtomicLong droppedAfterGoodbye = new AtomicLong();
    final AtomicLong wakesReceived = new AtomicLong();
    final AtomicLong creditFrames = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    private TcpTransport(Job job, String jobId, String secret, ServerSocketChannel server) throws IOException {
        this.job = job;
        this.jobId = jobId;
        this.secret = secret;
        this.server = server;
        this.selector = Selector.open();
        this.byJvm = new TcpConnection[job.jvmCount()];
        this.credits = NetParams.CREDITS.getLong(job.params());
        this.frameBytes = (int) Math.min(1 << 30, Math.max(4096, NetParams.FRAME_BYTES.getLong(job.params())));
        this.sendQueueBytes = NetParams.SEND_QUEUE_BYTES.getLong(job.params());
        this.creditDelayNs = Math.max(0, NetParams.CREDIT_DELAY_NS.getLong(job.params()));
        this.handshakeTimeoutMs = (int) NetParams.HANDSHAKE_TIMEOUT_MS.getLong(job.params());
        this.acceptor = new TcpAcceptor(server, jobId, secret, handshakeTimeoutMs, job.jvmCount(), refused);
    }

    /** Opens the listening socket of this JVM's IO agent (address from {@link NetParams#INTERFACE}). */
    public static TcpTransport listen(Job job, String jobId, String secret) {
        InetAddress addr = NetParams.bindAddress(job.params());
        try {
            ServerSocketChannel s = ServerSocketChannel.open();
            s.bind(new InetSocketAddress(addr, 0), 64);
            return new TcpTransport(job, jobId, secret, s);
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_OTHER, "cannot listen on " + addr + ": " + e.getMessage(), e);
        }
    }

    /** The address the listening socket is bound to (the wildcard under {@code any}). */
    InetSocketAddress boundAddress() {
        try {
            return (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_OTHER, "listening socket closed", e);
        }
    }

    /** The address other JVMs of this host connect to (loopback for an agent listening on every address). */
    public InetSocketAddress endpoint() {
        try {
            InetSocketAddress a = (InetSocketAddress) server.getLocalAddress();
            if (a.getAddress().isAnyLocalAddress()) {
                return new InetSocketAddress(InetAddress.getLoopbackAddress(), a.getPort());
            }
            return a;
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_OTHER, "listening socket closed", e);
        }
    }

    /**
     * Connects this JVM to every other JVM of the job: it dials the JVMs with a lower index and accepts the
     * others, each after the handshake. Blocks until all are connected or {@link NetParams#CONNECT_TIMEOUT_MS}.
     */
    public void connectMesh(InetSocketAddress[] endpoints) {
        List<List<InetSocketAddress>> each = new ArrayList<>();
        for (InetSocketAddress e : endpoints) {
            each.add(List.of(e));
        }
        connectMesh(each);
    }

    /**
     * As {@link #connectMesh(InetSocketAddress[])}, with the addresses to try for each JVM in order (a JVM listening on
     * every address of its host: {@link TcpCard#candidates}); an address that refuses or does not answer within
     * {@value MeshDialer#CANDIDATE_TIMEOUT_MS} ms gives way to the next, the last one has what is left of the
     * start-up timeout ({@link MeshDialer}). The JVMs with a higher index are admitted by the {@link TcpAcceptor}.
     */
    public void connectMesh(List<List<InetSocketAddress>> endpoints) {
        int me = job.jvmIndex();
        long deadline = System.currentTimeMillis() + NetParams.CONNECT_TIMEOUT_MS.getLong(job.params());
        try {
            for (int j = 0; j < me; j++) {
                adopt(j, MeshDialer.dial(job, jobId, secret, handshakeTimeoutMs, j, endpoints.get(j), deadline));
            }
            int expected = job.jvmCount() - 1 - me;
            while (expected > 0) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    throw new RmaException(ErrorClass.ERR_OTHER, "JVM " + me + ": " + expected
                            + " JVMs of the job did not connect within the start-up timeout");
                }
                TcpAcceptor.Admitted a = acceptor.next(left);
                if (a == null) {
                    continue;
                }
                int j = a.jvm();
                if (j > me && j < byJvm.length && byJvm[j] == null) {
                    adopt(j, a.channel());
                    expected--;
                } else {
                    refused.incrementAndGet();
                    a.channel().close();
                }
            }
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_OTHER,
                    "JVM " + me + ": connecting the job failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RmaException(ErrorClass.ERR_OTHER, "JVM " + me + ": interrupted while connecting the job", e);
        }
        acceptor.meshComplete(); // from now on every new connection is a stranger (or a duplicate)
    }

    private void adopt(int j, SocketChannel ch) throws IOException {
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        int sockBuf = (int) NetParams.SOCKET_BUFFER.getLong(job.params());
        if (sockBuf > 0) {
            ch.setOption(StandardSocketOptions.SO_SNDBUF, sockBuf);
            ch.setOption(StandardSocketOptions.SO_RCVBUF, sockBuf);
        }
        TcpConnection c = new TcpConnection(this, j, ch, credits);
        byJvm[j] = c;
        c.key = ch.register(selector, SelectionKey.OP_READ, c);
        List<TcpConnection> l = new ArrayList<>(List.of(all));
        l.add(c);
        all = l.toArray(new TcpConnection[0]);
    }

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public boolean reaches(int worldRank) {
        return !job.isLocal(worldRank);
    }

    @Override
    public boolean carriesExternal() {
        return true;
    }

    @Override
    public boolean send(Batch batch) {
        int n = batch.count();
        if (n == 0) {
            batch.markConsumed();
            return true;
        }
        TcpConnection c = connectionTo(batch.dstRank());
        if (c == null) { // its JVM said goodbye and closed: it ended normally and reads nothing any more
            droppedAfterGoodbye.incrementAndGet();
            batch.markConsumed();
            return true;
        }
        boolean reply = PacketType.isReply(PacketHeader.type(batch.buffer(), batch.offsetAt(0)));
        if (!reply && c.queuedBytes.get() > sendQueueBytes) {
            c.tryWrite();
            return false; // back-pressure: the caller drives progress and retries
        }
        Frames.enqueueBatch(c, batch, n, frameBytes);
        c.tryWrite();
        return true;
    }

    /**
     * The connection to the JVM of {@code worldRank}; null when that JVM said goodbye and closed since (it finished:
     * what the engine still sends it, such as a messenger's credit returns at the end of a job, has no reader and is
     * dropped; MPI allows no communication with a rank that finalized).
     *
     * @throws RmaException ERR_PROC_ABORTED when there is no connection and the peer did not end normally
     */
    private TcpConnection connectionTo(int worldRank) {
        int j = job.jvmOf(worldRank);
        TcpConnection c = j >= 0 && j < byJvm.length ? byJvm[j] : null;
        if (c != null && c.closed && c.byeReceived) {
            return null;
        }
        if (c == null || c.closed) {
            job.checkAborted();
            throw new RmaException(ErrorClass.ERR_PROC_ABORTED,
                    "no connection to JVM " + j + " (world rank " + worldRank + ")");
        }
        return c;
    }

    /** Takes every control message (TCP is the last resort); fails when the connection to that JVM is gone. */
    @Override
    public boolean sendControl(int jvm, byte[] message) {
        TcpConnection c = byJvm[jvm];
        if (c == null || c.closed) {
            job.checkAborted();
            throw new RmaException(ErrorClass.ERR_PROC_ABORTED, "no connection to JVM " + jvm);
        }
        c.enqueue(Frames.small(FrameDescriptor.CTRL, message));
        c.tryWrite();
        return true;
    }

    @Override
    public int progress() {
        int v = job.routesVersion();
        if (v != routesSeen) { // the rings took the packets of the host's JVMs (or routes changed otherwise)
            routesSeen = v;
            carriesPackets = job.routesTo(this);
        }
        // Without packets to carry, the connections hold only doorbells, aborts, and control messages too large for
        // a ring record (the rest of the control plane takes the rings): a read syscall (about 1 us here) in every
        // duty cycle would slow the rings' and the direct path's polling for nothing. One read in 16 cycles still
        // cost a packet round trip through the rings 0.6 us (1.7 -> 1.1 us): a ring record that arrives during the
        // syscall waits for it.
        boolean read = carriesPackets || (++quietCalls & (QUIET_READ_EVERY - 1)) == 0;
        int work = 0;
        for (TcpConnection c : all) {
            if (read) {
                work += c.read();
            }
            work += c.reclaim();
            work += c.tryWrite();
        }
        return work;
    }

    /** Without packets to carry, the connections are read every this many duty cycles. */
    static final int QUIET_READ_EVERY = 256;
    private int routesSeen = -1;
    private boolean carriesPackets = true;
    private int quietCalls;

    @Override
    public boolean canAwaitInput() {
        return true;
    }

    /** Blocks up to {@code timeoutNs} until a connection is readable (or writable when output waits). */
    @Override
    public void awaitInput(long timeoutNs) {
        try {
            for (TcpConnection c : all) {
                c.armForSleep();
            }
            selector.select(Math.max(1, timeoutNs / 1_000_000));
            selector.selectedKeys().clear();
        } catch (IOException | ClosedSelectorException e) {
            // closing: the progress loop ends
        }
    }

    /** A connection's output waits for room: a progress thread asleep in the selector must wait for that too. */
    void outputWaits() {
        if (job.agent().sleepingIn(this)) {
            selector.wakeup(); // it re-arms the keys with OP_WRITE before it sleeps again
        }
    }

    /** Wakes a thread blocked in {@link #awaitInput}. Any thread. */
    @Override
    public void wakeup() {
        selector.wakeup();
    }

    void deliver(Batch b) {
        job.agent().deliver(b);
    }

    /**
     * Hands a batch to the window engine now (duty cycle only; see
     * {@link io.jrma.core.progress.ProgressAgent#dispatchNow}).
     */
    void dispatchNow(Batch b) {
        job.agent().dispatchNow(b);
    }

    /** Where the window engine lets a packet's payload be read to before delivery, or null (duty cycle only). */
    ByteBuffer placement(DirectBuffer header, int at) {
        return job.agent().placement(header, at);
    }

    boolean fromPeer(TcpConnection c, int worldRank) {
        return worldRank >= 0 && worldRank < job.size() && job.jvmOf(worldRank) == c.peerJvm;
    }

    boolean isLocalRank(int worldRank) {
        return worldRank >= 0 && worldRank < job.size() && job.isLocal(worldRank);
    }

    boolean isClosing() {
        return closing;
    }

    void control(TcpConnection c, ByteBuffer body) {
        try {
            job.controlPlane().onMessage(body);
        } catch (RuntimeException e) {
            rejected(ErrorClass.ERR_INTERN, "bad control message from JVM " + c.peerJvm + ": " + e.getMessage());
            job.abort(ErrorClass.ERR_INTERN, "bad control message from JVM " + c.peerJvm + ": " + e.getMessage(), e);
        }
    }

    /** Counts a rejected frame and keeps why ({@link #lastRejection}). */
    void rejected(ErrorClass ec, String why) {
        framesRejected.incrementAndGet();
        lastRejection = new RmaException(ec, why);
    }

    private volatile RmaException lastRejection;

    /** Why the last frame was rejected (its MPI error class and reason), or null. */
    public RmaException lastRejection() {
        return lastRejection;
    }

    void peerAborted(TcpConnection c, String reason) {
        job.abort(ErrorClass.ERR_PROC_ABORTED, reason, null);
    }

    void lost(TcpConnection c, String why) {
        boolean wasOpen = !c.closed;
        c.close();
        if (wasOpen && !closing && !c.byeReceived) { // after its goodbye a peer may close (and reset) at any time
            job.abort(ErrorClass.ERR_PROC_ABORTED, "lost the connection to JVM " + c.peerJvm + " (world ranks "
                    + ranksOf(c.peerJvm) + "): " + why + "; it exited, was killed or failed", null);
        }
    }

    /**
     * JVM {@code c.peerJvm} sent bytes that cannot be framed ({@code what}): counted as a rejected frame; the stream
     * cannot be resynchronized, so the connection is closed and the job aborted with {@link ErrorClass#ERR_INTERN}
     * (the peer is alive and broken, not lost).
     */
    void corrupt(TcpConnection c, String what) {
        rejected(ErrorClass.ERR_INTERN, "JVM " + c.peerJvm + " sent " + what);
        boolean wasOpen = !c.closed;
        c.close();
        if (wasOpen && !closing) {
            job.abort(ErrorClass.ERR_INTERN,
                    "JVM " + c.peerJvm + " (world ranks " + ranksOf(c.peerJvm) + ") sent " + what
                    + " on its TCP connection: the stream cannot be resynchronized, the connection is closed", null);
        }
    }

    private String ranksOf(int jvm) {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < job.size(); r++) {
            if (job.jvmOf(r) == jvm) {
                sb.append(sb.length() == 0 ? "" : ",").append(r);
            }
        }
        return sb.toString();
    }

    /** Tells every connected JVM that this job is aborted, ahead of anything queued. */
    @Override
    public void abortPeers(String reason) {
        byte[] m = reason.getBytes(StandardCharsets.UTF_8);
        for (TcpConnection c : all) {
            if (!c.closed) {
                c.enqueueUrgent(Frames.small(FrameDescriptor.ABORT, m));
                c.tryWrite();
            }
        }
    }

    /**
     * Wakes the progress thread of JVM {@code jvm} if it sleeps in its selector: a WAKE frame, ahead of anything
     * queued (the doorbell of the shared-memory rings). Any thread; a closed connection is ignored (its loss
     * is reported by the reader).
     */
    @Override
    public boolean wakeJvm(int jvm) {
        TcpConnection c = jvm >= 0 && jvm < byJvm.length ? byJvm[jvm] : null;
        if (c != null && !c.closed) {
            c.enqueueUrgent(Frames.small(FrameDescriptor.WAKE, new byte[0]));
            c.tryWrite();
        }
        return c != null;
    }

    /** WAKE frames received so far. */
    public long wakesReceived() {
        return wakesReceived.get();
    }

    /** CREDIT frames received so far (credit that found no other frame to ride on). */
    public long creditFramesReceived() {
        return creditFrames.get();
    }

    /** Frames received so far, of every type. */
    public long framesReceived() {
        return framesReceived.get();
    }

    /** Handshakes refused so far (wrong secret, wrong job, timeout, duplicates). */
    public long handshakesRefused() {
        return refused.get();
    }

    /** Batches dropped because their JVM had said goodbye and closed (it finished; nothing reads them). */
    public long droppedAfterGoodbye() {
        return droppedAfterGoodbye.get();
    }

    /** Frames rejected so far (corrupt headers, batches from or to the wrong ranks, bad control messages). */
    public long framesRejected() {
        return framesRejected.get();
    }

    public long bytesSent() {
        return bytesSent.get();
    }

    public long bytesReceived() {
        return bytesReceived.get();
    }

    /**
     * Says goodbye to every JVM (after everything queued) and closes. Waits up to {@code timeoutMs} for the
     * output to drain and for every peer to close its side too. Connections closed by peers from now on are not
     * errors.
     */
    @Override
    public void close() {
        close(2_000);
    }

    @Override
    public void close(long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        Goodbye.say(all, deadline);
        closing = true;
        Goodbye.linger(all, deadline);
        acceptor.close();
        try {
            server.close();
            selector.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** The connection to JVM {@code jvm} (tests). */
    TcpConnection connection(int jvm) {
        return byJvm[jvm];
    }

    /** Whether the connection to JVM {@code jvm} is open (tests). */
    public boolean connectedTo(int jvm) {
        TcpConnection c = byJvm[jvm];
        return c != null && !c.closed;
    }

}

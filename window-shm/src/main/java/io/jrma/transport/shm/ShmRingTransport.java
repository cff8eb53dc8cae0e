package io.jrma.transport.shm;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.os.HostId;
import io.jrma.core.runtime.Job;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import io.jrma.spi.transport.Transport;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import org.agrona.DirectBuffer;

/**
 * The {@code shm} transport: wire-ready packets between JVMs of one host through shared-memory rings, one
 * {@link OutboundRing} to and one {@link InboundRing} from every other JVM of the host that takes part
 * ({@link ShmRingSetup} agrees on that and maps the files). Batches to one JVM arrive in the order sent:
 * one ring per ordered pair, one producer per ring, and the receiving progress agent reads its rings in order.
 *
 * <p>Waiting: the progress agent polls the rings in every duty cycle. When the idle progress thread sleeps in
 * the TCP selector ({@link #awaitInput}), it first flags every inbound ring "asleep"; a sender that commits a
 * record and finds the flag rings a doorbell (a WAKE frame on the TCP connection), so input never waits for
 * the selector's timeout. While records for another JVM wait for space, the thread only naps: the other
 * side frees space without telling.
 *
 * <p>Acknowledgements: a flush to a rank of another JVM of the host may complete on the applied position the
 * target publishes in the ring file ({@link io.jrma.core.wire.RingAck}) rather than on an ACK packet coming back
 * through the other ring ({@link ShmParams#RING_ACKS}).
 *
 * <p>Control messages: once set up, the rings also carry the control plane's messages to the host's other JVMs
 * ({@link #sendControl}; those larger than a record go over TCP, and aborts and goodbyes always do). Nothing
 * orders TCP against the rings, and the engine does not need it: a target learns that an origin's operations
 * are applied from packets that travel behind them in the same ring (FENCE and COMPLETE signals,
 * acknowledgements), and control-plane collectives only follow such completion.
 *
 * <p>Threads: {@link #send} from any thread; {@link #progress}, {@link #awaitInput} from the thread running the
 * progress agent; {@link #close} once the agent has stopped.
 */
public final class ShmRingTransport implements Transport, InboundRing.Sink, AutoCloseable {
    private static final long NAP_NS = 20_000;

    private final Job job;
    private final Transport waitIn;
    private final OutboundRing[] outByJvm;
    private final OutboundRing[] outbound;
    private final InboundRing[] inbound;
    private final RingFiles.Mapped[] files;
    private final ShmCounters counters;
    private volatile boolean closed;

    ShmRingTransport(Job job, Transport waitIn, IntConsumer doorbell, Map<Integer, RingFiles.Mapped> out,
            Map<Integer, RingFiles.Mapped> in) {
        this.job = job;
        this.waitIn = waitIn;
        this.counters = new ShmCounters(); // batches received and rejections: the progress agent's
        this.outByJvm = new OutboundRing[job.jvmCount()];
        this.outbound = new OutboundRing[out.size()];
        this.inbound = new InboundRing[in.size()];
        this.files = new RingFiles.Mapped[out.size() + in.size()];
        long heldLimit = ShmParams.HELD_BYTES.getLong(job.params());
        int i = 0;
        int f = 0;
        for (Map.Entry<Integer, RingFiles.Mapped> e : out.entrySet()) {
            int jvm = e.getKey();
            OutboundRing o = new OutboundRing(jvm, e.getValue(), () -> doorbell.accept(jvm));
            outByJvm[jvm] = o;
            outbound[i++] = o;
            files[f++] = e.getValue();
        }
        i = 0;
        boolean ringAcks = Boolean.parseBoolean(ShmParams.RING_ACKS.getChoice(job.params(), "true", "false"));
        for (Map.Entry<Integer, RingFiles.Mapped> e : in.entrySet()) {
            InboundRing r = new InboundRing(e.getKey(), e.getValue(), this, heldLimit);
            inbound[i++] = r;
            files[f++] = e.getValue();
            OutboundRing o = outByJvm[e.getKey()];
            if (ringAcks && o != null) {
                o.acknowledgeThrough(r);
            }
        }
    }

    /**
     * Sets up the rings of this JVM with the other JVMs of the job (collective over the control plane: every
     * JVM of the job calls it once, after the TCP mesh is connected and registered with the job) and registers
     * the transport for the ranks of the JVMs that share this host. Returns null when no other JVM is on this
     * host or {@link ShmParams#TRANSPORTS} excludes {@code shm}.
     *
     * @param waitIn the transport whose selector the idle progress thread sleeps in (TCP)
     * @param doorbell wakes the progress thread of JVM {@code j} (a WAKE frame to it)
     * @param jobId the job's id (names the files)
     */
    public static ShmRingTransport attach(Job job, Transport waitIn, IntConsumer doorbell, String jobId) {
        return ShmRingSetup.attach(job, waitIn, doorbell, jobId, HostId::current);
    }

    @Override
    public String name() {
        return "shm";
    }

    @Override
    public boolean reaches(int worldRank) {
        return worldRank >= 0 && worldRank < job.size() && outByJvm[job.jvmOf(worldRank)] != null;
    }

    @Override
    public boolean acksThroughMemory(int worldRank) {
        if (worldRank < 0 || worldRank >= job.size()) {
            return false;
        }
        OutboundRing o = outByJvm[job.jvmOf(worldRank)];
        return o != null && o.acksThroughMemory();
    }

    /**
     * Yes: a payload carried by reference is copied into the ring from where it lies, and on the receiving side
     * pieces of a large packet are copied from the ring straight to where the window engine places them
     * ({@link #placement}), so a large put or get moves each byte twice (into the ring, out of it) instead of four
     * times.
     */
    @Override
    public boolean carriesExternal() {
        return true;
    }

    @Override
    public boolean send(Batch batch) {
        if (batch.count() == 0) {
            batch.markConsumed();
            return true;
        }
        if (closed || job.isAborted()) {
            job.checkAborted();
            throw new RmaException(ErrorClass.ERR_PROC_ABORTED, "the shared-memory rings of this JVM are closed");
        }
        int jvm = job.jvmOf(batch.dstRank());
        OutboundRing o = outByJvm[jvm];
        if (o == null) {
            throw new RmaException(ErrorClass.ERR_INTERN, "no shared-memory ring to JVM " + jvm + " (world rank "
                    + batch.dstRank() + ")");
        }
        boolean reply = PacketType.isReply(PacketHeader.type(batch.buffer(), batch.offsetAt(0)));
        return o.offer(batch, reply) != OutboundRing.REFUSED;
    }

    @Override
    public int progress() {
        if (closed) {
            return 0;
        }
        int work = 0;
        for (InboundRing in : inbound) {
            work += in.poll();
        }
        for (OutboundRing o : outbound) {
            work += o.drain();
        }
        return work;
    }

    @Override
    public boolean canAwaitInput() {
        return waitIn != null && waitIn.canAwaitInput();
    }

    /**
     * Sleeps in the TCP selector up to {@code timeoutNs}, with every inbound ring flagged so that a sender
     * rings the doorbell; returns at once if a ring has input, naps briefly if records wait for ring space.
     */
    @Override
    public void awaitInput(long timeoutNs) {
        if (closed) {
            return;
        }
        for (OutboundRing o : outbound) {
            if (o.hasPending()) {
                LockSupport.parkNanos(Math.min(timeoutNs, NAP_NS));
                return;
            }
        }
        for (InboundRing in : inbound) {
            in.asleep(true);
        }
        try {
            for (InboundRing in : inbound) {
                if (in.hasInput()) {
                    return;
                }
            }
            if (job.agent().receiversHaveInput()) { // work written into shared memory before it saw the flags
                return;
            }
            if (waitIn != null) {
                waitIn.awaitInput(timeoutNs);
            } else {
                LockSupport.parkNanos(Math.min(timeoutNs, NAP_NS));
            }
        } finally {
            for (InboundRing in : inbound) {
                in.asleep(false);
            }
        }
    }

    /**
     * Rings the doorbell of {@code worldRank}'s JVM if its progress thread flagged its inbound rings "asleep"
     * (the same Dekker pairing as a record: the caller's work is published before this looks at the flag, and the
     * sleeper looks at that work, {@link io.jrma.core.wire.BatchReceiver#hasInput}, after it raised the flag).
     */
    @Override
    public void wakeIfAsleep(int worldRank) {
        if (worldRank >= 0 && worldRank < job.size()) {
            OutboundRing o = outByJvm[job.jvmOf(worldRank)];
            if (o != null) {
                o.ringIfAsleep();
            }
        }
    }

    @Override
    public void wakeup() {
        if (waitIn != null) {
            waitIn.wakeup();
        }
    }

    @Override
    public boolean deliver(InboundRing from, Batch b) {
        if (!speaksFor(from, b.srcRank(), b.dstRank())) {
            rejected(ErrorClass.ERR_RANK, "a batch from JVM " + from.peerJvm + " claims source rank " + b.srcRank()
                    + " and destination rank " + b.dstRank() + ": JVM " + from.peerJvm + " may only speak for its own "
                    + "ranks, to ranks of this JVM");
            b.markConsumed();
            return false;
        }
        ShmCounters.add(counters.batchesReceived, 1);
        job.agent().dispatchNow(b);
        return true;
    }

    @Override
    public ByteBuffer placement(InboundRing from, DirectBuffer header, int at) {
        if (!speaksFor(from, PacketHeader.src(header, at), PacketHeader.dst(header, at))) {
            return null; // the ordinary way rejects it
        }
        return job.agent().placement(header, at);
    }

    /**
     * Whether a packet from ring {@code from} may come from world rank {@code src} (of that JVM) to local {@code dst}.
     */
    private boolean speaksFor(InboundRing from, int src, int dst) {
        return src >= 0 && src < job.size() && job.jvmOf(src) == from.peerJvm && dst >= 0 && dst < job.size()
                && job.isLocal(dst);
    }

    @Override
    public void reject(InboundRing from, String why) {
        rejected(ErrorClass.ERR_INTERN, "a record from JVM " + from.peerJvm + ": " + why);
    }

    private void rejected(ErrorClass ec, String why) {
        counters.rejected.incrementAndGet();
        lastRejection = new RmaException(ec, why);
    }

    private volatile RmaException lastRejection;

    /** Why the last record or batch was rejected (its MPI error class and reason), or null. */
    public RmaException lastRejection() {
        return lastRejection;
    }

    @Override
    public void corrupt(InboundRing from, String why) {
        rejected(ErrorClass.ERR_INTERN, "the ring from JVM " + from.peerJvm + " is corrupt: " + why);
        job.abort(ErrorClass.ERR_INTERN, "the shared-memory ring from JVM " + from.peerJvm + " is corrupt: " + why
                + "; it is read no more", null);
    }

    @Override
    public void control(InboundRing from, ByteBuffer message) {
        ShmCounters.add(counters.controlReceived, 1);
        try {
            job.controlPlane().onMessage(message);
        } catch (RuntimeException e) {
            rejected(ErrorClass.ERR_INTERN, "bad control message from JVM " + from.peerJvm + ": " + e.getMessage());
            job.abort(ErrorClass.ERR_INTERN, "bad control message from JVM " + from.peerJvm + " (shared-memory ring): "
                    + e.getMessage(), e);
        }
    }

    /**
     * Sends a control-plane message to JVM {@code jvm} through its ring: control messages between JVMs of a host
     * then need no TCP read at the receiver, which therefore reads its quiet connections rarely (a read syscall
     * while a ring record arrives delays the record by as long). False when there is no ring to that JVM, the
     * rings are closed, or the message is larger than a record (the caller sends it over TCP then).
     */
    @Override
    public boolean sendControl(int jvm, byte[] message) {
        OutboundRing o = jvm >= 0 && jvm < outByJvm.length ? outByJvm[jvm] : null;
        if (o == null || closed || !o.fitsControl(message.length)) {
            return false;
        }
        try {
            o.offerControl(message);
            return true;
        } catch (RmaException e) {
            return false; // closed meanwhile: TCP carries it, or reports the failure
        }
    }

    /** The counters of every ring end and of this transport, summed now. */
    private ShmCounters total() {
        ShmCounters t = new ShmCounters();
        counters.addTo(t);
        for (OutboundRing o : outbound) {
            o.counters.addTo(t);
        }
        for (InboundRing in : inbound) {
            in.counters.addTo(t);
        }
        return t;
    }

    /** Whether an inbound ring is flagged "receiver asleep" (tests, diagnostics). */
    boolean anyInboundAsleep() {
        for (InboundRing in : inbound) {
            if (in.isAsleep()) {
                return true;
            }
        }
        return false;
    }

    /** JVMs reached through rings. */
    public int peers() {
        return outbound.length;
    }

    public long batchesSent() {
        return total().batchesSent.get();
    }

    public long bytesSent() {
        return total().bytesSent.get();
    }

    public long batchesReceived() {
        return total().batchesReceived.get();
    }

    public long bytesReceived() {
        return total().bytesReceived.get();
    }

    /** Requests refused because a ring was full. */
    public long refused() {
        return total().refused.get();
    }

    /** Control-plane messages received through the rings. */
    public long controlReceived() {
        return total().controlReceived.get();
    }

    /** Doorbells rung to wake a receiver sleeping in its selector. */
    public long doorbells() {
        return total().doorbells.get();
    }

    /** Records acknowledged through the applied position instead of an ACK packet (as a receiver). */
    public long ringAcks() {
        return total().ringAcks.get();
    }

    /** Large packets whose payload was copied from the ring straight to its destination (as a receiver). */
    public long packetsPlaced() {
        return total().packetsPlaced.get();
    }

    /** Records and batches rejected (malformed, or claiming ranks of another JVM). */
    public long rejected() {
        return total().rejected.get();
    }

    /** Every counter, for diagnostics. */
    @Override
    public String counters() {
        return total().toString();
    }

    /**
     * Unmaps the rings (the files were unlinked at setup). Only after the progress agent has stopped and no
     * rank sends any more: a later {@link #send} fails.
     */
    @Override
    public void close(long timeoutMs) {
        close();
    }

    @Override
    public void close() {
        closed = true;
        for (OutboundRing o : outbound) {
            o.close();
        }
        for (InboundRing in : inbound) {
            in.close();
        }
        for (RingFiles.Mapped m : files) {
            RingFiles.deleteQuietly(m.path);
            m.unmap();
        }
    }

    @Override
    public String toString() {
        return "ShmRingTransport[JVM " + job.jvmIndex() + ", " + outbound.length + " peers, " + total() + "]";
    }
}

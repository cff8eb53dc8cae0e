package io.jrma.transport.ucx;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.runtime.Job;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import io.jrma.spi.transport.RemoteMemory;
import io.jrma.spi.transport.Transport;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Base64;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The {@code ucx} packet transport: every batch to a rank of another JVM is one UCP tagged message on the endpoint to
 * that JVM's worker, tagged with the sender's JVM index; the receiving progress agent probes for them, receives
 * them in arrival order and hands them to the window engine in that order (a message whose data comes later, by
 * UCX's rendezvous, holds back those behind it), so batches from one sender to one receiver arrive in the order
 * sent, as the contract asks. A batch is copied into a native buffer when it is sent, so it is consumed (locally
 * complete) at once.
 *
 * <p>Waiting: the idle progress thread arms the worker's event descriptor ({@code ucp_worker_arm}) before it sleeps;
 * a doorbell thread polls that descriptor while it is armed and wakes the sleeper when UCX has an event. While UCX
 * carries packets the sleep is a park of at most {@link UcxParams#NAP_NS} (the TCP selector sleeps whole
 * milliseconds, and UCX's shared-memory transport did not signal the descriptor across JVMs here); otherwise it
 * is the TCP selector's. Ranks waiting in the library drive progress themselves.
 *
 * <p>Back-pressure: requests wait ({@link #send} returns false) while more than {@link UcxParams#SEND_QUEUE_BYTES}
 * of sends are incomplete; UCX buffers what the receiver has not yet probed.
 *
 * <p>Threads: {@link #send} from any thread; {@link #progress} and {@link #awaitInput} from the thread running the
 * progress agent; the worker serializes the calls into UCX.
 *
 * <p>Its parts: this class carries packets (send, receive in order, deliver, back-pressure, the idle thread's wait);
 * {@link UcxMemory} is the memory side (registration, keys, put, get, atomics, flushes: the RDMA lane and the atomic
 * domain), {@link UcxDoorbell} the thread that wakes the sleeping progress thread, {@link UcxCounters} what is
 * reported; {@link UcxWorker} the binding to one UCP worker.
 */
public final class UcxTransport implements Transport {
    /** The high half of every packet message's tag ("jrma"); the low half is the sender's JVM index. */
    static final long TAG_BASE = 0x6a726d61L << 32;
    static final long TAG_MASK = 0xFFFF_FFFF_0000_0000L;
    /** Messages taken per duty cycle at most, so one busy sender cannot keep the agent from its other work. */
    private static final int PROBES_PER_CYCLE = 64;
    /** How long the progress thread naps while receives are incomplete (their data comes without a TCP event). */
    private static final long NAP_NS = 20_000;

    private final Job job;
    private final UcxWorker worker;
    private final long[] epByJvm;
    private final Transport waitIn;
    private final long sendQueueBytes;
    private final ConcurrentLinkedQueue<Outgoing> sending = new ConcurrentLinkedQueue<>();
    private final AtomicLong inFlightBytes = new AtomicLong();
    private final ArrayDeque<Incoming> receiving = new ArrayDeque<>();
    private volatile boolean closed;
    /** The memory side (the RDMA lane and the atomic domain), or null when {@link UcxParams#RDMA} turns it off. */
    private final UcxMemory memory;
    private final long napNs;
    /** The progress thread while it naps in {@link #awaitInput} ({@link #wakeup} unparks it), else null. */
    private volatile Thread napping;
    private final UcxCounters counters = new UcxCounters();
    private final UcxDoorbell doorbell;

    /** A send not yet complete: its request and the native copy it reads. */
    private record Outgoing(long request, Memory copy, long length) {
    }

    /** A receive in arrival order: its request, its buffer and the sender's JVM. */
    private record Incoming(long request, ByteBuffer buffer, int length, int jvm) {
    }

    private UcxTransport(Job job, UcxWorker worker, long[] epByJvm) {
        this.job = job;
        this.worker = worker;
        this.epByJvm = epByJvm;
        this.waitIn = job.blockingTransport();
        this.sendQueueBytes = UcxParams.SEND_QUEUE_BYTES.getLong(job.params());
        boolean rdma = Boolean.parseBoolean(UcxParams.RDMA.getChoice(job.params(), "true", "false"));
        this.memory = rdma ? new UcxMemory(this, job, worker, counters) : null;
        this.napNs = Math.max(0, UcxParams.NAP_NS.getLong(job.params()));
        this.doorbell = new UcxDoorbell(worker.eventFd(), counters, this::wakeup);
    }

    /**
     * Connects {@code worker} to the worker of every other JVM whose card has one, registers the transport with the
     * job for those JVMs' ranks and returns it; null when it reaches none.
     */
    static UcxTransport connect(Job job, UcxWorker worker, String[] cards) {
        long[] eps = new long[job.jvmCount()];
        int[] ranks = new int[job.size()];
        int n = 0;
        for (int j = 0; j < cards.length; j++) {
            boolean none = cards[j] == null || cards[j].isEmpty() || cards[j].equals(UcxProvider.NO_WORKER);
            if (j == job.jvmIndex() || none) {
                continue;
            }
            eps[j] = worker.connect(Base64.getDecoder().decode(cards[j]));
            for (int r = 0; r < job.size(); r++) {
                if (job.jvmOf(r) == j) {
                    ranks[n++] = r;
                }
            }
        }
        if (n == 0) {
            worker.close();
            return null;
        }
        UcxTransport t = new UcxTransport(job, worker, eps);
        job.addRemote(t, Arrays.copyOf(ranks, n));
        return t;
    }

    /** The endpoint to JVM {@code jvm}'s worker, or 0. */
    long endpointToJvm(int jvm) {
        return jvm >= 0 && jvm < epByJvm.length ? epByJvm[jvm] : 0;
    }

    @Override
    public String name() {
        return UcxProvider.NAME;
    }

    @Override
    public boolean reaches(int worldRank) {
        return worldRank >= 0 && worldRank < job.size() && endpointToJvm(job.jvmOf(worldRank)) != 0;
    }

    /** Yes: a payload carried by reference is copied into the message from where it lies. */
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
        if (closed || job.isAborted()) {
            job.checkAborted();
            throw new RmaException(ErrorClass.ERR_PROC_ABORTED, "the ucx transport of this JVM is closed");
        }
        int jvm = job.jvmOf(batch.dstRank());
        long ep = endpointToJvm(jvm);
        if (ep == 0) {
            throw new RmaException(ErrorClass.ERR_INTERN, "no UCX endpoint to JVM " + jvm + " (world rank "
                    + batch.dstRank() + ")");
        }
        boolean reply = PacketType.isReply(PacketHeader.type(batch.buffer(), batch.offsetAt(0)));
        if (!reply && inFlightBytes.get() > sendQueueBytes) {
            counters.refused.incrementAndGet();
            return false; // back-pressure: the caller drives progress and retries
        }
        long length = 0;
        for (int i = 0; i < n; i++) {
            length += PacketHeader.length(batch.buffer(), batch.offsetAt(i));
        }
        Memory copy = new Memory(length);
        long at = 0;
        for (int i = 0; i < n; i++) {
            int off = batch.offsetAt(i);
            int len = PacketHeader.length(batch.buffer(), off);
            ByteBuffer ext = batch.externalAt(i);
            int inline = ext == null ? len : len - ext.remaining();
            ByteBuffer dst = copy.getByteBuffer(at, inline);
            batch.buffer().getBytes(off, dst, inline);
            if (ext != null) {
                copy.getByteBuffer(at + inline, ext.remaining()).put(ext.duplicate());
            }
            at += len;
        }
        batch.markConsumed();
        long req = worker.send(ep, Pointer.nativeValue(copy), length, TAG_BASE | job.jvmIndex());
        if (req == 0) {
            copy.close();
        } else {
            inFlightBytes.addAndGet(length);
            sending.add(new Outgoing(req, copy, length));
        }
        counters.batchesSent.incrementAndGet();
        counters.packetsSent.addAndGet(n);
        counters.bytesSent.addAndGet(length);
        return true;
    }

    /**
     * Drives the worker, completes sends, takes arrived messages and delivers those complete, in order. A failed send
     * or receive means a broken connection to a peer JVM: the job is aborted with ERR_PROC_ABORTED (the progress
     * agent never throws).
     */
    @Override
    public int progress() {
        if (closed) {
            return 0;
        }
        try {
            return progressOnce();
        } catch (RmaException e) {
            if (!job.isAborted() && !closed) {
                job.abort(ErrorClass.ERR_PROC_ABORTED, "a message over UCX failed (" + e.getMessage() + "): a peer JVM"
                        + " exited, was killed or failed", e);
            }
            return 1;
        }
    }

    private int progressOnce() {
        int work = worker.progress();
        work += reapSends();
        for (int i = 0; i < PROBES_PER_CYCLE; i++) {
            long m = worker.probe(TAG_BASE, TAG_MASK);
            if (m == 0) {
                break;
            }
            int len = (int) worker.probedLength();
            int jvm = (int) worker.probedTag();
            ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(1, len));
            long req = worker.receive(m, new UnsafeBuffer(buf).addressOffset(), len);
            receiving.add(new Incoming(req, buf, len, jvm));
            work++;
        }
        Incoming in;
        while ((in = receiving.peek()) != null && worker.done(in.request())) {
            receiving.poll();
            deliver(in);
            work++;
        }
        return work;
    }

    private int reapSends() {
        if (sending.isEmpty()) {
            return 0;
        }
        int work = 0;
        for (Iterator<Outgoing> it = sending.iterator(); it.hasNext();) {
            Outgoing o = it.next();
            if (worker.done(o.request())) {
                it.remove();
                inFlightBytes.addAndGet(-o.length());
                o.copy().close();
                work++;
            }
        }
        return work;
    }

    /** Rebuilds the batch from packet lengths and checks its ranks; the engine validates every field. */
    private void deliver(Incoming in) {
        counters.bytesReceived.addAndGet(in.length());
        UnsafeBuffer ub = new UnsafeBuffer(in.buffer(), 0, in.length());
        Batch b = new Batch(ub);
        int off = 0;
        while (off + PacketHeader.HEADER_LENGTH <= in.length()) {
            int plen = ub.getInt(off + PacketHeader.LENGTH_OFFSET);
            b.add(off);
            if (plen < PacketHeader.HEADER_LENGTH || (long) off + plen > in.length()) {
                break; // the engine answers this one with an error reply; nothing after it can be framed
            }
            off += plen;
        }
        int src = b.count() == 0 ? -1 : PacketHeader.src(ub, 0);
        int dst = b.count() == 0 ? -1 : PacketHeader.dst(ub, 0);
        boolean srcOk = src >= 0 && src < job.size() && job.jvmOf(src) == in.jvm();
        boolean dstOk = dst >= 0 && dst < job.size() && job.isLocal(dst);
        if (b.count() == 0 || !srcOk || !dstOk) {
            counters.rejected.incrementAndGet();
            lastRejection = new RmaException(b.count() == 0 ? ErrorClass.ERR_INTERN : ErrorClass.ERR_RANK,
                    b.count() == 0 ? "a UCX message of " + in.length() + " bytes from JVM " + in.jvm()
                            + " holds no whole packet header"
                            : "a UCX message from JVM " + in.jvm() + " claims source rank " + src + " and destination"
                            + " rank " + dst + ": JVM " + in.jvm() + " may only speak for its own ranks, to ranks of"
                            + " this JVM");
            return;
        }
        b.address(src, dst);
        counters.batchesReceived.incrementAndGet();
        job.agent().deliver(b);
    }

    private volatile RmaException lastRejection;

    /** Why the last message was rejected (its MPI error class and reason), or null. */
    public RmaException lastRejection() {
        return lastRejection;
    }

    @Override
    public boolean canAwaitInput() {
        return waitIn != null && waitIn.canAwaitInput();
    }

    /**
     * Sleeps in the TCP selector with the worker's event descriptor armed (the doorbell thread wakes the selector on a
     * UCX event); returns at once when UCX has events pending; naps while receives or sends are incomplete.
     */
    @Override
    public void awaitInput(long timeoutNs) {
        if (closed) {
            return;
        }
        if (!receiving.isEmpty() || !sending.isEmpty() || waitIn == null) {
            LockSupport.parkNanos(Math.min(timeoutNs, NAP_NS));
            return;
        }
        if (!worker.arm()) {
            counters.armBusy.incrementAndGet();
            return; // events pending: the next duty cycle takes them
        }
        counters.sleeps.incrementAndGet();
        doorbell.arm();
        try {
            if (napNs > 0 && job.routesTo(this)) {
                // UCX carries packets: nap (the selector sleeps whole milliseconds, and over shared memory UCX does
                // not always ring the doorbell); TCP's input waits for the nap's end at most
                napping = Thread.currentThread();
                if (doorbell.armed()) {
                    LockSupport.parkNanos(this, Math.min(timeoutNs, napNs));
                }
            } else {
                waitIn.awaitInput(timeoutNs);
            }
        } finally {
            napping = null;
            doorbell.disarm();
        }
    }

    @Override
    public void wakeup() {
        Thread t = napping;
        if (t != null) {
            LockSupport.unpark(t);
        }
        if (waitIn != null) {
            waitIn.wakeup();
        }
    }

    /** This transport's memory side ({@link UcxMemory}), unless {@link UcxParams#RDMA} turns it off. */
    @Override
    public RemoteMemory remoteMemory() {
        return memory;
    }

    /** Whether {@link #close} ran: the worker and its endpoints are gone. */
    boolean isClosed() {
        return closed;
    }

    /** Batches sent through UCX so far. */
    public long batchesSent() {
        return counters.batchesSent.get();
    }

    /** Batches received through UCX so far. */
    public long batchesReceived() {
        return counters.batchesReceived.get();
    }

    /** Times the doorbell thread woke the sleeping progress thread for a UCX event so far. */
    public long doorbells() {
        return counters.doorbells.get();
    }

    /** Operations done on peers' registered memory (put, get, atomics) so far. */
    public long rdmaOps() {
        return counters.rdmaOps.get();
    }

    @Override
    public String counters() {
        return counters.toString();
    }

    /**
     * Closes the endpoints and the worker at once. Nothing needs flushing: the job ends after every epoch completed,
     * so what this JVM sent was acknowledged (packets) or flushed (the RDMA lane); a flush here would wait for peers
     * that may have closed their workers already.
     */
    @Override
    public void close(long timeoutMs) {
        if (closed) {
            return;
        }
        closed = true;
        doorbell.stop();
        for (Outgoing o : sending) {
            worker.cancel(o.request());
        }
        for (Incoming in : receiving) {
            worker.cancel(in.request());
        }
        worker.close();
        for (Outgoing o : sending) {
            o.copy().close();
        }
        sending.clear();
        receiving.clear();
    }
}

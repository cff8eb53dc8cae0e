package io.jrma.transport.disni;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.impl.NatObject;
import com.ibm.disni.verbs.impl.NativeDispatcher;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.runtime.Job;
import io.jrma.core.wire.Batch;
import io.jrma.spi.transport.RemoteMemory;
import io.jrma.spi.transport.Transport;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntUnaryOperator;
import java.util.function.LongConsumer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The {@code disni} transport: one RC queue pair (a DiSNI passive endpoint, RDMA-CM connected) to every other JVM, and
 * through it the window engine's RDMA lane ({@link RemoteMemory}): RDMA write and read, fetch-add and compare-swap on
 * the targets' registered memory, without their CPU. Packets, control messages and doorbells are not its business:
 * they go through the transport that reached each peer before this one was connected (TCP), to which it delegates.
 *
 * <p>Memory: window memory is registered with local write and remote read, write and atomic access; its key
 * ({@link RemoteKey}) travels in the window creation exchange. A put or get whose local buffer lies in no
 * registration goes through a registered staging buffer in pieces. Work requests are written by
 * {@link SendWorkRequest} (not DiSNI's serializer, whose atomics are wrong) and posted with DiSNI's native
 * {@code _postSend}. 4-byte atomics and swap, which verbs lack, are compare-swap loops on the aligned 8-byte word.
 *
 * <p>Completion: every request is signaled; the poster waits for its completion, polling the completion queues
 * itself as the progress agent does in {@link #progress}, so an operation has completed remotely (RC acknowledged)
 * when it returns and {@link #flush} has nothing left to wait for. A failed completion becomes the exception of
 * {@link Completions}.
 *
 * <p>Connection: JVM {@code i} connects to every JVM below it, then accepts one connection from each JVM above it;
 * the connecting side's first message (an RDMA send of its JVM index) tells the acceptor who it is.
 *
 * <p>Never run on a device: this machine has no RDMA subsystem. Its device-free parts (keys, registrations, work
 * requests, completions, pending work) are unit-tested; the rest is written against DiSNI 2.1's API.
 *
 * <p>Threads: any thread may call the memory operations; the device calls are serialized by {@link #lock}.
 */
final class DisniTransport implements Transport, RemoteMemory {
    /** Local write and remote read, write and atomic access ({@code IBV_ACCESS_*} of verbs.h). */
    static final int ACCESS = 1 | 2 | 4 | 8;
    /** Completions taken per poll of one queue. */
    private static final int POLL_BATCH = 16;

    private final Job job;
    private final DisniNode node;
    private final DisniNode.Endpoint[] epByJvm;
    private final Transport[] below;
    private final long minBytes;
    private final Registrations<IbvMr> regs = new Registrations<>();
    private final PendingWork pending;
    private final ReentrantLock lock = new ReentrantLock();
    private final NativeDispatcher dispatcher;
    private final IbvPd pd;
    private final UnsafeBuffer wr;
    private final ByteBuffer staging;
    private final IbvMr stagingMr;
    private final ReentrantLock stagingLock = new ReentrantLock();
    private final IbvWC[] wcs = new IbvWC[POLL_BATCH];
    private final SVCPollCq[] polls;
    private volatile boolean closed;

    final AtomicLong rdmaOps = new AtomicLong();
    final AtomicLong rdmaBytes = new AtomicLong();
    final AtomicLong stagedBytes = new AtomicLong();
    final AtomicLong failures = new AtomicLong();

    private DisniTransport(Job job, DisniNode node, DisniNode.Endpoint[] eps, Transport[] below) throws IOException {
        this.job = job;
        this.node = node;
        this.epByJvm = eps;
        this.below = below;
        this.minBytes = Math.max(0, DisniParams.MIN_BYTES.getLong(job.params()));
        this.pending = new PendingWork((int) DisniParams.QUEUE_DEPTH.getLong(job.params()));
        this.dispatcher = dispatcher();
        DisniNode.Endpoint any = Arrays.stream(eps).filter(e -> e != null).findFirst().orElseThrow();
        this.pd = any.getPd();
        for (DisniNode.Endpoint e : eps) {
            // DiSNI keeps one protection domain per device: window memory registered in it serves every queue pair
            if (e != null && e.getPd() != pd) {
                throw new IOException("the peers are reached through more than one RDMA device; jrma registers window"
                        + " memory with one (set " + DisniParams.ADDRESS.name() + " to an address of one device)");
            }
        }
        this.wr = new UnsafeBuffer(ByteBuffer.allocateDirect(SendWorkRequest.ENCODED_LENGTH));
        this.staging = ByteBuffer.allocateDirect((int) DisniParams.STAGING_BYTES.getLong(job.params()))
                .order(ByteOrder.nativeOrder());
        this.stagingMr = pd.regMr(staging, ACCESS).execute().free().getMr();
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new IbvWC();
        }
        this.polls = new SVCPollCq[eps.length];
        for (int j = 0; j < eps.length; j++) {
            if (eps[j] != null) {
                polls[j] = eps[j].getCqProvider().getCQ().poll(wcs, wcs.length);
            }
        }
    }

    /** DiSNI's native dispatcher: its constructor is package-private, its {@code _postSend} public. */
    static NativeDispatcher dispatcher() throws IOException {
        try {
            Constructor<NativeDispatcher> c = NativeDispatcher.class.getDeclaredConstructor();
            c.setAccessible(true);
            return c.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IOException("DiSNI's NativeDispatcher cannot be created: " + e, e);
        }
    }

    /**
     * Connects to every other JVM's listener ({@code cards}; a JVM whose card is {@link DisniProvider#NO_LISTENER}
     * is left to the transport below), registers the transport for the ranks of the JVMs it connected and returns
     * it; null (and the node closed) when it connected none.
     */
    static DisniTransport connect(Job job, DisniNode node, String[] cards) {
        int me = job.jvmIndex();
        DisniNode.Endpoint[] eps = new DisniNode.Endpoint[job.jvmCount()];
        try {
            int above = 0;
            for (int j = 0; j < job.jvmCount(); j++) {
                if (j < me && DisniProvider.listens(cards[j])) {
                    eps[j] = connectTo(node, cards[j], me);
                } else if (j > me && DisniProvider.listens(cards[j])) {
                    above++;
                }
            }
            for (int n = 0; n < above; n++) {
                DisniNode.Endpoint ep = node.server.accept();
                int j = (int) awaitHello(ep, node.timeoutMs);
                if (j <= me || j >= eps.length || eps[j] != null) {
                    throw new IOException("a connection introduced itself as JVM " + j);
                }
                eps[j] = ep;
            }
            if (Arrays.stream(eps).allMatch(e -> e == null)) {
                node.close();
                return null;
            }
            int[] ranks = new int[job.size()];
            Transport[] below = new Transport[job.size()];
            int n = 0;
            for (int r = 0; r < job.size(); r++) {
                if (!job.isLocal(r) && eps[job.jvmOf(r)] != null) {
                    below[r] = job.transportFor(r);
                    ranks[n++] = r;
                }
            }
            DisniTransport t = new DisniTransport(job, node, eps, below);
            job.addRemote(t, Arrays.copyOf(ranks, n));
            return t;
        } catch (Exception e) {
            node.close();
            throw new RmaException(ErrorClass.ERR_OTHER, "disni: connecting the queue pairs failed: " + e, e);
        }
    }

    private static DisniNode.Endpoint connectTo(DisniNode node, String card, int me) throws Exception {
        int colon = card.lastIndexOf(':');
        DisniNode.Endpoint ep = node.group.createEndpoint();
        ep.connect(new InetSocketAddress(card.substring(0, colon), Integer.parseInt(card.substring(colon + 1))),
                node.timeoutMs);
        ByteBuffer hello = ByteBuffer.allocateDirect(DisniNode.HELLO_BYTES).order(ByteOrder.nativeOrder());
        hello.putLong(0, me);
        IbvMr mr = ep.registerMemory(hello).execute().free().getMr();
        IbvSge sge = new IbvSge();
        sge.setAddr(mr.getAddr());
        sge.setLength(DisniNode.HELLO_BYTES);
        sge.setLkey(mr.getLkey());
        LinkedList<IbvSge> sges = new LinkedList<>(List.of(sge));
        IbvSendWR send = new IbvSendWR();
        send.setSg_list(sges);
        send.setNum_sge(1);
        send.setOpcode(IbvSendWR.IBV_WR_SEND); // a send has no atomic fields: DiSNI's serializer writes it right
        send.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        ep.postSend(List.of(send)).execute().free();
        awaitOne(ep, node.timeoutMs);
        ep.deregisterMemory(mr);
        return ep;
    }

    /** Waits for the hello on accepted endpoint {@code ep} (its receive posted before the accept); its JVM index. */
    private static long awaitHello(DisniNode.Endpoint ep, int timeoutMs) throws IOException {
        awaitOne(ep, timeoutMs);
        return ep.takeHello();
    }

    /** Waits for one completion on {@code ep}'s queue (connection set-up only); IOException on failure or timeout. */
    private static void awaitOne(DisniNode.Endpoint ep, int timeoutMs) throws IOException {
        IbvWC[] one = {new IbvWC()};
        SVCPollCq poll = ep.getCqProvider().getCQ().poll(one, 1);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        try {
            while (poll.execute().getPolls() == 0) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("no completion within " + timeoutMs + " ms");
                }
                Thread.onSpinWait();
            }
        } finally {
            poll.free();
        }
        if (one[0].getStatus() != Completions.IBV_WC_SUCCESS) {
            throw new IOException(Completions.text(one[0].getStatus()));
        }
    }

    // ---- Transport: packets stay on the transport below ----

    @Override
    public String name() {
        return DisniProvider.NAME;
    }

    @Override
    public boolean reaches(int worldRank) {
        return worldRank >= 0 && worldRank < below.length && below[worldRank] != null
                && epByJvm[job.jvmOf(worldRank)] != null;
    }

    @Override
    public boolean send(Batch batch) {
        return below[batch.dstRank()].send(batch);
    }

    @Override
    public boolean acksThroughMemory(int worldRank) {
        return below[worldRank].acksThroughMemory(worldRank);
    }

    @Override
    public boolean carriesExternal() {
        for (Transport t : below) {
            if (t != null && !t.carriesExternal()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void wakeIfAsleep(int worldRank) {
        below[worldRank].wakeIfAsleep(worldRank);
    }

    /** Polls every queue pair's completion queue (the progress agent's duty cycle). */
    @Override
    public int progress() {
        if (closed || !lock.tryLock()) {
            return 0;
        }
        try {
            return pollAll();
        } finally {
            lock.unlock();
        }
    }

    private int pollAll() {
        int done = 0;
        for (SVCPollCq p : polls) {
            if (p == null) {
                continue;
            }
            try {
                int n = p.execute().getPolls();
                for (int i = 0; i < n; i++) {
                    pending.complete(wcs[i].getWr_id(), wcs[i].getStatus(), wcs[i].getVendor_err());
                }
                done += n;
            } catch (IOException e) {
                job.abort(ErrorClass.ERR_OTHER, "disni: polling a completion queue failed: " + e, e);
            }
        }
        return done;
    }

    @Override
    public void close(long timeoutMs) {
        closed = true;
        lock.lock();
        try {
            stagingMr.deregMr().execute().free();
        } catch (IOException e) {
            System.err.println("jrma: disni: deregistering the staging buffer failed: " + e);
        } finally {
            lock.unlock();
        }
        node.close();
    }

    @Override
    public RemoteMemory remoteMemory() {
        return this;
    }

    @Override
    public String counters() {
        return "rdma_ops=" + rdmaOps.get() + " rdma_bytes=" + rdmaBytes.get() + " staged_bytes=" + stagedBytes.get()
                + " failed_completions=" + failures.get();
    }

    // ---- RemoteMemory ----

    @Override
    public long minBytes() {
        return minBytes;
    }

    @Override
    public Registration register(long address, long length) {
        if (length <= 0 || length > Integer.MAX_VALUE) {
            throw new RmaException(ErrorClass.ERR_UNSUPPORTED_OPERATION, "disni registers 1.." + Integer.MAX_VALUE
                    + " bytes at once (ibv_reg_mr through DiSNI takes an int), not " + length);
        }
        lock.lock();
        try {
            IbvMr mr = pd.regMr(address, (int) length, ACCESS).execute().free().getMr();
            Registrations.Local<IbvMr> l = regs.addLocal(address, length, mr.getLkey(), mr.getRkey(), mr);
            return new Registration(l.id(), new RemoteKey(address, length, mr.getRkey()).encode());
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_NO_MEM, "disni: ibv_reg_mr of " + length + " bytes failed: " + e, e);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void unregister(Registration registration) {
        Registrations.Local<IbvMr> l = regs.removeLocal(registration.handle());
        lock.lock();
        try {
            l.region().deregMr().execute().free();
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_OTHER, "disni: ibv_dereg_mr failed: " + e, e);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long attach(int worldRank, byte[] key) {
        if (!reaches(worldRank)) {
            return 0;
        }
        return regs.attach(worldRank, RemoteKey.decode(key));
    }

    @Override
    public void detach(long handle) {
        regs.detach(handle);
    }

    @Override
    public void put(int worldRank, long address, long length, long remote, long handle) {
        transfer(SendWorkRequest.IBV_WR_RDMA_WRITE, worldRank, address, length, remote, handle);
    }

    @Override
    public void get(int worldRank, long address, long length, long remote, long handle) {
        transfer(SendWorkRequest.IBV_WR_RDMA_READ, worldRank, address, length, remote, handle);
    }

    private void transfer(int opcode, int worldRank, long address, long length, long remote, long handle) {
        RemoteKey key = regs.target(worldRank, handle, remote, length);
        Registrations.Local<IbvMr> local = regs.findLocal(address, length);
        if (local != null) {
            for (long done = 0; done < length; done += SendWorkRequest.MAX_SGE_LENGTH) {
                long n = Math.min(SendWorkRequest.MAX_SGE_LENGTH, length - done);
                rdma(opcode, worldRank, address + done, n, local.lkey(), remote + done, key.rkey());
            }
            return;
        }
        UnsafeBuffer stage = new UnsafeBuffer(staging);
        UnsafeBuffer user = new UnsafeBuffer(0, 0);
        stagingLock.lock();
        try {
            for (long done = 0; done < length; done += staging.capacity()) {
                int n = (int) Math.min(staging.capacity(), length - done);
                user.wrap(address + done, n);
                if (opcode == SendWorkRequest.IBV_WR_RDMA_WRITE) {
                    stage.putBytes(0, user, 0, n);
                }
                rdma(opcode, worldRank, stage.addressOffset(), n, stagingMr.getLkey(), remote + done, key.rkey());
                if (opcode == SendWorkRequest.IBV_WR_RDMA_READ) {
                    user.putBytes(0, stage, 0, n);
                }
                stagedBytes.addAndGet(n);
            }
        } finally {
            stagingLock.unlock();
        }
    }

    private void rdma(int opcode, int worldRank, long local, long length, int lkey, long remote, int rkey) {
        long id = post(worldRank, wrId -> SendWorkRequest.rdma(wr, opcode, wrId, local, length, lkey, remote, rkey));
        await(id, opcode == SendWorkRequest.IBV_WR_RDMA_WRITE ? "RDMA write" : "RDMA read", worldRank);
        rdmaBytes.addAndGet(length);
    }

    @Override
    public long fetchAdd(int worldRank, long value, int size, long remote, long handle) {
        if (size == Long.BYTES) {
            return atomic8(SendWorkRequest.IBV_WR_ATOMIC_FETCH_AND_ADD, worldRank, value, 0, remote, handle);
        }
        return update4(worldRank, remote, handle, old -> old + (int) value);
    }

    @Override
    public long swap(int worldRank, long value, int size, long remote, long handle) {
        if (size == Long.BYTES) {
            long seen = atomic8(SendWorkRequest.IBV_WR_ATOMIC_FETCH_AND_ADD, worldRank, 0, 0, remote, handle);
            while (true) {
                long old = atomic8(SendWorkRequest.IBV_WR_ATOMIC_CMP_AND_SWP, worldRank, seen, value, remote, handle);
                if (old == seen) {
                    return old;
                }
                seen = old;
            }
        }
        return update4(worldRank, remote, handle, old -> (int) value);
    }

    @Override
    public long compareAndSwap(int worldRank, long compare, long value, int size, long remote, long handle) {
        if (size == Long.BYTES) {
            return atomic8(SendWorkRequest.IBV_WR_ATOMIC_CMP_AND_SWP, worldRank, compare, value, remote, handle);
        }
        int expect = (int) compare;
        long[] result = new long[1];
        update4(worldRank, remote, handle, old -> {
            result[0] = old;
            return old == expect ? (int) value : old;
        });
        return result[0];
    }

    /**
     * Applies {@code f} to the 4-byte integer at {@code remote} atomically, as compare-swap loops on the 8-byte word
     * holding it (verbs has 8-byte atomics only); returns the integer's old value.
     */
    private long update4(int worldRank, long remote, long handle, IntUnaryOperator f) {
        long word = remote & ~(SendWorkRequest.ATOMIC_BYTES - 1L);
        int shift = (int) (remote - word) * Byte.SIZE;
        long seen = atomic8(SendWorkRequest.IBV_WR_ATOMIC_FETCH_AND_ADD, worldRank, 0, 0, word, handle);
        while (true) {
            int old = (int) (seen >>> shift);
            int now = f.applyAsInt(old);
            if (now == old) {
                return old;
            }
            long next = WordBits.replace(seen, shift, now);
            long got = atomic8(SendWorkRequest.IBV_WR_ATOMIC_CMP_AND_SWP, worldRank, seen, next, word, handle);
            if (got == seen) {
                return old;
            }
            seen = got;
        }
    }

    private long atomic8(int opcode, int worldRank, long compareAdd, long swap, long remote, long handle) {
        RemoteKey key = regs.target(worldRank, handle, remote, SendWorkRequest.ATOMIC_BYTES);
        stagingLock.lock();
        try {
            long result = new UnsafeBuffer(staging).addressOffset();
            long id = post(worldRank, wrId -> SendWorkRequest.atomic(wr, opcode, wrId, result, stagingMr.getLkey(),
                    remote, key.rkey(), compareAdd, swap));
            await(id, opcode == SendWorkRequest.IBV_WR_ATOMIC_CMP_AND_SWP ? "compare-swap" : "fetch-add", worldRank);
            return staging.getLong(0);
        } finally {
            stagingLock.unlock();
        }
    }

    /** Writes a request with {@code write} (given its id) and posts it; returns the id. */
    private long post(int worldRank, LongConsumer write) {
        DisniNode.Endpoint ep = epByJvm[job.jvmOf(worldRank)];
        while (true) {
            job.checkAborted();
            lock.lock();
            try {
                long id = pending.begin(worldRank);
                if (id != 0) {
                    write.accept(id);
                    try {
                        dispatcher._postSend(((NatObject) ep.getQp()).getObjId(), wr.addressOffset());
                    } catch (IOException e) {
                        pending.release(id);
                        throw new RmaException(ErrorClass.ERR_OTHER, "disni: ibv_post_send to world rank "
                                + worldRank + " failed: " + e, e);
                    }
                    rdmaOps.incrementAndGet();
                    return id;
                }
                pollAll(); // the queue is full: reap completions, then try again
            } finally {
                lock.unlock();
            }
        }
    }

    /** Polls until request {@code id} completed; throws its failure. */
    private void await(long id, String op, int worldRank) {
        try {
            int status;
            while ((status = pending.status(id)) == PendingWork.PENDING) {
                job.checkAborted();
                if (lock.tryLock()) {
                    try {
                        pollAll();
                    } finally {
                        lock.unlock();
                    }
                }
                Thread.onSpinWait();
            }
            RmaException e = Completions.failure(status, pending.vendorError(id), op, worldRank);
            if (e != null) {
                failures.incrementAndGet();
                throw e;
            }
        } finally {
            pending.release(id);
        }
    }

    /** Every operation waited for its completion (RC: acknowledged by the target's HCA): nothing is left to flush. */
    @Override
    public void flush(int worldRank) {
        job.checkAborted();
    }

    @Override
    public void flushAll() {
        job.checkAborted();
    }
}

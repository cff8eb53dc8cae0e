package io.jrma.transport.ucx;

import com.sun.jna.Pointer;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.runtime.Job;
import io.jrma.spi.transport.RemoteMemory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The ucx transport's memory side ({@link UcxTransport#remoteMemory()}): window memory registered with UCP and its
 * packed remote keys, peers' keys unpacked on the endpoint to their JVM, puts, gets and remote atomics straight on
 * registered memory (the RDMA lane and the atomic domain of the window engine), and endpoint and worker flushes. Each
 * operation waits for its own completion ({@link #complete}); the ranks of this JVM are reached through an endpoint
 * to the worker's own address (the atomic domain's loopback).
 *
 * <p>Threads: any; the worker serializes the calls into UCX.
 */
final class UcxMemory implements RemoteMemory {
    /** Idle rounds of {@link #complete} between turns of the whole progress agent. */
    private static final int AGENT_EVERY = 64;
    private static final int SPINS_BEFORE_PARK = 4096;
    private static final long WAIT_PARK_NS = 10_000;
    /** The largest memory given a ByteBuffer view. */
    private static final long MAX_BUFFER = Integer.MAX_VALUE - 8192;
    private static final Path SHM = Path.of("/dev/shm");

    private final UcxTransport transport;
    private final Job job;
    private final UcxWorker worker;
    private final UcxCounters counters;
    private final UcxAtomics atomics;
    private final boolean atomicDomain;
    private final boolean allocates;
    private final long minBytes;
    private final ConcurrentHashMap<Long, UcxWorker.Registration> registrations = new ConcurrentHashMap<>();
    /** The endpoint to this JVM's own worker (its ranks' memory, for a window's atomic domain), once made; else 0. */
    private long selfEp;

    UcxMemory(UcxTransport transport, Job job, UcxWorker worker, UcxCounters counters) {
        this.transport = transport;
        this.job = job;
        this.worker = worker;
        this.counters = counters;
        this.atomicDomain = Boolean.parseBoolean(UcxParams.ATOMICS.getChoice(job.params(), "true", "false"));
        this.allocates = Boolean.parseBoolean(UcxParams.ALLOCATE.getChoice(job.params(), "true", "false"));
        this.minBytes = Math.max(0, UcxParams.RDMA_MIN_BYTES.getLong(job.params()));
        this.atomics = new UcxAtomics(this);
    }

    /** The worker (the atomics post through it). */
    UcxWorker worker() {
        return worker;
    }

    /** Counts an operation the RDMA lane or the atomic domain did through the worker. */
    void countRdma(long bytes) {
        counters.countRdma(bytes);
    }

    @Override
    public long minBytes() {
        return minBytes;
    }

    @Override
    public Registration register(long address, long length) {
        UcxWorker.Registration r = worker.register(address, length);
        registrations.put(r.memh(), r);
        return new Registration(r.memh(), r.key());
    }

    /**
     * Memory UCX allocates ({@link UcxWorker#allocate}), zeroed here: over UCX's shared-memory transports it comes
     * from its sysv or posix domain, which peers of this host map ({@link #pointer}). Null with
     * {@code jrma.ucx.allocate=false}, and for more than half the room left in {@code /dev/shm} (or without it): UCX's
     * posix domain fills its file whatever its size (asked for 100 GB here, it took all 24 GB of /dev/shm, and the
     * kernel killed processes for memory), where the JVM's memory fails cleanly with ERR_NO_MEM.
     */
    @Override
    public Allocation allocate(long length) {
        if (!allocates || length > shmRoom() / 2) {
            return null;
        }
        UcxWorker.Registration r = worker.allocate(length);
        registrations.put(r.memh(), r);
        Pointer p = new Pointer(r.address());
        p.setMemory(0, length, (byte) 0);
        ByteBuffer b = length > MAX_BUFFER ? null : p.getByteBuffer(0, length).order(ByteOrder.LITTLE_ENDIAN);
        return new Allocation(r.address(), length, b, new Registration(r.memh(), r.key()));
    }

    /** Bytes left in /dev/shm (RAM-backed, as UCX's sysv and posix allocations are), 0 when it cannot tell. */
    private static long shmRoom() {
        try {
            return Files.getFileStore(SHM).getUsableSpace();
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    @Override
    public long pointer(long handle, long remote) {
        return handle == 0 || transport.isClosed() ? 0 : worker.pointer(handle, remote);
    }

    @Override
    public void unregister(Registration registration) {
        UcxWorker.Registration r = registrations.remove(registration.handle());
        if (r != null && !transport.isClosed()) {
            worker.unregister(r);
        }
    }

    @Override
    public long attach(int worldRank, byte[] key) {
        long ep = endpointTo(worldRank);
        return ep == 0 ? 0 : worker.unpack(ep, key);
    }

    @Override
    public void detach(long handle) {
        if (handle != 0 && !transport.isClosed()) {
            worker.destroyKey(handle);
        }
    }

    @Override
    public void put(int worldRank, long address, long length, long remote, long handle) {
        complete(worker.put(endpointTo(worldRank), address, length, remote, handle), worldRank);
        countRdma(length);
    }

    @Override
    public void get(int worldRank, long address, long length, long remote, long handle) {
        complete(worker.get(endpointTo(worldRank), address, length, remote, handle), worldRank);
        countRdma(length);
    }

    @Override
    public long fetchAdd(int worldRank, long value, int size, long remote, long handle) {
        return atomics.atomic(worldRank, UcxWorker.Atomic.ADD, value, 0, size, remote, handle);
    }

    @Override
    public long swap(int worldRank, long value, int size, long remote, long handle) {
        return atomics.atomic(worldRank, UcxWorker.Atomic.SWAP, value, 0, size, remote, handle);
    }

    @Override
    public long compareAndSwap(int worldRank, long compare, long value, int size, long remote, long handle) {
        return atomics.atomic(worldRank, UcxWorker.Atomic.CSWAP, compare, value, size, remote, handle);
    }

    /**
     * The atomic through UCP; AND, OR and XOR to a rank of this JVM by a compare-and-swap loop, since UCX 1.13's
     * loopback returns the old value of those but leaves the memory unchanged (UcxWorkerTest).
     */
    @Override
    public long fetchOp(int worldRank, AtomicOp op, long value, long compare, int size, long remote, long handle) {
        if (UcxAtomics.bitwise(op) && job.isLocal(worldRank)) {
            return RemoteMemory.super.fetchOp(worldRank, op, value, compare, size, remote, handle);
        }
        return atomics.fetchOp(worldRank, op, value, compare, size, remote, handle);
    }

    /** Posted in rounds ({@link UcxAtomics#fetchOps}); AND, OR and XOR to a rank of this JVM one by one. */
    @Override
    public void fetchOps(int worldRank, AtomicOp op, long[] values, long[] compares, int size, long[] remotes, int n,
            long handle, long[] results) {
        if (n <= 1 || UcxAtomics.bitwise(op) && job.isLocal(worldRank)) {
            RemoteMemory.super.fetchOps(worldRank, op, values, compares, size, remotes, n, handle, results);
            return;
        }
        atomics.fetchOps(worldRank, op, values, compares, size, remotes, n, handle, results);
    }

    /** Ranks of the JVMs this worker has an endpoint to, and those of this JVM (through its own loopback). */
    @Override
    public boolean reachesMemoryOf(int worldRank) {
        return worldRank >= 0 && worldRank < job.size() && (job.isLocal(worldRank) || transport.reaches(worldRank));
    }

    @Override
    public boolean atomicDomain() {
        return atomicDomain;
    }

    @Override
    public void flush(int worldRank) {
        complete(worker.flush(endpointTo(worldRank)), worldRank);
    }

    @Override
    public void flushAll() {
        complete(worker.flushAll(), -1);
    }

    /** The endpoint to world rank {@code worldRank}'s worker: its JVM's, or this JVM's own for a rank of this JVM. */
    long endpointTo(int worldRank) {
        if (worldRank >= 0 && worldRank < job.size() && job.isLocal(worldRank)) {
            return selfEndpoint();
        }
        long ep = worldRank >= 0 && worldRank < job.size() ? transport.endpointToJvm(job.jvmOf(worldRank)) : 0;
        if (ep == 0) {
            throw new RmaException(ErrorClass.ERR_INTERN, "no UCX endpoint to world rank " + worldRank);
        }
        return ep;
    }

    /** The endpoint to this JVM's own worker, made at the first use (a window's atomic domain). */
    private synchronized long selfEndpoint() {
        if (selfEp == 0) {
            if (transport.isClosed()) {
                throw new RmaException(ErrorClass.ERR_PROC_ABORTED, "the ucx transport of this JVM is closed");
            }
            selfEp = worker.connect(worker.address());
        }
        return selfEp;
    }

    /**
     * Waits until {@code req} (an operation to world rank {@code worldRank}, or -1 for every peer) is complete: drives
     * the worker, and after a while the whole progress agent (the target may be waiting for this JVM's packets, and a
     * lost peer is noticed there), parking between rounds.
     *
     * @throws RmaException ERR_PROC_ABORTED when the job aborts meanwhile, or when UCX fails the operation (its
     *                      connection to the peer broke: the peer exited, was killed or failed)
     */
    void complete(long req, int worldRank) {
        int idle = 0;
        while (!done(req, worldRank)) {
            if (worker.progress() > 0) {
                idle = 0;
                continue;
            }
            if (++idle % AGENT_EVERY == 0) {
                job.agent().tryProgress();
                if (job.isAborted() || transport.isClosed()) {
                    worker.cancel(req);
                    job.checkAborted();
                    throw new RmaException(ErrorClass.ERR_PROC_ABORTED, "the ucx transport of this JVM is closed");
                }
            }
            if (idle > SPINS_BEFORE_PARK) {
                LockSupport.parkNanos(WAIT_PARK_NS);
            }
        }
    }

    private boolean done(long req, int worldRank) {
        try {
            return worker.done(req);
        } catch (RmaException e) {
            job.checkAborted(); // the job's own reason first (TCP may have heard of the loss already)
            String peer = worldRank < 0 ? "a peer" : "world rank " + worldRank + " (JVM " + job.jvmOf(worldRank) + ")";
            throw new RmaException(ErrorClass.ERR_PROC_ABORTED, "an operation on the memory of " + peer + " over UCX"
                    + " failed (" + e.getMessage() + "): it exited, was killed or failed", e);
        }
    }
}

package io.jrma.sync;

import io.jrma.Flavor;
import io.jrma.WinCounters.Counter;
import io.jrma.core.runtime.Job;
import io.jrma.spi.transport.RemoteMemory;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The RDMA lane of one window (issue 31): puts and gets to peers whose transport reaches their registered window
 * memory ({@link RemoteMemory}, the ucx transport) go straight into that memory, with no packet and no part for the
 * target's CPU where the transport has none (RDMA hardware; UCX emulates it over shared memory and TCP).
 *
 * <p>Decided once, when the window is created ({@link #register}, {@link #open}): allocate and create windows
 * register their memory with the JVM's transport that has a memory side and publish the key with the rest of what
 * ranks exchange at creation; a peer takes this lane when it is not reached by load/store (a packet peer) and its
 * transport has a memory side and accepted the key. Dynamic and shared windows do not take it (dynamic: regions are
 * attached later; shared: every peer is direct).
 *
 * <p>What takes the lane: put and get whose target bytes are contiguous, from the transport's
 * {@link RemoteMemory#minBytes} up (smaller ones are cheaper as packets, queued and sent in batches, since each lane
 * operation waits for its own completion). The accumulate family (accumulate, get_accumulate, fetch_and_op,
 * compare_and_swap) does not take this lane: in a window with an {@link AtomicDomain} every rank does all of them by
 * the transport's remote atomics, to every target; else they stay on the packets for every peer, applied by one
 * agent per target (remote atomics would not be atomic with the target's own application of accumulate packets).
 * A put or get that conflicts with an accumulate in the same epoch is erroneous in MPI, so the lanes need no order
 * between them. Non-contiguous targets go as packets too.
 *
 * <p>Completion: an operation returns locally complete (a get with its data); {@link #flush} completes them at the
 * target, and the synchronization calls run it before they complete the packets or signal ({@link Epochs}). In a
 * passive-target epoch the lock is taken through the packets as always, and the first operation on this lane waits
 * until the target granted it ({@link PacketOrigin#awaitLockGranted}).
 *
 * <p>Immutable after creation apart from the transport's own state; any of the rank's threads.
 */
final class RdmaLane {
    /** Bytes staged at a time for a put or get from or to a heap array. */
    private static final int STAGE = Staging.STAGE;

    private final WindowImpl w;
    /** Per window rank: the transport's memory side for a peer on this lane, else null. */
    private final RemoteMemory[] memory;
    private final long[] handles;
    /** Per window rank: the address of its window memory in its own process. */
    private final long[] bases;
    private final int[] worldRanks;
    private final int[] lanePeers;
    /**
     * Per window rank: 1 once a lane operation to it returned since its last flush (set after the operation is
     * posted, cleared before the flush: an operation that returned before a flush began is covered by it), so
     * synchronization without lane operations (a fence after small puts, which went as packets) flushes nothing.
     */
    private final AtomicIntegerArray dirty;
    /** Per window rank: the smallest put or get the lane takes ({@link RemoteMemory#minBytes}). */
    private final long[] minBytes;
    /**
     * Per window rank: where its window memory is mapped in this process ({@link RemoteMemory#pointer}), its puts and
     * gets then being copies by this thread of any size; 0: through the transport's put and get.
     */
    private final long[] mapped;
    private final int mappedPeers;

    private RdmaLane(WindowImpl w, RemoteMemory[] memory, long[] handles, long[] bases, int[] worldRanks,
            long[] mapped) {
        this.w = w;
        this.memory = memory;
        this.handles = handles;
        this.bases = bases;
        this.worldRanks = worldRanks;
        this.mapped = mapped;
        this.dirty = new AtomicIntegerArray(memory.length);
        this.minBytes = new long[memory.length];
        int m = 0;
        for (int t = 0; t < memory.length; t++) {
            minBytes[t] = memory[t] == null ? Long.MAX_VALUE : mapped[t] != 0 ? 1 : Math.max(1, memory[t].minBytes());
            m += mapped[t] != 0 ? 1 : 0;
        }
        this.mappedPeers = m;
        int k = 0;
        int[] ts = new int[memory.length];
        for (int t = 0; t < memory.length; t++) {
            if (memory[t] != null) {
                ts[k++] = t;
            }
        }
        this.lanePeers = Arrays.copyOf(ts, k);
    }

    /** The memory side of this JVM's transports to other JVMs, or null (none has one, or it is turned off). */
    static RemoteMemory memoryOf(Job job) {
        for (int r = 0; r < job.size(); r++) {
            if (!job.isLocal(r)) {
                RemoteMemory m = job.transportFor(r).remoteMemory();
                if (m != null) {
                    return m;
                }
            }
        }
        return null;
    }

    /**
     * The memory of an allocate window (not shared) of {@code size} bytes, with its target state, from the transport
     * with a memory side, where it has memory of its own to give ({@link RemoteMemory#allocate}: UCX's, mapped into
     * the processes its shared-memory transports reach); null otherwise (one JVM, no such transport).
     */
    static RemoteMemory.Allocation allocate(Job job, long size) {
        if (job.jvmCount() < 2) {
            return null;
        }
        RemoteMemory m = memoryOf(job);
        return m == null ? null : m.allocate(size);
    }

    /**
     * Registers this rank's window memory for the lane before the ranks exchange what they know (null: the flavor,
     * the window or the job does not take the lane).
     */
    static RemoteMemory.Registration register(Job job, Flavor flavor, WindowMemory mem) {
        if (flavor != Flavor.ALLOCATE && flavor != Flavor.CREATE || mem.length == 0 || job.jvmCount() < 2) {
            return null;
        }
        RemoteMemory m = memoryOf(job);
        return m == null ? null : m.register(mem.address, mem.length);
    }

    /**
     * Opens the lane to the peers that take it ({@code keys[t]} non-null, not direct, a transport with a memory
     * side); null when none does.
     */
    static RdmaLane open(WindowImpl w, Peer[] peers, byte[][] keys, long[] bases) {
        RemoteMemory[] memory = new RemoteMemory[peers.length];
        long[] handles = new long[peers.length];
        int[] worldRanks = new int[peers.length];
        long[] mapped = new long[peers.length];
        boolean any = false;
        for (int t = 0; t < peers.length; t++) {
            worldRanks[t] = peers[t].worldRank;
            if (peers[t].direct || keys[t] == null || w.job.isLocal(peers[t].worldRank)) {
                continue;
            }
            RemoteMemory m = w.job.transportFor(peers[t].worldRank).remoteMemory();
            long h = m == null ? 0 : m.attach(peers[t].worldRank, keys[t]);
            if (h != 0) {
                memory[t] = m;
                handles[t] = h;
                mapped[t] = peers[t].size == 0 ? 0 : m.pointer(h, bases[t]);
                any = true;
            }
        }
        return any ? new RdmaLane(w, memory, handles, bases, worldRanks, mapped) : null;
    }

    /** Whether peer {@code t} is on this lane. */
    boolean reaches(int t) {
        return memory[t] != null;
    }

    /** How many peers are on this lane. */
    int peers() {
        return lanePeers.length;
    }

    /** How many of them it reaches through a mapping of their memory (loads and stores). */
    int mappedPeers() {
        return mappedPeers;
    }

    /**
     * Does a checked operation on the lane if it takes it (see the class comment); returns false when it goes as a
     * packet instead.
     */
    boolean issue(OpArgs a) {
        RemoteMemory m = memory[a.target];
        boolean put = a.kind == OpArgs.PUT;
        if (m == null || !put && a.kind != OpArgs.GET || a.bytes == 0 || a.bytes < minBytes[a.target]
                || !a.targetLayout.isContiguous()) {
            return false;
        }
        long lo = a.targetOffset + a.targetLayout.dataLow(a.targetCount);
        if (a.targetLayout.dataHigh(a.targetCount) - a.targetLayout.dataLow(a.targetCount) != a.bytes) {
            return false;
        }
        boolean contiguous = a.originLayout.isContiguous();
        if (!contiguous && a.bytes > STAGE) {
            return false; // a large scattered origin: the packets gather it
        }
        w.packets.awaitLockGranted(a.target);
        int wr = worldRanks[a.target];
        long remote = bases[a.target] + lo;
        long h = handles[a.target];
        long origin = a.origin.offset + a.originLayout.dataLow(a.originCount);
        if (mapped[a.target] != 0) {
            // mapped: a copy straight between the origin and the peer's memory (a scattered origin is at most STAGE)
            long at = mapped[a.target] + lo;
            if (put) {
                Staging.pack(a, contiguous, origin, 0, at, a.bytes);
            } else {
                Staging.unpack(a, contiguous, origin, 0, at, a.bytes);
            }
        } else if (a.origin.base == null && contiguous) {
            if (put) {
                m.put(wr, origin, a.bytes, remote, h);
            } else {
                m.get(wr, origin, a.bytes, remote, h);
            }
        } else {
            long stage = Staging.buffer(a.bytes);
            for (long at = 0; at < a.bytes; at += STAGE) {
                long n = Math.min(STAGE, a.bytes - at);
                if (put) {
                    Staging.pack(a, contiguous, origin, at, stage, n);
                    m.put(wr, stage, n, remote + at, h);
                } else {
                    m.get(wr, stage, n, remote + at, h);
                    Staging.unpack(a, contiguous, origin, at, stage, n);
                }
            }
        }
        if (dirty.get(a.target) == 0) {
            dirty.set(a.target, 1);
        }
        w.counters.add(put ? Counter.BYTES_PUT : Counter.BYTES_GOT, a.bytes);
        w.counters.increment(Counter.RDMA_OPS);
        w.counters.add(Counter.RDMA_BYTES, a.bytes);
        return true;
    }

    /** Completes at target {@code t} what this lane did there (a mapped peer: a full fence after the stores). */
    void flush(int t) {
        if (memory[t] != null && dirty.get(t) != 0 && dirty.getAndSet(t, 0) != 0) {
            if (mapped[t] != 0) {
                VarHandle.fullFence();
            } else {
                memory[t].flush(worldRanks[t]);
            }
        }
    }

    /** Completes at targets {@code ts} what this lane did there. */
    void flush(int[] ts) {
        for (int t : ts) {
            flush(t);
        }
    }

    /** Completes at every target what this lane did there. */
    void flushAll() {
        for (int t : lanePeers) {
            flush(t);
        }
    }

    /** Releases the peers' keys (at free, once every peer is done with this rank's memory). */
    void release() {
        for (int t : lanePeers) {
            memory[t].detach(handles[t]);
        }
    }
}

package io.jrma.sync;

import io.jrma.Flavor;
import io.jrma.WinCounters.Counter;
import io.jrma.core.dt.BasicType;
import io.jrma.core.op.OpCode;
import io.jrma.core.os.CrossMemory;
import io.jrma.shm.window.OpSlots;
import io.jrma.shm.window.RemoteRegions;

/**
 * The lane table of one window: which {@link Lane} each peer takes, decided once when the window is created
 * ({@link #decide}), and the adaptive rules for memory private to another JVM of the host, in one place.
 *
 * <p>Per peer, at creation:
 * <ul>
 *   <li>{@link Lane#DIRECT_STORE}: the peer's memory and synchronization state are mapped here (a rank of this JVM,
 *       or a shared segment of another JVM of the host);</li>
 *   <li>{@link Lane#PRIVATE_MEMORY}: a rank of another JVM of the host whose state is mapped here but whose memory is
 *       private to its JVM (a dynamic window's regions, a create window over memory not from the allocator);</li>
 *   <li>{@link Lane#RDMA}: a packet peer whose transport has a memory side that accepted its key
 *       ({@link RdmaLane});</li>
 *   <li>{@link Lane#PACKET}: every other peer, through the transport that reaches it (the shared-memory rings,
 *       TCP, UCX, or the in-JVM loopback when {@code jrma.path=packet}).</li>
 * </ul>
 * Each operation reads its peer's lane from the {@link Peer} (one final field of the object the operation loads
 * anyway) and dispatches on it once: {@link FastPath} and {@link Operations} do not decide again.
 *
 * <p>The rules for private memory, per operation (first touch: the owner's process is proven reachable by the kernel
 * at the first copy, {@link RemoteRegions#crossMemoryPid}):
 * <ol>
 *   <li>bytes in a region in a shared segment (dynamic windows): {@link Lane#DIRECT_STORE} on this JVM's mapping;</li>
 *   <li>a small get of a target that polls the library now: {@link Lane#REQUEST_SLOT} ({@link #slotFirst});</li>
 *   <li>a contiguous put or get the kernel may copy ({@link #kernelCopyMay}): {@link Lane#KERNEL_COPY};</li>
 *   <li>a single small operation that fits a slot: {@link Lane#REQUEST_SLOT};</li>
 *   <li>else, or when any of those refuses: {@link Lane#PACKET}, which also reports every error.</li>
 * </ol>
 * Kernel copies and slots bypass the packets only while nothing is queued or unacknowledged for the target
 * ({@link PacketOrigin#bypass}), so operations to one target stay in order.
 *
 * <p>Immutable after creation; any of the rank's threads.
 */
final class Lanes {
    /** Bytes staged at a time for a put or get by cross memory attach from or to a heap array. */
    private static final int STAGE = Staging.STAGE;

    private final WindowImpl w;
    /** Per peer, the lanes its operations may take, for {@code win.info()}. */
    private final String[] labels;

    private Lanes(WindowImpl w, String[] labels) {
        this.w = w;
        this.labels = labels;
    }

    /**
     * Decides every peer's lane (once, at creation): replaces each of {@code peers} by the same peer on its lane.
     * {@code w.rdma} is already open; {@code slots} holds, per peer, its request slots as mapped here (0: none).
     */
    static Lanes decide(WindowImpl w, Peer[] peers, long[] slots) {
        WinConfig config = w.config;
        boolean kernel = config.crossMemoryMin != Long.MAX_VALUE && CrossMemory.available();
        String[] labels = new String[peers.length];
        for (int t = 0; t < peers.length; t++) {
            Peer p = peers[t];
            Lane lane;
            if (p.direct) {
                lane = p.regions == null ? Lane.DIRECT_STORE : Lane.PRIVATE_MEMORY;
            } else {
                lane = w.rdma != null && w.rdma.reaches(t) ? Lane.RDMA : Lane.PACKET;
            }
            peers[t] = p.on(lane);
            String packet = Lane.PACKET.label + "/" + w.job.transportFor(p.worldRank).name();
            StringBuilder l = new StringBuilder();
            switch (lane) {
                case DIRECT_STORE -> l.append(lane.label);
                case PRIVATE_MEMORY -> {
                    if (w.flavor == Flavor.DYNAMIC) {
                        l.append(Lane.DIRECT_STORE.label).append('|');
                    }
                    if (kernel) {
                        l.append(Lane.KERNEL_COPY.label).append('|');
                    }
                    if (config.opSlots && slots[t] != 0) {
                        l.append(Lane.REQUEST_SLOT.label).append('|');
                    }
                    l.append(packet);
                }
                case RDMA -> l.append(lane.label).append('|').append(packet);
                default -> l.append(packet);
            }
            labels[t] = l.toString();
        }
        return new Lanes(w, labels);
    }

    /** Each peer's lanes in rank order, comma-separated (info key {@code jrma_peer_lanes}). */
    String describe() {
        return String.join(",", labels);
    }

    // ---- the general path: an operation on the target's private bytes

    /**
     * Runs the checked operation {@code a} on the target's private bytes [lo, hi) (its own addresses, in a region of
     * {@code regions}) by the first lane that takes it: a small get by the slot of a target that polls, a kernel
     * copy, a request slot. False when none did: the caller sends packets, which report any error.
     */
    boolean issuePrivate(OpArgs a, RemoteRegions regions, long lo, long hi) {
        return a.kind == OpArgs.GET && slotFirst(a.target) && slot(a, lo, hi)
                || kernelCopy(a, regions, lo, hi) || slot(a, lo, hi);
    }

    /**
     * A single small atomic, put or get on the target's private bytes [lo, hi) through its request slot
     * ({@link OpSlots}), when the operation fits one, the window has slots, and the target's traffic is latency-bound
     * with nothing queued or unacknowledged ({@link PacketOrigin#bypass}, which counts it for the next flush); a call
     * that waits for its result at once (fetchAndAddLong, compareAndSwapLong) is latency-bound whatever came before.
     * Returns false when it does not apply or was not applied: the packets then do it, and report any error.
     */
    private boolean slot(OpArgs a, long lo, long hi) {
        OpSlots s = w.slots;
        if (s == null || !SlotOwner.fits(a, lo, hi) || !s.open(a.target) || !w.packets.bypass(a.target, a.blocking)) {
            return false;
        }
        if (!SlotOwner.call(s, a, lo)) {
            w.packets.bypassFailed(a.target);
            return false;
        }
        w.counters.bump(Counter.SLOT_OPS);
        if (a.kind == OpArgs.PUT || a.kind == OpArgs.GET) {
            w.counters.add(a.kind == OpArgs.PUT ? Counter.BYTES_PUT : Counter.BYTES_GOT, a.bytes);
        }
        w.epochs.notePackets(a.target); // complete already; but the next flush must count it (PacketOrigin.bypass)
        return true;
    }

    /**
     * A put or get on the target's private bytes [lo, hi) by cross memory attach: the kernel copies between this
     * process and the target's, which takes no part, so the operation is complete on return like a direct one.
     * Applies to contiguous target bytes when the target's process is proven reachable
     * ({@link RemoteRegions#crossMemoryPid}) and nothing is queued for it or in flight ({@link PacketOrigin#bypass}):
     * always from {@link WinConfig#crossMemoryMin} bytes; below that, gets while the target's traffic is
     * latency-bound (one system call beats a get's round trip through the rings). Small puts likewise, but only when
     * the call goes through the JDK's linker ({@link CrossMemory#viaJdkLinker}): through JNA a small put through the
     * rings, acknowledged by the ring's applied position, is quicker than the call. An origin buffer off the heap is
     * copied from or to in place, anything else through a staging buffer (a non-contiguous origin only up to
     * {@value #STAGE} bytes). Returns false when it does not apply or the kernel refuses (a region the target has
     * unmapped meanwhile): the packets then do it, and report any error.
     */
    private boolean kernelCopy(OpArgs a, RemoteRegions regions, long lo, long hi) {
        boolean put = a.kind == OpArgs.PUT;
        boolean contiguous = a.originLayout.isContiguous();
        if (!put && a.kind != OpArgs.GET || !kernelCopyMay(put, a.bytes) || hi - lo != a.bytes
                || !a.targetLayout.isContiguous() || !contiguous && a.bytes > STAGE) {
            return false;
        }
        int pid = kernelCopyBegin(regions, a.target, a.bytes);
        if (pid <= 0) {
            return false;
        }
        long origin = a.origin.offset + a.originLayout.dataLow(a.originCount);
        int errno;
        if (a.origin.base == null && contiguous) {
            errno = CrossMemory.transfer(put, pid, origin, lo, a.bytes);
        } else {
            long stage = Staging.buffer(a.bytes);
            errno = 0;
            for (long at = 0; errno == 0 && at < a.bytes; at += STAGE) {
                long n = Math.min(STAGE, a.bytes - at);
                if (put) {
                    Staging.pack(a, contiguous, origin, at, stage, n);
                    errno = CrossMemory.transfer(true, pid, stage, lo + at, n);
                } else {
                    errno = CrossMemory.transfer(false, pid, stage, lo + at, n);
                    if (errno == 0) {
                        Staging.unpack(a, contiguous, origin, at, stage, n);
                    }
                }
            }
        }
        return kernelCopyEnd(errno, regions, a.target, put, a.bytes);
    }

    // ---- the rules both paths share

    /**
     * The first test of a kernel copy, cheap enough to run before the epoch checks: cross memory attach is on, and
     * the size suits it (a put from {@link WinConfig#crossMemoryMin} bytes unless the call is cheap, a get of any
     * size; at most what the packets can redo).
     */
    boolean kernelCopyMay(boolean put, long bytes) {
        long min = w.config.crossMemoryMin;
        return min != Long.MAX_VALUE && (!put || bytes >= min || CrossMemory.viaJdkLinker())
                && bytes <= PacketOrigin.MAX_BYTES;
    }

    /**
     * Whether a small get, which the kernel could copy, takes target {@code t}'s request slot instead: slots on,
     * jrma.shm.opSlots.gets, and the target polls the library now ({@link OpSlots#polled}), so that the slot's
     * round trip (two cache lines) replaces a system call; a target that does not poll would make the slot wait
     * for its CPU. The fast lane asks before any rank check, so {@code t} may be PROC_NULL or outside the group:
     * then false, and the general path makes the call a no-op or reports ERR_RANK.
     */
    boolean slotFirst(int t) {
        OpSlots s = w.slots;
        return w.config.slotGets && s != null && t >= 0 && t < w.groupSize && s.polled(t);
    }

    /**
     * After the epoch checks: the owner's pid when the copy may go ahead now ({@link RemoteRegions#crossMemoryPid},
     * {@link PacketOrigin#bypass}, which counts it), else -1.
     */
    private int kernelCopyBegin(RemoteRegions regions, int t, long bytes) {
        int pid = regions.crossMemoryPid();
        return pid > 0 && w.packets.bypass(t, bytes >= w.config.crossMemoryMin) ? pid : -1;
    }

    /**
     * Ends a copy {@link #kernelCopyBegin} let through, with the kernel's {@code errno} (0: done). Returns whether
     * it was done; if not, the packets redo it whole (a put writes the same bytes again) and report any error.
     */
    private boolean kernelCopyEnd(int errno, RemoteRegions regions, int t, boolean put, long bytes) {
        if (errno != 0) {
            regions.refused(errno);
            w.packets.bypassFailed(t);
            return false;
        }
        w.counters.bumpBy(put ? Counter.BYTES_PUT : Counter.BYTES_GOT, bytes);
        w.counters.bump(Counter.CROSS_MEMORY_OPS);
        w.epochs.notePackets(t); // complete already; but the next flush must count it (PacketOrigin.bypass)
        return true;
    }

    // ---- the fast lane: the commonest calls on the target's private bytes, with raw buffers

    /**
     * The fast lane's put of {@code bytes} at {@code disp} of peer {@code t} from {@code base}/{@code offset} (base
     * null: off the heap) when the peer is on {@link Lane#PRIVATE_MEMORY}: by the kernel's copy from a buffer off the
     * heap, else a small put the kernel does not copy (by size; where it refuses, the general path finds out) through
     * the target's slot. False when neither applies: the general path then decides, and reports any error.
     */
    boolean put(int t, long disp, long bytes, Object base, long offset) {
        if (!onPrivateMemory(t)) {
            return false;
        }
        if (base == null && kernelCopy(true, offset, bytes, t, disp)) {
            return true;
        }
        return bytes <= OpSlots.MAX_PUT && !kernelCopyMay(true, bytes)
                && slot(OpArgs.PUT, null, BasicType.BYTE, t, disp, bytes, base, offset, null, 0, null, 0);
    }

    /**
     * The fast lane's get into {@code base}/{@code offset}, as {@link #put}: a small get from a target that polls the
     * library through its slot (a cache-line round trip); else, or if it is not taken in time, by the kernel's copy
     * into a buffer off the heap, which needs no target CPU.
     */
    boolean get(int t, long disp, long bytes, Object base, long offset) {
        if (!onPrivateMemory(t)) {
            return false;
        }
        if (bytes > 0 && bytes <= OpSlots.MAX_GET && slotFirst(t)
                && slot(OpArgs.GET, null, BasicType.BYTE, t, disp, bytes, null, 0, null, 0, base, offset)) {
            return true;
        }
        return base == null && kernelCopy(false, offset, bytes, t, disp);
    }

    private boolean onPrivateMemory(int t) {
        return t >= 0 && t < w.groupSize && w.peers[t].lane == Lane.PRIVATE_MEMORY;
    }

    /**
     * The target's own address of [disp, disp + bytes) when those bytes lie in memory private to the JVM of rank
     * {@code t} (a peer on {@link Lane#PRIVATE_MEMORY}): a region a dynamic window's rank attached there, or a create
     * window's memory there (one region at its own addresses); with the epoch checked and the lock word taken (what
     * kernel copies and request slots start from). Else -1, and the general path decides (and reports any error).
     */
    private long privateTarget(int t, long disp, long bytes, String what) {
        if (t < 0 || t >= w.groupSize || bytes <= 0 || disp < 0 || w.isFreed()) {
            return -1;
        }
        Peer p = w.peers[t];
        if (p.lane != Lane.PRIVATE_MEMORY) {
            return -1;
        }
        long at;
        if (w.flavor == Flavor.DYNAMIC) {
            if (disp > Long.MAX_VALUE - bytes) {
                return -1;
            }
            at = disp;
        } else {
            long off = FastPath.windowOffset(p, disp, bytes);
            if (off < 0) {
                return -1;
            }
            at = p.base + off;
        }
        RemoteRegions.Snapshot s = p.regions.current();
        int i = s.find(at, at + bytes);
        if (i == RemoteRegions.NONE || s.address(i, at) >= 0) {
            return -1;
        }
        w.epochs.checkAccess(t, what);
        w.epochs.ensureDirectLock(t);
        return at;
    }

    /**
     * A put or get from or to memory off the heap at {@code address} on bytes private to the JVM of rank {@code t}
     * ({@link #privateTarget}), by cross memory attach, under the general path's rules (contiguous, nothing queued or
     * unacknowledged, large or latency-bound, the owner's process proven). False when any of that does not hold or
     * the kernel refuses: the general path then decides, and reports any error.
     */
    private boolean kernelCopy(boolean put, long address, long bytes, int t, long disp) {
        if (!kernelCopyMay(put, bytes)) {
            return false;
        }
        long at = privateTarget(t, disp, bytes, put ? "put" : "get");
        if (at < 0) {
            return false;
        }
        RemoteRegions r = w.peers[t].regions;
        int pid = kernelCopyBegin(r, t, bytes);
        if (pid <= 0 || !kernelCopyEnd(CrossMemory.transfer(put, pid, address, at, bytes), r, t, put, bytes)) {
            return false;
        }
        w.counters.bump(put ? Counter.PUTS : Counter.GETS);
        return true;
    }

    /**
     * An accumulate, get_accumulate, fetch_and_op, compare_and_swap, small put or small get on bytes private to the
     * JVM of rank {@code t} ({@link #privateTarget}), through the target's request slot ({@link OpSlots}) under the
     * general path's rules (nothing queued or unacknowledged, latency-bound). True when it was applied, and the
     * operation counted (with its bytes for puts and the accumulate kinds); false when any of that does not hold or
     * the target refused: the general path then decides, and reports any error.
     */
    boolean slot(int kind, OpCode op, BasicType e, int t, long disp, long size, Object ob, long oo, Object cb,
            long co, Object rb, long ro) {
        OpSlots s = w.slots;
        long at;
        if (s == null || size > OpSlots.max(kind) || (at = privateTarget(t, disp, size, OpArgs.kindName(kind))) < 0
                || !s.open(t) || !w.packets.bypass(t, false)) {
            return false;
        }
        int count = kind == OpArgs.PUT || kind == OpArgs.GET ? (int) size : (int) (size / e.size());
        if (!s.call(t, kind, op, e, count, at, ob, oo, cb, co, rb, ro)) {
            w.packets.bypassFailed(t);
            return false;
        }
        w.counters.bump(Counter.SLOT_OPS);
        w.epochs.notePackets(t); // complete already; but the next flush must count it (PacketOrigin.bypass)
        w.counters.bump(OpArgs.counter(kind));
        if (kind != OpArgs.FOP && kind != OpArgs.CAS) {
            boolean got = kind == OpArgs.GET || kind == OpArgs.GET_ACC;
            w.counters.bumpBy(got ? Counter.BYTES_GOT : Counter.BYTES_PUT, size);
        }
        return true;
    }
}

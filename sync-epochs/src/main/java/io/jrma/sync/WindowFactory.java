package io.jrma.sync;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.Flavor;
import io.jrma.Info;
import io.jrma.RmaException;
import io.jrma.SharedMemory;
import io.jrma.Win;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import io.jrma.shm.ShmArena;
import io.jrma.shm.ShmSegment;
import io.jrma.shm.window.OpSlots;
import io.jrma.shm.window.RegionDirectory;
import io.jrma.shm.window.RemoteRegions;
import io.jrma.shm.window.ShmPlan;
import io.jrma.spi.transport.RemoteMemory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The window engine's entry point ({@link Win.WindowProvider}, found by ServiceLoader): collective window
 * creation. Every flavor follows the same steps: agree on a window id, set up memory, exchange what each rank
 * must know of the others ({@link Peer}), and choose the path to every peer once.
 *
 * <p>Stateless apart from the registry of shared allocations; any thread.
 */
public final class WindowFactory implements Win.WindowProvider {
    /** Allocations owned by a shared window as a whole (contiguous allocate_shared), released at free. */
    private static final Map<WindowImpl, WindowMemory> WHOLE = new ConcurrentHashMap<>();

    static String routerKey(int windowId) {
        return "win:" + windowId;
    }

    @Override
    public Win create(Comm c, Object memory, int dispUnit, Info info) {
        CommCore comm = (CommCore) c;
        WindowMemory m = WindowMemory.wrap(memory);
        WinConfig config = new WinConfig(comm.job(), info);
        ShmPlan plan = ShmPlan.of(comm, config.shmWindows, config.shmDir);
        // memory from Jrma.allocateMemory lives in a shared segment: peers in other JVMs of the host can map it,
        // and only the target state needs a segment of its own
        ShmArena.Slot slot = plan.segments && m.length > 0 ? ShmArena.lookup(m.address, m.length) : null;
        // other memory stays private to this JVM, but its synchronization state goes into a segment all the same,
        // with a directory naming the memory as one private region and request slots, as a dynamic window's: peers
        // in other JVMs of the host lock and signal by load/store and reach the memory by the kernel's copy, the
        // slots or packets ("mixed"), instead of packets for everything
        // That segment is optional: where /dev/shm has no room for it, the rank goes without, as before (packets).
        boolean privateState = plan.segments && slot == null && !config.forcePacket;
        ShmSegment state = segmentEverywhere(comm, plan, slot != null || privateState, slot == null, slot != null
                ? TargetState.bytes(comm.size())
                : stateBytes(comm.size()) + RegionDirectory.BYTES + OpSlots.bytes(comm.size()),
                "create");
        TargetState ts = state == null ? null : new TargetState(state.address(), comm.size(), m.address);
        return build(comm, Flavor.CREATE, m, dispUnit, info, null, ts, plan, state, slot);
    }

    @Override
    public Win allocate(Comm c, long size, int dispUnit, Info info, boolean shared) {
        CommCore comm = (CommCore) c;
        if (size < 0) {
            throw new RmaException(ErrorClass.ERR_SIZE,
                    "window size must be >= 0, got " + size + " at rank " + comm.rank());
        }
        checkDispUnit(comm, dispUnit);
        WinConfig config = new WinConfig(comm.job(), info);
        ShmPlan plan = ShmPlan.of(comm, config.shmWindows, config.shmDir);
        if (!shared) {
            if (plan.segments) {
                Own own = ownSegment(comm, plan, size, true);
                return build(comm, Flavor.ALLOCATE, own.memory, dispUnit, info, null, own.state,
                        plan, own.segment, null);
            }
            // memory of the transport's own where it has some (UCX over its shared memory: mapped into the peers
            // it reaches, so their puts and gets are stores and loads); else the JVM's
            // (its target state first, then its memory: a peer that maps it locks and signals by load/store too)
            long header = stateBytes(comm.size());
            RemoteMemory.Allocation given = null;
            String err = null;
            try {
                given = config.rdma ? RdmaLane.allocate(comm.job(), header + size) : null;
            } catch (RmaException e) {
                err = "rank " + comm.rank() + ": " + e.getMessage();
            }
            String bad = plan.agree(comm, err);
            if (bad != null) {
                if (given != null) {
                    RdmaLane.memoryOf(comm.job()).unregister(given.registration());
                }
                throw new RmaException(ErrorClass.ERR_NO_MEM, "allocate: " + bad);
            }
            if (given == null) {
                return build(comm, Flavor.ALLOCATE, WindowMemory.allocate(size, false), dispUnit, info, null, null,
                        plan, null, null);
            }
            WindowMemory mem = WindowMemory.allocatedBy(given, header, size);
            return build(comm, Flavor.ALLOCATE, mem, dispUnit, info, null,
                    new TargetState(given.address(), comm.size(), mem.address), plan, null, null);
        }
        if (plan.spansJvms) {
            int other = plan.firstOffHost();
            if (other >= 0) {
                throw new RmaException(ErrorClass.ERR_RMA_SHARED,
                        "allocateShared: rank " + other + " of the communicator"
                        + " runs on another host (" + plan.host(other)
                        + "), and only ranks of one host can share memory;"
                        + " split the communicator with Comm.splitShared (MPI: splitType(COMM_TYPE_SHARED)) first");
            }
            if (!plan.shmAllowed) {
                throw new RmaException(ErrorClass.ERR_RMA_SHARED,
                        "allocateShared: the communicator spans JVMs and shared"
                        + " memory between JVMs is excluded (jrma.shm.windows=false)");
            }
            if (config.allocSharedNoncontig) {
                Own own = ownSegment(comm, plan, size, false);
                return build(comm, Flavor.SHARED, own.memory, dispUnit, info, null, own.state, plan, own.segment, null);
            }
            return contiguousAcrossJvms(comm, plan, size, dispUnit, info);
        }
        plan.agreeNoError(comm);
        if (config.allocSharedNoncontig) {
            return build(comm, Flavor.SHARED, WindowMemory.allocate(size, true), dispUnit, info, null,
                    null, plan, null, null);
        }
        // contiguous: rank 0 allocates the sum; each rank's segment follows the previous rank's
        Object[] sizes = comm.allgather(size);
        long total = 0;
        long myOffset = 0;
        for (int i = 0; i < sizes.length; i++) {
            if (i == comm.rank()) {
                myOffset = total;
            }
            total += (Long) sizes[i];
        }
        WindowMemory whole = comm.rank() == 0 ? WindowMemory.allocate(total, true) : null;
        whole = (WindowMemory) comm.allgather(whole)[0];
        WindowMemory mine = whole.slice(myOffset, size);
        return build(comm, Flavor.SHARED, mine, dispUnit, info, comm.rank() == 0 ? whole : null,
                null, plan, null, null);
    }

    /** A rank's own shared segment: its target state, then (page aligned) its window memory. */
    private record Own(ShmSegment segment, WindowMemory memory, TargetState state) {
    }

    /**
     * Creates this rank's segment when the plan says so; every rank then learns whether all succeeded (so a
     * full /dev/shm fails the call everywhere, with the cause, and leaves nothing behind).
     */
    private static Own ownSegment(CommCore comm, ShmPlan plan, long size, boolean allocate) {
        long header = stateBytes(comm.size());
        ShmSegment seg = segmentEverywhere(comm, plan, true, header + size, allocate ? "allocate" : "allocateShared");
        WindowMemory mem = WindowMemory.inSegment(seg, header, size, false);
        return new Own(seg, mem, new TargetState(seg.address(), comm.size(), mem.address));
    }

    /**
     * Creates this rank's window segment of {@code bytes} when {@code wanted} (null otherwise); then every rank
     * learns whether all that wanted one got it. A failure anywhere (a full /dev/shm) fails the call on every rank
     * with ERR_NO_MEM naming the rank and the cause, and the segments that were made are removed.
     */
    private static ShmSegment segmentEverywhere(CommCore comm, ShmPlan plan, boolean wanted, long bytes, String call) {
        return segmentEverywhere(comm, plan, wanted, false, bytes, call);
    }

    /**
     * As above; with {@code optional}, this rank can do without its segment: if it cannot make it, the call goes on
     * without (null) instead of failing, and only failures of ranks whose segment is not optional fail the call.
     */
    private static ShmSegment segmentEverywhere(CommCore comm, ShmPlan plan, boolean wanted,
            boolean optional, long bytes,
            String call) {
        ShmSegment seg = null;
        String err = null;
        if (wanted) {
            try {
                seg = ShmSegment.create(plan.dir, ShmSegment.newName("win"), bytes);
            } catch (RmaException e) {
                err = optional ? null : "rank " + comm.rank() + ": " + e.getMessage(); // optional: go on without
            }
        }
        String first = plan.agree(comm, err);
        if (first != null) {
            if (seg != null) {
                seg.close();
            }
            throw new RmaException(ErrorClass.ERR_NO_MEM, call + ": " + first);
        }
        return seg;
    }

    /** Page-rounded room for one rank's target state. */
    private static long stateBytes(int n) {
        return (TargetState.bytes(n) + 4095) & ~4095L;
    }

    /**
     * allocate_shared over JVMs, contiguous: rank 0 creates one segment holding every rank's target state and
     * then all ranks' memory back to back; the others map it.
     */
    private static Win contiguousAcrossJvms(CommCore comm, ShmPlan plan, long size, int dispUnit, Info info) {
        int n = comm.size();
        Object[] sizes = comm.allgather(size);
        long total = 0;
        long myOffset = 0;
        for (int i = 0; i < n; i++) {
            if (i == comm.rank()) {
                myOffset = total;
            }
            total += (Long) sizes[i];
        }
        long ts = TargetState.bytes(n);
        long header = (ts * n + 4095) & ~4095L;
        ShmSegment seg = null;
        String err = null;
        String name = null;
        if (comm.rank() == 0) {
            try {
                seg = ShmSegment.create(plan.dir, ShmSegment.newName("win"), header + total);
                name = seg.name();
            } catch (RmaException e) {
                err = "rank 0: " + e.getMessage();
            }
        }
        Object[] got = comm.allgather(err != null ? "!" + err : name);
        String first = (String) got[0];
        if (first.startsWith("!")) {
            throw new RmaException(ErrorClass.ERR_NO_MEM, "allocateShared: " + first.substring(1));
        }
        err = null;
        if (seg == null) {
            try {
                seg = ShmSegment.open(plan.dir, first, header + total);
            } catch (RmaException e) {
                err = "rank " + comm.rank() + ": " + e.getMessage();
            }
        }
        String bad = plan.agree(comm, err);
        if (bad != null) {
            if (seg != null) {
                seg.close();
            }
            throw new RmaException(ErrorClass.ERR_RMA_SHARED, "allocateShared: " + bad);
        }
        WindowMemory mine = WindowMemory.inSegment(seg, header + myOffset, size, false);
        TargetState state = new TargetState(seg.address() + ts * comm.rank(), n, mine.address);
        return build(comm, Flavor.SHARED, mine, dispUnit, info, null, state, plan, seg, null);
    }

    @Override
    public Win createDynamic(Comm c, Info info) {
        CommCore comm = (CommCore) c;
        WinConfig config = new WinConfig(comm.job(), info);
        ShmPlan plan = ShmPlan.of(comm, config.shmWindows, config.shmDir);
        // when other JVMs of the host use the window, its synchronization state and the directory of attached
        // regions go into a shared segment, so those origins lock, signal and reach shared regions directly
        ShmSegment seg = segmentEverywhere(comm, plan, plan.segments, stateBytes(comm.size()) + RegionDirectory.BYTES
                + OpSlots.bytes(comm.size()), "createDynamic");
        TargetState state = seg == null ? null : new TargetState(seg.address(), comm.size(), 0); // keyed by address
        return build(comm, Flavor.DYNAMIC, WindowMemory.EMPTY, 1, info, null, state, plan, seg, null);
    }

    @Override
    public long address(Object memory) {
        return WindowMemory.wrap(memory).address;
    }

    private static void checkDispUnit(CommCore comm, int dispUnit) {
        if (dispUnit <= 0) {
            throw new RmaException(ErrorClass.ERR_DISP,
                    "disp_unit must be > 0, got " + dispUnit + " at rank " + comm.rank());
        }
    }

    private static Win build(CommCore comm, Flavor flavor, WindowMemory mem, int dispUnit,
            Info info, WindowMemory whole,
                             TargetState state, ShmPlan plan, ShmSegment own, ShmArena.Slot arena) {
        Job job = comm.job();
        job.checkAborted();
        checkDispUnit(comm, dispUnit);
        WinConfig config = new WinConfig(job, info);
        int id = (Integer) comm.allgather(comm.rank() == 0 ? job.newObjectId() : null)[0];
        WindowRouter router = (WindowRouter) job.shared().computeIfAbsent(routerKey(id), k -> {
            WindowRouter r = new WindowRouter(job.size());
            job.agent().register(id, r);
            return r;
        });
        WindowImpl w = new WindowImpl(comm, id, flavor, mem, dispUnit, config, router, state);
        if (own != null) {
            w.addSegment(own);
        }
        boolean dynamic = flavor == Flavor.DYNAMIC;
        if (info != null) {
            w.setInfo(info);
        }
        router.register(w.worldRanks[w.rank], w.receiver);
        job.addCounters(w.counters);
        long segBase = own == null ? 0 : own.address();
        // where this rank's memory and state are: both in its own segment (allocate flavors), or memory in a
        // segment of the shared allocator and state in its own segment (create over Jrma.allocateMemory)
        // (memory private to this JVM: a dynamic window's, or a create window's over memory not from the allocator)
        boolean privateMemory = dynamic || flavor == Flavor.CREATE && arena == null;
        String memSeg = own == null || privateMemory ? null : arena != null ? arena.segment() : own.name();
        long memSegSize = own == null || privateMemory ? 0 : arena != null ? arena.segmentSize() : own.size();
        long memOffset = own == null || privateMemory ? 0 : arena != null ? arena.offset() : mem.address - segBase;
        // the RDMA lane (decided here, once): this rank's memory registered with the transport that has a memory side
        // (info jrma_rdma=false: neither the lane nor the atomic domain, packets in issue order to other JVMs)
        RemoteMemory.Registration rdmaKey = mem.registration != null ? mem.registration
                : config.rdma ? RdmaLane.register(job, flavor, mem) : null;
        if (rdmaKey != null) {
            w.rdmaRegistration = rdmaKey;
            w.rdmaMemory = RdmaLane.memoryOf(job);
        }
        // the atomic domain's memory side (a rank with an empty window needs no key, only the side for its calls)
        RemoteMemory atomicSide = config.rdma && (flavor == Flavor.ALLOCATE || flavor == Flavor.CREATE)
                && job.jvmCount() > 1
                ? RdmaLane.memoryOf(job) : null;
        Object[] all = comm.allgather(new Peer.Info(w.rank, w.worldRanks[w.rank], mem.length, dispUnit, mem.address,
                plan.myHost(), memSeg, memSegSize, memOffset, own == null ? null : own.name(),
                own == null ? 0 : own.size(),
                own == null ? 0 : state.address() - segBase, rdmaKey == null ? null : rdmaKey.key(),
                mem.registration != null && state != null ? state.address() : 0,
                AtomicDomain.able(atomicSide, rdmaKey != null || mem.length == 0, w.worldRanks)));
        byte[][] rdmaKeys = new byte[all.length][];
        boolean[] atomicsAble = new boolean[all.length];
        long[] rdmaBases = new long[all.length];
        Peer[] peers = new Peer[all.length];
        long[] slots = new long[all.length];
        WindowImpl[] local = new WindowImpl[all.length];
        SharedMemory[] shared = new SharedMemory[all.length];
        boolean anyPacket = false;
        boolean allShared = true;
        boolean mixed = false;
        String mapError = null;
        for (int i = 0; i < all.length; i++) {
            Peer.Info o = (Peer.Info) all[i];
            rdmaKeys[i] = o.rdmaKey();
            atomicsAble[i] = o.atomics();
            rdmaBases[i] = o.base();
            local[i] = router.localWindow(o.worldRank()); // decided once: same JVM means reachable by load/store
            TargetState ts = null;
            long base = o.base();
            WindowMemory view = null;
            boolean inMySegment = own != null && own.name().equals(o.segment());
            RemoteRegions regions = null;
            if (local[i] != null && !inMySegment) {
                ts = local[i].target;
                view = local[i].memory;
            } else if (o.rdmaState() != 0 && w.rdmaMemory != null && !config.forcePacket && mapError == null) {
                // state and memory that UCX allocated in another JVM, which UCX maps here when its shared-memory
                // transports reach that JVM: locked, signalled and reached by load/store, as a shared segment
                // (not through shared_query: size 0 there)
                try {
                    long p = w.mapPeer(o.worldRank(), o.rdmaKey(), o.rdmaState());
                    if (p != 0) {
                        base = p + (o.base() - o.rdmaState());
                        ts = new TargetState(p, all.length, base);
                    }
                } catch (RmaException e) { // (every rank hears of it below, none waits for this one)
                    mapError = "rank " + w.rank + " cannot reach the UCX memory of rank " + i + ": " + e.getMessage();
                }
            } else if (dynamic || o.segment() == null) {
                if (own != null && o.stateSegment() != null && o.host().equals(plan.myHost()) && mapError == null) {
                    // a rank of another JVM here: lock word and signals by load/store, attached regions (a create
                    // window's memory: one private region) through its directory (direct where they lie in shared
                    // segments; kernel copies, request slots or packets where they are private)
                    try {
                        ShmSegment st = w.mapShared(o.stateSegment(), o.stateSegmentSize());
                        long sa = st.address() + o.stateOffset();
                        ts = new TargetState(sa, all.length, 0);
                        regions = new RemoteRegions(w::mapShared, w.job::checkAborted,
                                new RegionDirectory(sa + stateBytes(all.length)),
                                TargetState.elementTable(sa, all.length));
                        slots[i] = sa + stateBytes(all.length) + RegionDirectory.BYTES;
                    } catch (RmaException e) {
                        mapError = "rank " + w.rank + " cannot map the state of rank " + i + ": " + e.getMessage();
                    }
                }
            } else if (own != null && o.stateSegment() != null && o.host().equals(plan.myHost()) && mapError == null) {
                // same host, memory in a shared segment: map it (once) and reach it by load/store; a contiguous
                // shared window is seen through this rank's own mapping, so the ranks' memory is contiguous here
                try {
                    ShmSegment seg = w.mapShared(o.segment(), o.segmentSize());
                    ShmSegment st = w.mapShared(o.stateSegment(), o.stateSegmentSize());
                    view = WindowMemory.inSegment(seg, o.memoryOffset(), o.size(), false);
                    base = view.address;
                    ts = local[i] != null ? local[i].target
                            : new TargetState(st.address() + o.stateOffset(), all.length, base);
                } catch (RmaException e) {
                    mapError = "rank " + w.rank + " cannot map the memory of rank " + i + ": " + e.getMessage();
                }
            }
            boolean direct = ts != null && !config.forcePacket;
            if (!direct) {
                regions = null;
                slots[i] = 0;
            }
            anyPacket |= !direct;
            mixed |= regions != null;
            allShared &= view != null;
            peers[i] = new Peer(i, o.worldRank(), o.size(), o.dispUnit(), base, direct, local[i], ts, regions);
            shared[i] = view == null ? new SharedMemory(i, 0, o.dispUnit(), 0, null, null)
                    : new SharedMemory(i, view.length, o.dispUnit(), view.address, view.bytes, view.buffer);
        }
        if (rdmaKey != null && mapError == null) {
            w.rdma = RdmaLane.open(w, peers, rdmaKeys, rdmaBases);
        }
        w.lanes = Lanes.decide(w, peers, slots); // every peer on its lane, once
        w.peers = peers;
        w.anyPacketPeer = anyPacket;
        w.mixedPeers = mixed;
        long ownSlots = 0;
        if (dynamic && own != null) {
            w.regions.publishTo(new RegionDirectory(own.address() + stateBytes(all.length)));
            ownSlots = own.address() + stateBytes(all.length) + RegionDirectory.BYTES;
        } else if (flavor == Flavor.CREATE && own != null && arena == null) {
            RegionDirectory d = new RegionDirectory(own.address() + stateBytes(all.length));
            d.identify();
            d.publish(mem.length == 0 ? new long[0] : new long[] {mem.address},
                    mem.length == 0 ? new long[0] : new long[] {mem.address + mem.length});
            ownSlots = own.address() + stateBytes(all.length) + RegionDirectory.BYTES;
        }
        if (ownSlots != 0 || mixed) {
            // served whatever this rank's setting: jrma.shm.opSlots=false only keeps its own calls off them
            w.slots = new OpSlots(new SlotOwner(w), ownSlots, config.opSlots ? slots : new long[all.length]);
        }
        if (flavor == Flavor.SHARED && !allShared && mapError == null) {
            mapError = "allocateShared: the ranks of the communicator do not all share memory with rank " + w.rank;
        }
        if (flavor == Flavor.SHARED || flavor == Flavor.ALLOCATE) {
            w.shared = shared; // MPI-4.1: shared_query also on allocate windows (size 0 where not shared)
        }
        w.ctrl = (CommCore) comm.dup();
        if (whole != null) {
            WHOLE.put(w, whole);
        }
        // the atomic domain: every rank said it is able (first exchange) and attached every rank's key here
        AtomicDomain domain = atomicSide != null && mapError == null
                ? AtomicDomain.open(w, atomicSide, atomicsAble, peers, rdmaKeys, rdmaBases) : null;
        // nobody communicates before every rank has its peers; a rank that could not map a peer fails everyone
        Object[] errors = comm.allgather(new Object[] {mapError, anyPacket, domain != null});
        boolean somePacket = false;
        boolean allDomain = true;
        for (Object o : errors) {
            Object e = ((Object[]) o)[0];
            somePacket |= (Boolean) ((Object[]) o)[1];
            allDomain &= (Boolean) ((Object[]) o)[2];
            if (e != null) {
                if (domain != null) {
                    domain.release();
                }
                w.abandon();
                throw new RmaException(flavor == Flavor.SHARED ? ErrorClass.ERR_RMA_SHARED
                        : ErrorClass.ERR_OTHER, (String) e);
            }
        }
        if (somePacket && allDomain) {
            // the atomic domain, where some rank reaches some peer by packets or RDMA (not all by load/store, whose
            // CPU atomics are atomic with each other): decided from what every rank said, the same in every rank
            w.atomics = domain;
        } else if (domain != null) {
            domain.release();
        }
        if (own != null) {
            own.unlink(); // every peer has mapped it: the mappings outlive the file, a crash leaves nothing behind
        }
        return w;
    }

    static void retire(WindowImpl w) {
        w.job.retireCounters(w.counters);
        WindowMemory whole = WHOLE.remove(w);
        if (whole != null) {
            whole.release();
        }
    }
}

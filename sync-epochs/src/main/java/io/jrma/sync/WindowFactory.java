package io.jrma.sync;

import io.jrma.ErrorClass;
import io.jrma.Flavor;
import io.jrma.Info;
import io.jrma.RmaException;
import io.jrma.SharedMemory;
import io.jrma.Win;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
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
    public Win create(CommCore comm, Object memory, int dispUnit, Info info) {
        WindowMemory m = WindowMemory.wrap(memory);
        return build(comm, Flavor.CREATE, m, dispUnit, info, null);
    }

    @Override
    public Win allocate(CommCore comm, long size, int dispUnit, Info info, boolean shared) {
        if (size < 0) {
            throw new RmaException(ErrorClass.ERR_SIZE, "window size must be >= 0, got " + size + " at rank " + comm.rank());
        }
        checkDispUnit(comm, dispUnit);
        WinConfig config = new WinConfig(comm.job(), info);
        if (!shared) {
            return build(comm, Flavor.ALLOCATE, WindowMemory.allocate(size, false), dispUnit, info, null);
        }
        for (int r = 0; r < comm.size(); r++) {
            if (!comm.job().isLocal(comm.worldRank(r))) {
                throw new RmaException(ErrorClass.ERR_RMA_SHARED, "allocateShared: rank " + r + " of the communicator"
                        + " runs in another JVM (world rank " + comm.worldRank(r) + "), and memory shared between JVMs"
                        + " needs the window-shm module, which is not available yet; use Win.allocate, or run the ranks"
                        + " that share memory in one JVM");
            }
        }
        if (config.allocSharedNoncontig) {
            return build(comm, Flavor.SHARED, WindowMemory.allocate(size, true), dispUnit, info, null);
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
        return build(comm, Flavor.SHARED, mine, dispUnit, info, comm.rank() == 0 ? whole : null);
    }

    @Override
    public Win createDynamic(CommCore comm, Info info) {
        return build(comm, Flavor.DYNAMIC, WindowMemory.EMPTY, 1, info, null);
    }

    @Override
    public long address(Object memory) {
        return WindowMemory.wrap(memory).address;
    }

    private static void checkDispUnit(CommCore comm, int dispUnit) {
        if (dispUnit <= 0) {
            throw new RmaException(ErrorClass.ERR_DISP, "disp_unit must be > 0, got " + dispUnit + " at rank " + comm.rank());
        }
    }

    private static Win build(CommCore comm, Flavor flavor, WindowMemory mem, int dispUnit, Info info, WindowMemory whole) {
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
        WindowImpl w = new WindowImpl(comm, id, flavor, mem, dispUnit, config, router);
        if (info != null) {
            w.setInfo(info);
        }
        router.register(w.worldRanks[w.rank], w.receiver);
        job.addCounters(w.counters);
        Object[] all = comm.allgather(new Peer.Info(w.rank, w.worldRanks[w.rank], mem.length, dispUnit, mem.address));
        Peer[] peers = new Peer[all.length];
        WindowImpl[] local = new WindowImpl[all.length];
        boolean anyPacket = false;
        boolean allLocal = true;
        for (int i = 0; i < all.length; i++) {
            Peer.Info o = (Peer.Info) all[i];
            local[i] = router.localWindow(o.worldRank()); // decided once: same JVM means reachable by load/store
            allLocal &= local[i] != null;
            boolean direct = local[i] != null && !config.forcePacket;
            anyPacket |= !direct;
            peers[i] = new Peer(i, o.worldRank(), o.size(), o.dispUnit(), o.base(), direct, local[i]);
        }
        w.peers = peers;
        w.anyPacketPeer = anyPacket;
        if (flavor == Flavor.SHARED) {
            if (!allLocal) {
                throw new RmaException(ErrorClass.ERR_RMA_SHARED, "allocateShared: the ranks of the communicator do not"
                        + " all share this JVM's memory (memory shared between JVMs comes with the window-shm module)");
            }
            SharedMemory[] s = new SharedMemory[all.length];
            for (int i = 0; i < all.length; i++) {
                WindowImpl o = local[i];
                s[i] = new SharedMemory(i, o.memory.length, o.dispUnit, o.memory.address, o.memory.bytes, o.buffer());
            }
            w.shared = s;
        }
        w.ctrl = (CommCore) comm.dup();
        if (whole != null) {
            WHOLE.put(w, whole);
        }
        comm.allgather(null); // nobody communicates before every rank has its peers
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

package io.jrma.sync;


import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Flavor;
import io.jrma.Op;
import io.jrma.RmaException;
import io.jrma.WinCounters.Counter;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.mem.Memory;
import io.jrma.core.op.AccumulateKernel;
import io.jrma.core.op.OpCode;
import io.jrma.core.os.CrossMemory;

/**
 * The general path of every communication call of a window: checks arguments (rank, counts, datatypes and
 * their signatures, ops, buffers, target range) and the epoch in MPI's terms, then runs the operation on the
 * path chosen for the target at creation: {@link DirectOps} or {@link PacketOrigin}. The direct fast lane
 * ({@link FastPath}) handles the commonest calls before they get here.
 *
 * <p>Stateless apart from its window; any of the rank's threads.
 */
final class Operations {
    private final WindowImpl w;

    Operations(WindowImpl w) {
        this.w = w;
    }

    /** Checks a call's arguments and epoch; returns null for a PROC_NULL target. */
    OpArgs prepare(int kind, Object origin, long oc, Datatype ot, Object result, long rc, Datatype rt,
                           Object compare, int t, long disp, long tc, Datatype tt, Op op) {
        w.checkLive();
        String what = OpArgs.kindName(kind);
        if (t == io.jrma.Win.PROC_NULL) {
            return null;
        }
        if (t < 0 || t >= w.groupSize) {
            throw w.fail(ErrorClass.ERR_RANK, what + ": target rank " + t + " is not in the window's group of size " + w.groupSize);
        }
        if (oc < 0 || tc < 0 || rc < 0) {
            throw w.fail(ErrorClass.ERR_COUNT, what + ": negative count (origin " + oc + ", target " + tc + ", result " + rc + ")");
        }
        requireType(ot, "origin", what);
        requireType(tt, "target", what);
        OpArgs a = new OpArgs();
        a.kind = kind;
        a.target = t;
        a.originCount = oc;
        a.originLayout = ot.layout();
        a.targetCount = tc;
        a.targetLayout = tt.layout();
        a.bytes = tc * tt.size();
        boolean accFamily = kind == OpArgs.ACC || kind == OpArgs.GET_ACC || kind == OpArgs.FOP;
        if (accFamily) {
            if (op == null) {
                throw w.fail(ErrorClass.ERR_OP, what + ": op is null");
            }
            a.op = op.code();
        }
        if (kind == OpArgs.FOP || kind == OpArgs.CAS) {
            if (!tt.isPredefined()) {
                throw w.fail(ErrorClass.ERR_TYPE, what + " needs a predefined datatype, got " + tt);
            }
        }
        if (kind == OpArgs.PUT || kind == OpArgs.GET) {
            if (!a.originLayout.signatureMatches(oc, a.targetLayout, tc)) {
                throw w.fail(ErrorClass.ERR_TYPE, what + ": origin " + oc + " x " + ot + " does not match target " + tc + " x " + tt);
            }
        } else {
            a.elem = tt.elementType();
            if (a.elem == null) {
                throw w.fail(ErrorClass.ERR_TYPE, what + ": target datatype " + tt + " must consist of one predefined type");
            }
            if (accFamily) {
                if (!AccumulateKernel.isValid(a.op, a.elem)) {
                    throw w.fail(ErrorClass.ERR_OP, what + ": op " + op + " is not defined for " + a.elem);
                }
            }
            boolean usesOrigin = a.op != OpCode.NO_OP;
            if (usesOrigin && (ot.elementType() != a.elem || !a.originLayout.signatureMatches(oc, a.targetLayout, tc))) {
                throw w.fail(ErrorClass.ERR_TYPE, what + ": origin " + oc + " x " + ot + " does not match target " + tc + " x " + tt);
            }
            if (kind != OpArgs.ACC) {
                requireType(rt, "result", what);
                a.resultCount = rc;
                a.resultLayout = rt.layout();
                if (rt.elementType() != a.elem || !a.resultLayout.signatureMatches(rc, a.targetLayout, tc)) {
                    throw w.fail(ErrorClass.ERR_TYPE, what + ": result " + rc + " x " + rt + " does not match target " + tc + " x " + tt);
                }
                a.result = buffer(result, rc, a.resultLayout, "result", what);
            }
            if (!usesOrigin) {
                a.originCount = 0;
            }
        }
        a.origin = buffer(origin, a.originCount, a.originLayout, "origin", what);
        if (kind == OpArgs.CAS) {
            a.compare = buffer(compare, 1, a.targetLayout, "compare", what);
        }
        Peer p = w.peers[t];
        if (w.flavor == Flavor.DYNAMIC) {
            a.targetOffset = disp;
        } else {
            if (disp < 0) {
                throw w.fail(ErrorClass.ERR_DISP, what + ": negative target displacement " + disp);
            }
            long off;
            try {
                off = Math.multiplyExact(disp, (long) p.dispUnit);
            } catch (ArithmeticException e) {
                throw w.fail(ErrorClass.ERR_DISP, what + ": displacement " + disp + " x disp_unit " + p.dispUnit + " overflows");
            }
            a.targetOffset = off;
            if (a.bytes > 0) {
                long lo = off + a.targetLayout.dataLow(tc);
                long hi = off + a.targetLayout.dataHigh(tc);
                if (lo < 0 || hi > p.size) {
                    throw w.fail(ErrorClass.ERR_RMA_RANGE, what + " to rank " + t + ": target bytes [" + lo + ", " + hi
                            + ") (disp " + disp + " x disp_unit " + p.dispUnit + ", " + tc + " x " + tt
                            + ") are outside its window of " + p.size + " bytes");
                }
            }
        }
        w.epochs.checkAccess(t, what);
        return a;
    }

    private void requireType(Datatype d, String role, String what) {
        if (d == null) {
            throw w.fail(ErrorClass.ERR_TYPE, what + ": " + role + " datatype is null");
        }
        if (!d.isCommitted()) {
            throw w.fail(ErrorClass.ERR_TYPE, what + ": " + role + " datatype " + d + " is not committed");
        }
    }

    private Buffers.Ref buffer(Object buf, long count, TypeLayout layout, String role, String what) {
        if (count == 0 || layout.size() == 0) {
            return buf == null ? Buffers.NONE : resolve(buf, role, what);
        }
        if (buf == null) {
            throw w.fail(ErrorClass.ERR_BUFFER, what + ": " + role + " buffer is null");
        }
        Buffers.Ref r = resolve(buf, role, what);
        long lo = layout.dataLow(count);
        long hi = layout.dataHigh(count);
        if (lo < 0 || hi > r.capacity) {
            throw w.fail(ErrorClass.ERR_BUFFER, what + ": " + role + " data spans bytes [" + lo + ", " + hi
                    + ") but the " + role + " buffer has " + r.capacity);
        }
        return r;
    }

    /** Runs a checked operation on the target's path. */
    void issue(OpArgs a, CompletionRequest r) {
        Peer p = w.peers[a.target];
        w.counters.increment(OpArgs.counter(a.kind));
        if (!p.direct) {
            RdmaLane lane = w.rdma;
            if (lane != null && lane.issue(a)) {
                if (r != null) {
                    r.complete();
                }
                return;
            }
            w.packets.issue(a, r);
            return;
        }
        w.epochs.ensureDirectLock(a.target);
        long addr;
        io.jrma.core.op.ElementLocks locks = p.target.elementLocks;
        if (p.regions != null) {
            // a dynamic window's rank in another JVM of the host: direct where the region is shared memory (a create
            // window's rank there whose memory is private to its JVM: one private region, at its own addresses)
            RemoteRegions.Snapshot s = p.regions.current();
            addr = 0; // no bytes: nothing is touched
            if (a.bytes > 0) {
                long at = w.flavor == Flavor.DYNAMIC ? a.targetOffset : p.base + a.targetOffset;
                long lo = at + a.targetLayout.dataLow(a.targetCount);
                long hi = at + a.targetLayout.dataHigh(a.targetCount);
                int i = s.find(lo, hi);
                if (i == RemoteRegions.NONE && !s.overflow) {
                    throw w.fail(ErrorClass.ERR_RMA_RANGE, OpArgs.kindName(a.kind) + " to rank " + a.target + ": bytes [0x"
                            + Long.toHexString(lo) + ", 0x" + Long.toHexString(hi) + ") are not attached there (attached: "
                            + s.describe() + ")");
                }
                addr = i == RemoteRegions.NONE ? -1 : s.address(i, at);
                if (addr < 0 && i != RemoteRegions.NONE) {
                    // the target's private bytes: by the kernel's copy, else by its request slot, when either applies
                    // (a small get first by the slot of a target that polls: slotFirst)
                    if (a.kind == OpArgs.GET && slotFirst(a.target) && slot(a, lo, hi)
                            || crossMemory(a, p.regions, lo, hi) || slot(a, lo, hi)) {
                        if (r != null) {
                            r.complete();
                        }
                        return;
                    }
                }
                if (addr < 0) { // private memory of the target's JVM (or beyond the directory): the target applies it
                    w.epochs.notePackets(a.target);
                    w.packets.issue(a, r);
                    return;
                }
                locks = s.locks[i];
            }
        } else if (w.flavor == Flavor.DYNAMIC) {
            addr = a.targetOffset;
            if (a.bytes > 0) {
                long lo = addr + a.targetLayout.dataLow(a.targetCount);
                long hi = addr + a.targetLayout.dataHigh(a.targetCount);
                if (!p.local.regions.contains(lo, hi)) {
                    throw w.fail(ErrorClass.ERR_RMA_RANGE, OpArgs.kindName(a.kind) + " to rank " + a.target + ": bytes [0x"
                            + Long.toHexString(lo) + ", 0x" + Long.toHexString(hi) + ") are not attached there (attached: "
                            + p.local.regions.describe() + ")");
                }
            }
        } else {
            addr = p.base + a.targetOffset;
        }
        switch (a.kind) {
            case OpArgs.PUT: DirectOps.put(a, addr); w.counters.add(Counter.BYTES_PUT, a.bytes); break;
            case OpArgs.GET: DirectOps.get(a, addr); w.counters.add(Counter.BYTES_GOT, a.bytes); break;
            case OpArgs.ACC: DirectOps.accumulate(a, addr, locks); w.counters.add(Counter.BYTES_PUT, a.bytes); break;
            case OpArgs.CAS: DirectOps.compareAndSwap(a, addr, locks); break;
            default: DirectOps.getAccumulate(a, addr, locks); w.counters.add(Counter.BYTES_GOT, a.bytes); break;
        }
        w.counters.increment(Counter.DIRECT_OPS);
        if (r != null) {
            r.complete();
        }
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
        if (s == null || !OpSlots.fits(a, lo, hi) || !s.open(a.target) || !w.packets.bypass(a.target, a.blocking)) {
            return false;
        }
        if (!s.call(a, lo)) {
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

    /** Bytes staged at a time for a put or get by cross memory attach from or to a heap array. */
    private static final int STAGE = 256 << 10;
    private static final ThreadLocal<java.nio.ByteBuffer> STAGING = new ThreadLocal<>();

    /**
     * A put or get on the target's private bytes [lo, hi) (its own addresses, in a region it attached) by cross
     * memory attach: the kernel copies between this process and the target's, which takes no part, so the
     * operation is complete on return like a direct one. Applies to contiguous target bytes when the target's
     * process is proven reachable ({@link RemoteRegions#crossMemoryPid}) and nothing is queued for it or in flight
     * ({@link PacketOrigin#bypass}): always from {@link WinConfig#crossMemoryMin} bytes; below that, gets while the
     * target's traffic is latency-bound (one system call, about a microsecond here through JNA, beats a get's round
     * trip through the rings). Small puts likewise, but only when the call goes through the JDK's linker
     * ({@link CrossMemory#viaJdkLinker}, about 0.5 µs): through JNA a small put through the rings, acknowledged by
     * the ring's applied position, is quicker than the call. An origin buffer off the heap is copied from or to in
     * place, anything else through a staging buffer (a non-contiguous origin only up to {@value #STAGE} bytes).
     * Returns false when it does not apply or the kernel refuses (a region the target has unmapped meanwhile): the
     * packets then do it, and report any error.
     */
    private boolean crossMemory(OpArgs a, RemoteRegions regions, long lo, long hi) {
        boolean put = a.kind == OpArgs.PUT;
        boolean contiguous = a.originLayout.isContiguous();
        if (!put && a.kind != OpArgs.GET || !crossMemoryMay(put, a.bytes) || hi - lo != a.bytes
                || !a.targetLayout.isContiguous() || !contiguous && a.bytes > STAGE) {
            return false;
        }
        int pid = crossMemoryBegin(regions, a.target, a.bytes);
        if (pid <= 0) {
            return false;
        }
        long origin = a.origin.offset + a.originLayout.dataLow(a.originCount);
        int errno;
        if (a.origin.base == null && contiguous) {
            errno = CrossMemory.transfer(put, pid, origin, lo, a.bytes);
        } else {
            long stage = staging(a.bytes);
            errno = 0;
            for (long at = 0; errno == 0 && at < a.bytes; at += STAGE) {
                long n = Math.min(STAGE, a.bytes - at);
                if (put) {
                    if (contiguous) {
                        Memory.copy(a.origin.base, origin + at, null, stage, n);
                    } else {
                        TypeLayout.copy(a.origin.base, a.origin.offset, a.originCount, a.originLayout, null, stage, n,
                                Datatype.BYTE.layout());
                    }
                    errno = CrossMemory.transfer(true, pid, stage, lo + at, n);
                } else {
                    errno = CrossMemory.transfer(false, pid, stage, lo + at, n);
                    if (errno == 0 && contiguous) {
                        Memory.copy(null, stage, a.origin.base, origin + at, n);
                    } else if (errno == 0) {
                        TypeLayout.copy(null, stage, n, Datatype.BYTE.layout(), a.origin.base, a.origin.offset,
                                a.originCount, a.originLayout);
                    }
                }
            }
        }
        return crossMemoryEnd(errno, regions, a.target, put, a.bytes);
    }

    /**
     * The first test of {@link #crossMemory}, shared with {@link FastPath}, cheap enough to run before the epoch
     * checks: cross memory attach is on, and the size suits it (a put from {@link WinConfig#crossMemoryMin} bytes
     * unless the call is cheap, a get of any size; at most what the packets can redo).
     */
    boolean crossMemoryMay(boolean put, long bytes) {
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
    int crossMemoryBegin(RemoteRegions regions, int t, long bytes) {
        int pid = regions.crossMemoryPid();
        return pid > 0 && w.packets.bypass(t, bytes >= w.config.crossMemoryMin) ? pid : -1;
    }

    /**
     * Ends a copy {@link #crossMemoryBegin} let through, with the kernel's {@code errno} (0: done). Returns whether
     * it was done; if not, the packets redo it whole (a put writes the same bytes again) and report any error.
     */
    boolean crossMemoryEnd(int errno, RemoteRegions regions, int t, boolean put, long bytes) {
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

    /**
     * This thread's staging buffer, at least {@code bytes} long up to {@value #STAGE} (grown on demand, so small
     * operations keep a small one; freed with the thread's last reference to it).
     */
    private static long staging(long bytes) {
        java.nio.ByteBuffer b = STAGING.get();
        long need = Math.min(STAGE, bytes);
        if (b == null || b.capacity() < need) {
            b = java.nio.ByteBuffer.allocateDirect((int) Math.max(need, b == null ? 256 : Math.min(STAGE, 2L * b.capacity())));
            STAGING.set(b);
        }
        return org.agrona.BufferUtil.address(b);
    }

    private Buffers.Ref resolve(Object buf, String role, String what) {
        try {
            return Buffers.resolve(buf, role);
        } catch (RmaException e) {
            throw w.rename(e, what);
        }
    }
}

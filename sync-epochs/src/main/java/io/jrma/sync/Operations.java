package io.jrma.sync;


import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Flavor;
import io.jrma.Op;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.op.AccumulateKernel;
import io.jrma.core.op.ElementLocks;
import io.jrma.core.op.OpCode;
import io.jrma.shm.window.RemoteRegions;

/**
 * The general path of every communication call of a window: checks arguments (rank, counts, datatypes and
 * their signatures, ops, buffers, target range) and the epoch in MPI's terms, then runs the operation on the
 * lane chosen for the target at creation ({@link Lanes}): {@link DirectOps}, the private-memory rules of
 * {@link Lanes}, {@link RdmaLane} or {@link PacketOrigin}. The direct fast lane
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
        if (t == Win.PROC_NULL) {
            return null;
        }
        if (t < 0 || t >= w.groupSize) {
            throw w.fail(ErrorClass.ERR_RANK,
                    what + ": target rank " + t + " is not in the window's group of size " + w.groupSize);
        }
        if (oc < 0 || tc < 0 || rc < 0) {
            throw w.fail(ErrorClass.ERR_COUNT,
                    what + ": negative count (origin " + oc + ", target " + tc + ", result " + rc + ")");
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
                throw w.fail(ErrorClass.ERR_TYPE,
                        what + ": origin " + oc + " x " + ot + " does not match target " + tc + " x " + tt);
            }
        } else {
            a.elem = tt.elementType();
            if (a.elem == null) {
                throw w.fail(ErrorClass.ERR_TYPE,
                        what + ": target datatype " + tt + " must consist of one predefined type");
            }
            if (accFamily) {
                if (!AccumulateKernel.isValid(a.op, a.elem)) {
                    throw w.fail(ErrorClass.ERR_OP, what + ": op " + op + " is not defined for " + a.elem);
                }
            }
            boolean usesOrigin = a.op != OpCode.NO_OP;
            if (usesOrigin && (ot.elementType() != a.elem
                    || !a.originLayout.signatureMatches(oc, a.targetLayout, tc))) {
                throw w.fail(ErrorClass.ERR_TYPE,
                        what + ": origin " + oc + " x " + ot + " does not match target " + tc + " x " + tt);
            }
            if (kind != OpArgs.ACC) {
                requireType(rt, "result", what);
                a.resultCount = rc;
                a.resultLayout = rt.layout();
                if (rt.elementType() != a.elem || !a.resultLayout.signatureMatches(rc, a.targetLayout, tc)) {
                    throw w.fail(ErrorClass.ERR_TYPE,
                            what + ": result " + rc + " x " + rt + " does not match target " + tc + " x " + tt);
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
                throw w.fail(ErrorClass.ERR_DISP,
                        what + ": displacement " + disp + " x disp_unit " + p.dispUnit + " overflows");
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
        if (w.atomics != null && a.kind != OpArgs.PUT && a.kind != OpArgs.GET && w.atomics.issue(a)) {
            if (r != null) { // by remote atomics, every rank and target alike: complete at the target already
                r.complete();
            }
            return;
        }
        Lane lane = p.lane; // decided at creation (Lanes): one dispatch
        if (lane == Lane.PACKET || lane == Lane.RDMA) {
            if (lane == Lane.RDMA && w.rdma.issue(a)) {
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
        ElementLocks locks = p.target.elementLocks;
        if (lane == Lane.PRIVATE_MEMORY) {
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
                    throw w.fail(ErrorClass.ERR_RMA_RANGE,
                            OpArgs.kindName(a.kind) + " to rank " + a.target + ": bytes [0x"
                            + Long.toHexString(lo) + ", 0x" + Long.toHexString(hi)
                            + ") are not attached there (attached: "
                            + s.describe() + ")");
                }
                addr = i == RemoteRegions.NONE ? -1 : s.address(i, at);
                if (addr < 0 && i != RemoteRegions.NONE) {
                    // the target's private bytes: by the kernel's copy or its request slot, by Lanes' rules
                    if (w.lanes.issuePrivate(a, p.regions, lo, hi)) {
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
                locks = s.locks(i);
            }
        } else if (w.flavor == Flavor.DYNAMIC) {
            addr = a.targetOffset;
            if (a.bytes > 0) {
                long lo = addr + a.targetLayout.dataLow(a.targetCount);
                long hi = addr + a.targetLayout.dataHigh(a.targetCount);
                if (!p.local.regions.contains(lo, hi)) {
                    throw w.fail(ErrorClass.ERR_RMA_RANGE,
                            OpArgs.kindName(a.kind) + " to rank " + a.target + ": bytes [0x"
                            + Long.toHexString(lo) + ", 0x" + Long.toHexString(hi)
                            + ") are not attached there (attached: "
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

    private Buffers.Ref resolve(Object buf, String role, String what) {
        try {
            return Buffers.resolve(buf, role);
        } catch (RmaException e) {
            throw w.rename(e, what);
        }
    }
}

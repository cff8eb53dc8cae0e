package io.jrma.sync;


import io.jrma.Datatype;
import io.jrma.Flavor;
import io.jrma.Op;
import io.jrma.WinCounters.Counter;
import io.jrma.core.dt.BasicType;
import io.jrma.core.mem.BulkCopy;
import io.jrma.core.mem.Memory;
import io.jrma.core.op.AccumulateKernel;
import io.jrma.core.op.ElementLocks;
import io.jrma.shm.window.RemoteRegions;
import java.nio.ByteBuffer;
import org.agrona.BufferUtil;

/**
 * The direct path's fast lane for the commonest calls: same predefined datatype and count on both sides, a
 * direct peer, a window with a base address, and a buffer that is a primitive array or a direct ByteBuffer.
 * It makes the same checks as the general path without allocating; anything unusual (including every
 * error) returns {@code false} so the general path runs and reports it precisely.
 *
 * <p>Stateless apart from the window; any of the rank's threads.
 */
final class FastPath {
    private final WindowImpl w;
    private final boolean dynamic;

    FastPath(WindowImpl w) {
        this.w = w;
        this.dynamic = w.flavor == Flavor.DYNAMIC;
    }

    /** Base object of a buffer usable by the fast lane, or a sentinel meaning "not usable". */
    private static final Object NO = new Object();

    private static final long LONG_BASE = Memory.arrayBase(long[].class);
    private static final long DOUBLE_BASE = Memory.arrayBase(double[].class);
    private static final long INT_BASE = Memory.arrayBase(int[].class);
    private static final long BYTE_BASE = Memory.arrayBase(byte[].class);

    /** Base object of a buffer usable by the fast lane (null: off-heap), or NO. */
    private static Object base(Object buf) {
        Class<?> c = buf.getClass();
        if (c == long[].class || c == double[].class || c == int[].class || c == byte[].class) {
            return buf;
        }
        if (buf instanceof ByteBuffer && ((ByteBuffer) buf).isDirect()) {
            return null;
        }
        return NO;
    }

    private static long offset(Object buf) {
        Class<?> c = buf.getClass();
        if (c == long[].class) {
            return LONG_BASE;
        }
        if (c == double[].class) {
            return DOUBLE_BASE;
        }
        if (c == int[].class) {
            return INT_BASE;
        }
        if (c == byte[].class) {
            return BYTE_BASE;
        }
        return BufferUtil.address((ByteBuffer) buf);
    }

    private static long capacity(Object buf) {
        Class<?> c = buf.getClass();
        if (c == long[].class) {
            return ((long[]) buf).length * 8L;
        }
        if (c == double[].class) {
            return ((double[]) buf).length * 8L;
        }
        if (c == int[].class) {
            return ((int[]) buf).length * 4L;
        }
        if (c == byte[].class) {
            return ((byte[]) buf).length;
        }
        return ((ByteBuffer) buf).capacity();
    }

    /**
     * Target address for {@code bytes} at {@code disp} of rank t when the peer's lane stores there
     * ({@link Lane#DIRECT_STORE}, or a dynamic window's region in a shared segment of a peer on
     * {@link Lane#PRIVATE_MEMORY}), or -1: then {@link Lanes} or the general path take it.
     */
    private long target(int t, long disp, long bytes) {
        if (t < 0 || t >= w.groupSize || disp < 0 || w.isFreed()) {
            return -1;
        }
        Peer p = w.peers[t];
        Lane lane = p.lane;
        if (lane == Lane.DIRECT_STORE) {
            if (dynamic) {
                return localTarget(p, disp, bytes);
            }
            long off = windowOffset(p, disp, bytes);
            return off < 0 ? -1 : p.base + off;
        }
        // (a create window's rank in another JVM whose memory is private there: Lanes' kernel copy and slot)
        return lane == Lane.PRIVATE_MEMORY && dynamic ? sharedRegionTarget(p, disp, bytes) : -1;
    }

    /** A create or allocate window's byte offset of {@code bytes} at {@code disp} of peer p, or -1 outside it. */
    static long windowOffset(Peer p, long disp, long bytes) {
        if (disp > (Long.MAX_VALUE >> 8) / p.dispUnit) {
            return -1;
        }
        long off = disp * p.dispUnit;
        return off + bytes > p.size ? -1 : off;
    }

    /**
     * A dynamic window's target address on a rank of this JVM ({@code disp} is its own address of the bytes), where
     * it attached them; else -1 (bytes attached nowhere: the general path reports the error).
     */
    private static long localTarget(Peer p, long disp, long bytes) {
        if (disp > Long.MAX_VALUE - bytes) {
            return -1;
        }
        WindowImpl l = p.local;
        return l != null && l.regions.contains(disp, disp + bytes) ? disp : -1;
    }

    /**
     * A dynamic window's target address on a rank of another JVM where the bytes lie in a shared segment (mapped
     * here); -1 for private memory there (kernel copies, slots, packets) or bytes attached nowhere.
     */
    private static long sharedRegionTarget(Peer p, long disp, long bytes) {
        if (disp > Long.MAX_VALUE - bytes) {
            return -1;
        }
        RemoteRegions.Snapshot s = p.regions.current();
        int i = s.find(disp, disp + bytes);
        return i == RemoteRegions.NONE ? -1 : s.address(i, disp);
    }

    /**
     * The element locks guarding the target's bytes at {@code disp}: the target's table; for a dynamic window's
     * rank in another JVM, the table keyed by that rank's addresses (regions are mapped at other addresses here).
     */
    private ElementLocks locks(int t, long disp) {
        Peer p = w.peers[t];
        RemoteRegions r = p.regions;
        if (r != null) {
            RemoteRegions.Snapshot s = r.current();
            int i = s.find(disp, disp + 1);
            if (i != RemoteRegions.NONE && s.locks(i) != null) {
                return s.locks(i);
            }
        }
        return p.target.elementLocks;
    }

    /**
     * One aligned 8-byte integer with SUM, REPLACE or NO_OP: a single CPU atomic (lock xadd, xchg, or a
     * volatile load), the case the flush/lock microbenchmarks and ticket counters exercise. Stores the old
     * value in the result when {@code rb != NO}. Returns false if the case does not apply.
     */
    private static boolean singleLong(Op op, BasicType e, Object ob, long oo, long addr, Object rb, long ro) {
        if ((e != BasicType.LONG && e != BasicType.UINT64) || (addr & 7) != 0) {
            return false;
        }
        long old;
        if (op == Op.SUM) {
            old = Memory.getAndAddLong(null, addr, Memory.getLongPlain(ob, oo));
        } else if (op == Op.REPLACE) {
            old = Memory.getAndSetLong(null, addr, Memory.getLongPlain(ob, oo));
        } else if (op == Op.NO_OP) {
            old = Memory.getLongVolatile(null, addr);
        } else {
            return false;
        }
        if (ro != 0) {
            Memory.putLongPlain(rb, ro, old);
        }
        return true;
    }

    /**
     * SUM of a few aligned 4-byte integers (OSU's accumulate tests, counters, histograms): one locked add per
     * element, without the kernel's per-element dispatch; the old values go to the result unless {@code rb} is
     * {@link #NO}. False when it does not apply.
     */
    private static boolean sumInts(Op op, BasicType e, Object ob, long oo, long addr, long count, Object rb, long ro) {
        if (op != Op.SUM || (e != BasicType.INT && e != BasicType.UINT32) || (addr & 3) != 0 || count > 64) {
            return false;
        }
        for (long i = 0; i < count; i++) {
            int old = Memory.getAndAddInt(null, addr + 4 * i, Memory.getIntPlain(ob, oo + 4 * i));
            if (rb != NO) {
                Memory.putIntPlain(rb, ro + 4 * i, old);
            }
        }
        return true;
    }

    boolean put(Object origin, long count, Datatype type, int t, long disp) {
        if (!type.isPredefined() || count < 0 || count > (1L << 40) || origin == null) {
            return false;
        }
        Object base = base(origin);
        long bytes = count * type.size();
        long addr = target(t, disp, bytes);
        if (addr < 0) { // another lane: private memory of another JVM (Lanes), else the general path
            return base != NO && bytes <= capacity(origin) && w.lanes.put(t, disp, bytes, base, offset(origin));
        }
        if (base == NO || addr < 0 || bytes > capacity(origin)) {
            return false;
        }
        w.epochs.checkAccess(t, "put");
        w.epochs.ensureDirectLock(t);
        long src = offset(origin);
        if (bytes == 8) {
            Memory.putLongPlain(addr, Memory.getLongPlain(base, src));
        } else {
            BulkCopy.copy(base, src, null, addr, bytes);
        }
        w.counters.bump(Counter.PUTS);
        w.counters.bump(Counter.DIRECT_OPS);
        w.counters.bumpBy(Counter.BYTES_PUT, bytes);
        return true;
    }

    boolean get(Object origin, long count, Datatype type, int t, long disp) {
        if (!type.isPredefined() || count < 0 || count > (1L << 40) || origin == null) {
            return false;
        }
        Object base = base(origin);
        long bytes = count * type.size();
        long addr = target(t, disp, bytes);
        if (addr < 0) { // another lane: private memory of another JVM (Lanes), else the general path
            return base != NO && bytes <= capacity(origin) && w.lanes.get(t, disp, bytes, base, offset(origin));
        }
        if (base == NO || bytes > capacity(origin)) {
            return false;
        }
        w.epochs.checkAccess(t, "get");
        w.epochs.ensureDirectLock(t);
        long dst = offset(origin);
        if (bytes == 8) {
            Memory.putLongPlain(base, dst, Memory.getLongPlain(addr));
        } else {
            BulkCopy.copy(null, addr, base, dst, bytes);
        }
        w.counters.bump(Counter.GETS);
        w.counters.bump(Counter.DIRECT_OPS);
        w.counters.bumpBy(Counter.BYTES_GOT, bytes);
        return true;
    }

    boolean accumulate(Object origin, long count, Datatype type, int t, long disp, Op op) {
        BasicType e;
        if (w.atomics != null || !type.isPredefined() || op == null || count < 0 || count > (1L << 40)
                || origin == null || !AccumulateKernel.isValid(op.code(), e = type.elementType())) {
            return false;
        }
        Object base = base(origin);
        long bytes = count * type.size();
        if (base == NO || count == 0 || bytes > capacity(origin)) {
            return false;
        }
        long addr = target(t, disp, bytes);
        if (addr < 0) {
            return w.lanes.slot(OpArgs.ACC, op.code(), e, t, disp, bytes, base, offset(origin), null, 0, null, 0);
        }
        w.epochs.checkAccess(t, "accumulate");
        w.epochs.ensureDirectLock(t);
        if ((count != 1 || !singleLong(op, e, base, offset(origin), addr, null, 0))
                && !sumInts(op, e, base, offset(origin), addr, count, NO, 0)) {
            AccumulateKernel.accumulate(op.code(), e, base, offset(origin), null, addr, count, locks(t, disp));
        }
        w.counters.bump(Counter.ACCUMULATES);
        w.counters.bump(Counter.DIRECT_OPS);
        w.counters.bumpBy(Counter.BYTES_PUT, bytes);
        return true;
    }

    /**
     * A get_accumulate whose origin (unless the op is NO_OP), result and target are {@code count} elements of one
     * predefined type: {@link #fetching}.
     */
    boolean getAccumulate(Object origin, long count, Datatype type, Object result, int t, long disp, Op op) {
        return fetching(OpArgs.GET_ACC, origin, count, type, result, t, disp, op);
    }

    /** A fetch_and_op: {@link #fetching} of one element. */
    boolean fetchAndOp(Object origin, Object result, Datatype type, int t, long disp, Op op) {
        return fetching(OpArgs.FOP, origin, 1, type, result, t, disp, op);
    }

    /**
     * A get_accumulate or fetch_and_op ({@code kind}) of {@code count} elements: on a direct target by CPU atomics,
     * one per element (a single locked instruction for one aligned long or for SUM on aligned ints, else the
     * accumulate kernel); on a target's private bytes through its request slot when they fit one.
     */
    private boolean fetching(int kind, Object origin, long count, Datatype type, Object result, int t, long disp,
            Op op) {
        BasicType e;
        if (w.atomics != null || !type.isPredefined() || op == null || result == null || count <= 0
                || count > (1L << 40) || !AccumulateKernel.isValid(op.code(), e = type.elementType())) {
            return false;
        }
        boolean noOp = op == Op.NO_OP;
        if (!noOp && origin == null) {
            return false;
        }
        Object ob = noOp ? null : base(origin);
        Object rb = base(result);
        long bytes = count * type.size();
        if (ob == NO || rb == NO || (!noOp && bytes > capacity(origin)) || bytes > capacity(result)) {
            return false;
        }
        long oo = noOp ? 0 : offset(origin);
        long ro = offset(result);
        long addr = target(t, disp, bytes);
        if (addr < 0) {
            return w.lanes.slot(kind, op.code(), e, t, disp, bytes, ob, oo, null, 0, rb, ro);
        }
        w.epochs.checkAccess(t, OpArgs.kindName(kind));
        w.epochs.ensureDirectLock(t);
        if ((count != 1 || !singleLong(op, e, ob, oo, addr, rb, ro)) && !sumInts(op, e, ob, oo, addr, count, rb, ro)) {
            AccumulateKernel.getAccumulate(op.code(), e, ob, oo, null, addr, rb, ro, count, locks(t, disp));
        }
        w.counters.bump(OpArgs.counter(kind));
        w.counters.bump(Counter.DIRECT_OPS);
        w.counters.bumpBy(Counter.BYTES_GOT, bytes);
        return true;
    }

    boolean compareAndSwap(Object origin, Object compare, Object result, Datatype type, int t, long disp) {
        if (w.atomics != null || !type.isPredefined() || origin == null || compare == null || result == null) {
            return false;
        }
        BasicType.Kind k = type.elementType().kind();
        if (k == BasicType.Kind.COMPLEX || k == BasicType.Kind.PAIR) {
            return false;
        }
        Object ob = base(origin);
        Object cb = base(compare);
        Object rb = base(result);
        long size = type.size();
        long addr = target(t, disp, size);
        if (ob == NO || cb == NO || rb == NO || capacity(origin) < size || capacity(compare) < size
                || capacity(result) < size) {
            return false;
        }
        if (addr < 0) {
            return w.lanes.slot(OpArgs.CAS, null, type.elementType(), t, disp, size, ob, offset(origin),
                    cb, offset(compare),
                    rb, offset(result));
        }
        w.epochs.checkAccess(t, "compare_and_swap");
        w.epochs.ensureDirectLock(t);
        AccumulateKernel.compareAndSwap(type.elementType(), cb, offset(compare), ob, offset(origin), null, addr, rb,
                offset(result), locks(t, disp));
        w.counters.bump(Counter.COMPARE_AND_SWAPS);
        w.counters.bump(Counter.DIRECT_OPS);
        return true;
    }
}

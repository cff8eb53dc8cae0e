package io.jrma.sync;


import io.jrma.Datatype;
import io.jrma.Flavor;
import io.jrma.Op;
import io.jrma.WinCounters.Counter;
import io.jrma.core.dt.BasicType;
import io.jrma.core.mem.BulkCopy;
import io.jrma.core.mem.Memory;
import io.jrma.core.op.AccumulateKernel;
import io.jrma.core.os.CrossMemory;
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

    /** Target address for {@code bytes} at {@code disp} of rank t, or -1 if the fast lane does not apply. */
    private long target(int t, long disp, long bytes) {
        if (t < 0 || t >= w.groupSize || disp < 0 || w.isFreed()) {
            return -1;
        }
        Peer p = w.peers[t];
        if (!p.direct) {
            return -1;
        }
        if (dynamic) {
            return dynamicTarget(p, disp, bytes);
        }
        if (p.regions != null) {
            // (a create window's rank in another JVM whose memory is private there: the private lanes, crossMemory
            // and slot, else the general path)
            return -1;
        }
        long off = windowOffset(p, disp, bytes);
        return off < 0 ? -1 : p.base + off;
    }

    /** A create or allocate window's byte offset of {@code bytes} at {@code disp} of peer p, or -1 outside it. */
    private static long windowOffset(Peer p, long disp, long bytes) {
        if (disp > (Long.MAX_VALUE >> 8) / p.dispUnit) {
            return -1;
        }
        long off = disp * p.dispUnit;
        return off + bytes > p.size ? -1 : off;
    }

    /**
     * A dynamic window's target address: {@code disp} is the target's own address of the bytes. A rank of this
     * JVM is reached where it attached them; a rank of another JVM where they lie in a shared segment (mapped
     * here). -1 for anything else (private memory of another JVM, bytes attached nowhere): the general path
     * sends packets or reports the error.
     */
    private static long dynamicTarget(Peer p, long disp, long bytes) {
        if (disp > Long.MAX_VALUE - bytes) {
            return -1;
        }
        RemoteRegions r = p.regions;
        if (r != null) {
            RemoteRegions.Snapshot s = r.current();
            int i = s.find(disp, disp + bytes);
            return i == RemoteRegions.NONE ? -1 : s.address(i, disp);
        }
        WindowImpl l = p.local;
        return l != null && l.regions.contains(disp, disp + bytes) ? disp : -1;
    }

    /**
     * The element locks guarding the target's bytes at {@code disp}: the target's table; for a dynamic window's
     * rank in another JVM, the table keyed by that rank's addresses (regions are mapped at other addresses here).
     */
    private io.jrma.core.op.ElementLocks locks(int t, long disp) {
        Peer p = w.peers[t];
        RemoteRegions r = p.regions;
        if (r != null) {
            RemoteRegions.Snapshot s = r.current();
            int i = s.find(disp, disp + 1);
            if (i != RemoteRegions.NONE && s.locks[i] != null) {
                return s.locks[i];
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

    /**
     * The target's own address of [disp, disp + bytes) when those bytes lie in memory private to the JVM of rank
     * {@code t} (in another JVM of the host): a region a dynamic window's rank attached there, or a create window's
     * memory there (one region at its own addresses); with the epoch checked and the lock word taken (what cross memory
     * attach and the request slots start from). Else -1, and the general path decides (and reports any error).
     */
    private long privateTarget(int t, long disp, long bytes, String what) {
        if (t < 0 || t >= w.groupSize || bytes <= 0 || disp < 0 || w.isFreed()) {
            return -1;
        }
        Peer p = w.peers[t];
        RemoteRegions r = p.regions;
        if (!p.direct || r == null) {
            return -1;
        }
        long at;
        if (dynamic) {
            if (disp > Long.MAX_VALUE - bytes) {
                return -1;
            }
            at = disp;
        } else {
            long off = windowOffset(p, disp, bytes);
            if (off < 0) {
                return -1;
            }
            at = p.base + off;
        }
        RemoteRegions.Snapshot s = r.current();
        int i = s.find(at, at + bytes);
        if (i == RemoteRegions.NONE || s.address(i, at) >= 0) {
            return -1;
        }
        w.epochs.checkAccess(t, what);
        w.epochs.ensureDirectLock(t);
        return at;
    }

    /**
     * A put or get from or to a direct buffer on bytes private to the JVM of rank {@code t} ({@link #privateTarget}:
     * a dynamic or create window), by cross memory attach, under the general path's rules ({@link Operations}:
     * contiguous, nothing queued or unacknowledged, large or latency-bound, the owner's process proven). False when
     * any of that does not hold or the kernel refuses: the general path then decides, and reports any error.
     */
    private boolean crossMemory(boolean put, Object origin, long bytes, int t, long disp) {
        if (!w.ops.crossMemoryMay(put, bytes) || !(origin instanceof ByteBuffer) || !((ByteBuffer) origin).isDirect()
                || bytes > capacity(origin)) {
            return false;
        }
        long at = privateTarget(t, disp, bytes, put ? "put" : "get");
        if (at < 0) {
            return false;
        }
        RemoteRegions r = w.peers[t].regions;
        int pid = w.ops.crossMemoryBegin(r, t, bytes);
        if (pid <= 0 || !w.ops.crossMemoryEnd(CrossMemory.transfer(put, pid, offset(origin), at, bytes), r, t, put, bytes)) {
            return false;
        }
        w.counters.bump(put ? Counter.PUTS : Counter.GETS);
        return true;
    }

    /**
     * An accumulate, get_accumulate, fetch_and_op, compare_and_swap, small put or small get on bytes private to the JVM of
     * rank {@code t} ({@link #privateTarget}: a dynamic or create window), through the target's request slot
     * ({@link OpSlots}) under the general path's rules ({@link Operations}: nothing queued or unacknowledged,
     * latency-bound). True when it was applied, and the operation counted (with its bytes for puts and the accumulate
     * kinds); false when any of that does not hold or the target refused: the general path then decides, and reports
     * any error.
     */
    private boolean slot(int kind, io.jrma.core.op.OpCode op, BasicType e, int t, long disp, long size, Object ob, long oo,
            Object cb, long co, Object rb, long ro) {
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
            w.counters.bumpBy(kind == OpArgs.GET || kind == OpArgs.GET_ACC ? Counter.BYTES_GOT : Counter.BYTES_PUT, size);
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
        if (addr < 0) {
            if (base == null && crossMemory(true, origin, bytes, t, disp)) {
                return true;
            }
            // a small put the kernel does not copy (by size; where it refuses, the general path finds out): through
            // the target's slot
            return base != NO && bytes <= OpSlots.MAX_PUT && bytes <= capacity(origin)
                    && !w.ops.crossMemoryMay(true, bytes)
                    && slot(OpArgs.PUT, null, BasicType.BYTE, t, disp, bytes, base, offset(origin), null, 0, null, 0);
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
        if (addr < 0) {
            // a small get from a target that polls the library: through its slot (a cache-line round trip); else, or
            // if it is not taken in time, by the kernel's copy, which needs no target CPU
            if (base != NO && bytes > 0 && bytes <= OpSlots.MAX_GET && bytes <= capacity(origin) && w.ops.slotFirst(t)
                    && slot(OpArgs.GET, null, BasicType.BYTE, t, disp, bytes, null, 0, null, 0, base, offset(origin))) {
                return true;
            }
            return base == null && crossMemory(false, origin, bytes, t, disp);
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
        if (!type.isPredefined() || op == null || count < 0 || count > (1L << 40) || origin == null
                || !AccumulateKernel.isValid(op.code(), e = type.elementType())) {
            return false;
        }
        Object base = base(origin);
        long bytes = count * type.size();
        if (base == NO || count == 0 || bytes > capacity(origin)) {
            return false;
        }
        long addr = target(t, disp, bytes);
        if (addr < 0) {
            return slot(OpArgs.ACC, op.code(), e, t, disp, bytes, base, offset(origin), null, 0, null, 0);
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
        if (!type.isPredefined() || op == null || result == null || count <= 0 || count > (1L << 40)
                || !AccumulateKernel.isValid(op.code(), e = type.elementType())) {
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
            return slot(kind, op.code(), e, t, disp, bytes, ob, oo, null, 0, rb, ro);
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
        if (!type.isPredefined() || origin == null || compare == null || result == null) {
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
            return slot(OpArgs.CAS, null, type.elementType(), t, disp, size, ob, offset(origin), cb, offset(compare),
                    rb, offset(result));
        }
        w.epochs.checkAccess(t, "compare_and_swap");
        w.epochs.ensureDirectLock(t);
        AccumulateKernel.compareAndSwap(type.elementType(), cb, offset(compare), ob, offset(origin), null, addr, rb, offset(result), locks(t, disp));
        w.counters.bump(Counter.COMPARE_AND_SWAPS);
        w.counters.bump(Counter.DIRECT_OPS);
        return true;
    }
}

package io.jrma.sync;


import io.jrma.ErrorClass;
import io.jrma.core.dt.BasicType;
import io.jrma.core.mem.Memory;
import io.jrma.core.op.AccumulateKernel;
import io.jrma.core.op.OpCode;
import io.jrma.spi.Transport;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Request slots for single small operations on private memory of a rank in another JVM of the host (a dynamic window's
 * private region, a create window's memory not from the allocator): an accumulate, get_accumulate, fetch_and_op or
 * compare_and_swap of at most {@value #MAX_BYTES} contiguous bytes, which the target must apply itself (no other
 * process can reach the bytes atomically), and a put of at most {@value #MAX_PUT} or a get of at most
 * {@value #MAX_GET} contiguous bytes that the kernel does not copy (a small put when the system call goes through JNA,
 * whose 0.7-0.9 µs here is more than a slot round trip, or anything where the kernel refuses; see
 * {@link Operations#crossMemoryMay}). Instead of a packet through the rings and a reply through the other ring, the
 * origin writes the request into its own slot in the target's shared state segment, and the target's progress agent,
 * which looks at the slots in every duty cycle, applies it and writes the result back into the same cache line. One
 * line goes each way instead of a ring record, a batch and a reply batch: about half the round trip. The operation is
 * complete when the call returns, like a direct one.
 *
 * <p>Layout, after the rank's {@link RegionDirectory} in its state segment (zeroed when created; a dynamic window's,
 * or a create window's over private memory):
 * <pre>
 *  +0              bell (long), in windows of more than {@value #SCAN_MAX} ranks: origins add one after posting a
 *                  request; the target compares it with the value it saw last, so an idle window costs it one load
 *                  per duty cycle. Smaller windows have no bell: the target reads every slot's state in each duty
 *                  cycle (lines it holds shared while they do not change), which saves the bell's line a round trip
 *                  between the processes and the origin an atomic add (about 0.1 µs of a 0.7 µs fetch_and_op)
 *  +64             served (long): the target's {@link System#nanoTime} (one clock for the host's processes) at one
 *                  duty cycle in {@value #BEAT_CYCLES}: whether some thread of its JVM polls the library now
 *                  ({@link #polled})
 *  +128 + 128 * o  origin o's slot (group rank o; one 64-byte line used, the next left empty against the adjacent-
 *                  line prefetcher):
 *                  +0  state (long): sequence &lt;&lt; 2 | phase (POSTED, TAKEN, DONE, or 0: idle or withdrawn)
 *                  +8  kind, op id, element type id, element count (one byte each); +12 status (int, 0: applied,
 *                      else the ErrorClass code of why the target refused; the origin then sends a packet, which
 *                      reports the error in full)
 *                  +16 the target's address of the bytes
 *                  +24 origin value (16 bytes; a put's data, 32 bytes), +40 compare value (16 bytes), +56 result or
 *                      a get's data (up to 16 bytes)
 * </pre>
 * The phase moves POSTED to TAKEN (target, by compare-and-set) to DONE (target), or POSTED to 0 (origin, by
 * compare-and-set). A request not answered within 2 µs rings the target JVM's doorbell if its progress thread
 * announced a sleep in its selector, as a ring record would ({@link Transport#wakeIfAsleep}; the thread's last
 * look before sleeping, {@link #posted}, pairs with it). An origin that waited {@code jrma.shm.opSlots.waitNs} (50 µs)
 * more without the request being taken (the target's progress thread parked elsewhere, its JVM descheduled) withdraws
 * it and sends a packet instead: that wait, not a hang. After a withdrawal the origin skips the slot for the next
 * {@value #COLD_CALLS} calls to that target, twice as many after each further withdrawal in a row (up to
 * {@value #COLD_MAX}): a target that computes outside the library without a progress thread costs a withdrawal per
 * thousand calls. Whether a call may use the slot at all is {@link PacketOrigin#bypass}'s rule: nothing queued for the
 * target or unacknowledged, and the target's traffic latency-bound (a stream of operations goes as batches).
 *
 * <p>A small get has a second way, the kernel's copy, which needs no target CPU ({@link Operations}); it goes through
 * the slot instead only while the target's slots are {@link #polled} (jrma.shm.opSlots.gets): then the slot's round
 * trip is two cache lines, while the system call costs 0.6-1.1 µs on this machine's VM by the hour. A get the target
 * does not take in time is withdrawn as usual and then copied by the kernel, not sent as a packet.
 *
 * <p>Threads: {@link #call} from any of the rank's threads (one at a time per target: a busy slot sends a packet);
 * {@link #serve} from the thread running the progress agent.
 */
final class OpSlots {
    /** The largest atomic a slot carries (two 8-byte elements, or one 16-byte one). */
    static final int MAX_BYTES = 16;
    /** The largest put a slot carries. */
    static final int MAX_PUT = 32;
    /** The largest get a slot carries. */
    static final int MAX_GET = 16;
    static final int COLD_CALLS = 8;
    static final int COLD_MAX = 1024;
    /** Windows of at most this many ranks have no bell: the target reads every slot's state. */
    static final int SCAN_MAX = 32;
    /** The target stamps {@code served} in one duty cycle of this many (a power of two). */
    static final int BEAT_CYCLES = 32;
    /**
     * How recent the last stamp must be for a target to be {@link #polled}: well above the stamps' interval while a
     * thread polls ({@value #BEAT_CYCLES} duty cycles: a few microseconds with the shared-memory rings alone, 12-30
     * with a TCP connection's read in each cycle), below that of an idle progress thread, which parks up to
     * jrma.agent.maxParkNs (100 µs) per duty cycle, or runs about 20 per wake-up from its selector.
     */
    static final long POLLED_NS = 200_000;

    private static final long SERVED = 64;
    private static final long SLOTS = 128;
    private static final long STRIDE = 128;
    private static final long STATE = 0;
    private static final long HEAD = 8;
    private static final long STATUS = 12;
    private static final long ADDRESS = 16;
    private static final long ORIGIN = 24;
    private static final long COMPARE = 40;
    private static final long RESULT = 56;
    private static final long POSTED = 1;
    private static final long TAKEN = 2;
    private static final long DONE = 3;

    /** Bytes the slots of a window of {@code n} ranks need (a multiple of the page size). */
    static long bytes(int n) {
        return (SLOTS + STRIDE * n + 4095) & ~4095L;
    }

    private final WindowImpl w;
    private final long own;
    private final long[] peer;
    private final AtomicBoolean[] busy;
    private final long[] seq;
    private final int[] cold;
    private final int[] coldNext;
    private final boolean bell;
    private long seen;
    private int cycles;

    /**
     * @param own this rank's slots (served here), 0 when none
     * @param peer per target, that rank's slots as mapped here, 0 where the slots do not apply
     */
    OpSlots(WindowImpl w, long own, long[] peer) {
        this.w = w;
        this.own = own;
        this.peer = peer;
        this.busy = new AtomicBoolean[peer.length];
        for (int i = 0; i < peer.length; i++) {
            busy[i] = new AtomicBoolean();
        }
        this.seq = new long[peer.length];
        this.cold = new int[peer.length];
        this.coldNext = new int[peer.length];
        this.bell = peer.length > SCAN_MAX;
        java.util.Arrays.fill(coldNext, COLD_CALLS);
    }

    /** The largest operation of {@code kind} a slot carries. */
    static int max(int kind) {
        return kind == OpArgs.PUT ? MAX_PUT : kind == OpArgs.GET ? MAX_GET : MAX_BYTES;
    }

    /** Whether operation {@code a} has the shape a slot carries (the caller then asks {@link #call}). */
    static boolean fits(OpArgs a, long lo, long hi) {
        int k = a.kind;
        if (a.bytes <= 0 || a.bytes > max(k) || hi - lo != a.bytes || !a.targetLayout.isContiguous()) {
            return false; // (a target type that spans its bytes exactly may still reorder them)
        }
        if (k == OpArgs.PUT || k == OpArgs.GET) {
            return a.originLayout.isContiguous();
        }
        if (a.elem == null || a.bytes % a.elem.size() != 0) {
            return false;
        }
        return (a.originCount == 0 || a.originLayout.isContiguous())
                && (k == OpArgs.ACC || a.resultLayout.isContiguous());
    }

    /**
     * Whether target {@code t} has slots and is not cold after a withdrawal. (Threads of the rank may race on the
     * countdown; it only paces retries.)
     */
    boolean open(int t) {
        if (peer[t] == 0) {
            return false;
        }
        if (cold[t] > 0) {
            cold[t]--;
            return false;
        }
        return true;
    }

    /**
     * Whether target {@code t}'s slots were served within the last {@value #POLLED_NS} ns: a thread of its JVM runs
     * duty cycles now (a rank waiting in the library, {@code Jrma.progress}, a busy progress thread), so a request
     * is taken within a cache-line round trip. One load of a line the target writes once per {@value #BEAT_CYCLES}
     * duty cycles. Any thread.
     */
    boolean polled(int t) {
        long p = peer[t];
        return p != 0 && System.nanoTime() - Memory.getLongVolatile(null, p + SERVED) < POLLED_NS;
    }

    /**
     * Has the target apply {@code a} (which {@link #fits}) at its address {@code address}; the result, if any, is
     * in the result buffer on return. Returns false when it was not applied (the slot busy with another thread's
     * call, the request withdrawn, or refused by the target): the caller sends it as a packet.
     */
    boolean call(OpArgs a, long address) {
        if (a.kind == OpArgs.PUT || a.kind == OpArgs.GET) {
            long at = a.origin.offset + a.originLayout.dataLow(a.originCount);
            boolean put = a.kind == OpArgs.PUT;
            return call(a.target, a.kind, null, BasicType.BYTE, (int) a.bytes, address, put ? a.origin.base : null,
                    put ? at : 0, null, 0, put ? null : a.origin.base, put ? 0 : at);
        }
        return call(a.target, a.kind, a.op, a.elem, (int) (a.bytes / a.elem.size()), address, a.origin.base,
                a.originCount == 0 ? 0 : a.origin.offset + a.originLayout.dataLow(a.originCount),
                a.compare.base, a.kind == OpArgs.CAS ? a.compare.offset + a.targetLayout.dataLow(1) : 0,
                a.result.base, a.kind == OpArgs.ACC ? 0 : a.result.offset + a.resultLayout.dataLow(a.resultCount));
    }

    /**
     * {@link #call(OpArgs, long)} on its parts: {@code count} elements of {@code elem} (a put's or get's bytes:
     * BYTE) at the target's {@code address}; the origin values or a put's data at {@code ob}/{@code oo} (not read for
     * NO_OP or a get), the compare value of a CAS at {@code cb}/{@code co}, the result or a get's data (not for ACC
     * or a put) to {@code rb}/{@code ro}.
     */
    boolean call(int t, int kind, OpCode op, BasicType elem, int count, long address, Object ob, long oo, Object cb,
            long co, Object rb, long ro) {
        AtomicBoolean b = busy[t];
        if (!b.compareAndSet(false, true)) {
            return false;
        }
        try {
            long slot = peer[t] + SLOTS + STRIDE * w.rank;
            long bytes = (long) count * elem.size();
            Memory.putIntPlain(slot + HEAD, (kind & 0xff) | (op == null ? 0 : op.id() & 0xff) << 8
                    | (elem.id() & 0xff) << 16 | count << 24);
            Memory.putLongPlain(slot + ADDRESS, address);
            if (op != OpCode.NO_OP && kind != OpArgs.GET) {
                Memory.copy(ob, oo, null, slot + ORIGIN, bytes);
            }
            if (kind == OpArgs.CAS) {
                Memory.copy(cb, co, null, slot + COMPARE, bytes);
            }
            long s = ++seq[t] << 2;
            Memory.putLongVolatile(null, slot + STATE, s | POSTED);
            if (bell) {
                Memory.getAndAddLong(null, peer[t], 1);
            }
            long st = spin(slot, s, WAKE_AFTER_NS);
            if (st != (s | DONE)) {
                // not answered at once (within 2 µs): if the target's progress thread announced a sleep, ring its
                // doorbell (its last look before sleeping, after the announcement, sees this request; or this sees
                // the flag)
                int dst = w.worldRanks[t];
                w.job.transportFor(dst).wakeIfAsleep(dst);
                st = spin(slot, s, w.config.opSlotsWaitNs);
            }
            if (st == (s | POSTED) && Memory.casLong(null, slot + STATE, s | POSTED, 0)) {
                cold[t] = coldNext[t]; // not taken in time: the target's progress sleeps or is stalled
                coldNext[t] = Math.min(COLD_MAX, 2 * coldNext[t]);
                return false;
            }
            coldNext[t] = COLD_CALLS;
            if (st != (s | DONE)) { // taken: the target is applying it now
                w.awaitReplies(() -> Memory.getLongVolatile(null, slot + STATE) == (s | DONE));
            }
            if (Memory.getIntPlain(slot + STATUS) != 0) {
                return false;
            }
            if (kind != OpArgs.ACC && kind != OpArgs.PUT) {
                Memory.copy(null, slot + RESULT, rb, ro, bytes);
            }
            return true;
        } finally {
            b.set(false);
        }
    }

    /** How long an origin spins before it looks whether the target sleeps: an awake target answers within it. */
    private static final long WAKE_AFTER_NS = 2_000;

    /** Spins until the request is done or about {@code waitNs} passed; returns the state last read. */
    private static long spin(long slot, long s, long waitNs) {
        long st = 0;
        long deadline = 0;
        for (int i = 0;; i++) {
            st = Memory.getLongVolatile(null, slot + STATE);
            if (st == (s | DONE)) {
                return st;
            }
            if ((i & 63) == 63) {
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + waitNs;
                } else if (now - deadline > 0) {
                    return st;
                }
            }
            Thread.onSpinWait();
        }
    }

    /** Whether a request is posted and not yet taken (the progress thread's last look before it sleeps). */
    boolean posted() {
        if (own == 0) {
            return false;
        }
        for (int o = 0; o < peer.length; o++) {
            if ((Memory.getLongVolatile(null, own + SLOTS + STRIDE * o + STATE) & 3) == POSTED) {
                return true;
            }
        }
        return false;
    }

    /** Applies the requests posted since the last call; returns how many. Progress agent only. */
    int serve() {
        if (own == 0) {
            return 0;
        }
        if ((++cycles & (BEAT_CYCLES - 1)) == 0) {
            Memory.putLongRelease(null, own + SERVED, System.nanoTime());
        }
        if (bell) {
            long b = Memory.getLongVolatile(null, own);
            if (b == seen) {
                return 0;
            }
            seen = b;
        }
        int work = 0;
        for (int o = 0; o < peer.length; o++) {
            long slot = own + SLOTS + STRIDE * o;
            long st = Memory.getLongVolatile(null, slot + STATE);
            if ((st & 3) == POSTED && Memory.casLong(null, slot + STATE, st, (st & ~3L) | TAKEN)) {
                int status = ErrorClass.ERR_INTERN.code();
                try {
                    status = apply(slot, o);
                } finally { // whatever happened, the origin is answered (a refusal: it sends the packet, which reports)
                    Memory.putIntPlain(slot + STATUS, status);
                    Memory.putLongVolatile(null, slot + STATE, (st & ~3L) | DONE);
                }
                work++;
            }
        }
        return work;
    }

    /** Whether [address, address + bytes) is this rank's: in a region it attached, or in its create window's memory. */
    private boolean inWindow(long address, long bytes) {
        if (w.regions != null) {
            return w.regions.contains(address, address + bytes);
        }
        return address >= w.memory.address && address + bytes <= w.memory.address + w.memory.length;
    }

    /**
     * Checks and applies one request as {@link PacketTarget} would its packet; returns 0, or the error class code of
     * why it was not applied (nothing was touched; the origin's packet then reports it).
     */
    private int apply(long slot, int origin) {
        int head = Memory.getIntPlain(slot + HEAD);
        int kind = head & 0xff;
        OpCode op = OpCode.ofId(head >>> 8 & 0xff);
        BasicType elem = BasicType.ofId(head >>> 16 & 0xff);
        int count = head >>> 24;
        long address = Memory.getLongPlain(slot + ADDRESS);
        if (elem == null || count <= 0 || (long) count * elem.size() > max(kind)) {
            return ErrorClass.ERR_TYPE.code();
        }
        long bytes = (long) count * elem.size();
        if (address < 0 || address > Long.MAX_VALUE - bytes || !inWindow(address, bytes)) {
            return ErrorClass.ERR_RMA_RANGE.code();
        }
        try {
            switch (kind) {
                case OpArgs.PUT:
                    Memory.copy(slot + ORIGIN, address, bytes);
                    break;
                case OpArgs.GET:
                    Memory.copy(address, slot + RESULT, bytes);
                    break;
                case OpArgs.ACC:
                    if (op == null || !AccumulateKernel.isValid(op, elem)) {
                        return ErrorClass.ERR_OP.code();
                    }
                    AccumulateKernel.accumulate(op, elem, null, slot + ORIGIN, null, address, count, w.target.elementLocks);
                    break;
                case OpArgs.GET_ACC:
                case OpArgs.FOP:
                    if (op == null || !AccumulateKernel.isValid(op, elem)) {
                        return ErrorClass.ERR_OP.code();
                    }
                    AccumulateKernel.getAccumulate(op, elem, null, slot + ORIGIN, null, address, null, slot + RESULT, count,
                            w.target.elementLocks);
                    break;
                case OpArgs.CAS:
                    if (count != 1) {
                        return ErrorClass.ERR_COUNT.code();
                    }
                    AccumulateKernel.compareAndSwap(elem, null, slot + COMPARE, null, slot + ORIGIN, null, address, null,
                            slot + RESULT, w.target.elementLocks);
                    break;
                default:
                    return ErrorClass.ERR_ARG.code();
            }
        } catch (io.jrma.RmaException e) {
            return e.errorClass().code();
        } catch (RuntimeException e) {
            return ErrorClass.ERR_INTERN.code();
        }
        w.counters.increment(io.jrma.WinCounters.Counter.SLOT_OPS_APPLIED);
        return 0;
    }
}

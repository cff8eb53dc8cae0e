package io.jrma.shm.window;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.dt.BasicType;
import io.jrma.core.mem.Memory;
import io.jrma.core.mem.Pages;
import io.jrma.core.op.AccumulateKernel;
import io.jrma.core.op.ElementLocks;
import io.jrma.core.op.OpCode;
import io.jrma.spi.transport.Transport;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Request slots for single small operations on private memory of a rank in another JVM of the host (a dynamic window's
 * private region, a create window's memory not from the allocator): an accumulate, get_accumulate, fetch_and_op or
 * compare_and_swap of at most {@value #MAX_BYTES} contiguous bytes, which the target must apply itself (no other
 * process can reach the bytes atomically), and a put of at most {@value #MAX_PUT} or a get of at most
 * {@value #MAX_GET} contiguous bytes that the kernel does not copy (a small put when the system call goes through JNA,
 * which costs more than a slot round trip, or anything where the kernel refuses; the window's lane table decides).
 * Instead of a packet through the rings and a reply through the other ring, the
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
 * thousand calls. Whether a call may use the slot at all is the packet origin's bypass rule: nothing queued for the
 * target or unacknowledged, and the target's traffic latency-bound (a stream of operations goes as batches).
 *
 * <p>A small get has a second way, the kernel's copy, which needs no target CPU; it goes through the slot instead only
 * while the target's slots are {@link #polled} (jrma.shm.opSlots.gets): then the slot's round trip is two cache lines,
 * cheaper than the system call. A get the target
 * does not take in time is withdrawn as usual and then copied by the kernel, not sent as a packet.
 *
 * <p>Threads: {@link #call} from any of the rank's threads (one at a time per target: a busy slot sends a packet);
 * {@link #serve} from the thread running the progress agent.
 */
public final class OpSlots {
    /** Request kind: a put (the codes are the window's operation kinds). */
    public static final int PUT = 1;
    /** Request kind: a get. */
    public static final int GET = 2;
    /** Request kind: an accumulate. */
    public static final int ACC = 3;
    /** Request kind: a get_accumulate. */
    public static final int GET_ACC = 4;
    /** Request kind: a fetch_and_op. */
    public static final int FOP = 5;
    /** Request kind: a compare_and_swap. */
    public static final int CAS = 6;

    /**
     * What the slots need of their window. Implemented by the window; called from the threads that call
     * {@link #call} ({@link #wakeIfAsleep}, {@link #await}) or from the progress agent ({@link #inWindow},
     * {@link #locks}, {@link #applied}).
     */
    public interface Owner {
        /** This rank's rank in the window's group (the slot it posts into at its targets). */
        int rank();

        /** How long an origin waits for a request to be taken before it withdraws it (jrma.shm.opSlots.waitNs). */
        long waitNs();

        /** Rings the doorbell of target {@code t}'s JVM if its progress thread announced a sleep. */
        void wakeIfAsleep(int t);

        /** Waits, driving progress, until {@code done} holds (a request taken and being applied). */
        void await(BooleanSupplier done);

        /** Whether the given bytes are this rank's window memory (a region attached, or its memory). */
        boolean inWindow(long address, long bytes);

        /** The element locks guarding this rank's window memory against concurrent accumulates. */
        ElementLocks locks();

        /** Counts a request this rank applied. */
        void applied();
    }

    /** The largest atomic a slot carries (two 8-byte elements, or one 16-byte one). */
    public static final int MAX_BYTES = 16;
    /** The largest put a slot carries. */
    public static final int MAX_PUT = 32;
    /** The largest get a slot carries. */
    public static final int MAX_GET = 16;
    /** Calls to a target that skip its slot after a withdrawal. */
    static final int COLD_CALLS = 8;
    /** The most calls that skip a target's slot after withdrawals in a row. */
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
    private static final long PHASE_MASK = 3;
    private static final int BYTE_MASK = 0xff;
    private static final int OP_SHIFT = 8;
    private static final int TYPE_SHIFT = 16;
    private static final int COUNT_SHIFT = 24;

    /** Bytes the slots of a window of {@code n} ranks need (a multiple of the page size). */
    public static long bytes(int n) {
        return Pages.roundUp(SLOTS + STRIDE * n);
    }

    private final Owner w;
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
     * @param w the window (not used by {@link #serve} while nothing is posted, nor by {@link #polled})
     * @param own this rank's slots (served here), 0 when none
     * @param peer per target, that rank's slots as mapped here, 0 where the slots do not apply
     */
    public OpSlots(Owner w, long own, long[] peer) {
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
        Arrays.fill(coldNext, COLD_CALLS);
    }

    /** The largest operation of {@code kind} a slot carries. */
    public static int max(int kind) {
        return kind == PUT ? MAX_PUT : kind == GET ? MAX_GET : MAX_BYTES;
    }

    /**
     * Whether target {@code t} has slots and is not cold after a withdrawal. (Threads of the rank may race on the
     * countdown; it only paces retries.)
     */
    public boolean open(int t) {
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
    public boolean polled(int t) {
        long p = peer[t];
        return p != 0 && System.nanoTime() - Memory.getLongVolatile(null, p + SERVED) < POLLED_NS;
    }

    /**
     * Has target {@code t} apply an operation of {@code kind} (at most {@link #max} bytes, contiguous): {@code count}
     * elements of {@code elem} (a put's or get's bytes: BYTE) at the target's {@code address}; the origin values or a
     * put's data at {@code ob}/{@code oo} (not read for NO_OP or a get), the compare value of a CAS at
     * {@code cb}/{@code co}, the result or a get's data (not for ACC or a put) to {@code rb}/{@code ro}; the result, if
     * any, is there on return. Returns false when it was not applied (the slot busy with another thread's call, the
     * request withdrawn, or refused by the target): the caller sends it as a packet.
     */
    public boolean call(int t, int kind, OpCode op, BasicType elem, int count, long address, Object ob, long oo,
            Object cb, long co, Object rb, long ro) {
        AtomicBoolean b = busy[t];
        if (!b.compareAndSet(false, true)) {
            return false;
        }
        try {
            long slot = peer[t] + SLOTS + STRIDE * w.rank();
            long bytes = (long) count * elem.size();
            Memory.putIntPlain(slot + HEAD, (kind & BYTE_MASK) | (op == null ? 0 : op.id() & BYTE_MASK) << OP_SHIFT
                    | (elem.id() & BYTE_MASK) << TYPE_SHIFT | count << COUNT_SHIFT);
            Memory.putLongPlain(slot + ADDRESS, address);
            if (op != OpCode.NO_OP && kind != GET) {
                Memory.copy(ob, oo, null, slot + ORIGIN, bytes);
            }
            if (kind == CAS) {
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
                w.wakeIfAsleep(t);
                st = spin(slot, s, w.waitNs());
            }
            if (st == (s | POSTED) && Memory.casLong(null, slot + STATE, s | POSTED, 0)) {
                cold[t] = coldNext[t]; // not taken in time: the target's progress sleeps or is stalled
                coldNext[t] = Math.min(COLD_MAX, 2 * coldNext[t]);
                return false;
            }
            coldNext[t] = COLD_CALLS;
            if (st != (s | DONE)) { // taken: the target is applying it now
                w.await(() -> Memory.getLongVolatile(null, slot + STATE) == (s | DONE));
            }
            if (Memory.getIntPlain(slot + STATUS) != 0) {
                return false;
            }
            if (kind != ACC && kind != PUT) {
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
    public boolean posted() {
        if (own == 0) {
            return false;
        }
        for (int o = 0; o < peer.length; o++) {
            if ((Memory.getLongVolatile(null, own + SLOTS + STRIDE * o + STATE) & PHASE_MASK) == POSTED) {
                return true;
            }
        }
        return false;
    }

    /** Applies the requests posted since the last call; returns how many. Progress agent only. */
    public int serve() {
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
            if ((st & PHASE_MASK) == POSTED && Memory.casLong(null, slot + STATE, st, (st & ~PHASE_MASK) | TAKEN)) {
                int status = ErrorClass.ERR_INTERN.code();
                try {
                    status = apply(slot, o);
                } finally { // whatever happened, the origin is answered (a refusal: it sends the packet, which reports)
                    Memory.putIntPlain(slot + STATUS, status);
                    Memory.putLongVolatile(null, slot + STATE, (st & ~PHASE_MASK) | DONE);
                }
                work++;
            }
        }
        return work;
    }

    /**
     * Checks and applies one request as the packet target would its packet; returns 0, or the error class code of
     * why it was not applied (nothing was touched; the origin's packet then reports it).
     */
    private int apply(long slot, int origin) {
        int head = Memory.getIntPlain(slot + HEAD);
        int kind = head & BYTE_MASK;
        OpCode op = OpCode.ofId(head >>> OP_SHIFT & BYTE_MASK);
        BasicType elem = BasicType.ofId(head >>> TYPE_SHIFT & BYTE_MASK);
        int count = head >>> COUNT_SHIFT;
        long address = Memory.getLongPlain(slot + ADDRESS);
        if (elem == null || count <= 0 || (long) count * elem.size() > max(kind)) {
            return ErrorClass.ERR_TYPE.code();
        }
        long bytes = (long) count * elem.size();
        if (address < 0 || address > Long.MAX_VALUE - bytes || !w.inWindow(address, bytes)) {
            return ErrorClass.ERR_RMA_RANGE.code();
        }
        try {
            switch (kind) {
                case PUT:
                    Memory.copy(slot + ORIGIN, address, bytes);
                    break;
                case GET:
                    Memory.copy(address, slot + RESULT, bytes);
                    break;
                case ACC:
                    if (op == null || !AccumulateKernel.isValid(op, elem)) {
                        return ErrorClass.ERR_OP.code();
                    }
                    AccumulateKernel.accumulate(op, elem, null, slot + ORIGIN, null, address, count, w.locks());
                    break;
                case GET_ACC:
                case FOP:
                    if (op == null || !AccumulateKernel.isValid(op, elem)) {
                        return ErrorClass.ERR_OP.code();
                    }
                    AccumulateKernel.getAccumulate(op, elem, null, slot + ORIGIN, null, address, null, slot + RESULT,
                            count, w.locks());
                    break;
                case CAS:
                    if (count != 1) {
                        return ErrorClass.ERR_COUNT.code();
                    }
                    AccumulateKernel.compareAndSwap(elem, null, slot + COMPARE, null, slot + ORIGIN, null, address,
                            null, slot + RESULT, w.locks());
                    break;
                default:
                    return ErrorClass.ERR_ARG.code();
            }
        } catch (RmaException e) {
            return e.errorClass().code();
        } catch (RuntimeException e) {
            return ErrorClass.ERR_INTERN.code();
        }
        w.applied();
        return 0;
    }
}

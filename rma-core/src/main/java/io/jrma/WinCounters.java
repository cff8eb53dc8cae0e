package io.jrma;

import io.jrma.core.mem.Memory;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Counters of one window at one rank (or, summed, of a whole JVM): what MPICH's RMA design calls the
 * instrumentation that is part of the design. Values only grow, except {@link Counter#PENDING_OPS}.
 *
 * <p>Thread-safe: written by the rank's threads and the progress agent, read by anyone. The per-operation
 * counters of the direct path (operation counts, {@code DIRECT_OPS} and byte counts when the direct fast
 * lane serves the call), and those of operations done by a kernel copy or a request slot ({@code CROSS_MEMORY_OPS},
 * {@code SLOT_OPS}, their operation and byte counts), are bumped with a plain read-and-store instead of an atomic
 * add, which costs as much as the operation itself on this class of machine: they are exact when one thread
 * issues on the window and may undercount when several threads of a rank issue at the same instant. All other
 * counters are atomic.
 */
public final class WinCounters {
    /** What is counted. */
    public enum Counter {
        PUTS("put operations issued"),
        GETS("get operations issued"),
        ACCUMULATES("accumulate operations issued"),
        GET_ACCUMULATES("get_accumulate operations issued"),
        FETCH_AND_OPS("fetch_and_op operations issued"),
        COMPARE_AND_SWAPS("compare_and_swap operations issued"),
        DIRECT_OPS("operations done by load/store on the target's memory"),
        PACKETS_SENT("request packets sent (packet path)"),
        BATCHES_SENT("batches of packets handed to a transport"),
        REPLIES_RECEIVED("reply packets received (acks and data replies)"),
        PACKETS_COALESCED("lock or unlock requests carried inside an operation packet instead of their own"),
        ACKS_ELIDED("acknowledgements not requested because they would carry no information"),
        ACKS_PIGGYBACKED("acknowledgements carried by a data reply (GET moved to the tail)"),
        ACKS_BY_RING("as a target: acknowledgements given through a shared-memory ring's applied position "
                + "instead of an ACK packet"),
        BYTES_PUT("bytes written to target memory"),
        BYTES_GOT("bytes read from target memory"),
        PENDING_OPS("operations issued but not yet complete"),
        SYNC_WAIT_NS("nanoseconds spent waiting in synchronization calls (with only direct peers, waits "
                + "shorter than about a microsecond are not timed)"),
        PACKETS_APPLIED("request packets applied here as a target"),
        PACKETS_REJECTED("request packets rejected here as a target (bad input)"),
        LOCK_WAITS("lock requests that had to queue at this target"),
        PAYLOADS_IN_PLACE("large puts sent from the origin buffer itself, with no copy into the packet (TCP)"),
        PAYLOADS_PLACED("large payloads read from the socket straight where they belong: puts into this "
                + "target's window memory, get replies into this origin's buffer (TCP)"),
        CROSS_MEMORY_OPS("puts and gets this origin copied by the kernel straight to or from private window "
                + "memory of another JVM of the host (cross memory attach)"),
        SLOT_OPS("single small operations (atomics of up to 16 bytes, puts and gets the kernel does not copy) "
                + "this origin had applied on private window memory of another JVM of the host through the "
                + "target's request slot instead of a packet"),
        SLOT_OPS_APPLIED("as a target: single small operations applied from request slots in this rank's "
                + "shared state (see SLOT_OPS)"),
        RDMA_OPS("puts and gets this origin did straight on a target's registered window memory through a "
                + "transport's memory side (the ucx transport's RDMA lane), with no packet"),
        RDMA_BYTES("bytes this origin moved by RDMA_OPS"),
        RDMA_ATOMICS("remote atomics this origin did on a target's registered window memory for accumulates, "
                + "get_accumulates, fetch_and_ops and compare_and_swaps of a window in the transport's atomic "
                + "domain (one per element, and one per retry of a compare-and-swap loop), with no packet");

        private final String description;

        Counter(String description) {
            this.description = description;
        }

        public String description() {
            return description;
        }
    }

    private static final long BASE = Memory.arrayBase(long[].class);
    /**
     * One slot per counter. Hot paths bump a slot with plain array code (no atomic, no VarHandle: the interpreter and
     * C1 run a VarHandle call through dozens of frames, which made the counters a third of an interpreted put);
     * readers and the rare atomic updates reach the slots through {@link Memory}.
     */
    private final long[] values = new long[Counter.values().length];

    private static long at(Counter c) {
        return BASE + (long) c.ordinal() * Long.BYTES;
    }

    public long get(Counter c) {
        return Memory.getLongVolatile(values, at(c));
    }

    public void add(Counter c, long delta) {
        Memory.getAndAddLong(values, at(c), delta);
    }

    public void increment(Counter c) {
        Memory.getAndAddLong(values, at(c), 1);
    }

    /** Non-atomic add for hot paths (see the class comment): a plain read and store. */
    public void bumpBy(Counter c, long delta) {
        values[c.ordinal()] += delta;
    }

    /** Non-atomic increment for hot paths (see the class comment): a plain read and store. */
    public void bump(Counter c) {
        values[c.ordinal()]++;
    }

    /** Adds all of {@code other} into this. */
    public void addAll(WinCounters other) {
        for (Counter c : Counter.values()) {
            add(c, other.get(c));
        }
    }

    /** A copy of every counter. */
    public Map<Counter, Long> snapshot() {
        Map<Counter, Long> m = new EnumMap<>(Counter.class);
        for (Counter c : Counter.values()) {
            m.put(c, get(c));
        }
        return m;
    }

    /** Non-zero counters as {@code name=value} pairs. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (Counter c : Counter.values()) {
            long v = get(c);
            if (v != 0) {
                sb.append(sb.length() > 1 ? ", " : "").append(c.name().toLowerCase(Locale.ROOT)).append('=').append(v);
            }
        }
        return sb.append('}').toString();
    }
}

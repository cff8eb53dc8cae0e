package io.jrma.sync;

import io.jrma.WinCounters.Counter;
import io.jrma.core.dt.BasicType;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.op.OpCode;
import io.jrma.shm.window.OpSlots;

/**
 * One validated communication call, ready for a path: resolved buffers, layouts, the target's byte offset
 * (or absolute address on a dynamic window) and, for the accumulate family, the element type and op.
 *
 * <p>Created and used by the issuing thread; handed to the progress agent only through a {@link PendingOp}.
 */
final class OpArgs {
    // the kinds' codes are the request slots' (they travel in a slot's head)
    static final int PUT = OpSlots.PUT;
    static final int GET = OpSlots.GET;
    static final int ACC = OpSlots.ACC;
    static final int GET_ACC = OpSlots.GET_ACC;
    static final int FOP = OpSlots.FOP;
    static final int CAS = OpSlots.CAS;

    int kind;
    Buffers.Ref origin = Buffers.NONE;
    long originCount;
    TypeLayout originLayout;
    Buffers.Ref result = Buffers.NONE;
    long resultCount;
    TypeLayout resultLayout;
    Buffers.Ref compare = Buffers.NONE;
    int target;
    long targetOffset;
    long targetCount;
    TypeLayout targetLayout;
    BasicType elem;
    OpCode op;
    /** Bytes of data moved to or from the target. */
    long bytes;
    /** The caller waits for this operation's completion at once (fetchAndAddLong, compareAndSwapLong). */
    boolean blocking;

    static String kindName(int kind) {
        switch (kind) {
            case PUT: return "put";
            case GET: return "get";
            case ACC: return "accumulate";
            case GET_ACC: return "get_accumulate";
            case FOP: return "fetch_and_op";
            case CAS: return "compare_and_swap";
            default: return "op" + kind;
        }
    }

    /** The window counter of operations of {@code kind} (a put, get or one of the accumulate family). */
    static Counter counter(int kind) {
        switch (kind) {
            case PUT: return Counter.PUTS;
            case GET: return Counter.GETS;
            case ACC: return Counter.ACCUMULATES;
            case GET_ACC: return Counter.GET_ACCUMULATES;
            case FOP: return Counter.FETCH_AND_OPS;
            default: return Counter.COMPARE_AND_SWAPS;
        }
    }
}

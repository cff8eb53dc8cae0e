package io.jrma.sync;

import io.jrma.WinCounters.Counter;
import io.jrma.core.dt.BasicType;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.op.OpCode;

/**
 * One validated communication call, ready for a path: resolved buffers, layouts, the target's byte offset
 * (or absolute address on a dynamic window) and, for the accumulate family, the element type and op.
 *
 * <p>Created and used by the issuing thread; handed to the progress agent only through a {@link PendingOp}.
 */
final class OpArgs {
    static final int PUT = 1;
    static final int GET = 2;
    static final int ACC = 3;
    static final int GET_ACC = 4;
    static final int FOP = 5;
    static final int CAS = 6;

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

package io.jrma.sync;


import io.jrma.Datatype;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.mem.Memory;
import io.jrma.core.op.AccumulateKernel;
import io.jrma.core.op.ElementLocks;
import io.jrma.core.op.OpCode;

/**
 * The direct path: operations done by the origin itself with loads, stores and CPU atomics on the target's
 * memory, which is in this address space. A put or get is one copy between the user's buffer and the window;
 * the accumulate family is atomic per element through {@link AccumulateKernel}. Also used by the packet path's
 * target side to apply decoded packets (the "origin" is then the packet payload).
 *
 * <p>Stateless; any thread.
 */
final class DirectOps {
    private DirectOps() {
    }

    private static TypeLayout bytes() {
        return Datatype.BYTE.layout();
    }

    /** Copies origin data into target memory at absolute address {@code target}. */
    static void put(OpArgs a, long target) {
        TypeLayout.copy(a.origin.base, a.origin.offset, a.originCount, a.originLayout,
                null, target, a.targetCount, a.targetLayout);
    }

    /** Copies target memory at {@code target} into the origin buffer. */
    static void get(OpArgs a, long target) {
        TypeLayout.copy(null, target, a.targetCount, a.targetLayout,
                a.origin.base, a.origin.offset, a.originCount, a.originLayout);
    }

    /** target[i] = target[i] op origin[i], atomically per element. */
    static void accumulate(OpArgs a, long target, ElementLocks locks) {
        if (a.op == OpCode.NO_OP || a.bytes == 0) {
            return;
        }
        int es = a.elem.size();
        if (a.originLayout.isContiguous() && a.targetLayout.isContiguous()) {
            AccumulateKernel.accumulate(a.op, a.elem, a.origin.base, a.origin.offset + a.originLayout.trueLb(),
                    null, target + a.targetLayout.trueLb(), a.bytes / es, locks);
            return;
        }
        TypeLayout.zip(a.originLayout.cursor(a.originCount), a.targetLayout.cursor(a.targetCount),
                (o, t, len) -> AccumulateKernel.accumulate(a.op, a.elem, a.origin.base, a.origin.offset + o,
                        null, target + t, len / es, locks));
    }

    /**
     * result[i] = target[i]; target[i] = target[i] op origin[i], atomically per element. Non-contiguous origin
     * or result layouts go through packed temporaries.
     */
    static void getAccumulate(OpArgs a, long target, ElementLocks locks) {
        if (a.bytes == 0) {
            return;
        }
        int es = a.elem.size();
        boolean noOp = a.op == OpCode.NO_OP;
        boolean contigOrigin = noOp || a.originLayout.isContiguous();
        boolean contigResult = a.resultLayout.isContiguous();
        long tmp = 0;
        try {
            Object srcBase = null;
            long src = 0;
            if (!noOp) {
                if (contigOrigin) {
                    srcBase = a.origin.base;
                    src = a.origin.offset + a.originLayout.trueLb();
                } else {
                    tmp = Memory.allocate(a.bytes * 2);
                    src = tmp;
                    TypeLayout.copy(a.origin.base, a.origin.offset, a.originCount, a.originLayout, null,
                            src, a.bytes, bytes());
                }
            }
            Object resBase;
            long res;
            if (contigResult) {
                resBase = a.result.base;
                res = a.result.offset + a.resultLayout.trueLb();
            } else {
                if (tmp == 0) {
                    tmp = Memory.allocate(a.bytes * 2);
                }
                resBase = null;
                res = tmp + a.bytes;
            }
            final Object sb = srcBase;
            final long s0 = src;
            final Object rb = resBase;
            final long r0 = res;
            if (a.targetLayout.isContiguous()) {
                AccumulateKernel.getAccumulate(a.op, a.elem, sb, s0, null, target + a.targetLayout.trueLb(), rb, r0,
                        a.bytes / es, locks);
            } else {
                TypeLayout.zip(bytes().cursor(a.bytes), a.targetLayout.cursor(a.targetCount),
                        (p, t, len) -> AccumulateKernel.getAccumulate(a.op, a.elem, sb, s0 + p, null, target + t,
                                rb, r0 + p, len / es, locks));
            }
            if (!contigResult) {
                TypeLayout.copy(null, res, a.bytes, bytes(), a.result.base, a.result.offset,
                        a.resultCount, a.resultLayout);
            }
        } finally {
            if (tmp != 0) {
                Memory.free(tmp);
            }
        }
    }

    /** result = target; if (target == compare) target = origin; atomically. */
    static void compareAndSwap(OpArgs a, long target, ElementLocks locks) {
        AccumulateKernel.compareAndSwap(a.elem, a.compare.base, a.compare.offset, a.origin.base, a.origin.offset,
                null, target, a.result.base, a.result.offset, locks);
    }
}

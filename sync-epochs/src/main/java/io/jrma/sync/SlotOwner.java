package io.jrma.sync;

import io.jrma.WinCounters.Counter;
import io.jrma.core.dt.BasicType;
import io.jrma.core.op.ElementLocks;
import io.jrma.shm.window.OpSlots;
import java.util.function.BooleanSupplier;

/**
 * What a window's request slots ({@link OpSlots}) need of it, and the slots' calls in the window's terms (an
 * {@link OpArgs}). Immutable; the window's threads and its progress agent.
 */
final class SlotOwner implements OpSlots.Owner {
    private final WindowImpl w;

    SlotOwner(WindowImpl w) {
        this.w = w;
    }

    @Override
    public int rank() {
        return w.rank;
    }

    @Override
    public long waitNs() {
        return w.config.opSlotsWaitNs;
    }

    @Override
    public void wakeIfAsleep(int t) {
        int dst = w.worldRanks[t];
        w.job.transportFor(dst).wakeIfAsleep(dst);
    }

    @Override
    public void await(BooleanSupplier done) {
        w.awaitReplies(done);
    }

    @Override
    public boolean inWindow(long address, long bytes) {
        if (w.regions != null) {
            return w.regions.contains(address, address + bytes);
        }
        return address >= w.memory.address && address + bytes <= w.memory.address + w.memory.length;
    }

    @Override
    public ElementLocks locks() {
        return w.target.elementLocks;
    }

    @Override
    public void applied() {
        w.counters.increment(Counter.SLOT_OPS_APPLIED);
    }

    /** Whether operation {@code a} on the target's bytes [lo, hi) has the shape a slot carries. */
    static boolean fits(OpArgs a, long lo, long hi) {
        int k = a.kind;
        if (a.bytes <= 0 || a.bytes > OpSlots.max(k) || hi - lo != a.bytes || !a.targetLayout.isContiguous()) {
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
     * Has the target apply {@code a} (which {@link #fits}) at its address {@code address} through {@code slots};
     * false when it was not applied ({@link OpSlots#call}).
     */
    static boolean call(OpSlots slots, OpArgs a, long address) {
        if (a.kind == OpArgs.PUT || a.kind == OpArgs.GET) {
            long at = a.origin.offset + a.originLayout.dataLow(a.originCount);
            boolean put = a.kind == OpArgs.PUT;
            return slots.call(a.target, a.kind, null, BasicType.BYTE, (int) a.bytes, address,
                    put ? a.origin.base : null, put ? at : 0, null, 0, put ? null : a.origin.base, put ? 0 : at);
        }
        long oo = a.originCount == 0 ? 0 : a.origin.offset + a.originLayout.dataLow(a.originCount);
        long co = a.kind == OpArgs.CAS ? a.compare.offset + a.targetLayout.dataLow(1) : 0;
        long ro = a.kind == OpArgs.ACC ? 0 : a.result.offset + a.resultLayout.dataLow(a.resultCount);
        return slots.call(a.target, a.kind, a.op, a.elem, (int) (a.bytes / a.elem.size()), address, a.origin.base, oo,
                a.compare.base, co, a.result.base, ro);
    }
}

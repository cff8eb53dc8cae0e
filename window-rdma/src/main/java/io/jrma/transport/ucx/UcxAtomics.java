package io.jrma.transport.ucx;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.jrma.spi.transport.RemoteMemory;
import io.jrma.spi.transport.RemoteMemory.AtomicOp;

/**
 * The remote atomics of the ucx transport's memory side ({@link RemoteMemory#fetchOp}, {@link RemoteMemory#fetchOps}):
 * one at a time through a thread's operand and result words, or many posted together and waited for once.
 *
 * <p>Threads: any; the worker serializes the calls into UCX.
 */
final class UcxAtomics {
    /** Each thread's operand and result words for atomics (native: UCX reads and writes them). */
    private static final ThreadLocal<Memory> ATOMIC_WORDS = ThreadLocal.withInitial(() -> new Memory(2 * Long.BYTES));

    private final UcxMemory memory;
    private final UcxWorker worker;

    UcxAtomics(UcxMemory memory) {
        this.memory = memory;
        this.worker = memory.worker();
    }

    /** Whether {@code op} is AND, OR or XOR. */
    static boolean bitwise(AtomicOp op) {
        return op == AtomicOp.AND || op == AtomicOp.OR || op == AtomicOp.XOR;
    }

    /** One fetching atomic: operand at word 0, result (and CSWAP's new value on entry) at word 1. */
    long atomic(int worldRank, UcxWorker.Atomic op, long operand, long swapIn, int size, long remote, long handle) {
        Memory words = ATOMIC_WORDS.get();
        long at = Pointer.nativeValue(words);
        if (size == Integer.BYTES) {
            words.setInt(0, (int) operand);
            words.setInt(Long.BYTES, (int) swapIn);
        } else {
            words.setLong(0, operand);
            words.setLong(Long.BYTES, swapIn);
        }
        long ep = memory.endpointTo(worldRank);
        memory.complete(worker.atomic(ep, op, at, size, remote, handle, at + Long.BYTES), worldRank);
        memory.countRdma(size);
        return size == Integer.BYTES ? words.getInt(Long.BYTES) : words.getLong(Long.BYTES);
    }

    /** The atomic through UCP. */
    long fetchOp(int worldRank, AtomicOp op, long value, long compare, int size, long remote, long handle) {
        UcxWorker.Atomic a = atomicOf(op);
        return op == AtomicOp.CSWAP ? atomic(worldRank, a, compare, value, size, remote, handle)
                : atomic(worldRank, a, value, 0, size, remote, handle);
    }

    /**
     * {@link RemoteMemory#fetchOps}: posts the atomics in rounds of {@value #ATOMICS_PER_ROUND} and waits for each
     * round once.
     */
    void fetchOps(int worldRank, AtomicOp op, long[] values, long[] compares, int size, long[] remotes, int n,
            long handle, long[] results) {
        UcxWorker.Atomic a = atomicOf(op);
        long ep = memory.endpointTo(worldRank);
        int round = Math.min(n, ATOMICS_PER_ROUND);
        long[] reqs = new long[round];
        try (Memory words = new Memory(2L * Long.BYTES * round)) {
            long base = Pointer.nativeValue(words);
            for (int from = 0; from < n; from += round) {
                int k = Math.min(round, n - from);
                int posted = 0;
                try {
                    for (int i = 0; i < k; i++) {
                        long at = base + 2L * Long.BYTES * i;
                        long operand = op == AtomicOp.CSWAP ? compares[from + i] : values[from + i];
                        long swapIn = op == AtomicOp.CSWAP ? values[from + i] : 0;
                        if (size == Integer.BYTES) {
                            words.setInt(at - base, (int) operand);
                            words.setInt(at - base + Long.BYTES, (int) swapIn);
                        } else {
                            words.setLong(at - base, operand);
                            words.setLong(at - base + Long.BYTES, swapIn);
                        }
                        reqs[i] = worker.atomic(ep, a, at, size, remotes[from + i], handle, at + Long.BYTES);
                        posted++;
                    }
                    for (int i = 0; i < k; i++) {
                        long r = reqs[i];
                        reqs[i] = 0; // complete frees it, or cancels it when it gives up
                        memory.complete(r, worldRank);
                    }
                } finally {
                    for (int i = 0; i < posted; i++) {
                        if (reqs[i] != 0) {
                            worker.cancel(reqs[i]);
                        }
                    }
                }
                for (int i = 0; i < k; i++) {
                    long at = 2L * Long.BYTES * i + Long.BYTES;
                    results[from + i] = size == Integer.BYTES ? words.getInt(at) : words.getLong(at);
                    memory.countRdma(size);
                }
            }
        }
    }

    /** Atomics posted before a wait in {@link #fetchOps}. */
    private static final int ATOMICS_PER_ROUND = 256;

    static UcxWorker.Atomic atomicOf(AtomicOp op) {
        return switch (op) {
            case ADD -> UcxWorker.Atomic.ADD;
            case SWAP -> UcxWorker.Atomic.SWAP;
            case CSWAP -> UcxWorker.Atomic.CSWAP;
            case AND -> UcxWorker.Atomic.AND;
            case OR -> UcxWorker.Atomic.OR;
            case XOR -> UcxWorker.Atomic.XOR;
        };
    }
}

package io.jrma.sync;


import io.jrma.core.mem.Memory;
import io.jrma.core.op.ElementLocks;
import io.jrma.core.os.Futex;
import io.jrma.core.runtime.Sleeper;
import java.util.concurrent.locks.LockSupport;

/**
 * The synchronization state of one rank's window as a target, written by origins (directly on the direct
 * path, by the progress agent on the packet path) and read by the owning rank: the passive-target lock word,
 * fence markers (per fence epoch parity), PSCW post/complete counters per peer, and the element-lock table of
 * the window memory.
 *
 * <p>Everything lives in off-heap memory with a fixed layout, so that the state of a window shared between
 * JVMs sits in the shared segment next to the window memory and origins in other processes use it directly:
 * <pre>
 *  +0                 lock word ({@link LockWord#BYTES} bytes)
 *  +24                wake sequence (int: the futex word sleepers wait on, bumped by a signal that finds sleepers)
 *  +28                sleepers (int: threads about to sleep or asleep on the wake sequence)
 *  +32                fence markers, parity 0 and 1 (8 bytes each)
 *  +48                posts received from each peer (8 bytes per peer)
 *  +48 + 8n           completes received from each peer (8 bytes per peer)
 *  +48 + 16n          element lock table ({@link ElementLocks#BYTES} bytes)
 * </pre>
 * All counters are 64-bit and updated with CPU atomics.
 *
 * <p>Thread-safe and process-safe; any thread.
 */
final class TargetState implements Sleeper {
    private static final long SEQ = 24;
    private static final long SLEEPERS = 28;
    private static final long FENCE = 32;
    private static final long POST = 48;

    private final long owned;
    private final long base;
    private final int n;
    final LockWord lockWord;
    /** Locks for elements no CPU atomic covers, shared by every process mapping the window memory. */
    final ElementLocks elementLocks;

    /** Bytes the state of a window of {@code groupSize} ranks needs (a multiple of 64). */
    static long bytes(int groupSize) {
        return (POST + 16L * groupSize + ElementLocks.BYTES + 63) & ~63L;
    }

    /** State in memory of its own (a window private to this JVM); element locks are the JVM's. */
    TargetState(int groupSize) {
        this.n = groupSize;
        this.owned = Memory.allocate(bytes(groupSize) + 8);
        this.base = (owned + 7) & ~7L;
        Memory.fill(base, bytes(groupSize), (byte) 0);
        this.lockWord = new LockWord(base, this::signal);
        this.elementLocks = ElementLocks.JVM;
    }

    /**
     * A view of zeroed state at {@code address} (in a shared segment, mapped in this process) guarding window
     * memory mapped at {@code memoryBase} in this process.
     */
    TargetState(long address, int groupSize, long memoryBase) {
        this.n = groupSize;
        this.owned = 0;
        this.base = address;
        this.lockWord = new LockWord(address, this::signal);
        this.elementLocks = new ElementLocks(address + POST + 16L * groupSize, memoryBase);
    }

    /** Address of the state in this process. */
    long address() {
        return base;
    }

    /** Address in this process of the element-lock table of the state at {@code address}. */
    static long elementTable(long address, int groupSize) {
        return address + POST + 16L * groupSize;
    }

    void fenceArrived(int parity) {
        Memory.getAndAddLong(null, base + FENCE + 8L * (parity & 1), 1);
        signal();
    }

    long fenceCount(int parity) {
        return Memory.getLongVolatile(null, base + FENCE + 8L * (parity & 1));
    }

    void fenceConsume(int parity, long k) {
        Memory.getAndAddLong(null, base + FENCE + 8L * (parity & 1), -k);
    }

    void postArrived(int from) {
        Memory.getAndAddLong(null, slot(POST, from), 1);
        signal();
    }

    long posts(int from) {
        return Memory.getLongVolatile(null, slot(POST, from));
    }

    void completeArrived(int from) {
        Memory.getAndAddLong(null, slot(POST + 8L * n, from), 1);
        signal();
    }

    /**
     * Tells threads sleeping on this state (in any process) that it changed: called after the change, which is
     * an atomic (full-fence) update, so the load of the sleeper count cannot pass it. Without sleepers it costs
     * that load only (a shared lock epoch did four extra atomics before: a sequence bump per grant and release).
     */
    void signal() {
        if (Memory.getIntVolatile(null, base + SLEEPERS) > 0) {
            Memory.getAndAddInt(null, base + SEQ, 1);
            if (Futex.available()) {
                Futex.wakeAll(base + SEQ);
            }
        }
    }

    @Override
    public int prepareSleep() {
        Memory.getAndAddInt(null, base + SLEEPERS, 1); // full fence: the caller's next look at the state follows it
        return Memory.getIntVolatile(null, base + SEQ);
    }

    @Override
    public void sleep(int seen, long timeoutNs) {
        try {
            if (Futex.available()) {
                Futex.await(base + SEQ, seen, timeoutNs);
            } else {
                LockSupport.parkNanos(timeoutNs);
            }
        } finally {
            Memory.getAndAddInt(null, base + SLEEPERS, -1);
        }
    }

    @Override
    public void cancelSleep() {
        Memory.getAndAddInt(null, base + SLEEPERS, -1);
    }

    long completes(int from) {
        return Memory.getLongVolatile(null, slot(POST + 8L * n, from));
    }

    private long slot(long region, int peer) {
        if (peer < 0 || peer >= n) {
            throw new IndexOutOfBoundsException("peer " + peer + " of " + n);
        }
        return base + region + 8L * peer;
    }

    void release() {
        if (owned != 0) {
            Memory.free(owned);
        }
    }
}

package io.jrma.sync;

import static io.jrma.core.mem.UnsafeAccess.UNSAFE;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The synchronization state of one rank's window as a target, written by origins (directly on the direct
 * path, by the progress agent on the packet path) and read by the owning rank: the passive-target lock word,
 * fence markers (per fence epoch parity), and PSCW post/complete counters per peer.
 *
 * <p>Thread-safe: all fields are atomics.
 */
final class TargetState {
    private final long lockMemory;
    final LockWord lockWord;
    /** Fence markers received, by fence epoch parity. */
    final AtomicIntegerArray fenceArrived = new AtomicIntegerArray(2);
    /** Posts received from each peer (this rank as origin of PSCW). */
    final AtomicLongArray postArrived;
    /** Completes received from each peer (this rank as PSCW target). */
    final AtomicLongArray completeArrived;

    TargetState(int groupSize) {
        lockMemory = UNSAFE.allocateMemory(LockWord.BYTES + 8);
        long aligned = (lockMemory + 7) & ~7L;
        UNSAFE.setMemory(aligned, LockWord.BYTES, (byte) 0);
        lockWord = new LockWord(aligned);
        postArrived = new AtomicLongArray(groupSize);
        completeArrived = new AtomicLongArray(groupSize);
    }

    void release() {
        UNSAFE.freeMemory(lockMemory);
    }
}

package io.jrma.transport.tcp;

import io.jrma.core.mem.Memory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.HashMap;

/**
 * The off-heap receive buffers of one {@link TcpConnection}, kept for the next frame of their size: power-of-two size
 * classes up to {@value #BIG} bytes, multiples of it above, up to {@link #POOL_DEPTH} per size and beyond that while
 * the pool holds less than the credit window. A buffer above {@link #POOLED_MAX} bytes is not kept; excess buffers go
 * back to the OS once none was taken for a second ({@link #trim}).
 *
 * <p>Threads: the thread running the progress agent only.
 */
final class ReceivePool {
    /** Receive buffers up to this size are power-of-two classes; above, multiples of it. */
    private static final int BIG = 256 << 10;
    /** Larger receive buffers are not pooled. */
    private static final int POOLED_MAX = (8 << 20) + BIG;
    private static final int POOL_DEPTH = 8;
    /** Power-of-two size classes: up to 2^18 = {@link #BIG}. */
    private static final int SIZE_CLASSES = 19;
    /** The excess beyond {@link #POOL_DEPTH} goes back once none of it was taken for this long. */
    private static final long TRIM_AFTER_NS = 1_000_000_000L;

    /** The credit window: the bytes a peer may have in flight here. */
    private final long window;
    @SuppressWarnings("unchecked")
    private final ArrayDeque<ByteBuffer>[] pool = new ArrayDeque[SIZE_CLASSES];
    private final HashMap<Integer, ArrayDeque<ByteBuffer>> bigPool = new HashMap<>();
    private long pooledBytes;
    /** Some pool holds more than {@link #POOL_DEPTH} buffers (the excess is trimmed once it lies unused). */
    private boolean excess;
    /** Buffers taken from beyond a pool's depth, and that count at the last look of {@link #trim}. */
    private long excessTaken;
    private long excessTakenSeen;
    private long excessSeenNs;

    ReceivePool(long window) {
        this.window = window;
        for (int i = 0; i < pool.length; i++) {
            pool[i] = new ArrayDeque<>();
        }
    }

    private static int sizeClass(int len) {
        return Math.max(12, 32 - Integer.numberOfLeadingZeros(Math.max(1, len - 1)));
    }

    /**
     * The capacity a receive buffer for {@code len} bytes gets: a power of two up to 256 KiB, a multiple of
     * 256 KiB above (a 4 MiB packet and its header took an 8 MiB buffer, zeroed and page-faulted when new).
     */
    private static int capacityFor(int len) {
        return len <= BIG ? 1 << sizeClass(len) : (int) Math.min(Integer.MAX_VALUE, ((long) len + BIG - 1) / BIG * BIG);
    }

    private ArrayDeque<ByteBuffer> poolFor(int capacity, boolean create) {
        if (capacity <= BIG) {
            return pool[sizeClass(capacity)];
        }
        if (capacity > POOLED_MAX) {
            return null;
        }
        ArrayDeque<ByteBuffer> q = bigPool.get(capacity);
        if (q == null && create) {
            q = new ArrayDeque<>();
            bigPool.put(capacity, q);
        }
        return q;
    }

    /** A buffer of at least {@code len} bytes, position 0, limit {@code len}, little-endian. */
    ByteBuffer acquire(int len) {
        int cap = capacityFor(len);
        ArrayDeque<ByteBuffer> q = poolFor(cap, false);
        ByteBuffer b = q == null ? null : q.poll();
        if (b == null) {
            b = ByteBuffer.allocateDirect(cap);
        } else {
            pooledBytes -= cap;
            if (q.size() >= POOL_DEPTH) {
                excessTaken++;
            }
        }
        b.clear().limit(len);
        return b.order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Keeps a consumed receive buffer for the next frame of its size: up to {@link #POOL_DEPTH} per size, and
     * beyond that while the pool holds less than the credit window (all the bytes a peer may have in flight
     * here); to make room, buffers of other sizes go first. A stream of 64 replies of 1 MiB kept 8 and freed 56
     * per round, and allocating them again (zeroed, page-faulted) cost more than the socket reads. Buffers beyond
     * the depth go back once none of them was taken for a second ({@link #trim}).
     */
    void release(ByteBuffer b) {
        if (!b.isDirect()) {
            return;
        }
        int cap = b.capacity();
        ArrayDeque<ByteBuffer> q = cap == capacityFor(cap) ? poolFor(cap, true) : null;
        if (q != null && q.size() >= POOL_DEPTH && pooledBytes + cap > window) {
            evictOtherThan(cap, pooledBytes + cap - window); // the sizes in use now take the room of earlier ones
        }
        if (q != null && (q.size() < POOL_DEPTH || pooledBytes + cap <= window)) {
            q.push(b);
            pooledBytes += cap;
            if (q.size() > POOL_DEPTH && !excess) {
                excess = true;
                excessSeenNs = System.nanoTime(); // a second from now at the earliest
            }
        } else {
            Memory.release(b); // large buffers go back to the OS now, not at some GC
        }
    }

    /** Frees pooled buffers of other capacities than {@code keep} until {@code bytes} are freed. */
    private void evictOtherThan(int keep, long bytes) {
        for (ArrayDeque<ByteBuffer> q : pool) {
            bytes = evict(q, keep, bytes);
        }
        for (ArrayDeque<ByteBuffer> q : bigPool.values()) {
            bytes = evict(q, keep, bytes);
        }
    }

    private long evict(ArrayDeque<ByteBuffer> q, int keep, long bytes) {
        while (bytes > 0 && !q.isEmpty() && q.peek().capacity() != keep) {
            bytes -= free(q.poll());
        }
        return bytes;
    }

    private int free(ByteBuffer b) {
        pooledBytes -= b.capacity();
        Memory.release(b);
        return b.capacity();
    }

    /**
     * Frees the buffers beyond {@link #POOL_DEPTH} per size once none of them was taken for a second. Costs one
     * flag test per duty cycle unless some pool holds an excess.
     */
    void trim() {
        if (!excess) {
            return;
        }
        long now = System.nanoTime();
        if (excessTaken != excessTakenSeen) {
            excessTakenSeen = excessTaken;
            excessSeenNs = now;
            return;
        }
        if (now - excessSeenNs < TRIM_AFTER_NS) {
            return;
        }
        for (ArrayDeque<ByteBuffer> q : pool) {
            while (q.size() > POOL_DEPTH) {
                free(q.poll());
            }
        }
        for (ArrayDeque<ByteBuffer> q : bigPool.values()) {
            while (q.size() > POOL_DEPTH) {
                free(q.poll());
            }
        }
        excess = false;
    }
}

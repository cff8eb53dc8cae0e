package io.jrma.sync;

import io.jrma.Datatype;
import io.jrma.WinCounters.Counter;
import io.jrma.core.dt.BasicType;
import io.jrma.core.dt.BlockCursor;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.mem.BulkCopy;
import io.jrma.core.mem.Memory;
import io.jrma.core.op.AccumulateKernel;
import io.jrma.core.op.OpCode;
import io.jrma.spi.transport.RemoteMemory;
import io.jrma.spi.transport.RemoteMemory.AtomicOp;

/**
 * The atomic domain of one window (issue 31): every accumulate, get_accumulate, fetch_and_op and compare_and_swap of
 * every rank to every target goes through the remote atomics of the transport's memory side ({@link RemoteMemory},
 * the ucx transport's UCP atomics) — to the ranks of other JVMs over the RDMA lane, to the ranks of this JVM and to
 * the rank itself through the transport's loopback — so that all accumulates to a location are atomic with each
 * other, as MPI requires, whatever lane they would otherwise take (CPU atomics and the packet agent are not atomic
 * with a network adapter's atomics, nor with UCX's emulation of them).
 *
 * <p>Decided once, when the window is created ({@link WindowFactory}), the same in every rank: every rank registered
 * its memory, its transport's memory side reaches every rank of the window ({@link RemoteMemory#reachesMemoryOf})
 * and allows the domain ({@link RemoteMemory#atomicDomain}: {@code jrma.ucx.atomics}) — each rank says so in what the
 * ranks exchange at creation — and some rank reaches some peer other than by load/store (packets or the RDMA lane:
 * where every rank reaches every peer by load/store, CPU atomics are atomic with each other and the domain would
 * only cost); each rank says that in the exchange that ends creation.
 *
 * <p>Per element (MPI's atomicity is per element): a 4- or 8-byte element aligned to its size with an op the
 * transport has takes that atomic — SUM of integers ADD, REPLACE SWAP, NO_OP a fetching ADD of 0, BAND/BOR/BXOR of
 * integers AND/OR/XOR, compare_and_swap CSWAP; any other op or type (floats, MAX, MIN, PROD, the logical ops, pairs
 * of 4 bytes), and elements of 1 or 2 bytes, a compare-and-swap loop on the aligned 4- or 8-byte word holding the
 * element (the op computed here by the accumulate kernel on the word's bytes). Which way an element goes depends only
 * on its type and address, so accumulates of one type to one location always meet in the same word's atomics.
 * What no word holds — elements over 8 bytes (double complex, the 12- and 16-byte pairs), an element across an
 * aligned 8-byte boundary, a word reaching outside the target's window — is refused by {@link #issue} as a whole,
 * before any element is applied, and takes the target's lane as without the domain (packets applied by the target's
 * agent, CPU atomics in its JVM, both under its element locks); by the same rule every accumulate of that type at
 * that address does, so those stay atomic with each other too (docs/ucx.md, "Not done yet").
 *
 * <p>Completion: each atomic returns with its result, so an operation is complete at the target when it returns;
 * synchronization has nothing to flush for it. Immutable after creation; any of the rank's threads.
 */
final class AtomicDomain {
    private static final long BYTE_BASE = Memory.arrayBase(byte[].class);
    private static final long LONG_BASE = Memory.arrayBase(long[].class);
    private static final int INT = Integer.BYTES;
    private static final int LONG = Long.BYTES;

    private final WindowImpl w;
    private final RemoteMemory memory;
    private final long[] handles;
    /** Per window rank: the address of its window memory in its own process, and its length. */
    private final long[] bases;
    private final long[] sizes;
    private final int[] worldRanks;

    private AtomicDomain(WindowImpl w, RemoteMemory memory, long[] handles, long[] bases, long[] sizes,
            int[] worldRanks) {
        this.w = w;
        this.memory = memory;
        this.handles = handles;
        this.bases = bases;
        this.sizes = sizes;
        this.worldRanks = worldRanks;
    }

    /**
     * What this rank says at creation ({@link Peer.Info#atomics}): it registered its memory or has none
     * ({@code registered}), its
     * transport's memory side allows the domain and reaches every rank of the window ({@code worldRanks}).
     */
    static boolean able(RemoteMemory m, boolean registered, int[] worldRanks) {
        if (m == null || !registered || !m.atomicDomain()) {
            return false;
        }
        for (int r : worldRanks) {
            if (!m.reachesMemoryOf(r)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Opens the domain once every rank said it is able ({@code able[t]}), with their keys and bases; null when one
     * is not, or when a key does not attach here (the window keeps CPU atomics and packets for its accumulates: the
     * ranks agree on that in the exchange that ends creation).
     */
    static AtomicDomain open(WindowImpl w, RemoteMemory m, boolean[] able, Peer[] peers, byte[][] keys,
            long[] bases) {
        for (boolean a : able) {
            if (!a) {
                return null;
            }
        }
        long[] handles = new long[peers.length];
        long[] sizes = new long[peers.length];
        int[] worldRanks = new int[peers.length];
        for (int t = 0; t < peers.length; t++) {
            worldRanks[t] = peers[t].worldRank;
            sizes[t] = peers[t].size;
            if (keys[t] == null && sizes[t] == 0) {
                continue; // an empty window: no element to reach there (a call to it fails its range check)
            }
            handles[t] = m.attach(peers[t].worldRank, keys[t]);
            if (handles[t] == 0) { // it said it reaches every rank, but this key does not attach
                for (int u = 0; u < t; u++) {
                    if (handles[u] != 0) {
                        m.detach(handles[u]);
                    }
                }
                return null;
            }
        }
        return new AtomicDomain(w, m, handles, bases.clone(), sizes, worldRanks);
    }

    /** Releases the peers' keys (at free, once every peer is done with this rank's memory). */
    void release() {
        for (long h : handles) {
            if (h != 0) {
                memory.detach(h);
            }
        }
    }

    /**
     * Does a checked accumulate-family operation by remote atomics, element by element; false (nothing done) when an
     * element has no word to take ({@link AtomicDomain class comment}): the caller then takes the target's lane.
     */
    boolean issue(OpArgs a) {
        int t = a.target;
        BasicType e = a.elem;
        int s = e.size();
        long count = a.targetCount * a.targetLayout.elementCount();
        if (count == 0 || a.bytes == 0
                || a.kind == OpArgs.CAS && (e.kind() == BasicType.Kind.COMPLEX || e.kind() == BasicType.Kind.PAIR)) {
            return false; // nothing to apply, or an error the lane's path reports
        }
        if (count > Integer.MAX_VALUE / LONG) {
            return false;
        }
        long[] at = new long[(int) count];
        long base = bases[t] + a.targetOffset;
        int n = 0;
        BlockCursor c = a.targetLayout.cursor(a.targetCount);
        while (c.next()) {
            for (long o = 0; o + s <= c.length(); o += s) {
                long addr = base + c.offset() + o;
                if (n == at.length || word(t, addr, s) == 0) {
                    return false;
                }
                at[n++] = addr;
            }
        }
        if (n != count) {
            return false;
        }
        awaitAccess(t);
        byte[] origin = null;
        if (a.originCount > 0 && a.op != OpCode.NO_OP) {
            origin = new byte[(int) (count * s)];
            TypeLayout.copy(a.origin.base, a.origin.offset, a.originCount, a.originLayout, origin, BYTE_BASE,
                    origin.length, Datatype.BYTE.layout());
        }
        byte[] compare = null;
        if (a.kind == OpArgs.CAS) {
            compare = new byte[s];
            TypeLayout.copy(a.compare.base, a.compare.offset, 1, a.targetLayout, compare, BYTE_BASE, s,
                    Datatype.BYTE.layout());
        }
        boolean fetch = a.kind != OpArgs.ACC;
        byte[] result = fetch ? new byte[(int) (count * s)] : null;
        long atomics = apply(a, t, e, at, n, origin, compare, result);
        if (fetch) {
            TypeLayout.copy(result, BYTE_BASE, result.length, Datatype.BYTE.layout(), a.result.base, a.result.offset,
                    a.resultCount, a.resultLayout);
        }
        w.counters.add(Counter.RDMA_ATOMICS, atomics);
        if (a.kind == OpArgs.ACC) {
            w.counters.add(Counter.BYTES_PUT, a.bytes);
        } else if (a.kind == OpArgs.GET_ACC) {
            w.counters.add(Counter.BYTES_GOT, a.bytes);
        }
        return true;
    }

    /** Waits for the target's lock (passive target) as the target's lane does before its first operation. */
    private void awaitAccess(int t) {
        Lane lane = w.peers[t].lane;
        if (lane == Lane.PACKET || lane == Lane.RDMA) {
            w.packets.awaitLockGranted(t);
        } else {
            w.epochs.ensureDirectLock(t);
        }
    }

    /**
     * The size (4 or 8) of the aligned word of target {@code t}'s window that holds the {@code s}-byte element at
     * {@code addr}: its own size when it is 4 or 8 bytes and aligned, else the smallest aligned 4- or 8-byte word
     * around it inside the window; 0 when none does.
     */
    private int word(int t, long addr, int s) {
        if ((s == INT || s == LONG) && (addr & (s - 1)) == 0) {
            return s;
        }
        for (int size = INT; size <= LONG; size += INT) {
            long lo = addr & -size;
            if (s <= size && addr + s <= lo + size && lo >= bases[t] && lo + size <= bases[t] + sizes[t]) {
                return size;
            }
        }
        return 0;
    }

    /** The atomic the transport has for {@code op} on a whole element of kind {@code k}, or null. */
    private static AtomicOp direct(int kind, OpCode op, BasicType.Kind k) {
        if (kind == OpArgs.CAS) {
            return AtomicOp.CSWAP;
        }
        boolean integer = k == BasicType.Kind.SIGNED || k == BasicType.Kind.UNSIGNED;
        return switch (op) {
            case REPLACE -> AtomicOp.SWAP;
            case NO_OP -> AtomicOp.ADD;
            case SUM -> integer ? AtomicOp.ADD : null;
            case BAND -> integer ? AtomicOp.AND : null;
            case BOR -> integer ? AtomicOp.OR : null;
            case BXOR -> integer ? AtomicOp.XOR : null;
            default -> null;
        };
    }

    /**
     * Applies the {@code n} elements at {@code at} (origin bytes of element i at {@code i * size} of {@code origin},
     * its old value to the same place of {@code result} unless null): those with an atomic of their own in one batch
     * ({@link RemoteMemory#fetchOps}), the others by compare-and-swap loops on their words, one batch per round (the
     * first guesses 0, each retry what the word held). Returns the atomics it took.
     */
    private long apply(OpArgs a, int t, BasicType e, long[] at, int n, byte[] origin, byte[] compare, byte[] result) {
        int s = e.size();
        int wr = worldRanks[t];
        long h = handles[t];
        AtomicOp direct = direct(a.kind, a.op, e.kind());
        long cmp = compare == null ? 0 : read(compare, 0, s);
        // elements with their own atomic: aligned, of 4 or 8 bytes, an op the transport has
        int[] loop = new int[n];
        int loops = 0;
        long[] remotes = new long[n];
        long[] values = new long[n];
        long[] compares = a.kind == OpArgs.CAS ? new long[n] : null;
        int[] which = new int[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (direct != null && word(t, at[i], s) == s) {
                remotes[k] = at[i];
                values[k] = a.op == OpCode.NO_OP && a.kind != OpArgs.CAS ? 0 : read(origin, i * (long) s, s);
                if (compares != null) {
                    compares[k] = cmp;
                }
                which[k++] = i;
            } else {
                loop[loops++] = i;
            }
        }
        long[] olds = new long[n];
        if (k > 0) {
            memory.fetchOps(wr, direct, values, compares, s, remotes, k, h, olds);
            if (result != null) {
                for (int j = 0; j < k; j++) {
                    write(result, which[j] * (long) s, s, olds[j]);
                }
            }
        }
        long atomics = k;
        // the others: compare-and-swap loops on their words, in rounds
        long[] guesses = new long[n];
        long[] scratch = new long[1];
        for (int size = INT; size <= LONG && loops > 0; size += INT) {
            int[] pending = new int[loops];
            int p = 0;
            for (int j = 0; j < loops; j++) {
                if (word(t, at[loop[j]], s) == size) {
                    pending[p++] = loop[j];
                }
            }
            long[] cmps = new long[p];
            while (p > 0) {
                for (int j = 0; j < p; j++) {
                    int i = pending[j];
                    remotes[j] = at[i] & -size;
                    cmps[j] = guesses[i];
                    values[j] = next(a, e, size, (int) (at[i] - remotes[j]), guesses[i], origin, i * (long) s, compare,
                            result, scratch);
                }
                memory.fetchOps(wr, AtomicOp.CSWAP, values, cmps, size, remotes, p, h, olds);
                atomics += p;
                int left = 0;
                for (int j = 0; j < p; j++) {
                    int i = pending[j];
                    long old = size == INT ? olds[j] & 0xFFFF_FFFFL : olds[j];
                    if (old != guesses[i]) {
                        guesses[i] = old;
                        pending[left++] = i;
                    }
                }
                p = left;
            }
        }
        return atomics;
    }

    /**
     * The word after the op on its element ({@code delta} bytes into the {@code size}-byte word) if the word holds
     * {@code guess}; stores the element's bytes of {@code guess} into {@code result} (at {@code o}) unless null.
     */
    private static long next(OpArgs a, BasicType e, int size, int delta, long guess, byte[] origin, long o,
            byte[] compare, byte[] result, long[] scratch) {
        int s = e.size();
        scratch[0] = guess;
        long at = LONG_BASE + delta;
        if (result != null) {
            BulkCopy.copy(scratch, at, result, BYTE_BASE + o, s);
        }
        if (a.kind == OpArgs.CAS) {
            if (equal(scratch, at, compare, s)) {
                BulkCopy.copy(origin, BYTE_BASE + o, scratch, at, s);
            }
        } else if (a.op != OpCode.NO_OP) {
            AccumulateKernel.accumulate(a.op, e, origin, BYTE_BASE + o, scratch, at, 1);
        }
        return size == INT ? Memory.getIntPlain(scratch, LONG_BASE) & 0xFFFF_FFFFL : scratch[0];
    }

    private static boolean equal(long[] word, long at, byte[] compare, int s) {
        for (int k = 0; k < s; k++) {
            if (Memory.getBytePlain(word, at + k) != compare[k]) {
                return false;
            }
        }
        return true;
    }

    private static long read(byte[] b, long o, int s) {
        return s == INT ? Memory.getIntPlain(b, BYTE_BASE + o) : Memory.getLongPlain(b, BYTE_BASE + o);
    }

    private static void write(byte[] b, long o, int s, long v) {
        if (s == INT) {
            Memory.putIntPlain(b, BYTE_BASE + o, (int) v);
        } else {
            Memory.putLongPlain(b, BYTE_BASE + o, v);
        }
    }
}

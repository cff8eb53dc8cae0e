package io.jrma.msg;

import io.jrma.Jrma;
import io.jrma.RmaException;
import io.jrma.SharedMemory;
import io.jrma.Win;
import io.jrma.core.mem.Memory;
import io.jrma.core.os.CrossMemory;
import io.jrma.core.os.Futex;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The inboxes of a messenger's communicator that this process reaches by load/store (ranks of this JVM, and of this
 * host when the inbox lives in a shared segment): the direct path. Owns their memory and addresses, the stores and
 * loads of their words (tails, credits, flags), the futex word through which senders wake a receiver asleep, and
 * whether rendezvous data of other processes of the host is read by a single kernel copy. Where a peer's inbox is
 * not mapped, only the packet path (RMA calls on the inbox window) reaches it.
 *
 * <p>One per messenger, made with it; its fields are final but {@link #crossReadRefused}. Every thread of the rank
 * uses it under the messenger's lock, except the release stores, volatile loads and futex calls, which are
 * atomic.
 */
final class PeerInboxes {
    /**
     * Per rank: its inbox memory as this process reaches it by load/store, or null where only the packet path
     * reaches it. Envelopes, payloads, tails and credits to such a rank are plain stores and a release store
     * instead of RMA calls.
     */
    final ByteBuffer[] mem;
    /** Addresses of {@link #mem} in this process, and of this rank's inbox. */
    final long[] address;
    final long myAddress;
    /** This process's id, written in this rank's inbox for its peers (hand-offs, cross-process reads). */
    final long myPid;
    /**
     * Every peer's inbox is mapped here: envelopes, payloads, tails and credits arrive as stores (see
     * {@link Messenger#flagBarrier} and the messenger's progress rounds).
     */
    final boolean allDirect;
    /** This rank wakes sleeping peers after its direct stores. */
    final boolean futexWake;
    /** Every peer stores directly (see {@link #signal}): waiting threads may sleep on the futex word. */
    final boolean futexSleep;
    private final int me;
    private final InboxLayout lay;
    /** This rank's own inbox memory. */
    private final ByteBuffer own;
    /** Rendezvous data of ranks in other processes of the host is read by process_vm_readv (until refused once). */
    private volatile boolean crossRead;

    PeerInboxes(Messenger m, Win inbox) {
        this.me = m.me;
        this.lay = m.lay;
        int size = m.size;
        // jrma.path=packet asks for the packet path everywhere (to test it, or to compare): envelopes too
        this.mem = reachable(inbox, size, me, m.cfg.directPublish
                && !"packet".equals(Jrma.parameter(m.comm, "jrma.path")));
        this.address = new long[size];
        boolean all = size > 1;
        for (int r = 0; r < size; r++) {
            if (r != me) {
                all &= mem[r] != null;
                address[r] = mem[r] == null ? 0 : Win.address(mem[r]);
            }
        }
        this.own = m.mem;
        this.myAddress = Win.address(own);
        this.myPid = ProcessHandle.current().pid();
        Memory.putLongRelease(null, myAddress + lay.wake + 8, myPid); // peers read it after our first message to them
        this.crossRead = m.cfg.crossRead && CrossMemory.available();
        // a waiting thread sleeps on the futex word only when every peer stores directly, so that every message
        // and credit comes with a wake-up; waking costs a sender a fence and a load when nobody sleeps
        this.futexWake = Futex.available();
        this.futexSleep = all && futexWake;
        this.allDirect = all;
    }

    /** The inboxes this process reaches by load/store (see {@link #mem}). */
    private static ByteBuffer[] reachable(Win inbox, int size, int me, boolean wanted) {
        ByteBuffer[] peers = new ByteBuffer[size];
        if (!wanted) {
            return peers;
        }
        for (int r = 0; r < size; r++) {
            if (r == me) {
                continue;
            }
            SharedMemory sm;
            try {
                sm = inbox.sharedQuery(r);
            } catch (RmaException e) {
                return new ByteBuffer[size]; // no shared_query on this window: the packet path for everyone
            }
            if (sm != null && sm.size() > 0 && sm.buffer() != null) {
                peers[r] = sm.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
            }
        }
        return peers;
    }

    /**
     * Stores {@code value} into the long at {@code offset} of the inbox of {@code rank} (one this process maps) with
     * release semantics. The words of the inboxes are reached through {@link Memory} at their addresses (native
     * order, little-endian on every platform jrma runs on), not through VarHandles: before the JIT has compiled them,
     * a VarHandle access costs dozens of interpreted frames, and every message polls and publishes several such
     * words.
     */
    void storeRelease(int rank, long offset, long value) {
        ByteBuffer peer = mem[rank];
        if (offset < 0 || offset + Long.BYTES > peer.capacity()) {
            throw new IndexOutOfBoundsException("word at " + offset + " of an inbox of " + peer.capacity() + " bytes");
        }
        Memory.putLongRelease(null, address[rank] + offset, value);
    }

    /** A volatile load of a long of this rank's inbox (a word other ranks write). */
    long loadVolatile(long offset) {
        return Memory.getLongVolatile(null, myAddress + offset);
    }

    /**
     * After stores into {@code d}'s inbox that {@code d} may be waiting for (a tail, credits): wakes its threads
     * asleep on its futex word, if any. The full fence orders those stores before the read of the sleeper count
     * (a sleeper registers, then polls again, then sleeps: one of the two sides sees the other).
     */
    void signal(int d) {
        ByteBuffer peer = mem[d];
        if (!futexWake || peer == null) {
            return;
        }
        VarHandle.fullFence();
        if (Memory.getIntVolatile(null, address[d] + lay.wake + 4) > 0) {
            Memory.getAndAddInt(null, address[d] + lay.wake, 1);
            Futex.wakeAll(address[d] + lay.wake);
        }
    }

    /**
     * The process of rank {@code s} when its rendezvous data can be read from it by a single kernel copy (a rank
     * of another JVM of this host whose inbox this process maps), else 0 (same JVM: the window path is a
     * single copy already; other hosts; reads refused).
     */
    int crossReadPid(int s) {
        ByteBuffer peer = mem[s];
        if (!crossRead || peer == null) {
            return 0;
        }
        long pid = Memory.getLongVolatile(null, address[s] + lay.wake + 8);
        return pid == myPid || pid <= 0 || pid > Integer.MAX_VALUE ? 0 : (int) pid;
    }

    /** The kernel refused a cross-process read: rendezvous data is read through the exposure window from now on. */
    void crossReadRefused() {
        crossRead = false;
    }

    /** {seq, sleepers} of {@code rank}'s futex word as this process sees it now (for tests); null if unreachable. */
    int[] wakeWord(int rank) {
        ByteBuffer b = rank == me ? own : mem[rank];
        if (b == null) {
            return null;
        }
        long at = (rank == me ? myAddress : address[rank]) + lay.wake;
        return new int[] {Memory.getIntVolatile(null, at), Memory.getIntVolatile(null, at + 4)};
    }
}

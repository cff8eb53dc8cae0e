package io.jrma.msg;

import io.jrma.core.mem.Memory;

/**
 * The barrier on shared flags ({@link Collectives#barrier} where every rank's inbox is mapped by every other:
 * threads of a JVM, JVMs of a host; see {@link Messenger#flagBarrier}). Owns the flag words of the inboxes
 * ({@link InboxLayout#barrierFlag}), the epoch of the barriers this rank has entered, and which flag this rank's
 * thread waits for, so that {@link Messenger#sleep} never sleeps past it.
 *
 * <p>One per messenger, used by the rank's thread in a collective (MPI's rule: one collective at a time); the
 * flag words are written by the other ranks (release stores) and read here (volatile loads).
 */
final class FlagBarrier {
    private final Messenger m;
    private final PeerInboxes peers;
    /** The barrier flag this rank's thread is waiting for ({@link #awaitFlag}), or -1; the epoch it waits for. */
    private int awaitedFlag = -1;
    private long awaitedEpoch;
    /** Barriers this rank has entered on this communicator: the epoch the flags of the next one carry. */
    private long barrierEpoch;

    FlagBarrier(Messenger m) {
        this.m = m;
        this.peers = m.peers;
    }

    /**
     * The dissemination barrier on shared flags: in round r a rank raises the flag of round r of rank
     * (me + 2^r) mod p to this barrier's epoch and waits until its own flag of round r reaches it. No message, no
     * request, no allocation: a store and a load per round (log2 p rounds), and a wake only for a rank that went to
     * sleep. Epochs only grow, and each flag has one writer, so a flag raised early for the next barrier also
     * satisfies this one, as it must. {@code waiter} is the collectives' waiter.
     */
    void barrier(Waiter waiter) {
        int me = m.me;
        int p = m.size;
        long epoch = ++barrierEpoch;
        int round = 0;
        for (int k = 1; k < p; k <<= 1, round++) {
            raiseFlag((me + k) % p, round, epoch);
            if (flag(round) >= epoch) {
                continue;
            }
            Waiter w = waiter;
            w.reset();
            awaitFlag(round, epoch);
            try {
                while (flag(round) < epoch) {
                    w.idle(m.progressOnce(), m);
                }
            } finally {
                awaitFlag(-1, 0);
            }
        }
    }

    /** Raises round {@code round}'s flag in the inbox of {@code rank} to {@code epoch}, and wakes it if it sleeps. */
    private void raiseFlag(int rank, int round, long epoch) {
        Memory.putLongRelease(null, peers.address[rank] + m.lay.barrierFlag(round), epoch);
        peers.signal(rank);
    }

    /** This rank's flag of round {@code round}: the epoch of the last barrier whose round reached it. */
    private long flag(int round) {
        return Memory.getLongVolatile(null, peers.myAddress + m.lay.barrierFlag(round));
    }

    /** Tells {@link #ready} which flag this thread waits for ({@code round} -1: none). */
    private void awaitFlag(int round, long epoch) {
        awaitedEpoch = epoch;
        awaitedFlag = round;
    }

    /** Whether the flag this rank's thread waits for (if any) has been raised: then it must not sleep. */
    boolean ready() {
        int r = awaitedFlag;
        return r >= 0 && flag(r) >= awaitedEpoch;
    }
}

package io.jrma.sync;

import io.jrma.shm.window.RemoteRegions;
import java.io.Serializable;

/**
 * What one rank of a window knows about another, exchanged once at creation: its size and displacement
 * unit (for origin-side range checks), its base address (in this process: a peer in another JVM of the host
 * whose memory is in a shared segment has the address of this process's mapping), and the path chosen to
 * reach it. {@code local} is
 * the peer's window object when the peer lives in this JVM (null otherwise).
 *
 * <p>Immutable; any thread.
 */
final class Peer {
    /** What every rank contributes at creation: plain values, so it can travel between JVMs. */
    record Info(int rank, int worldRank, long size, int dispUnit, long base, String host, String segment,
                long segmentSize, long memoryOffset, String stateSegment, long stateSegmentSize, long stateOffset,
                byte[] rdmaKey, long rdmaState, boolean atomics) implements Serializable {
    }

    final int rank;
    final int worldRank;
    final long size;
    final int dispUnit;
    final long base;
    final boolean direct;
    final WindowImpl local;
    /** The peer's synchronization state when reachable by load/store (same JVM, or mapped from a shared segment). */
    final TargetState target;
    /**
     * A dynamic window's rank in another JVM of the host: its attached regions, reached by load/store where they
     * lie in shared segments and by kernel copies, request slots or packets elsewhere; a create window's rank there
     * whose memory is private to its JVM: that memory as one private region (null otherwise).
     */
    final RemoteRegions regions;
    /**
     * The lane this peer's operations take ({@link Lanes}, decided once at creation; null only while the window is
     * being created): what every operation dispatches on.
     */
    final Lane lane;

    Peer(int rank, int worldRank, long size, int dispUnit, long base, boolean direct, WindowImpl local,
            TargetState target, RemoteRegions regions) {
        this(rank, worldRank, size, dispUnit, base, direct, local, target, regions, null);
    }

    private Peer(int rank, int worldRank, long size, int dispUnit, long base, boolean direct, WindowImpl local,
            TargetState target, RemoteRegions regions, Lane lane) {
        this.rank = rank;
        this.worldRank = worldRank;
        this.size = size;
        this.dispUnit = dispUnit;
        this.base = base;
        this.direct = direct;
        this.local = local;
        this.target = target;
        this.regions = regions;
        this.lane = lane;
    }

    /** This peer on {@code lane} (the lane table's decision). */
    Peer on(Lane lane) {
        return new Peer(rank, worldRank, size, dispUnit, base, direct, local, target, regions, lane);
    }

    /** Whether every operation to this peer is complete when issued (direct, and never sent as packets). */
    boolean completesAtIssue() {
        return lane == Lane.DIRECT_STORE;
    }
}

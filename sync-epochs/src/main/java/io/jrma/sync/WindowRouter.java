package io.jrma.sync;

import io.jrma.core.wire.Batch;
import io.jrma.core.wire.BatchReceiver;
import io.jrma.core.wire.PacketHeader;
import java.nio.ByteBuffer;
import org.agrona.DirectBuffer;

/**
 * Routes batches for one window id to the window object of the addressed rank in this JVM (all ranks of a
 * window share its id), and holds the control-plane state the window's local ranks share.
 *
 * <p>Registration from rank threads (synchronized, copy-on-write); dispatch from the progress agent.
 */
final class WindowRouter implements BatchReceiver {
    private volatile PacketTarget[] byWorldRank;
    private int registered;

    WindowRouter(int jobSize) {
        this.byWorldRank = new PacketTarget[jobSize];
    }

    /** The window object of a rank of this JVM, or null if that rank is not here (or not registered yet). */
    WindowImpl localWindow(int worldRank) {
        PacketTarget t = target(worldRank);
        return t == null ? null : t.window();
    }

    /** The receiver of a rank of this JVM, or null. */
    private PacketTarget target(int worldRank) {
        PacketTarget[] a = byWorldRank;
        return worldRank >= 0 && worldRank < a.length ? a[worldRank] : null;
    }

    synchronized void register(int worldRank, PacketTarget t) {
        PacketTarget[] a = byWorldRank.clone();
        a[worldRank] = t;
        byWorldRank = a; // release: publishes the receiver to the agent
        registered++;
    }

    /** Returns true when no rank of this JVM is registered any more. */
    synchronized boolean unregister(int worldRank) {
        PacketTarget[] a = byWorldRank.clone();
        a[worldRank] = null;
        byWorldRank = a;
        return --registered == 0;
    }

    @Override
    public void onBatch(Batch batch) {
        PacketTarget t = target(PacketHeader.dst(batch.buffer(), batch.offsetAt(0)));
        if (t == null) {
            batch.markConsumed();
            return;
        }
        t.onBatch(batch);
    }

    @Override
    public ByteBuffer placement(DirectBuffer header, int at) {
        PacketTarget t = target(PacketHeader.dst(header, at));
        return t == null ? null : t.placement(header, at);
    }

    @Override
    public boolean hasInput() {
        for (PacketTarget t : byWorldRank) {
            if (t != null && t.hasInput()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int poll() {
        int work = 0;
        for (PacketTarget t : byWorldRank) {
            if (t != null) {
                work += t.poll();
            }
        }
        return work;
    }
}

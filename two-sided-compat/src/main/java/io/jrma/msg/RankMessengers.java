package io.jrma.msg;

import io.jrma.Comm;
import io.jrma.Jrma;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The live messengers of one rank (one per communicator). A thread waiting in one of them also drives the
 * others that have operations in flight, and does not sleep on its own inbox's futex word while they do: MPI's
 * progress rule asks that a rank blocked in any call completes the operations whose partners are posted, on
 * every communicator. Without this, two ranks each waiting on a different communicator for a rendezvous the
 * other one must match on the first communicator wait for each other forever.
 *
 * <p>Thread-safe. Messengers created outside a job (no rank) form a group of their own.
 */
final class RankMessengers {
    private static final Map<Comm, RankMessengers> BY_WORLD = Collections.synchronizedMap(new WeakHashMap<>());

    private final CopyOnWriteArrayList<Messenger> live = new CopyOnWriteArrayList<>();

    /** The group of the calling thread's rank. */
    static RankMessengers ofCaller() {
        return Jrma.inJob() ? BY_WORLD.computeIfAbsent(Jrma.world(), w -> new RankMessengers()) : new RankMessengers();
    }

    /** A snapshot of {@link #live}, read by progress rounds without allocating (a list's iterator would). */
    private volatile Messenger[] snapshot = new Messenger[0];

    synchronized void add(Messenger m) {
        live.add(m);
        snapshot = live.toArray(new Messenger[0]);
    }

    synchronized void remove(Messenger m) {
        live.remove(m);
        snapshot = live.toArray(new Messenger[0]);
    }

    /** One progress round of every other messenger of the rank that has operations in flight; the work done. */
    int progressOthers(Messenger self) {
        int work = 0;
        for (Messenger m : snapshot) {
            if (m != self) {
                work += m.progressIfBusy();
            }
        }
        return work;
    }

    /** Whether another messenger of the rank has operations in flight (or another thread is driving it). */
    boolean othersBusy(Messenger self) {
        for (Messenger m : snapshot) {
            if (m != self && m.busy()) {
                return true;
            }
        }
        return false;
    }
}

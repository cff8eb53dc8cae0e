package io.jrma.sync;

import io.jrma.Flavor;
import io.jrma.Group;
import io.jrma.LockType;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.core.runtime.CommCore;
import java.lang.invoke.VarHandle;

/**
 * The synchronization calls of a window: fence (active target, {@link FenceEpochs}), start, complete, post, wait and
 * test (PSCW, {@link PscwEpochs}), lock, unlock, their _all forms and the flushes (passive target,
 * {@link PassiveTarget}), and sync. Each checks the window is live and passes errors through its error handler;
 * the epoch state they share is {@link Epochs}. Between {@link WindowAttributes} and {@link WindowImpl} in one sealed
 * hierarchy, so each call binds to one method with no dispatch.
 *
 * <p>Owned by one rank; several of its threads may call them (see {@link Win}).
 */
abstract sealed class WindowSync extends WindowAttributes permits WindowImpl {
    /** The window's epoch state, which the three kinds of epoch share. */
    final Epochs epochs;
    /** Fence ({@link FenceEpochs}), PSCW ({@link PscwEpochs}) and passive target ({@link PassiveTarget}). */
    private final FenceEpochs fences;
    private final PscwEpochs pscw;
    private final PassiveTarget passive;

    WindowSync(CommCore comm, int windowId, Flavor flavor, WindowMemory memory, int dispUnit, WinConfig config) {
        super(comm, windowId, flavor, memory, dispUnit, config);
        // the epoch state reads only the group's size, set above; this is a WindowImpl (the only class permitted)
        this.epochs = new Epochs((WindowImpl) this);
        this.fences = new FenceEpochs(epochs);
        this.pscw = new PscwEpochs(epochs);
        this.passive = new PassiveTarget(epochs);
    }

    @Override
    public final void fence(int assertion) {
        try {
            checkLive();
            fences.fence(assertion);
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final void start(Group group, int assertion) {
        try {
            checkLive();
            pscw.start(group, assertion);
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final void complete() {
        try {
            checkLive();
            pscw.complete();
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final void post(Group group, int assertion) {
        try {
            checkLive();
            pscw.post(group, assertion);
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final void waitFor() {
        try {
            checkLive();
            pscw.waitFor();
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final boolean test() {
        try {
            checkLive();
            return pscw.test();
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final void lock(LockType type, int t, int assertion) {
        try {
            checkLive();
            passive.lock(type, t, assertion);
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final void unlock(int t) {
        try {
            checkLive();
            passive.unlock(t);
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final void lockAll(int assertion) {
        try {
            checkLive();
            passive.lockAll(assertion);
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final void unlockAll() {
        try {
            checkLive();
            passive.unlockAll();
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final void flush(int t) {
        try {
            checkLive();
            passive.flush(t);
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final void flushAll() {
        try {
            checkLive();
            passive.flushAll();
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final void flushLocal(int t) {
        try {
            checkLive();
            passive.flushLocal(t);
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final void flushLocalAll() {
        try {
            checkLive();
            passive.flushLocalAll();
        } catch (RmaException e) {
            throw handle(e);
        }
    }

    @Override
    public final void sync() {
        checkLive();
        VarHandle.fullFence();
    }
}

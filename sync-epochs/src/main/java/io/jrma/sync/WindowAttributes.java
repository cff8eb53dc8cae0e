package io.jrma.sync;

import io.jrma.ErrorClass;
import io.jrma.ErrorHandler;
import io.jrma.Flavor;
import io.jrma.Group;
import io.jrma.Info;
import io.jrma.MemoryModel;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.WinCounters;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * What a window is, as MPI names it (MPI-4.1 12.2.6, window attributes): its group and this rank's place in it, its
 * memory, flavor, displacement unit and memory model, its name, the info keys set on it, its error handler and
 * counters; and the errors it raises (prefixed with its name and rank, through its error handler), and whether it
 * was freed. The top of {@link WindowImpl}'s hierarchy: the synchronization calls are {@link WindowSync}, the
 * engine and the communication calls {@link WindowImpl}. Sealed, so each call binds to one method.
 *
 * <p>The fields are set at creation and never change, except the name, the error handler, the info keys set later
 * and the freed flag (volatile: any of the rank's threads may read them).
 */
abstract sealed class WindowAttributes implements Win permits WindowSync {
    final Job job;
    final CommCore comm;
    final int rank;
    final int groupSize;
    final int[] worldRanks;
    final int windowId;
    final Flavor flavor;
    final int dispUnit;
    final WindowMemory memory;
    final WinConfig config;
    final WinCounters counters = new WinCounters();
    private volatile boolean freed;
    private volatile String name;
    private volatile ErrorHandler errorHandler = ErrorHandler.ERRORS_THROW;
    private final Info userInfo = new Info();

    WindowAttributes(CommCore comm, int windowId, Flavor flavor, WindowMemory memory, int dispUnit, WinConfig config) {
        this.job = comm.job();
        this.comm = comm;
        this.rank = comm.rank();
        this.groupSize = comm.size();
        this.worldRanks = comm.worldRanks();
        this.windowId = windowId;
        this.flavor = flavor;
        this.memory = memory;
        this.dispUnit = dispUnit;
        this.config = config;
        this.name = "win" + windowId;
    }

    // ------------------------------------------------------------------ errors

    /** Applies the error handler to an error about to be thrown. */
    final RmaException handle(RmaException e) {
        if (errorHandler == ErrorHandler.ERRORS_ARE_FATAL) {
            job.abort(ErrorClass.ERR_PROC_ABORTED, "window " + name + " at rank " + rank + ": " + e.getMessage(), e);
        }
        return e;
    }

    final RmaException fail(ErrorClass c, String msg) {
        return new RmaException(c, "window " + name + ", rank " + rank + ": " + msg);
    }

    /** The same error with this window's name and rank in front (for errors raised by helpers). */
    final RmaException rename(RmaException e, String what) {
        String m = e.getMessage();
        String prefix = e.errorClass().name() + ": ";
        return fail(e.errorClass(), what + ": " + (m.startsWith(prefix) ? m.substring(prefix.length()) : m));
    }

    final void checkLive() {
        if (freed) {
            throw fail(ErrorClass.ERR_WIN, "the window was freed");
        }
        job.checkAborted();
    }

    final boolean isFreed() {
        return freed;
    }

    /** Marks the window freed: every later call fails with ERR_WIN ({@link #checkLive}). */
    final void markFreed() {
        freed = true;
    }

    /** Adds the info keys set on the window ({@link #setInfo}) that {@code i} does not have already. */
    final void addUserInfo(Info i) {
        synchronized (userInfo) {
            for (String k : userInfo.keys()) {
                if (i.get(k) == null) {
                    i.set(k, userInfo.get(k));
                }
            }
        }
    }

    // ------------------------------------------------------------------ attributes

    @Override
    public final long base() {
        return flavor == Flavor.DYNAMIC ? 0 : memory.address;
    }

    @Override
    public final long size() {
        return memory.length;
    }

    @Override
    public final int dispUnit() {
        return dispUnit;
    }

    @Override
    public final Flavor flavor() {
        return flavor;
    }

    @Override
    public final MemoryModel model() {
        return MemoryModel.UNIFIED;
    }

    @Override
    public final BytesStore<?, ?> memory() {
        return memory.bytes;
    }

    @Override
    public final ByteBuffer buffer() {
        return memory.buffer == null ? null : memory.buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public final Group group() {
        return comm.group();
    }

    @Override
    public final int rank() {
        return rank;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final void setName(String name) {
        this.name = name;
    }


    @Override
    public final void setInfo(Info info) {
        try {
            checkLive();
            // validates values; keys that shape the engine stay as chosen at creation (MPI allows)
            new WinConfig(job, info);
        } catch (RmaException e) {
            throw handle(rename(e, "setInfo"));
        }
        synchronized (userInfo) {
            for (String k : info.keys()) {
                userInfo.set(k, info.get(k));
            }
        }
    }

    @Override
    public final void setErrorHandler(ErrorHandler handler) {
        this.errorHandler = handler == null ? ErrorHandler.ERRORS_THROW : handler;
    }

    @Override
    public final ErrorHandler errorHandler() {
        return errorHandler;
    }

    @Override
    public final WinCounters counters() {
        return counters;
    }


    @Override
    public final String toString() {
        return "Win[" + name + ", " + flavor + ", rank " + rank + " of " + groupSize + ", " + memory.length + " bytes]";
    }
}

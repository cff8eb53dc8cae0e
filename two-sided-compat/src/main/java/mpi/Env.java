package mpi;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@link MPI#Init} sets up for this rank: its world communicator, whether it runs as a singleton (a plain
 * {@code java} process, not under jrmarun), the thread that initialized MPI, the thread level, and the
 * counter of attribute keys. One per rank: the {@code mpi} package is loaded once per rank (see the README),
 * so its statics are per rank, as they would be per process.
 *
 * <p>Immutable apart from the key counter; any thread of the rank.
 */
final class Env {
    /** First key returned by createKeyval (the predefined attribute keys are below). */
    static final int FIRST_KEYVAL = 64;

    final Comm world;
    final boolean singleton;
    final Thread main;
    final int provided;
    private final AtomicInteger nextKeyval = new AtomicInteger(FIRST_KEYVAL);

    Env(Comm world, boolean singleton, Thread main, int provided) {
        this.world = world;
        this.singleton = singleton;
        this.main = main;
        this.provided = provided;
    }

    int newKeyval() {
        return nextKeyval.getAndIncrement();
    }

    /**
     * Ends the whole job with {@code code} (MPI_Abort). Under jrmarun every rank fails fast and the job's exit
     * code is {@code code}; a singleton process exits with it. Does not return.
     */
    RuntimeException abort(int code) {
        System.out.flush();
        System.err.flush();
        if (singleton) {
            System.exit(code);
        }
        world.abort(code);
        return new RmaException(ErrorClass.ERR_INTERN, "abort returned");
    }
}

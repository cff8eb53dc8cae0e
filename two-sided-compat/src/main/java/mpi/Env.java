package mpi;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@link MPI#Init} sets up for this rank: its world communicator, whether it runs as a singleton (a plain
 * {@code java} process, not under jrmarun), the thread that initialized MPI, the thread level, and the
 * counter of attribute keys. One per rank: the {@code mpi} package is loaded once per rank (see docs/mpi-package.md),
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

    /** The kinds of object attribute keys belong to: a key of one kind is invalid on the others. */
    enum KeyKind {
        COMM, WIN, TYPE
    }

    /** The keys created and not freed, with their kind. */
    private final Map<Integer, KeyKind> keyvals = new ConcurrentHashMap<>();

    int newKeyval(KeyKind kind) {
        int k = nextKeyval.getAndIncrement();
        keyvals.put(k, kind);
        return k;
    }

    /** Frees a key (MPI_*_FREE_KEYVAL); ERR_KEYVAL unless it is a live key of this kind. */
    void freeKeyval(KeyKind kind, int keyval) {
        if (!keyvals.remove(keyval, kind)) {
            throw new RmaException(ErrorClass.ERR_KEYVAL, "attribute key " + keyval + " is not a live "
                    + kind.name().toLowerCase()
                    + " key (never created, freed already, predefined, or of another kind)");
        }
    }

    /**
     * ERR_KEYVAL unless {@code keyval} is a live key of this kind, or a freed key that still has a value in
     * {@code attrs} (the object's attributes). MPI frees a key only once no object uses it any more (MPI-3.1
     * 6.7.2), and Open MPI keeps such a key usable on the objects that hold it.
     */
    void checkKeyval(KeyKind kind, int keyval, Map<Integer, ?> attrs) {
        if (!attrs.containsKey(keyval)) {
            checkKeyval(kind, keyval);
        }
    }

    /** ERR_KEYVAL unless {@code keyval} is a key created for this kind of object and not freed. */
    void checkKeyval(KeyKind kind, int keyval) {
        if (keyvals.get(keyval) != kind) {
            throw new RmaException(ErrorClass.ERR_KEYVAL, "invalid attribute key " + keyval + " for a "
                    + kind.name().toLowerCase() + (keyval == MPI.KEYVAL_INVALID ? " (KEYVAL_INVALID)" : "")
                    + ": not created by createKeyval, freed, or predefined for another kind of object");
        }
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

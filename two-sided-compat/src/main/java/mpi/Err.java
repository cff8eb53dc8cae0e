package mpi;

import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.RmaException;

/**
 * MPI error handling for the package: a failure inside a call becomes what the error handler of the object it
 * belongs to says. jrma reports every misuse and failure as an {@link RmaException} with the MPI error class
 * (Open MPI's numbers); under {@link MPI#ERRORS_RETURN} it becomes a checked {@link MPIException} of the same
 * class, under {@link MPI#ERRORS_ARE_FATAL} the job is aborted with the class as exit code. Other runtime
 * exceptions (the bindings' IllegalArgumentException for a heap buffer where a direct one is needed, say) pass
 * through unchanged, as in Open MPI.
 *
 * <p>Stateless; any thread.
 */
final class Err {
    private Err() {
    }

    /** What the caller gets for {@code e} under {@code h}: an exception to throw, or the job is aborted. */
    static MPIException handle(Errhandler h, String on, RuntimeException e) {
        if (e instanceof Jrma.AbortException || !(e instanceof RmaException)) {
            throw e;
        }
        RmaException r = (RmaException) e;
        if (h != null && h.fatal && r.errorClass() == ErrorClass.ERR_PROC_ABORTED) {
            throw r; // the job is already being torn down: leave as a secondary failure, abort nothing more
        }
        return raise(h, r.errorCode(), "MPI_" + r.getMessage(), on, r);
    }

    /** An error of {@code code}: thrown under ERRORS_RETURN, fatal (aborts the job) under ERRORS_ARE_FATAL. */
    static MPIException raise(Errhandler h, int code, String message, String on, Throwable cause) {
        if (h == null || h.fatal) {
            Env env = MPI.env;
            String rank = env == null ? "" : "rank " + env.world.rank() + ": ";
            System.err.println("jrma mpi: " + rank + message + " (MPI_ERRORS_ARE_FATAL on " + on
                    + ": aborting the job with code " + code + ")");
            if (env != null) {
                throw env.abort(code);
            }
        }
        return new MPIException(code, classOf(code), message, cause);
    }

    /** The error class of a code (jrma's codes are classes; an unknown code is ERR_UNKNOWN). */
    static int classOf(int code) {
        if (code >= 0 && code <= MPI.ERR_LASTCODE) {
            ErrorClass c = ErrorClass.of(code);
            return c == ErrorClass.ERR_UNKNOWN && code != ErrorClass.ERR_UNKNOWN.code() ? code : c.code();
        }
        return ErrorClass.ERR_UNKNOWN.code();
    }

    /** An RmaException of class {@code c}, to be handled like the engine's own. */
    static RmaException of(ErrorClass c, String message) {
        return new RmaException(c, message);
    }
}

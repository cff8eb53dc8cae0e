package mpi;

/**
 * An error handler: {@link MPI#ERRORS_ARE_FATAL} (the default of communicators and windows: an error aborts
 * the whole job, with the error class as its exit code) or {@link MPI#ERRORS_RETURN} (the call throws an
 * {@link MPIException}). There is one object per handler, so handlers may be compared with {@code ==}.
 */
public final class Errhandler {
    final boolean fatal;
    private final String name;

    Errhandler(boolean fatal, String name) {
        this.fatal = fatal;
        this.name = name;
    }

    @Override
    public String toString() {
        return name;
    }
}

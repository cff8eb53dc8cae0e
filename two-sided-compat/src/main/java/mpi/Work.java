package mpi;

/** The body of an MPI call, run by the package's error-handling wrappers. */
@FunctionalInterface
interface Work<T> {
    T run() throws MPIException;
}

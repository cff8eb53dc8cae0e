package mpi;

/** An MPI object whose resources are released explicitly (communicators, datatypes, requests, ...). */
public interface Freeable {
    /**
     * Releases the object (MPI_*_FREE).
     *
     * @throws MPIException if the object cannot be freed
     */
    void free() throws MPIException;
}

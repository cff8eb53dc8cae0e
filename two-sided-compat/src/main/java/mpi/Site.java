package mpi;

/** An object whose error handler applies to the calls on it and its requests: a communicator or a window. */
interface Site {
    Errhandler errh();

    /** Its name in error messages. */
    String siteName();
}

package io.jrma;

/**
 * What a window does when a call on it fails.
 */
public enum ErrorHandler {
    /** Throw the {@link RmaException} to the caller (the default; MPI_ERRORS_RETURN in Java form). */
    ERRORS_THROW,
    /** Abort the whole job with the error (MPI_ERRORS_ARE_FATAL); the caller still gets the exception. */
    ERRORS_ARE_FATAL
}

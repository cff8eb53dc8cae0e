package mpi;

/**
 * The exception of the {@code mpi} package: an MPI error class and code (jrma's numbers are Open MPI's, see
 * {@link MPI#ERR_ARG} and friends) and a message saying what went wrong where ({@code getMessage()} is the
 * MPI_Error_string of this error). Calls made under {@link MPI#ERRORS_RETURN} throw it; under
 * {@link MPI#ERRORS_ARE_FATAL} (the default on communicators and windows) an error aborts the whole job
 * instead.
 */
public final class MPIException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int errorCode;
    private final int errorClass;

    /** An error with the given code and class (jrma's error codes are their own classes). */
    MPIException(int code, int clazz, String message, Throwable cause) {
        super(message, cause);
        this.errorCode = code;
        this.errorClass = clazz;
    }

    /** An error of class {@link MPI#ERR_OTHER} with this message. */
    public MPIException(String message) {
        this(MPI.ERR_OTHER_CODE, MPI.ERR_OTHER_CODE, message, null);
    }

    /** An error of class {@link MPI#ERR_OTHER} caused by {@code cause}. */
    public MPIException(Throwable cause) {
        this(MPI.ERR_OTHER_CODE, MPI.ERR_OTHER_CODE, String.valueOf(cause), cause);
    }

    /** The MPI error code. */
    public int getErrorCode() {
        return errorCode;
    }

    /** The MPI error class (MPI_Error_class of the code). */
    public int getErrorClass() {
        return errorClass;
    }
}

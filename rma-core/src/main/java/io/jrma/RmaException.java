package io.jrma;

/**
 * The one exception type of jrma's public API: every misuse (wrong epoch, displacement out of range, type
 * mismatch, ...) and every failure (dead rank, aborted job) is reported as an {@code RmaException} that
 * carries the MPI {@link ErrorClass} and a message naming the window, the ranks, the epoch state and the
 * offending values.
 *
 * <p>An operation that throws has not modified any window memory.
 */
public class RmaException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final ErrorClass errorClass;

    public RmaException(ErrorClass errorClass, String message) {
        super(errorClass.name() + ": " + message);
        this.errorClass = errorClass;
    }

    public RmaException(ErrorClass errorClass, String message, Throwable cause) {
        super(errorClass.name() + ": " + message, cause);
        this.errorClass = errorClass;
    }

    /** The MPI error class of this error. */
    public ErrorClass errorClass() {
        return errorClass;
    }

    /** Shorthand for {@code errorClass().code()}. */
    public int errorCode() {
        return errorClass.code();
    }
}

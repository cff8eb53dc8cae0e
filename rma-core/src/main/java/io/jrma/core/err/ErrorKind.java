package io.jrma.core.err;

/**
 * The MPI error classes the engine's lowest packages raise, named as the public API's {@code ErrorClass} constants
 * they stand for (a test checks each has its namesake there).
 */
public enum ErrorKind {
    ERR_ARG, ERR_BUFFER, ERR_COUNT, ERR_OP, ERR_TYPE
}

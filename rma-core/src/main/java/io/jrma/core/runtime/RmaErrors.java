package io.jrma.core.runtime;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.err.ErrorKind;
import io.jrma.core.err.Errors;

/** Makes the errors of the engine's lowest packages as the public API's {@link RmaException}s (see {@link Errors}). */
public final class RmaErrors implements Errors.Factory {
    /** For {@code ServiceLoader}. */
    public RmaErrors() {
    }

    @Override
    public RuntimeException create(ErrorKind kind, String message) {
        return new RmaException(ErrorClass.valueOf(kind.name()), message);
    }
}

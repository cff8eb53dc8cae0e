package io.jrma.core.err;

import java.util.Iterator;
import java.util.ServiceLoader;

/**
 * The exception a misuse found below the public API is reported with: the API's {@code RmaException} of the
 * {@code ErrorClass} named as the {@link ErrorKind}, made by the {@link Factory} rma-core registers with
 * {@code ServiceLoader} (its implementation lives above the API package, which these packages must not import:
 * the API is built on them). Only error paths come here; the factory is found on the first error.
 *
 * <p>Any thread.
 */
public final class Errors {
    private Errors() {
    }

    /** The {@code RmaException} of {@code kind}'s error class, with {@code message}; throw it. */
    public static RuntimeException of(ErrorKind kind, String message) {
        return Holder.FACTORY.create(kind, message);
    }

    /** Makes the exceptions: an implementation hook of rma-core, not for other components. */
    public interface Factory {
        /** The exception of {@code kind}'s error class, with {@code message}. */
        RuntimeException create(ErrorKind kind, String message);
    }

    /** Loads the factory on first use, from the class loader that loaded this class (rma-core's). */
    private static final class Holder {
        static final Factory FACTORY = load();

        private Holder() {
        }

        private static Factory load() {
            Iterator<Factory> it = ServiceLoader.load(Factory.class, Factory.class.getClassLoader()).iterator();
            if (!it.hasNext()) {
                throw new IllegalStateException("rma-core is incomplete: no " + Factory.class.getName()
                        + " in its META-INF/services");
            }
            return it.next();
        }
    }
}

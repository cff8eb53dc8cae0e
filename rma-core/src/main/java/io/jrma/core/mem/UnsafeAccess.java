package io.jrma.core.mem;

import java.lang.reflect.Field;
import sun.misc.Unsafe;

/**
 * The single {@link Unsafe} instance, used by {@link Memory} alone, to address heap arrays and off-heap memory
 * uniformly as (base object, offset): for off-heap memory the base is {@code null} and the offset an absolute
 * address; for a Java array the base is the array and the offset {@code ARRAY_*_BASE_OFFSET + index * scale}.
 *
 * <p>Stateless; any thread.
 */
final class UnsafeAccess {
    static final Unsafe UNSAFE;

    static {
        try {
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            UNSAFE = (Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private UnsafeAccess() {
    }
}

package io.jrma.core.err;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.mem.BufferRef;
import org.junit.jupiter.api.Test;

/** The errors of the packages below the API reach programs as the API's RmaException of the named class. */
class ErrorsTest {
    @Test
    void everyKindIsTheErrorClassOfItsName() {
        for (ErrorKind k : ErrorKind.values()) {
            RuntimeException e = Errors.of(k, "what went wrong");
            RmaException r = assertInstanceOf(RmaException.class, e, k.name());
            assertEquals(ErrorClass.valueOf(k.name()), r.errorClass());
            assertEquals(k.name() + ": what went wrong", r.getMessage());
        }
    }

    @Test
    void aLowPackageThrowsIt() {
        RmaException e = assertThrows(RmaException.class,
                () -> BufferRef.resolve("not a buffer", "input"));
        assertEquals(ErrorClass.ERR_BUFFER, e.errorClass());
    }
}

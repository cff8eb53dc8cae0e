package io.jrma.sync.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.LockType;
import io.jrma.RmaException;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.function.Executable;

/** Shared helpers of the error-handling tests: expected-error checks and pattern-filled window memory. */
final class ErrSupport {
    /** Bytes of every test window (8 longs). */
    static final int WIN_BYTES = 64;

    private ErrSupport() {
    }

    /** Runs {@code call}, expects an RmaException of class {@code ec} whose message contains every fragment. */
    static RmaException expect(ErrorClass ec, Executable call, String... fragments) {
        RmaException e = assertThrows(RmaException.class, call, "expected " + ec);
        assertEquals(ec, e.errorClass(), "error class of: " + e.getMessage());
        assertEquals(ec.code(), e.errorCode(), "error code of: " + e.getMessage());
        String msg = e.getMessage();
        for (String f : fragments) {
            assertTrue(msg.contains(f), "message should contain '" + f + "' but is: " + msg);
        }
        return e;
    }

    /** The pattern byte {@code i} of a rank's window. */
    static byte pattern(int seed, int i) {
        return (byte) (0x5A + seed * 31 + i * 7);
    }

    static long patternLong(int seed, int index) {
        long v = 0;
        for (int b = 7; b >= 0; b--) {
            v = (v << 8) | (pattern(seed, index * 8 + b) & 0xFF);
        }
        return v;
    }

    /** Fills local memory with the pattern of {@code seed}. */
    static void fill(ByteBuffer b, int seed) {
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, pattern(seed, i));
        }
    }

    static void assertPattern(ByteBuffer b, int seed, String ctx) {
        for (int i = 0; i < b.capacity(); i++) {
            if (b.get(i) != pattern(seed, i)) {
                fail(ctx + ": window byte " + i + " is " + b.get(i) + ", expected unchanged " + pattern(seed, i));
            }
        }
    }

    /**
     * From the caller, outside any epoch: reads the whole window of {@code target} in a fresh lock epoch and
     * checks it still holds the pattern of {@code seed}. This is also a "the window is still usable" check.
     */
    static void probeUnchanged(Win w, int target, int seed, String ctx) {
        long[] got = new long[WIN_BYTES / 8];
        w.lock(LockType.SHARED, target, 0);
        w.get(got, got.length, Datatype.LONG, target, 0);
        w.unlock(target);
        for (int i = 0; i < got.length; i++) {
            assertEquals(patternLong(seed, i), got[i], ctx + ": long " + i + " of rank " + target + " changed");
        }
    }

    static ByteBuffer direct(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** A lock type that is not valid, as the API sees it. */
    static final LockType NO_LOCK_TYPE = null;
}

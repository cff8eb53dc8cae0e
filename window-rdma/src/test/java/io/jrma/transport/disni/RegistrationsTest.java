package io.jrma.transport.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import org.junit.jupiter.api.Test;

/** Which regions are registered and attached, lookups, deregistration, and range refusals. */
class RegistrationsTest {
    private static final long A = 0x10_0000L;
    private static final long B = 0x20_0000L;
    private static final long LEN = 0x1000;
    private static final int RANK = 3;

    private final Registrations<String> regs = new Registrations<>();

    @Test
    void aLocalBufferFindsTheRegistrationHoldingIt() {
        Registrations.Local<String> a = regs.addLocal(A, LEN, 11, 12, "a");
        Registrations.Local<String> b = regs.addLocal(B, LEN, 21, 22, "b");
        assertSame(a, regs.findLocal(A, LEN));
        assertSame(a, regs.findLocal(A + 8, 16));
        assertSame(b, regs.findLocal(B + LEN - 1, 1));
        assertNull(regs.findLocal(A + LEN - 8, 16), "crosses the end of a");
        assertNull(regs.findLocal(A - 8, 16), "starts before a");
        assertNull(regs.findLocal(A + LEN, 8), "between the two");
        assertEquals(11, regs.findLocal(A, 8).lkey());
    }

    @Test
    void aRegionInsideAnotherStillFindsTheOuterForLargerRanges() {
        Registrations.Local<String> outer = regs.addLocal(A, 4 * LEN, 1, 2, "outer");
        Registrations.Local<String> inner = regs.addLocal(A + LEN, LEN, 3, 4, "inner");
        assertSame(inner, regs.findLocal(A + LEN, LEN));
        assertSame(outer, regs.findLocal(A + LEN, 2 * LEN), "the inner one is too short: look further down");
    }

    @Test
    void deregistrationForgetsTheRegionAndKeepsATwinAtTheSameAddress() {
        Registrations.Local<String> first = regs.addLocal(A, LEN, 1, 2, "first");
        Registrations.Local<String> twin = regs.addLocal(A, LEN, 3, 4, "twin");
        assertSame(first, regs.removeLocal(first.id()));
        assertSame(twin, regs.findLocal(A, LEN));
        assertSame(twin, regs.removeLocal(twin.id()));
        assertNull(regs.findLocal(A, LEN));
        assertEquals(0, regs.localCount());
        RmaException e = assertThrows(RmaException.class, () -> regs.removeLocal(first.id()));
        assertEquals(ErrorClass.ERR_ARG, e.errorClass());
    }

    @Test
    void nothingOfNoLengthIsRegistered() {
        assertEquals(ErrorClass.ERR_ARG, assertThrows(RmaException.class, () -> regs.addLocal(A, 0, 1, 2, "z"))
                .errorClass());
    }

    @Test
    void aTargetRangeOutsideTheAttachedRegionIsErrRmaRange() {
        long h = regs.attach(RANK, new RemoteKey(B, LEN, 0x77));
        assertEquals(0x77, regs.target(RANK, h, B, LEN).rkey());
        assertEquals(0x77, regs.target(RANK, h, B + LEN - 8, 8).rkey());
        RmaException past = assertThrows(RmaException.class, () -> regs.target(RANK, h, B + LEN - 8, 16));
        assertEquals(ErrorClass.ERR_RMA_RANGE, past.errorClass());
        assertTrue(past.getMessage().contains("world rank " + RANK), past.getMessage());
        assertEquals(ErrorClass.ERR_RMA_RANGE,
                assertThrows(RmaException.class, () -> regs.target(RANK, h, B - 1, 1)).errorClass());
    }

    @Test
    void aHandleIsTiedToItsRankAndDiesWithDetach() {
        long h = regs.attach(RANK, new RemoteKey(B, LEN, 1));
        assertEquals(ErrorClass.ERR_ARG,
                assertThrows(RmaException.class, () -> regs.target(RANK + 1, h, B, 8)).errorClass());
        assertEquals(1, regs.remoteCount());
        regs.detach(h);
        assertEquals(0, regs.remoteCount());
        assertEquals(ErrorClass.ERR_ARG, assertThrows(RmaException.class, () -> regs.target(RANK, h, B, 8))
                .errorClass());
        assertThrows(RmaException.class, () -> regs.detach(h));
    }
}

package io.jrma.transport.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Posted work requests: bounded by the queue depth, completed by id, released by their poster. */
class PendingWorkTest {
    private static final int DEPTH = 2;

    @Test
    void theDepthBoundsOutstandingRequests() {
        PendingWork p = new PendingWork(DEPTH);
        long a = p.begin(1);
        long b = p.begin(2);
        assertNotEquals(0, a);
        assertNotEquals(a, b);
        assertEquals(0, p.begin(3), "full: the poster must reap completions first");
        p.release(a);
        assertNotEquals(0, p.begin(3));
    }

    @Test
    void aCompletionReachesItsRequestOnly() {
        PendingWork p = new PendingWork(DEPTH);
        long a = p.begin(1);
        long b = p.begin(1);
        assertTrue(p.complete(b, Completions.IBV_WC_REM_ACCESS_ERR, 7));
        assertEquals(PendingWork.PENDING, p.status(a));
        assertEquals(Completions.IBV_WC_REM_ACCESS_ERR, p.status(b));
        assertEquals(7, p.vendorError(b));
        assertFalse(p.complete(a + b + 1, 0, 0), "an unknown id (a stale completion) is ignored");
        p.release(b);
        assertThrows(IllegalStateException.class, () -> p.status(b));
        assertEquals(1, p.outstanding());
    }
}

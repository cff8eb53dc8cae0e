package io.jrma.transport.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import org.junit.jupiter.api.Test;

/** Failed work completions become exceptions with the MPI error class a user can act on. */
class CompletionsTest {
    private static final int RANK = 5;
    private static final int VENDOR = 0x81;

    @Test
    void successIsNoFailure() {
        assertNull(Completions.failure(Completions.IBV_WC_SUCCESS, 0, "RDMA write", RANK));
    }

    @Test
    void aPeerThatStoppedAnsweringIsProcAbortedByRank() {
        for (int status : new int[] {Completions.IBV_WC_RETRY_EXC_ERR, Completions.IBV_WC_RNR_RETRY_EXC_ERR,
            Completions.IBV_WC_RESP_TIMEOUT_ERR, Completions.IBV_WC_WR_FLUSH_ERR, Completions.IBV_WC_FATAL_ERR}) {
            RmaException e = Completions.failure(status, VENDOR, "fetch-add", RANK);
            assertEquals(ErrorClass.ERR_PROC_ABORTED, e.errorClass(), "status " + status);
            assertTrue(e.getMessage().contains("world rank " + RANK), e.getMessage());
        }
    }

    @Test
    void aRefusedKeyOrRangeIsRmaRange() {
        RmaException e = Completions.failure(Completions.IBV_WC_REM_ACCESS_ERR, VENDOR, "RDMA read", RANK);
        assertEquals(ErrorClass.ERR_RMA_RANGE, e.errorClass());
        assertTrue(e.getMessage().contains("remote access error"), e.getMessage());
        assertTrue(e.getMessage().contains("vendor error 0x81"), e.getMessage());
        assertEquals(ErrorClass.ERR_RMA_RANGE, Completions.errorClass(Completions.IBV_WC_LOC_PROT_ERR));
    }

    @Test
    void theRestIsOtherWithLibibverbsText() {
        RmaException e = Completions.failure(Completions.IBV_WC_REM_OP_ERR, 0, "compare-swap", RANK);
        assertEquals(ErrorClass.ERR_OTHER, e.errorClass());
        assertTrue(e.getMessage().contains("remote operation error"), e.getMessage());
        assertEquals("general error", Completions.text(21));
        assertEquals("unknown status 99", Completions.text(99));
    }
}

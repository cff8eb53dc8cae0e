package io.jrma.core.runtime;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.RmaException;
import org.junit.jupiter.api.Test;

/**
 * Which failures of a rank are secondary (the job's abort reaching it) and so never the job's reported cause or
 * exit code: the abort itself, and the abort wrapped by a layer above (the mpi package's MPIException from an
 * MPI.Init that another rank's abort interrupted made jrmarun exit 1 instead of that abort's code, once).
 */
class EndedByAbortTest {
    @Test
    void theAbortReachingARankIsSecondaryWrappedOrNot() {
        RmaException aborted = new RmaException(ErrorClass.ERR_PROC_ABORTED, "job aborted: rank 2 called abort(42)");
        assertTrue(RankThreads.endedByAbort(aborted));
        assertTrue(RankThreads.endedByAbort(new Exception("MPI.Init failed: " + aborted, aborted)));
    }

    @Test
    void aRanksOwnAbortAndOtherFailuresAreNot() {
        assertFalse(RankThreads.endedByAbort(new Jrma.AbortException(2, 42, "rank 2 called abort(42) on WORLD")));
        assertFalse(RankThreads.endedByAbort(new IllegalStateException("a bug of the program")));
        assertFalse(RankThreads.endedByAbort(new RmaException(ErrorClass.ERR_RANK, "bad rank")));
    }
}

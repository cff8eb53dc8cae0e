package io.jrma.sync.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.ErrorHandler;
import io.jrma.Jrma;
import io.jrma.RmaException;
import io.jrma.Win;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** ErrorHandler.ERRORS_ARE_FATAL: an error aborts the job; ranks blocked in the library fail fast. */
class ErrorsAreFatalTest {
    /** The faulting rank still gets the exception; it swallows it, yet the job fails; the others were blocked. */
    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void fatalErrorAbortsJobEvenIfCaught(String path) {
        AtomicReference<RmaException> seenByCaller = new AtomicReference<>();
        ConcurrentHashMap<Integer, ErrorClass> blockedGot = new ConcurrentHashMap<>();
        ConcurrentHashMap<Integer, Throwable> blockedOther = new ConcurrentHashMap<>();
        long t0 = System.nanoTime();
        Jrma.JobFailedException e = assertThrows(Jrma.JobFailedException.class, () ->
                Jrma.job(3).param("jrma.path", path).timeout(Duration.ofSeconds(40)).run(world -> {
                    Win w = Win.allocate(world, 64, 8, null);
                    w.setName("fatalwin");
                    if (world.rank() == 0) {
                        world.barrier();
                        w.setErrorHandler(ErrorHandler.ERRORS_ARE_FATAL);
                        assertSame(ErrorHandler.ERRORS_ARE_FATAL, w.errorHandler());
                        try {
                            w.put(new long[1], 1, Datatype.LONG, 1, 0); // no epoch
                        } catch (RmaException x) {
                            seenByCaller.set(x);
                        }
                        return;
                    }
                    try {
                        world.barrier(); // inside the try: the abort may already be visible on the way out
                        if (world.rank() == 1) {
                            // (a rank with nothing to do would return before rank 0 aborts; keep it in the library)
                            world.barrier(); // never completes: rank 0 does not come
                        } else {
                            w.fence(0); // never completes either
                        }
                    } catch (RmaException x) {
                        blockedGot.put(world.rank(), x.errorClass());
                        throw x;
                    } catch (Throwable x) {
                        blockedOther.put(world.rank(), x);
                        throw x;
                    }
                }));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 15_000, "job should fail fast, took " + ms + " ms");
        assertNotNull(seenByCaller.get(), "the caller still gets the exception");
        assertEquals(ErrorClass.ERR_RMA_SYNC, seenByCaller.get().errorClass());
        assertEquals(ErrorClass.ERR_PROC_ABORTED, e.errorClass());
        assertTrue(e.getMessage().contains("ERR_RMA_SYNC") && e.getMessage().contains("fatalwin"),
                "job failure names the error and the window: " + e.getMessage());
        assertTrue(blockedOther.isEmpty(), "blocked ranks failed with a non-RmaException: " + blockedOther);
        assertEquals(ErrorClass.ERR_PROC_ABORTED, blockedGot.get(1),
                "rank 1 in barrier fails fast; job: " + e.getMessage());
        assertEquals(ErrorClass.ERR_PROC_ABORTED, blockedGot.get(2), "rank 2 in fence fails fast");
    }

    /** The faulting rank lets the exception propagate: the job names that rank. */
    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void fatalErrorPropagatedNamesRank(String path) {
        long t0 = System.nanoTime();
        Jrma.JobFailedException e = assertThrows(Jrma.JobFailedException.class, () ->
                Jrma.job(2).param("jrma.path", path).timeout(Duration.ofSeconds(40)).run(world -> {
                    Win w = Win.allocate(world, 64, 8, null);
                    world.barrier();
                    if (world.rank() == 1) {
                        w.setErrorHandler(ErrorHandler.ERRORS_ARE_FATAL);
                        w.lock(null, 0, 0);
                    }
                    w.fence(0);
                }));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 15_000, "job should fail fast, took " + ms + " ms");
        assertEquals(1, e.failedRank(), e.getMessage());
        assertTrue(e.getMessage().contains("rank 1"), e.getMessage());
        assertTrue(e.getCause() instanceof RmaException
                && ((RmaException) e.getCause()).errorClass() == ErrorClass.ERR_LOCKTYPE, "cause: " + e.getCause());
    }

    /** With the default handler the same error is only thrown: the job goes on. */
    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void defaultHandlerDoesNotAbort(String path) {
        Jrma.job(2).param("jrma.path", path).timeout(Duration.ofSeconds(40)).run(world -> {
            Win w = Win.allocate(world, 64, 8, null);
            assertSame(ErrorHandler.ERRORS_THROW, w.errorHandler());
            if (world.rank() == 0) {
                ErrSupport.expect(ErrorClass.ERR_RMA_SYNC, () -> w.put(new long[1], 1, Datatype.LONG, 1, 0));
            }
            w.fence(0);
            w.fence(0);
            w.free();
        });
    }
}

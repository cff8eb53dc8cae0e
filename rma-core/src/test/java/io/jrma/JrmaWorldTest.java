package io.jrma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Jrma.world(): each rank thread (and threads it starts) sees its own world; other threads get ERR_COMM. */
class JrmaWorldTest {
    @Test
    @Timeout(30)
    void eachRankSeesItsOwnWorld() {
        assertFalse(Jrma.inJob());
        RmaException e = assertThrows(RmaException.class, Jrma::world);
        assertEquals(ErrorClass.ERR_COMM, e.errorClass());
        Jrma.job(3).timeout(Duration.ofSeconds(20)).run(world -> {
            assertTrue(Jrma.inJob());
            assertSame(world, Jrma.world());
            AtomicReference<Comm> seen = new AtomicReference<>();
            Thread child = new Thread(() -> seen.set(Jrma.world()));
            child.start();
            child.join();
            assertSame(world, seen.get(), "a thread started by a rank belongs to that rank");
            assertEquals(world.rank(), Jrma.world().rank());
            world.barrier();
        });
    }

    @Test
    @Timeout(30)
    void singletonMakesAPlainThreadRankZeroOfAOneRankJob() throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                assertFalse(Jrma.inJob());
                Comm w = Jrma.singleton();
                assertSame(w, Jrma.world());
                assertSame(w, Jrma.singleton(), "a second call returns the same world");
                assertEquals(0, w.rank());
                assertEquals(1, w.size());
                w.barrier();
                Comm d = w.dup();
                assertEquals(1, d.size());
                d.free();
                AtomicReference<Comm> seen = new AtomicReference<>();
                Thread child = new Thread(() -> seen.set(Jrma.world()));
                child.start();
                child.join();
                assertSame(w, seen.get());
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.start();
        t.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }
}

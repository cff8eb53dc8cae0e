package io.jrma.core.os;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.mem.Memory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The futex binding (the JDK's linker or JNA): a sleeper is woken by a wake on its word, and does not sleep when the
 * word moved on.
 */
class FutexTest {
    @Test
    @Timeout(30)
    void aWakeEndsASleepAndAChangedWordDoesNotSleep() throws Exception {
        if (!Futex.available()) {
            System.out.println("FutexTest skipped: futex through JNA is not available on "
                    + System.getProperty("os.name")
                    + "/" + System.getProperty("os.arch"));
        }
        Assumptions.assumeTrue(Futex.available(), "futex through JNA");
        if (DowncallTest.expectLinker() && !"false".equals(System.getProperty("jrma.futex"))) {
            assertTrue(Futex.viaJdkLinker(), "the JDK's linker is usable here, yet futex goes through JNA");
        }
        long mem = Memory.allocate(8);
        try {
            Memory.putIntVolatile(null, mem, 7);
            long t0 = System.nanoTime();
            Futex.await(mem, 8, 20_000_000_000L); // the word is 7, not 8: returns at once
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "a sleep on a changed word returns at once");
            t0 = System.nanoTime();
            Futex.await(mem, 7, 300_000_000L); // nobody wakes it: sleeps until the timeout (or a spurious wake)
            long ms = (System.nanoTime() - t0) / 1_000_000;
            if (ms < 250) { // a spurious wake is allowed once; a call that does not sleep at all would show again
                t0 = System.nanoTime();
                Futex.await(mem, 7, 300_000_000L);
                ms = (System.nanoTime() - t0) / 1_000_000;
            }
            assertTrue(ms >= 250 && ms < 10_000, "a 300 ms sleep on an unchanged word lasted " + ms + " ms");

            long[] slept = new long[1];
            Thread sleeper = new Thread(() -> {
                long s = System.nanoTime();
                while (Memory.getIntVolatile(null, mem) == 7) {
                    Futex.await(mem, 7, 20_000_000_000L);
                }
                slept[0] = System.nanoTime() - s;
            });
            sleeper.start();
            Thread.sleep(200);
            Memory.putIntVolatile(null, mem, 9);
            Futex.wakeAll(mem);
            sleeper.join(10_000);
            assertTrue(!sleeper.isAlive() && slept[0] < 10_000_000_000L, "the wake ended a 20 s sleep (slept "
                    + slept[0] / 1_000_000 + " ms)");
        } finally {
            Memory.free(mem);
        }
    }
}

package io.jrma.core.runtime;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A waiting thread's spinning phase ends after {@code jrma.wait.spinNs} however many rounds it may spin. */
class WaitPolicyTest {
    /** How long the awaited condition takes to come true. */
    private static final long WAIT_MS = 1_000;
    private static final long SPIN_NS = 1_000_000;
    /** The most CPU the bounded waiter may use in the wait (1 ms of spinning, then parks; a cold JIT): far below. */
    private static final long CPU_BOUND_NS = 150_000_000;
    private static final long MAX_PARK_NS = 10_000_000;
    /** Spin rounds the waiter may make: more than it could in the whole wait. */
    private static final long ENDLESS_SPINS = 1L << 40;

    @Test
    @Timeout(30)
    void aWaiterSpinsNoLongerThanItsTimeBoundThenParks() throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Job job = new Job(1, Map.of());
        WaitPolicy bounded = new WaitPolicy(ENDLESS_SPINS, 0, MAX_PARK_NS, SPIN_NS);
        AtomicBoolean done = new AtomicBoolean();
        Thread setter = new Thread(() -> {
            try {
                Thread.sleep(WAIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            done.set(true);
        });
        long cpu0 = mx.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        setter.start();
        bounded.await(job, done::get);
        long cpu = mx.getCurrentThreadCpuTime() - cpu0;
        long wall = System.nanoTime() - t0;
        setter.join();
        assertTrue(wall >= WAIT_MS * 1_000_000 * 9 / 10, "waited " + wall + " ns");
        assertTrue(cpu < CPU_BOUND_NS, "a waiter with endless spins but a 1 ms bound used " + cpu / 1_000_000
                + " ms of CPU in a " + wall / 1_000_000 + " ms wait: it kept spinning");
    }
}

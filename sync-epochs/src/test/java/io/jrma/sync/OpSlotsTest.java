package io.jrma.sync;

import static io.jrma.core.mem.UnsafeAccess.UNSAFE;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The stamps by which an origin tells a target that polls the library ({@link OpSlots#polled}): a rank's own slots,
 * read as a peer's, in memory of this test (the origins of {@code OpSlotsAcrossJvmsTest} read another JVM's). Serving
 * with no request posted touches nothing but the slots' states and the stamps.
 */
class OpSlotsTest {
    private long mem;
    private OpSlots slots;

    @BeforeEach
    void map() {
        long bytes = OpSlots.bytes(2);
        mem = UNSAFE.allocateMemory(bytes);
        UNSAFE.setMemory(mem, bytes, (byte) 0);
        slots = new OpSlots(null, mem, new long[] {mem, mem});
    }

    @AfterEach
    void unmap() {
        UNSAFE.freeMemory(mem);
    }

    private void serve(int cycles) {
        for (int i = 0; i < cycles; i++) {
            slots.serve();
        }
    }

    /**
     * Whether two stamps close together make the target polled: true at the first try unless this thread was
     * descheduled between them (a loaded machine), so up to 100 tries.
     */
    private boolean polledWhileServing() {
        for (int i = 0; i < 100; i++) {
            serve(2 * OpSlots.BEAT_CYCLES);
            if (slots.polled(1)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aTargetIsPolledWhileItRunsDutyCyclesCloseTogetherAndNotOnceItStops() {
        assertFalse(slots.polled(1), "zeroed slots: never served");
        serve(OpSlots.BEAT_CYCLES);
        assertFalse(slots.polled(1), "one stamp: no gap to the one before yet");
        assertTrue(polledWhileServing(), "stamps close together, the last one just now");
        LockSupport.parkNanos(3 * OpSlots.POLLED_NS);
        assertFalse(slots.polled(1), "the last stamp is older than " + OpSlots.POLLED_NS + " ns");
        serve(OpSlots.BEAT_CYCLES);
        assertFalse(slots.polled(1), "a fresh stamp, but long after the one before");
        assertTrue(polledWhileServing(), "polling again");
        assertFalse(new OpSlots(null, 0, new long[] {mem, 0}).polled(1), "a peer without slots");
    }

    @Test
    void anIdleProgressThreadsFewDutyCyclesPerWakeUpAreNoPolling() {
        // as Job's progress thread when its ranks fill the cores: about 20 idle duty cycles, then a sleep of up to
        // jrma.agent.maxParkNs (100 us) in its selector; every stamp then falls in a later wake-up than the one before
        for (int wake = 0; wake < 20; wake++) {
            serve(20);
            assertFalse(slots.polled(1), "after wake-up " + wake);
            LockSupport.parkNanos(100_000);
        }
        assertTrue(polledWhileServing(), "then a thread that polls");
    }
}

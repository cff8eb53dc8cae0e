package io.jrma.shm.window;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.mem.Memory;
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
        mem = Memory.allocate(bytes);
        Memory.fill(mem, bytes, (byte) 0);
        slots = new OpSlots(null, mem, new long[] {mem, mem});
    }

    @AfterEach
    void unmap() {
        Memory.free(mem);
    }

    private void serve(int cycles) {
        for (int i = 0; i < cycles; i++) {
            slots.serve();
        }
    }

    @Test
    void aTargetIsPolledWhileItsLastStampIsRecent() {
        assertFalse(slots.polled(1), "zeroed slots: never served");
        serve(OpSlots.BEAT_CYCLES - 1);
        assertFalse(slots.polled(1), "no stamp yet");
        serve(1);
        assertTrue(slots.polled(1), "stamped just now");
        LockSupport.parkNanos(3 * OpSlots.POLLED_NS);
        assertFalse(slots.polled(1), "the last stamp is older than " + OpSlots.POLLED_NS + " ns");
        serve(OpSlots.BEAT_CYCLES);
        assertTrue(slots.polled(1), "polling again");
        assertFalse(new OpSlots(null, 0, new long[] {mem, 0}).polled(1), "a peer without slots");
    }

    @Test
    void anIdleProgressThreadIsPolledOnlyJustAfterEveryThirtySecondDutyCycle() {
        // as Job's idle progress thread with no selector to sleep in: one duty cycle per park of up to
        // jrma.agent.maxParkNs (100 us); a stamp every 32 of them is fresh for at most the next two looks
        int polled = 0;
        int cycles = 4 * OpSlots.BEAT_CYCLES;
        for (int i = 0; i < cycles; i++) {
            serve(1);
            if (slots.polled(1)) {
                polled++;
            }
            LockSupport.parkNanos(100_000);
        }
        assertTrue(polled >= 1 && polled <= 2 * cycles / OpSlots.BEAT_CYCLES, polled + " of " + cycles + " looks");
    }
}

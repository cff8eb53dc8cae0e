package io.jrma.core.progress;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** How the progress thread learns that ranks drive progress themselves (and so keeps out of their way). */
class ProgressAgentTest {
    @Test
    void callersCountAsActiveWhilePollingAndUntilAskedOnceAfter() {
        ProgressAgent a = new ProgressAgent();
        assertFalse(a.callersActive(), "nobody has polled");
        a.spinningCallers().incrementAndGet();
        assertTrue(a.callersActive(), "a waiter polls now");
        a.spinningCallers().decrementAndGet();
        a.callerPolled();
        assertTrue(a.callersActive(), "a polling wait ended since the last question");
        assertFalse(a.callersActive(), "and none since");
        a.callerPolled();
        a.callerPolled();
        assertTrue(a.callersActive());
        assertFalse(a.callersActive());
    }

    @Test
    void aWaiterThatStopsPollingToParkHandsOverAtOnce() {
        ProgressAgent a = new ProgressAgent();
        a.callerPolled();
        a.pollingStopped();
        assertFalse(a.callersActive(), "the last waiter parks: the progress thread watches the transports again");
        a.spinningCallers().incrementAndGet();
        a.pollingStopped();
        assertTrue(a.callersActive(), "another waiter still polls");
    }
}

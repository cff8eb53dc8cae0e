package io.jrma.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bounded set of running handshakes: the one open longest gives way, and a handshake that left is never closed. */
class HandshakeSlotsTest {
    /** A connection that notes whether it was closed. */
    private static final class Conn implements Closeable {
        boolean closed;

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void beyondTheBoundTheHandshakeOpenLongestIsClosedForTheNewcomer() {
        HandshakeSlots<Conn> slots = new HandshakeSlots<>(3);
        List<HandshakeSlots.Slot<Conn>> in = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            in.add(slots.enter(new Conn()));
        }
        assertFalse(in.get(0).connection().closed);
        HandshakeSlots.Slot<Conn> fourth = slots.enter(new Conn());
        assertTrue(in.get(0).evicted() && in.get(0).connection().closed, "the oldest gave way");
        assertFalse(in.get(1).evicted() || in.get(1).connection().closed);
        assertFalse(slots.leave(in.get(0)), "an evicted handshake may not hand its connection on");
        assertTrue(slots.leave(in.get(1)), "one that was not evicted may");
        assertTrue(slots.leave(in.get(1)), "leaving twice (success, then the thread's end) changes nothing");
        slots.enter(new Conn()); // takes the place in.get(1) left: nobody is evicted
        assertFalse(in.get(2).evicted());
        slots.closeAll();
        assertTrue(in.get(2).connection().closed && fourth.connection().closed);
        assertFalse(in.get(1).connection().closed, "a handshake that left is not closed by closeAll");
    }

    @Test
    void aBoundBelowOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new HandshakeSlots<Conn>(0));
    }
}

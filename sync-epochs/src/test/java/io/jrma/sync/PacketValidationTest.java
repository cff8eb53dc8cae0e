package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.dt.BasicType;
import io.jrma.core.op.OpCode;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import java.time.Duration;
import java.util.Random;
import java.util.function.Consumer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hand-made malformed packets delivered straight to a target's progress agent: each is rejected with an
 * ERROR reply carrying the right error class (seen by the origin at its next flush), counted, and leaves the
 * target window byte-for-byte unchanged; random garbage never stops the agent.
 */
class PacketValidationTest {
    private static final int SIZE = 64;

    /** Runs a 2-rank packet-path job; rank 0 gets (its window, the job) and rank 1 waits in a barrier. */
    private static void withWindow(Consumer<Object[]> body) {
        Jrma.job(2).param("jrma.path", "packet").timeout(Duration.ofSeconds(30)).run(world -> {
            Win w = Win.allocate(world, SIZE, 1, null);
            for (int i = 0; i < SIZE; i++) {
                w.buffer().put(i, (byte) (0x40 + i));
            }
            world.barrier();
            if (world.rank() == 0) {
                body.accept(new Object[] {w, ((CommCore) world).job()});
            }
            world.barrier();
            byte[] now = new byte[SIZE];
            w.buffer().get(0, now);
            for (int i = 0; i < SIZE; i++) {
                assertEquals((byte) (0x40 + i), now[i], "rank " + world.rank() + " window byte " + i + " changed");
            }
            w.free();
        });
    }

    /** A request packet from rank 0 to rank 1 of window {@code w}; {@code edit} may break it. */
    private static Batch packet(WindowImpl w, int type, long offset, long count, int elem, int op, int payload,
                                Consumer<MutableDirectBuffer> edit) {
        MutableDirectBuffer buf = new ExpandableDirectByteBuffer(256);
        int len = PacketHeader.HEADER_LENGTH + payload;
        PacketHeader.write(buf, 0, len, type, PacketType.F_CONTIG | PacketType.F_ACK_REQUIRED, w.windowId, 0, 1,
                0, offset, elem, op, 7, count, 0);
        if (edit != null) {
            edit.accept(buf);
        }
        Batch b = new Batch(buf);
        b.add(0);
        b.address(0, 1);
        return b;
    }

    private static void expectRejected(Object[] ctx, Batch b, ErrorClass expected) {
        WindowImpl w = (WindowImpl) ctx[0];
        Job job = (Job) ctx[1];
        long rejectedBefore = w.peers[1].local.counters.get(Counter.PACKETS_REJECTED);
        job.agent().deliver(b);
        job.waitPolicy().await(job, b::isConsumed);
        job.waitPolicy().await(job, () -> w.peers[1].local.counters.get(Counter.PACKETS_REJECTED) > rejectedBefore);
        w.lock(LockType.SHARED, 1, 0);
        w.get(new byte[8], 8, Datatype.BYTE, 1, 0); // forces a round trip, so the ERROR reply has arrived
        RmaException e = assertThrows(RmaException.class, () -> w.unlock(1));
        assertEquals(expected, e.errorClass(), e.getMessage());
        assertTrue(e.getMessage().contains("rank 1 rejected"), e.getMessage());
        assertNull(job.agent().lastError(), "an exception escaped a receiver");
    }

    @Test
    @Timeout(60)
    void malformedRequestsAreRejectedWithTheirErrorClass() {
        withWindow(ctx -> {
            WindowImpl w = (WindowImpl) ctx[0];
            int l = BasicType.LONG.id();
            expectRejected(ctx, packet(w, PacketType.PUT, SIZE - 4, 8, 0, 0, 8, null), ErrorClass.ERR_RMA_RANGE);
            expectRejected(ctx, packet(w, PacketType.PUT, -8, 8, 0, 0, 8, null), ErrorClass.ERR_RMA_RANGE);
            expectRejected(ctx, packet(w, PacketType.PUT, Long.MAX_VALUE - 2, 8, 0, 0, 8, null),
                    ErrorClass.ERR_RMA_RANGE);
            expectRejected(ctx, packet(w, PacketType.PUT, 0, 16, 0, 0, 8, null), ErrorClass.ERR_COUNT);
            expectRejected(ctx, packet(w, PacketType.PUT, 0, -1, 0, 0, 8, null), ErrorClass.ERR_COUNT);
            expectRejected(ctx, packet(w, PacketType.ACC, 0, 8, 99, OpCode.SUM.id(), 8, null), ErrorClass.ERR_TYPE);
            expectRejected(ctx, packet(w, PacketType.ACC, 0, 8, BasicType.DOUBLE.id(), OpCode.BAND.id(), 8,
                    null), ErrorClass.ERR_OP);
            expectRejected(ctx, packet(w, PacketType.ACC, 0, 6, l, OpCode.SUM.id(), 6, null), ErrorClass.ERR_TYPE);
            expectRejected(ctx, packet(w, PacketType.CAS, 0, 16, l, 0, 32, null), ErrorClass.ERR_COUNT);
            expectRejected(ctx, packet(w, 77, 0, 8, 0, 0, 8, null), ErrorClass.ERR_ARG);
            expectRejected(ctx, packet(w, PacketType.PUT, 0, 8, 0, 0, 8,
                    b -> PacketHeader.addFlags(b, 0, PacketType.F_DYNAMIC)), ErrorClass.ERR_RMA_FLAVOR);
            expectRejected(ctx, packet(w, PacketType.PUT, 0, 8, 0, 0, 40, b -> {
                PacketHeader.clearFlags(b, 0, PacketType.F_CONTIG);
                b.putInt(PacketHeader.LAYOUT_LENGTH_OFFSET, 32);
                for (int i = 0; i < 32; i++) {
                    b.putByte(PacketHeader.HEADER_LENGTH + i, (byte) (i * 37));
                }
            }), ErrorClass.ERR_TYPE);
            expectRejected(ctx, packet(w, PacketType.PUT, 0, 8, 0, 0, 8,
                    b -> b.putByte(PacketHeader.VERSION_OFFSET, (byte) 9)), ErrorClass.ERR_INTERN);
            expectRejected(ctx, packet(w, PacketType.SYNC, 0, 0, 0, 0, 0,
                    b -> PacketHeader.addFlags(b, 0, PacketType.F_UNLOCK)), ErrorClass.ERR_RMA_SYNC);
        });
    }

    @Test
    @Timeout(60)
    void randomGarbageNeverStopsTheAgent() {
        withWindow(ctx -> {
            WindowImpl w = (WindowImpl) ctx[0];
            Job job = (Job) ctx[1];
            Random rnd = new Random(42);
            for (int round = 0; round < 2_000; round++) {
                int payload = rnd.nextInt(64);
                int type = 1 + rnd.nextInt(PacketType.CAS); // request types only: replies are not for the target
                Batch b = packet(w, type, rnd.nextInt(2 * SIZE) - SIZE / 2 + SIZE * 4L, rnd.nextInt(96) - 8,
                        rnd.nextInt(24), rnd.nextInt(16), payload, buf -> {
                            for (int k = 0; k < 3; k++) {
                                int at =
                                        PacketHeader.ELEM_TYPE_OFFSET
                                        + rnd.nextInt(buf.capacity() - PacketHeader.ELEM_TYPE_OFFSET);
                                buf.putByte(at, (byte) rnd.nextInt());
                            }
                            PacketHeader.clearFlags(buf, 0, PacketType.F_LOCK_SHARED | PacketType.F_LOCK_EXCLUSIVE
                                    | PacketType.F_UNLOCK | PacketType.F_DYNAMIC);
                        });
                job.agent().deliver(b);
                job.waitPolicy().await(job, b::isConsumed);
            }
            assertNull(job.agent().lastError(), "an exception escaped a receiver");
            assertTrue(w.peers[1].local.counters.get(Counter.PACKETS_REJECTED) > 1_000);
            // the agent still works: a valid round trip
            w.lock(LockType.SHARED, 1, 0);
            byte[] got = new byte[8];
            w.get(got, 8, Datatype.BYTE, 1, 0);
            try {
                w.unlock(1);
            } catch (RmaException expected) {
                // an asynchronous error from the garbage may surface here; the data must still be right
            }
            assertArrayEquals(new byte[] {0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47}, got);
        });
    }
}

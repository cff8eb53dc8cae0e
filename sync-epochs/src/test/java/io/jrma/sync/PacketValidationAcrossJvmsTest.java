package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.core.dt.BasicType;
import io.jrma.core.op.OpCode;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import java.time.Duration;
import java.util.Random;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * Malformed, truncated and random packets sent from one JVM to a window in another, over TCP and over the
 * shared-memory rings: each bad request is answered with an ERROR reply carrying its error class, truncated
 * ones are dropped, none changes a byte of the target window, and afterwards the transport's receiver and the
 * window still serve valid operations.
 */
class PacketValidationAcrossJvmsTest {
    private static final int SIZE = 64;

    private static Batch packet(WindowImpl w, int type, long offset, long count, int elem, int op,
            int payload, int declared) {
        MutableDirectBuffer buf = new ExpandableDirectByteBuffer(256);
        PacketHeader.write(buf, 0, declared > 0 ? declared : PacketHeader.HEADER_LENGTH + payload, type,
                PacketType.F_CONTIG | PacketType.F_ACK_REQUIRED, w.windowId, w.worldRanks[0],
                w.worldRanks[1], 0, offset,
                elem, op, 7, count, 0);
        Batch b = new Batch(buf);
        b.add(0);
        b.address(w.worldRanks[0], w.worldRanks[1]);
        return b;
    }

    private static void send(Job job, Batch b) {
        while (!job.transportFor(b.dstRank()).send(b)) {
            job.agent().tryProgress();
        }
        job.waitPolicy().await(job, b::isConsumed);
    }

    private static void expectRejected(WindowImpl w, Job job, Batch b, ErrorClass expected) {
        send(job, b);
        w.lock(LockType.SHARED, 1, 0);
        w.get(new byte[8], 8, Datatype.BYTE, 1, 0); // a round trip behind the bad packet: its ERROR reply is in
        RmaException e = assertThrows(RmaException.class, () -> w.unlock(1));
        assertEquals(expected, e.errorClass(), e.getMessage());
    }

    @ParameterizedTest(name = "jrma.transports={0}")
    @ValueSource(strings = {"^shm", "shm,tcp"})
    @Timeout(90)
    // private window memory: the origin reaches the other JVM by packets (over TCP, or through the rings)
    void badPacketsAreRejectedAndCorruptNothing(String transports) {
        Jrma.job(2).jvms(2).param("jrma.shm.windows", "false").param("jrma.transports", transports)
                .timeout(Duration.ofSeconds(60)).run(world -> {
            Win win = Win.allocate(world, SIZE, 1, null);
            for (int i = 0; i < SIZE; i++) {
                win.buffer().put(i, (byte) (0x40 + i));
            }
            world.barrier();
            if (world.rank() == 0) {
                WindowImpl w = (WindowImpl) win;
                Job job = ((CommCore) world).job();
                assertTrue(!job.isLocal(1), "rank 1 lives in the other JVM");
                String via = job.transportFor(w.worldRanks[1]).getClass().getSimpleName();
                assertTrue(via.startsWith(transports.startsWith("^") ? "Tcp" : "ShmRing"),
                        "packets to rank 1 go through " + via);
                int l = BasicType.LONG.id();
                expectRejected(w, job, packet(w, PacketType.PUT, SIZE - 4, 8, 0, 0, 8, 0), ErrorClass.ERR_RMA_RANGE);
                expectRejected(w, job, packet(w, PacketType.PUT, -8, 8, 0, 0, 8, 0), ErrorClass.ERR_RMA_RANGE);
                expectRejected(w, job, packet(w, PacketType.PUT, 0, 16, 0, 0, 8, 0), ErrorClass.ERR_COUNT);
                expectRejected(w, job, packet(w, PacketType.ACC, 0, 8, 99, OpCode.SUM.id(), 8, 0), ErrorClass.ERR_TYPE);
                expectRejected(w, job, packet(w, PacketType.ACC, 0, 8, BasicType.DOUBLE.id(), OpCode.BAND.id(), 8, 0),
                        ErrorClass.ERR_OP);
                expectRejected(w, job, packet(w, PacketType.CAS, 0, 16, l, 0, 32, 0), ErrorClass.ERR_COUNT);
                expectRejected(w, job, packet(w, 77, 0, 8, 0, 0, 8, 0), ErrorClass.ERR_ARG);
                // truncated: the header claims fewer bytes than a header. TCP's receiver cannot frame the rest and
                // drops it; the ring's sender refuses to frame it at all
                Batch truncated = packet(w, PacketType.PUT, 0, 8, 0, 0, 8, 20);
                if (via.startsWith("Tcp")) {
                    send(job, truncated);
                } else {
                    RmaException e = assertThrows(RmaException.class, () -> send(job, truncated));
                    assertEquals(ErrorClass.ERR_INTERN, e.errorClass(), e.getMessage());
                }
                // oversized: the header claims a payload far beyond what the packet carries
                Batch big = packet(w, PacketType.PUT, 0, 8, 0, 0, 8, 0);
                big.buffer().putLong(PacketHeader.TARGET_COUNT_OFFSET, 1L << 40);
                expectRejected(w, job, big, ErrorClass.ERR_RMA_RANGE);
                Random rnd = new Random(7);
                for (int round = 0; round < 1_000; round++) {
                    int payload = rnd.nextInt(64);
                    Batch b = packet(w, 1 + rnd.nextInt(PacketType.CAS), rnd.nextInt(2 * SIZE) - SIZE / 2 + SIZE * 4L,
                            rnd.nextInt(96) - 8, rnd.nextInt(24), rnd.nextInt(16), payload, 0);
                    for (int k = 0; k < 3; k++) {
                        int at = PacketHeader.ELEM_TYPE_OFFSET + rnd.nextInt(PacketHeader.HEADER_LENGTH + payload
                                - PacketHeader.ELEM_TYPE_OFFSET);
                        b.buffer().putByte(at, (byte) rnd.nextInt());
                    }
                    PacketHeader.clearFlags(b.buffer(), 0, PacketType.F_LOCK_SHARED | PacketType.F_LOCK_EXCLUSIVE
                            | PacketType.F_UNLOCK | PacketType.F_DYNAMIC);
                    send(job, b);
                }
                w.lock(LockType.SHARED, 1, 0);
                byte[] got = new byte[8];
                w.get(got, 8, Datatype.BYTE, 1, 0);
                try {
                    w.unlock(1);
                } catch (RmaException expected) {
                    // an error reply to the garbage may surface here; the data must still be right
                }
                assertArrayEquals(new byte[] {0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47}, got);
            }
            world.barrier();
            for (int i = 0; i < SIZE; i++) {
                assertEquals((byte) (0x40 + i), win.buffer().get(i),
                        "rank " + world.rank() + " window byte " + i + " changed");
            }
            world.barrier(); // both have checked before anyone writes again
            // the IO agents still carry valid traffic both ways
            win.lock(LockType.EXCLUSIVE, 1 - world.rank(), 0);
            win.put(new byte[] {(byte) (world.rank() + 1)}, 1, Datatype.BYTE, 1 - world.rank(), SIZE - 1);
            win.unlock(1 - world.rank());
            world.barrier();
            win.sync();
            assertEquals((byte) (2 - world.rank()), win.buffer().get(SIZE - 1), "a valid put after the garbage");
            win.free();
        });
    }
}

package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A flush to a rank of another JVM of the host, over the shared-memory rings, completes on the applied position
 * the target publishes in the ring file instead of an ACK packet (jrma.shm.ringAcks). It must still mean what
 * a flush means: the target's memory holds the data when flush returns (checked by the target reading its own
 * memory as soon as a flag, stored by load/store in a shared window, says the flush returned); a batch that
 * waits for a lock is acknowledged only once applied; and an error a target reported before the applied
 * position passed the flush is reported by that flush. (Cross memory attach and request slots, which would take
 * these small puts around the rings, are off: {@link CrossMemoryAcrossJvmsTest}, {@link OpSlotsAcrossJvmsTest} and
 * {@link OpSlotLanesAcrossJvmsTest} cover them.)
 */
class RingAcksAcrossJvmsTest {
    private static final int ROUNDS = 3_000;

    /** A window over memory private to the owner's JVM: rank 1's 8 bytes reach rank 0 by packets only. */
    private record Private(Win win, ByteBuffer mem, long base) {
    }

    private static Private privateWindow(Comm world) {
        Win w = Win.createDynamic(world, null);
        ByteBuffer mem = ByteBuffer.allocateDirect(64).order(ByteOrder.LITTLE_ENDIAN); // not a shared segment
        w.attach(mem);
        long[] mine = {Win.address(mem)};
        long base;
        try (Win x = Win.allocate(world, 16, 8, null)) {
            x.fence(0);
            x.put(mine, 1, Datatype.LONG, 1 - world.rank(), world.rank());
            x.fence(0);
            base = x.buffer().order(ByteOrder.LITTLE_ENDIAN).getLong(8 * (1 - world.rank()));
        }
        return new Private(w, mem, base);
    }

    private static long flagAt(Win flag) {
        flag.sync();
        return flag.buffer().order(ByteOrder.LITTLE_ENDIAN).getLong(0);
    }

    private static void setFlag(Win flag, long v) {
        flag.put(new long[] {v}, 1, Datatype.LONG, 1, 0);
        flag.flush(1);
    }

    @ParameterizedTest(name = "jrma.shm.ringAcks={0}")
    @ValueSource(strings = {"true", "false"})
    @Timeout(120)
    void flushMeansAppliedAtTheTarget(String ringAcks) {
        Jrma.job(2).jvms(2).param("jrma.transports", "shm,tcp").param("jrma.cma.minBytes",
                "-1").param("jrma.shm.opSlots", "false").param("jrma.shm.ringAcks",
                ringAcks).timeout(Duration.ofSeconds(90)).run(world -> {
            Private d = privateWindow(world);
            Win flag = Win.allocate(world, 8, 1, null); // a shared segment: rank 0 stores into it directly
            String via = ((CommCore) world).job().transportFor(((WindowImpl) d.win()).worldRanks[1 - world.rank()])
                    .getClass().getSimpleName();
            assertTrue(via.startsWith("ShmRing"), "packets to the other JVM go through " + via);
            world.barrier();
            if (world.rank() == 0) {
                d.win().lock(LockType.EXCLUSIVE, 1, 0);
                flag.lockAll(0);
                for (long i = 1; i <= ROUNDS; i++) {
                    d.win().put(new long[] {i}, 1, Datatype.LONG, 1, d.base());
                    d.win().flush(1);
                    setFlag(flag, i); // only after the flush returned
                }
                flag.unlockAll();
                d.win().unlock(1);
                long replies = d.win().counters().get(Counter.REPLIES_RECEIVED);
                if (ringAcks.equals("true")) {
                    assertTrue(replies <= 1, replies + " ACK packets came back for " + ROUNDS + " flushes");
                } else {
                    assertTrue(replies >= ROUNDS, "only " + replies + " ACK packets for " + ROUNDS + " flushes");
                }
            } else {
                for (long i = 1; i <= ROUNDS; i++) {
                    long f;
                    while ((f = flagAt(flag)) < i) {
                        Thread.onSpinWait();
                    }
                    long seen = d.mem().getLong(0);
                    // the flag may already be ahead; the data may never be behind it
                    assertTrue(seen >= f, "flush " + f + " returned but the target's memory holds " + seen);
                    i = f;
                }
                long byRing = d.win().counters().get(Counter.ACKS_BY_RING);
                if (ringAcks.equals("true")) {
                    assertTrue(byRing >= ROUNDS - 1,
                            "only " + byRing + " of " + ROUNDS + " flushes acknowledged through the ring");
                } else {
                    assertEquals(0, byRing, "jrma.shm.ringAcks=false, yet acks went through the ring");
                }
            }
            world.barrier();
            flag.free();
            d.win().free();
        });
    }

    @Test
    @Timeout(120)
    void aBatchWaitingForALockIsAcknowledgedOnlyOnceApplied() {
        Jrma.job(2).jvms(2).param("jrma.transports", "shm,tcp").param("jrma.cma.minBytes",
                "-1").param("jrma.shm.opSlots", "false").timeout(Duration.ofSeconds(90)).run(world -> {
            Private d = privateWindow(world);
            Win flag = Win.allocate(world, 8, 1, null);
            if (world.rank() == 1) {
                d.win().lock(LockType.EXCLUSIVE, 1, 0); // the target holds its own window
            }
            world.barrier();
            if (world.rank() == 0) {
                flag.lockAll(0);
                d.win().lock(LockType.EXCLUSIVE, 1, 0);
                d.win().put(new long[] {42}, 1, Datatype.LONG, 1, d.base());
                d.win().flush(1); // the put (and the lock it carries) waits at the target until rank 1 unlocks
                setFlag(flag, 1);
                d.win().unlock(1);
                flag.unlockAll();
            } else {
                long until = System.nanoTime() + 300_000_000L;
                while (System.nanoTime() < until) {
                    assertEquals(0, flagAt(flag), "rank 0's flush returned while its lock was not granted");
                    Jrma.progress(world);
                }
                assertEquals(0, d.mem().getLong(0), "the put was applied under rank 1's exclusive lock");
                d.win().unlock(1);
                while (flagAt(flag) == 0) {
                    Thread.onSpinWait();
                }
                assertEquals(42, d.mem().getLong(0), "flush returned before the put was applied");
            }
            world.barrier();
            flag.free();
            d.win().free();
        });
    }

    @Test
    @Timeout(120)
    void anErrorIsReportedByTheFlushBehindIt() {
        // over private memory a bad request is rejected by the origin before it leaves (it knows the target's
        // attachments), so the bad packet is made by hand and sent asking for no ack, as an eager put goes out:
        // its ERROR reply comes back before the ring's applied position passes the flush, which must report it
        Jrma.job(2).jvms(2).param("jrma.transports", "shm,tcp").param("jrma.cma.minBytes",
                "-1").param("jrma.shm.opSlots", "false").param("jrma.shm.windows",
                "false").timeout(Duration.ofSeconds(90)).run(world -> {
            Win win = Win.allocate(world, 64, 1, null);
            world.barrier();
            if (world.rank() == 0) {
                WindowImpl w = (WindowImpl) win;
                Job job = ((CommCore) world).job();
                win.lock(LockType.SHARED, 1, 0);
                for (int round = 1; round <= 50; round++) {
                    MutableDirectBuffer buf = new ExpandableDirectByteBuffer(128);
                    PacketHeader.write(buf, 0, PacketHeader.HEADER_LENGTH + 8, PacketType.PUT, PacketType.F_CONTIG,
                            w.windowId, w.worldRanks[0], w.worldRanks[1], 0, 60, 0, 0, 0, 8, 0); // bytes [60, 68)
                    Batch bad = new Batch(buf);
                    bad.add(0);
                    bad.address(w.worldRanks[0], w.worldRanks[1]);
                    while (!job.transportFor(bad.dstRank()).send(bad)) {
                        job.agent().tryProgress();
                    }
                    win.put(new long[] {round}, 1, Datatype.LONG, 1, 8);
                    RmaException e = assertThrows(RmaException.class, () -> win.flush(1), "round " + round);
                    assertEquals(ErrorClass.ERR_RMA_RANGE, e.errorClass(), e.getMessage());
                    win.put(new long[] {round}, 1, Datatype.LONG, 1, 0);
                    win.flush(1); // the error was reported once; the window goes on
                }
                win.unlock(1);
                assertTrue(win.counters().get(Counter.REPLIES_RECEIVED) >= 50, "the ERROR replies were received");
            }
            world.barrier();
            if (world.rank() == 1) {
                assertEquals(50, win.buffer().order(ByteOrder.LITTLE_ENDIAN).getLong(0));
                assertEquals(50, win.buffer().order(ByteOrder.LITTLE_ENDIAN).getLong(8),
                        "the valid put behind the rejected one");
                assertTrue(win.counters().get(Counter.ACKS_BY_RING) >= 50, "flushes acknowledged through the ring: "
                        + win.counters().get(Counter.ACKS_BY_RING));
            }
            world.barrier();
            win.free();
        });
    }
}

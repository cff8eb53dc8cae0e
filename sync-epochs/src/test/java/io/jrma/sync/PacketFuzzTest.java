package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.LockType;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.wire.PacketHeader;
import io.jrma.transport.shm.RingFileDescriptor;
import io.jrma.transport.tcp.FrameDescriptor;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.zip.CRC32;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Fuzz campaign against the packet path: bad request packets ({@link FuzzInputs}: random, bit-flipped,
 * truncated, oversized, boundary values, derived-datatype layouts, large puts whose payload a transport places)
 * and replies nobody asked for, written by a fuzzer into JVM 0's real TCP connection to JVM 1, or into its real
 * shared-memory ring to JVM 1 ({@link FuzzRig}). JVM 1's transport, progress agent and window engine must reject
 * every input exactly once (counted by the transport, the agent or the window; the window answers each with an
 * ERROR reply carrying its MPI error class), apply none (both windows' bytes keep their checksum), never let an
 * exception escape into the progress agent, never abort, and afterwards still serve valid operations both ways.
 *
 * <p>Quick mode (CI): {@code jrma.fuzz.count} inputs per transport, 30,000 by default. Long mode:
 * {@code mvn -B -ntp -o verify -pl sync-epochs -am -Dtest=PacketFuzzTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Djrma.fuzz.count=1000000}. The seed ({@code jrma.fuzz.seed}, 34 by default) is printed; the same seed and count
 * send the same inputs.
 */
class PacketFuzzTest {
    static final long COUNT = Long.getLong("jrma.fuzz.count", 30_000);
    static final long SEED = Long.getLong("jrma.fuzz.seed", 34);
    private static final int SIZE = 4096;
    /** One input in this many is a reply nobody asked for. */
    private static final int REPLY_EVERY = 50;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "rings"})
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // the long mode; the quick mode takes seconds
    void everyBadPacketIsRejectedOnceAndChangesNothing(String via) throws Exception {
        boolean rings = via.equals("rings");
        Map<String, String> params = Map.of("jrma.path", "packet", "jrma.shm.windows", "false");
        System.out.println("PacketFuzzTest via " + via + ": seed " + SEED + ", " + COUNT + " inputs (-Djrma.fuzz.seed="
                + SEED + " -Djrma.fuzz.count=" + COUNT + " to repeat)");
        try (FuzzRig rig = new FuzzRig(rings, params)) {
            AtomicReference<WindowImpl>[] win =
                    new AtomicReference[] {new AtomicReference<>(), new AtomicReference<>()};
            CountDownLatch created = new CountDownLatch(2);
            CountDownLatch fuzzed = new CountDownLatch(1);
            for (int r = 0; r < 2; r++) {
                int me = r;
                rig.start(r, world -> {
                    Win w = Win.allocate(world, SIZE, 1, null);
                    for (int i = 0; i < SIZE; i++) {
                        w.buffer().put(i, (byte) (i * 7 + me));
                    }
                    world.barrier();
                    win[me].set((WindowImpl) w);
                    created.countDown();
                    assertTrue(fuzzed.await(25, TimeUnit.MINUTES), "the fuzzer never finished");
                    validTrafficStillFlows(w, me);
                    w.free();
                }, TimeUnit.MINUTES.toMillis(28));
            }
            try {
                campaign(rig, rings, via, win, created);
            } finally {
                fuzzed.countDown(); // the ranks go on (and fail fast if the campaign failed and aborted the jobs)
            }
            rig.await(60_000);
        }
    }

    private static void campaign(FuzzRig rig, boolean rings, String via, AtomicReference<WindowImpl>[] win,
                                 CountDownLatch created) throws Exception {
        {
            assertTrue(created.await(60, TimeUnit.SECONDS), "windows not created");
            WindowImpl w1 = win[1].get();
            long[] sum = {checksum(win[0].get()), checksum(w1)};
            LongSupplier rejected = () -> rig.tcp[1].framesRejected() + (rings ? rig.shm[1].rejected() : 0)
                    + rig.jobs[1].agent().batchesDropped() + w1.counters.get(Counter.PACKETS_REJECTED);
            long rejectedBefore = rejected.getAsLong();
            long repliesBefore = w1.counters.get(Counter.REPLIES_RECEIVED);
            long appliedBefore = w1.counters.get(Counter.PACKETS_APPLIED);
            WindowImpl w0 = win[0].get();
            long errorsBefore = w0.counters.get(Counter.REPLIES_RECEIVED);
            long windowRejectedBefore = w1.counters.get(Counter.PACKETS_REJECTED);
            FuzzInputs in = new FuzzInputs(SEED, w1.windowId, 0, 1, SIZE, 2);
            long t0 = System.nanoTime();
            long[] sent = rings ? fuzzRing(rig, in) : fuzzTcp(rig, in);
            long bad = sent[0];
            long replies = sent[1];
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while ((rejected.getAsLong() - rejectedBefore < bad
                    || w1.counters.get(Counter.REPLIES_RECEIVED) - repliesBefore < replies)
                    && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            // every rejection by the window sent an ERROR reply (with its error class) back to the origin
            LongSupplier errorReplies = () -> w0.counters.get(Counter.REPLIES_RECEIVED) - errorsBefore;
            long windowRejected = w1.counters.get(Counter.PACKETS_REJECTED) - windowRejectedBefore;
            while (errorReplies.getAsLong() < windowRejected && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            System.out.printf("PacketFuzzTest via %s: %d bad requests and %d unasked replies in %.1f s (%.0f "
                    + "inputs/s); rejected by the transport %d, by the agent (no such window) %d, by the window %d; "
                    + "%s%n", via, bad,
                    replies, secs, (bad + replies) / secs,
                    rig.tcp[1].framesRejected() + (rings ? rig.shm[1].rejected() : 0),
                    rig.jobs[1].agent().batchesDropped(), w1.counters.get(Counter.PACKETS_REJECTED), in.histogram());
            assertNull(rig.jobs[1].agent().lastError(), "an exception escaped into JVM 1's progress agent");
            assertNull(rig.jobs[0].agent().lastError(), "an exception escaped into JVM 0's progress agent");
            assertFalse(rig.jobs[1].isAborted(), () -> "JVM 1 aborted: " + rig.jobs[1].abortReason());
            assertFalse(rig.jobs[0].isAborted(), () -> "JVM 0 aborted: " + rig.jobs[0].abortReason());
            assertEquals(bad, rejected.getAsLong() - rejectedBefore, "bad inputs rejected (each exactly once)");
            assertEquals(windowRejected, errorReplies.getAsLong(), "ERROR replies received by the origin");
            assertEquals(replies, w1.counters.get(Counter.REPLIES_RECEIVED) - repliesBefore, "unasked replies taken");
            assertEquals(appliedBefore, w1.counters.get(Counter.PACKETS_APPLIED), "packets applied from the fuzzer");
            // rejections below the window carry their MPI error class too (there is nobody to answer: they are kept)
            RmaException transport = rings ? rig.shm[1].lastRejection() : rig.tcp[1].lastRejection();
            assertTrue(transport != null && (transport.errorClass() == ErrorClass.ERR_RANK
                    || transport.errorClass() == ErrorClass.ERR_INTERN),
                    "the transport's last rejection: " + transport);
            RmaException agent = rig.jobs[1].agent().lastRejection();
            assertTrue(agent != null && agent.errorClass() == ErrorClass.ERR_WIN,
                    "the agent's last rejection: " + agent);
            System.out.println("PacketFuzzTest via " + via + ": last rejections: transport " + transport.getMessage()
                    + "; agent " + agent.getMessage());
            assertEquals(sum[1], checksum(w1), "JVM 1's window changed");
            assertEquals(sum[0], checksum(win[0].get()), "JVM 0's window changed");
        }
    }

    /** Sends every input as one BATCH frame; returns {bad requests, replies} sent. */
    private static long[] fuzzTcp(FuzzRig rig, FuzzInputs in) throws Exception {
        ByteBuffer out = ByteBuffer.allocateDirect(1 << 20);
        UnsafeBuffer scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(FuzzInputs.LARGE + (8 << 10)));
        long bad = 0;
        long replies = 0;
        for (long i = 0; i < COUNT; i++) {
            int len;
            if (i % REPLY_EVERY == REPLY_EVERY - 1) {
                len = in.reply(scratch, 0);
                replies++;
            } else {
                len = in.next(scratch, 0);
                bad++;
            }
            if (out.remaining() < FrameDescriptor.HEADER_LENGTH + len) {
                rig.injectFrames(out.flip());
                out.clear();
            }
            FuzzRig.frame(out, FrameDescriptor.BATCH, scratch.byteBuffer().duplicate().limit(len).position(0));
        }
        rig.injectFrames(out.flip());
        return new long[] {bad, replies};
    }

    /**
     * Sends every input as one record of whole packets, except large puts with an honest length, which travel in
     * pieces as the sender cuts a packet larger than a record (so the receiver places their payload); returns
     * {bad requests, replies} sent.
     */
    private static long[] fuzzRing(FuzzRig rig, FuzzInputs in) throws Exception {
        UnsafeBuffer scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(FuzzInputs.LARGE + (8 << 10)));
        long bad = 0;
        long replies = 0;
        for (long i = 0; i < COUNT; i++) {
            int len;
            if (i % REPLY_EVERY == REPLY_EVERY - 1) {
                len = in.reply(scratch, 0);
                replies++;
            } else {
                len = in.next(scratch, 0);
                bad++;
            }
            if (len >= FuzzInputs.LARGE && in.lastDefect != FuzzInputs.Defect.LENGTH) {
                int piece = 4096 + in.random().nextInt(12 << 10);
                for (int at = 0; at < len; at += piece) {
                    rig.injectRecord(RingFileDescriptor.MSG_PART, scratch, at, Math.min(piece, len - at));
                }
            } else {
                rig.injectRecord(RingFileDescriptor.MSG_PACKETS, scratch, 0, len);
            }
            if ((i & 255) == 255) {
                rig.doorbell();
            }
        }
        rig.doorbell();
        return new long[] {bad, replies};
    }

    private static long checksum(WindowImpl w) {
        byte[] b = new byte[SIZE];
        w.buffer().duplicate().clear().get(b);
        CRC32 c = new CRC32();
        c.update(b);
        return c.getValue();
    }

    /**
     * After the campaign: a put and a get each way. The first synchronization may report an error a garbage reply
     * planted at this origin (a peer reported it: that is its job); the second must be clean.
     */
    private static void validTrafficStillFlows(Win w, int me) {
        int peer = 1 - me;
        for (int attempt = 0; ; attempt++) {
            try {
                w.lock(LockType.EXCLUSIVE, peer, 0);
                w.put(new byte[] {(byte) (0x50 + me), 1, 2, 3}, 4, Datatype.BYTE, peer, 8 * me);
                byte[] got = new byte[4];
                w.get(got, 4, Datatype.BYTE, peer, 100);
                w.unlock(peer);
                byte[] want = new byte[4];
                for (int k = 0; k < 4; k++) {
                    want[k] = (byte) ((100 + k) * 7 + peer);
                }
                assertArrayEquals(want, got, "a get after the campaign");
                break;
            } catch (RmaException e) {
                if (attempt > 0) {
                    throw e;
                }
            }
        }
        w.fence(0); // both ranks' puts are complete
        w.fence(0);
        assertEquals((byte) (0x50 + peer), w.buffer().get(8 * peer), "a put after the campaign");
    }
}

package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Request;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.runtime.CommCore;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Large GETs between JVMs are answered from the target's window memory by reference (no copy into the reply), so
 * the window must not change until the reply has left: an origin's unlock waits for that. Readers take 512 KiB
 * under a shared lock while writers overwrite all of it under an exclusive lock, through small socket buffers
 * (or a small shared-memory ring) so that a reply is written in many pieces. A reader must always see one
 * writer's bytes, never a mix, which is what it saw when the unlock released the lock while the reply was still
 * being written. Every test runs over TCP ({@code tcp}) and over the shared-memory rings ({@code shm}).
 */
class LargeGetAcrossJvmsTest {
    private static final int SIZE = 512 << 10;
    private static final int EPOCHS = 24;

    /** {@code n} ranks over 2 JVMs, packets over TCP, through 16 KiB socket buffers (a reply takes many writes). */
    static void overTcp(int n, Jrma.RankMain body) {
        between("tcp", n, body);
    }

    /**
     * {@code n} ranks over 2 JVMs with window memory private to each JVM, packets over {@code path}: {@code tcp}
     * through 16 KiB socket buffers, or {@code shm} through 64 KiB rings (the smallest: a packet over 8 KiB travels
     * in pieces, and a few large ones fill the ring).
     */
    static void between(String path, int n, Jrma.RankMain body) {
        Jrma.Builder job = Jrma.job(n).jvms(2).param("jrma.shm.windows", "false").timeout(Duration.ofSeconds(90));
        if (path.equals("tcp")) {
            job.param("jrma.transports", "^shm").param("jrma.tcp.socketBuffer", "16384");
        } else {
            job.param("jrma.transports", "shm,tcp").param("jrma.shm.ringBytes", "65536");
        }
        job.run(body);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    @Timeout(120)
    void readersOfAWindowBeingRewrittenSeeOneWriteWhole(String path) {
        between(path, 4, world -> {
            int me = world.rank();
            int target = 3; // in the second JVM with rank 2 (direct path for 2, TCP for 0 and 1)
            Win w = Win.allocate(world, me == target ? SIZE : 0, 1, null);
            world.barrier();
            if (me != target) {
                ByteBuffer out = ByteBuffer.allocateDirect(SIZE);
                ByteBuffer in = ByteBuffer.allocateDirect(SIZE);
                for (int i = 0; i < EPOCHS; i++) {
                    if ((i + me) % 3 == 0) {
                        byte v = (byte) (1 + me * EPOCHS + i);
                        for (int k = 0; k < SIZE; k++) {
                            out.put(k, v);
                        }
                        w.lock(LockType.EXCLUSIVE, target, 0);
                        w.put(out, SIZE, Datatype.BYTE, target, 0);
                        w.unlock(target);
                    } else {
                        w.lock(LockType.SHARED, target, 0);
                        w.get(in, SIZE, Datatype.BYTE, target, 0);
                        w.unlock(target);
                        byte first = in.get(0);
                        for (int k = 0; k < SIZE; k++) {
                            if (in.get(k) != first) {
                                throw new AssertionError("rank " + me + " epoch " + i + ": byte " + k
                                        + " is " + in.get(k)
                                        + ", byte 0 is " + first + ": a write overlapped the shared epoch's get");
                            }
                        }
                    }
                }
            }
            world.barrier();
            if (me == 0) {
                assertTrue(((CommCore) world).job().transportFor(((WindowImpl) w).worldRanks[target]).carriesExternal(),
                        "replies to rank 0 go over " + path + ", which sends them from the window");
            }
            w.free();
        });
    }

    /**
     * The same for a fence epoch: the target rewrites its window right after the closing fence. (The origin's
     * fence already waits for its replies before it sends its marker, so this one guards the ordering rather
     * than the wait at the target.)
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    @Timeout(120)
    void aFenceWaitsUntilTheGetReplyHasLeft(String path) {
        between(path, 2, world -> {
            int me = world.rank();
            Win w = Win.allocate(world, me == 1 ? SIZE : 0, 1, null);
            ByteBuffer in = ByteBuffer.allocateDirect(SIZE);
            for (int i = 0; i < EPOCHS; i++) {
                if (me == 1) {
                    ByteBuffer mine = w.buffer();
                    for (int k = 0; k < SIZE; k++) {
                        mine.put(k, (byte) (i + 1));
                    }
                }
                w.fence(0);
                if (me == 0) {
                    w.get(in, SIZE, Datatype.BYTE, 1, 0);
                }
                w.fence(0);
                if (me == 0) {
                    for (int k = 0; k < SIZE; k++) {
                        if (in.get(k) != (byte) (i + 1)) {
                            throw new AssertionError("epoch " + i + ": byte " + k + " is " + in.get(k)
                                    + ", expected " + (i + 1)
                                    + ": the target wrote its window after the fence while the reply was being sent");
                        }
                    }
                }
            }
            w.free();
        });
    }

    /**
     * A large get into a direct buffer has its reply read from the socket (or the ring) straight into that buffer
     * (no pooled receive buffer, no copy): exactly the get's bytes, never a byte on either side of them;
     * request-based gets too; a get into a heap array takes the ordinary way. Through 16 KiB socket buffers or
     * 64 KiB rings, so each reply is read in many pieces.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    @Timeout(120)
    void largeGetRepliesAreReadStraightIntoTheOriginBuffer(String path) {
        between(path, 2, world -> {
            int me = world.rank();
            Win w = Win.allocate(world, me == 1 ? 2 * SIZE : 0, 1, null);
            if (me == 1) {
                for (int k = 0; k < 2 * SIZE; k++) {
                    w.buffer().put(k, (byte) (k * 13 + k / 4096));
                }
            }
            world.barrier();
            int gets = 10;
            if (me == 0) {
                ByteBuffer whole = ByteBuffer.allocateDirect(SIZE + 128);
                ByteBuffer into = whole.duplicate().position(64).limit(64 + SIZE).slice();
                byte[] heap = new byte[SIZE];
                w.lockAll(0);
                for (int i = 0; i < gets; i++) {
                    for (int k = 0; k < whole.capacity(); k++) {
                        whole.put(k, (byte) 0x5a);
                    }
                    int at = (i * 5000) % SIZE;
                    int len = i % 3 == 2 ? 48 << 10 : SIZE; // also a get whose reply fits in the receive staging
                    if (i % 2 == 0) {
                        w.get(into, len, Datatype.BYTE, 1, at);
                        w.flush(1);
                    } else {
                        Request r = w.rget(into, len, Datatype.BYTE, 1, at, len, Datatype.BYTE);
                        r.waitFor();
                    }
                    w.get(heap, len, Datatype.BYTE, 1, at);
                    w.flush(1);
                    for (int k = 0; k < len; k++) {
                        byte want = (byte) ((at + k) * 13 + (at + k) / 4096);
                        if (into.get(k) != want || heap[k] != want) {
                            throw new AssertionError("get " + i + ": byte " + k + " is " + into.get(k) + " (direct) / "
                                    + heap[k] + " (heap), expected " + want);
                        }
                    }
                    for (int k = 0; k < 64; k++) {
                        if (whole.get(k) != 0x5a || whole.get(64 + len + k) != 0x5a) {
                            throw new AssertionError("get " + i + ": a byte beside the origin buffer was written");
                        }
                    }
                }
                w.unlockAll();
                assertEquals(gets, w.counters().get(Counter.PAYLOADS_PLACED),
                        "the replies to the direct-buffer gets, and only those, were read into place");
            }
            world.barrier();
            w.free();
        });
    }
    /**
     * Many large gets outstanding, then one flush: their replies outgrow the ring (or the socket buffers) and wait
     * at the target for room, while the flush itself asks for nothing but an acknowledgement. The flush must not
     * return before every reply has arrived (over the rings: an acknowledgement through the ring's applied position
     * must not overtake replies still waiting to enter the ring).
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    @Timeout(120)
    void aFlushCoversEveryOutstandingGet(String path) {
        between(path, 2, world -> {
            int me = world.rank();
            int each = 128 << 10;
            int gets = 16;
            Win w = Win.allocate(world, me == 1 ? (long) gets * each : 0, 1, null);
            if (me == 1) {
                for (int k = 0; k < gets * each; k++) {
                    w.buffer().put(k, (byte) (k * 7 + k / 1000));
                }
            }
            world.barrier();
            if (me == 0) {
                ByteBuffer[] into = new ByteBuffer[gets];
                for (int g = 0; g < gets; g++) {
                    into[g] = ByteBuffer.allocateDirect(each);
                }
                w.lockAll(0);
                for (int round = 0; round < 6; round++) {
                    for (ByteBuffer b : into) {
                        for (int k = 0; k < each; k++) {
                            b.put(k, (byte) 0);
                        }
                    }
                    for (int g = 0; g < gets; g++) {
                        w.get(into[g], each, Datatype.BYTE, 1, (long) g * each);
                    }
                    w.flush(1);
                    for (int g = 0; g < gets; g++) {
                        for (int k = 0; k < each; k++) {
                            int at = g * each + k;
                            if (into[g].get(k) != (byte) (at * 7 + at / 1000)) {
                                throw new AssertionError("round " + round + ", get " + g + " of " + gets + ": byte " + k
                                        + " is " + into[g].get(k) + " after the flush returned");
                            }
                        }
                    }
                }
                w.unlockAll();
            }
            world.barrier();
            w.free();
        });
    }
    /**
     * Two large gets in flight at once (their replies, sent from the window, wait for room in the ring or socket),
     * then a small reply, then the unlock. The unlock waits at the target until the last reply sent from window
     * memory is out; that must not be lost track of when the target reuses its consumed reply batches for the
     * small reply (the batch was once recycled while still named as the one to wait for, and the unlock waited
     * forever). Eager issue puts each get in a batch, and so each reply in a reply batch, of its own.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    @Timeout(120)
    void anUnlockAfterLargeGetsAndASmallReplyCompletes(String path) {
        between(path, 2, world -> {
            int me = world.rank();
            int each = 256 << 10;
            Win w = Win.allocate(world, me == 1 ? 2L * each + 8 : 0, 1, Info.of("jrma_issue", "eager"));
            world.barrier();
            if (me == 0) {
                ByteBuffer a = ByteBuffer.allocateDirect(each);
                ByteBuffer b = ByteBuffer.allocateDirect(each);
                long[] one = {1};
                long[] old = new long[1];
                for (int round = 0; round < 4; round++) {
                    w.lock(LockType.EXCLUSIVE, 1, 0);
                    w.get(a, each, Datatype.BYTE, 1, 0);
                    w.get(b, each, Datatype.BYTE, 1, each);
                    w.flush(1);
                    w.fetchAndOp(one, old, Datatype.LONG, 1, 2L * each, Op.SUM);
                    w.flush(1);
                    assertEquals(round, old[0], "the counter before round " + round + "'s add");
                    w.unlock(1); // hung here
                }
            }
            world.barrier();
            w.free();
        });
    }
}

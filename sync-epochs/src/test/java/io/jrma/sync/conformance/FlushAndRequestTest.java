package io.jrma.sync.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Group;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Request;
import io.jrma.RmaException;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** flush vs flush_local, and request-based operations. */
class FlushAndRequestTest {

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void flushLocalDeliversGetData(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            Win w = Win.allocate(world, 8 * 16, 8, null);
            for (int i = 0; i < 16; i++) {
                w.buffer().putLong(8 * i, me * 100L + i);
            }
            world.barrier();
            w.lock(LockType.SHARED, t, 0);
            for (int round = 0; round < 10; round++) {
                long[] got = new long[16];
                w.get(got, 16, Datatype.LONG, t, 0);
                w.flushLocal(t);
                for (int i = 0; i < 16; i++) {
                    assertEquals(t * 100L + i, got[i], "get data after flush_local, round " + round);
                }
                long[] one = new long[1];
                w.getAccumulate(null, 0, Datatype.LONG, one, 1, Datatype.LONG, t, 3, 1, Datatype.LONG, Op.NO_OP);
                w.flushLocalAll();
                assertEquals(t * 100L + 3, one[0], "get_accumulate NO_OP after flush_local_all");
            }
            w.unlock(t);
            world.barrier();
            w.free();
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void flushMakesPutVisibleToThirdRank(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int target = 1;
            int reader = n > 2 ? 2 : -1; // with 2 ranks only the target itself reads
            Win w = Win.allocate(world, 64, 8, null);
            world.barrier();
            for (int round = 1; round <= 10; round++) {
                if (me == 0) {
                    w.lockAll(0);
                    w.put(new long[] {round, -round}, 2, Datatype.LONG, target, 0);
                    w.accumulate(new long[] {round}, 1, Datatype.LONG, target, 2, Op.SUM);
                    if (round % 2 == 0) {
                        w.flush(target);
                    } else {
                        w.flushAll();
                    }
                }
                world.barrier(); // rank 0 is still inside its lock_all epoch
                if (me == reader) {
                    long[] got = new long[3];
                    w.lock(LockType.SHARED, target, 0);
                    w.get(got, 3, Datatype.LONG, target, 0);
                    w.unlock(target);
                    assertArrayEquals(new long[] {round, -round, (long) round * (round + 1) / 2}, got,
                            "reader sees data flushed (not yet unlocked) by rank 0, round " + round);
                }
                if (me == target) {
                    w.sync();
                    assertEquals(round, w.buffer().getLong(0), "target's own load after flush + barrier");
                }
                world.barrier();
                if (me == 0) {
                    w.unlockAll();
                }
            }
            world.barrier();
            w.free();
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void requestBasedOperations(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            Win w = Win.allocate(world, 8 * 8, 8, null);
            ByteBuffer b = w.buffer();
            for (int i = 0; i < 8; i++) {
                b.putLong(8 * i, me * 10L + i);
            }
            world.barrier();
            w.lockAll(0);
            long[] putSrc = {me * 1000L, me * 1000L + 1};
            Request rp = w.rput(putSrc, 2, Datatype.LONG, t, 0, 2, Datatype.LONG);
            rp.waitFor();
            putSrc[0] = -12345; // origin buffer reusable once the request is complete
            putSrc[1] = -12345;
            long[] got = new long[2];
            Request rg = w.rget(got, 2, Datatype.LONG, t, 4, 2, Datatype.LONG);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!rg.test()) {
                assertTrue(System.nanoTime() < deadline, "rget never completed");
                Thread.onSpinWait();
            }
            assertArrayEquals(new long[] {t * 10L + 4, t * 10L + 5}, got, "rget data once test() is true");
            Request ra = w.raccumulate(new long[] {7}, 1, Datatype.LONG, t, 2, 1, Datatype.LONG, Op.SUM);
            long[] res = new long[1];
            Request rga = w.rgetAccumulate(new long[] {3}, 1, Datatype.LONG, res, 1, Datatype.LONG, t, 3, 1,
                    Datatype.LONG, Op.SUM);
            CompletableFuture<Void> f = rga.toFuture();
            f.get(10, TimeUnit.SECONDS);
            assertEquals(t * 10L + 3, res[0], "rget_accumulate result after its future completed");
            ra.toFuture().get(10, TimeUnit.SECONDS);
            assertTrue(ra.test(), "test() after completion");
            // several outstanding requests at once
            long[][] many = new long[8][1];
            Request[] rs = new Request[8];
            for (int i = 0; i < 8; i++) {
                rs[i] = w.rget(many[i], 1, Datatype.LONG, t, 6, 1, Datatype.LONG);
            }
            int first = Request.waitAny(rs);
            assertEquals(t * 10L + 6, many[first][0], "waitAny request data");
            Request.waitAll(rs);
            for (int i = 0; i < 8; i++) {
                assertEquals(t * 10L + 6, many[i][0], "waitAll request " + i);
            }
            w.unlockAll();
            world.barrier();
            w.sync();
            assertEquals(o * 1000L, b.getLong(0), "rput word 0");
            assertEquals(o * 1000L + 1, b.getLong(8), "rput word 1");
            assertEquals(me * 10L + 2 + 7, b.getLong(16), "raccumulate");
            assertEquals(me * 10L + 3 + 3, b.getLong(24), "rget_accumulate");
            world.barrier();
            w.free();
        });
    }

    /**
     * Request-based operations in fence and PSCW epochs, as Open MPI's shared-memory and RDMA components allow
     * (MPI-3.1 reserves them for passive target): they complete as in a lock epoch, and outside any epoch they are
     * ERR_RMA_SYNC like the other operations.
     */
    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSizes")
    @Timeout(30)
    void requestBasedOperationsInActiveTargetEpochs(String path, int n) {
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            Win w = Win.allocate(world, 4 * 8, 8, null);
            w.buffer().putLong(24, me);
            world.barrier();
            RmaException e = Assertions.assertThrows(RmaException.class,
                    () -> w.rput(new long[] {1}, 1, Datatype.LONG, t, 0, 1, Datatype.LONG));
            assertEquals(ErrorClass.ERR_RMA_SYNC, e.errorClass(), "rput outside any epoch");
            w.fence(0);
            long[] got = new long[1];
            Request rp = w.rput(new long[] {me * 100L}, 1, Datatype.LONG, t, 0, 1, Datatype.LONG);
            Request rg = w.rget(got, 1, Datatype.LONG, t, 3, 1, Datatype.LONG);
            Request.waitAll(new Request[] {rp, rg});
            assertEquals(t, got[0], "rget data in a fence epoch once complete");
            w.fence(0);
            assertEquals(o * 100L, w.buffer().getLong(0), "rput in a fence epoch");
            Group peers = world.group().incl(t == o ? new int[] {t} : new int[] {o, t});
            w.post(peers, 0);
            w.start(peers, 0);
            Request ra = w.raccumulate(new long[] {5}, 1, Datatype.LONG, t, 1, 1, Datatype.LONG, Op.SUM);
            ra.waitFor();
            w.complete();
            w.waitFor();
            assertEquals(5, w.buffer().getLong(8), "raccumulate in a PSCW epoch");
            world.barrier();
            w.free();
        });
    }

    /** Large transfers (several MB in total, strided on the target) keep every byte. */
    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.sync.conformance.Ranks#pathsAndSmallSizes")
    @Timeout(30)
    void largePutGetAccumulate(String path, int n) {
        int words = 1 << 16; // 512 KiB per rank
        Ranks.run(path, n, world -> {
            int me = world.rank();
            int t = (me + 1) % n;
            int o = (me + n - 1) % n;
            Win w = Win.allocate(world, 8L * words, 8, null);
            world.barrier();
            long[] src = new long[words / 2];
            for (int i = 0; i < src.length; i++) {
                src[i] = ((long) me << 32) | i;
            }
            Datatype everyOther = Datatype.vector(words / 2, 1, 2, Datatype.LONG).commit();
            w.lock(LockType.EXCLUSIVE, t, 0);
            w.put(src, words / 2, Datatype.LONG, t, 0, 1, everyOther);               // even words
            w.accumulate(src, words / 2, Datatype.LONG, t, 1, 1, everyOther, Op.SUM); // odd words (+0)
            w.accumulate(src, words / 2, Datatype.LONG, t, 1, 1, everyOther, Op.SUM);
            w.flush(t);
            long[] back = new long[words];
            w.get(back, words, Datatype.LONG, t, 0);
            w.unlock(t);
            for (int i = 0; i < words / 2; i++) {
                if (back[2 * i] != src[i] || back[2 * i + 1] != 2 * src[i]) {
                    throw new AssertionError("word pair " + i + ": got " + back[2 * i] + ", " + back[2 * i + 1]
                            + " expected " + src[i] + ", " + 2 * src[i]);
                }
            }
            world.barrier();
            w.sync();
            LongBuffer lb = w.buffer().asLongBuffer();
            for (int i = 0; i < words / 2; i++) {
                long e = ((long) o << 32) | i;
                if (lb.get(2 * i) != e || lb.get(2 * i + 1) != 2 * e) {
                    throw new AssertionError("target word pair " + i + " at rank " + me);
                }
            }
            world.barrier();
            w.free();
        });
    }
}

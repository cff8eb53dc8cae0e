package io.jrma.sync.errors;

import static io.jrma.WinCounters.Counter.BATCHES_SENT;
import static io.jrma.WinCounters.Counter.PACKETS_COALESCED;
import static io.jrma.WinCounters.Counter.PACKETS_SENT;
import static io.jrma.WinCounters.Counter.REPLIES_RECEIVED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Win;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code jrma.lock.coalesce=false} (info {@code jrma_lock_coalesce}): lock and lock_all request the lock at once
 * and wait for the grant, unlock is a packet of its own; the default coalesces both into operation packets.
 */
class LockCoalesceTest {
    private static final Info OFF = Info.of("jrma_lock_coalesce", "false");

    private static void originOnly(String path, Info info, BiConsumer<Win, PacketCountersTest.Delta> body) {
        Jrma.job(2).param("jrma.path", path).timeout(Duration.ofSeconds(40)).run((Comm world) -> {
            Win w = Win.allocate(world, 64, 8, info);
            world.barrier();
            if (world.rank() == 0) {
                body.accept(w, new PacketCountersTest.Delta(w));
            }
            world.barrier();
            w.free();
        });
    }

    @Test
    @Timeout(60)
    void infoKeyAndParameterAreHonoured() {
        originOnly("packet", OFF, (w, d) -> assertEquals("false", w.info().get("jrma_lock_coalesce")));
        originOnly("packet", null, (w, d) -> assertEquals("true", w.info().get("jrma_lock_coalesce")));
        Jrma.job(1).param("jrma.lock.coalesce", "false").run(world -> {
            try (Win w = Win.allocate(world, 8, 8, null)) {
                assertEquals("false", w.info().get("jrma_lock_coalesce"));
            }
        });
        Jrma.job(1).run(world -> ErrSupport.expect(ErrorClass.ERR_INFO_VALUE,
                () -> Win.allocate(world, 8, 8, Info.of("jrma_lock_coalesce", "sometimes")), "jrma_lock_coalesce"));
    }

    @Test
    @Timeout(60)
    void uncoalescedEpochSendsLockAndUnlockPackets() {
        originOnly("packet", OFF, (w, d) -> {
            w.lock(LockType.EXCLUSIVE, 1, 0);
            d.expect("lock: a SYNC packet, granted", PACKETS_SENT, 1, REPLIES_RECEIVED, 1, BATCHES_SENT, 1,
                    PACKETS_COALESCED, 0);
            d.mark();
            w.put(new long[] {7}, 1, Datatype.LONG, 1, 0);
            w.unlock(1);
            d.expect("put, unlock: the put and an unlock packet, one ack", PACKETS_SENT, 2, REPLIES_RECEIVED, 1,
                    BATCHES_SENT, 1, PACKETS_COALESCED, 0);
            d.mark();
            long[] g = new long[1];
            w.lock(LockType.SHARED, 1, 0);
            w.get(g, 1, Datatype.LONG, 1, 0);
            w.unlock(1);
            assertEquals(7L, g[0], "the get read the put of the previous epoch");
            d.expect("lock, get, unlock", PACKETS_SENT, 3, REPLIES_RECEIVED, 3, PACKETS_COALESCED, 0);
            d.mark();
            w.lockAll(0);
            d.expect("lock_all: lock packets to both ranks (self included)", PACKETS_SENT, 2, REPLIES_RECEIVED, 2);
            w.put(new long[] {8}, 1, Datatype.LONG, 1, 1);
            w.unlockAll();
            d.expect("lock_all epoch", PACKETS_COALESCED, 0);
        });
        // the default, for contrast: one packet, one reply, lock and unlock both coalesced
        originOnly("packet", null, (w, d) -> {
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.put(new long[] {7}, 1, Datatype.LONG, 1, 0);
            w.unlock(1);
            d.expect("coalesced lock, put, unlock", PACKETS_SENT, 1, REPLIES_RECEIVED, 1, PACKETS_COALESCED, 2);
        });
    }

    /** An uncoalesced lock is held when lock returns, even if the epoch issues nothing: others queue behind it. */
    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void uncoalescedLockIsHeldWhenLockReturns(String path) {
        AtomicLong unlockedAt = new AtomicLong();
        AtomicLong grantedAt = new AtomicLong();
        Jrma.job(2).param("jrma.path", path).timeout(Duration.ofSeconds(40)).run((Comm world) -> {
            Win w = Win.allocate(world, 64, 8, OFF);
            if (world.rank() == 0) {
                w.lock(LockType.EXCLUSIVE, 1, 0);
                world.barrier();            // rank 1 now asks for its own window's lock
                Thread.sleep(300);
                unlockedAt.set(System.nanoTime());
                w.unlock(1);
            } else {
                world.barrier();
                w.lock(LockType.EXCLUSIVE, 1, 0);
                grantedAt.set(System.nanoTime());
                w.unlock(1);
            }
            world.barrier();
            w.free();
        });
        assertTrue(grantedAt.get() - unlockedAt.get() > 0, path + ": rank 1 got the lock "
                + (unlockedAt.get() - grantedAt.get()) / 1000 + " us before rank 0 released it");
    }
}

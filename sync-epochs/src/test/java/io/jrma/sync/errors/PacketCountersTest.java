package io.jrma.sync.errors;

import static io.jrma.WinCounters.Counter.ACKS_ELIDED;
import static io.jrma.WinCounters.Counter.ACKS_PIGGYBACKED;
import static io.jrma.WinCounters.Counter.DIRECT_OPS;
import static io.jrma.WinCounters.Counter.PACKETS_COALESCED;
import static io.jrma.WinCounters.Counter.PACKETS_SENT;
import static io.jrma.WinCounters.Counter.REPLIES_RECEIVED;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The message economy of the packet path, measured as before/after deltas of the origin window's counters:
 * a single-operation lock epoch is one packet and one reply, empty flushes and epochs send nothing, a GET at
 * the tail carries the ack, eager issue sends at issue time. Rank 0 is the origin, rank 1 the target.
 */
class PacketCountersTest {
    @FunctionalInterface
    interface Origin {
        void run(Win w, Delta d) throws Exception;
    }

    /** Before/after deltas of one window's counters. */
    static final class Delta {
        private final Win w;
        private Map<Counter, Long> before;

        Delta(Win w) {
            this.w = w;
            mark();
        }

        void mark() {
            before = w.counters().snapshot();
        }

        long of(Counter c) {
            return w.counters().get(c) - before.get(c);
        }

        void expect(String what, Object... counterValuePairs) {
            StringBuilder diff = new StringBuilder();
            for (Counter c : Counter.values()) {
                long d = of(c);
                if (d != 0 && c != Counter.SYNC_WAIT_NS) {
                    diff.append(c).append("+").append(d).append(' ');
                }
            }
            for (int i = 0; i < counterValuePairs.length; i += 2) {
                Counter c = (Counter) counterValuePairs[i];
                long v = ((Number) counterValuePairs[i + 1]).longValue();
                assertEquals(v, of(c), what + ": delta of " + c + " (all deltas: " + diff + ")");
            }
        }
    }

    private static void originOnly(String path, Info info, Origin body) {
        Jrma.job(2).param("jrma.path", path).timeout(Duration.ofSeconds(40)).run((Comm world) -> {
            Win w = Win.allocate(world, 64, 8, info);
            world.barrier();
            if (world.rank() == 0) {
                body.run(w, new Delta(w));
            }
            world.barrier();
            w.free();
        });
    }

    @Test
    @Timeout(60)
    void singleOperationEpochIsOnePacketAndOneReply() {
        originOnly("packet", null, (w, d) -> {
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.put(new long[] {1}, 1, Datatype.LONG, 1, 0);
            w.unlock(1);
            d.expect("lock, put, unlock", PACKETS_SENT, 1, REPLIES_RECEIVED, 1, PACKETS_COALESCED, 2,
                    Counter.BATCHES_SENT, 1);
            d.mark();
            w.lock(LockType.SHARED, 1, 0);
            w.accumulate(new long[] {1}, 1, Datatype.LONG, 1, 0, Op.SUM);
            w.unlock(1);
            d.expect("lock, accumulate, unlock", PACKETS_SENT, 1, REPLIES_RECEIVED, 1, PACKETS_COALESCED, 2);
        });
    }

    @Test
    @Timeout(60)
    void flushWithNothingQueuedSendsNothing() {
        originOnly("packet", null, (w, d) -> {
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.put(new long[] {1}, 1, Datatype.LONG, 1, 0);
            w.flush(1);
            d.mark();
            w.flush(1);
            d.expect("second flush", PACKETS_SENT, 0, REPLIES_RECEIVED, 0, ACKS_ELIDED, 1);
            w.unlock(1);
        });
    }

    /** Same, in an epoch that follows one ended by a fire-and-forget unlock: still nothing to send. */
    @Test
    @Timeout(60)
    void flushWithNothingQueuedAfterPreviousEpochSendsNothing() {
        originOnly("packet", null, (w, d) -> {
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.put(new long[] {1}, 1, Datatype.LONG, 1, 0);
            w.flush(1);
            w.unlock(1); // everything acked: the unlock is a release without an ack
            d.mark();
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.flush(1);
            d.expect("flush right after lock", PACKETS_SENT, 0, REPLIES_RECEIVED, 0, ACKS_ELIDED, 1);
            w.unlock(1);
        });
    }

    @Test
    @Timeout(60)
    void getAtTheTailCarriesTheAck() {
        originOnly("packet", null, (w, d) -> {
            long[] g = new long[1];
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.put(new long[] {5}, 1, Datatype.LONG, 1, 0);
            w.get(g, 1, Datatype.LONG, 1, 1);
            w.unlock(1);
            d.expect("put, get, unlock", PACKETS_SENT, 2, REPLIES_RECEIVED, 1, ACKS_PIGGYBACKED, 1);
            d.mark();
            // the GET issued first is moved to the tail
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.get(g, 1, Datatype.LONG, 1, 0);
            w.put(new long[] {6}, 1, Datatype.LONG, 1, 1);
            w.unlock(1);
            assertEquals(5L, g[0], "GET moved to the tail still reads what was there");
            d.expect("get, put, unlock", PACKETS_SENT, 2, REPLIES_RECEIVED, 1, ACKS_PIGGYBACKED, 1);
        });
    }

    /** jrma_acks=always: the three elided or piggy-backed cases above each get an ack of their own. */
    @Test
    @Timeout(60)
    void acksAlwaysGivesEveryFlushAndUnlockAnAckOfItsOwn() {
        originOnly("packet", Info.of("jrma_acks", "always"), (w, d) -> {
            assertEquals("always", w.info().get("jrma_acks"));
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.put(new long[] {1}, 1, Datatype.LONG, 1, 0);
            w.flush(1);
            d.mark();
            w.flush(1);
            d.expect("empty flush", PACKETS_SENT, 1, REPLIES_RECEIVED, 1, ACKS_ELIDED, 0);
            d.mark();
            w.unlock(1);
            d.expect("unlock after a flush", PACKETS_SENT, 1, REPLIES_RECEIVED, 1, ACKS_ELIDED, 0);
            d.mark();
            long[] g = new long[1];
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.get(g, 1, Datatype.LONG, 1, 0);
            w.put(new long[] {6}, 1, Datatype.LONG, 1, 1);
            w.unlock(1);
            assertEquals(1L, g[0], "the GET still reads what the first epoch put");
            d.expect("get, put, unlock: the GET stays first", PACKETS_SENT, 2, REPLIES_RECEIVED, 2,
                    ACKS_PIGGYBACKED, 0);
            d.mark();
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.put(new long[] {7}, 1, Datatype.LONG, 1, 1);
            w.get(g, 1, Datatype.LONG, 1, 1);
            w.unlock(1);
            assertEquals(7L, g[0], "the GET after the put reads it");
            d.expect("put, get, unlock: a sync packet after the GET asks for the ack", PACKETS_SENT, 3,
                    REPLIES_RECEIVED, 2, ACKS_PIGGYBACKED, 0);
        });
    }

    @Test
    @Timeout(60)
    void emptyLockEpochSendsNothing() {
        originOnly("packet", null, (w, d) -> {
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.unlock(1);
            d.expect("lock, unlock", PACKETS_SENT, 0, REPLIES_RECEIVED, 0, Counter.BATCHES_SENT, 0);
            d.mark();
            w.lock(LockType.SHARED, 1, 0);
            w.unlock(1);
            d.expect("shared lock, unlock", PACKETS_SENT, 0, REPLIES_RECEIVED, 0);
        });
    }

    @Test
    @Timeout(60)
    void flushLocalAfterPutsSendsNothing() {
        originOnly("packet", null, (w, d) -> {
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.put(new long[] {1}, 1, Datatype.LONG, 1, 0);
            w.put(new long[] {2}, 1, Datatype.LONG, 1, 1);
            d.mark();
            w.flushLocal(1);
            d.expect("flush_local after puts", PACKETS_SENT, 0, REPLIES_RECEIVED, 0, ACKS_ELIDED, 1);
            w.flushLocalAll();
            d.expect("flush_local_all after puts", PACKETS_SENT, 0, REPLIES_RECEIVED, 0, ACKS_ELIDED, 2);
            d.mark();
            w.unlock(1);
            d.expect("unlock after two puts", PACKETS_SENT, 2, REPLIES_RECEIVED, 1);
        });
    }

    @Test
    @Timeout(60)
    void eagerIssueSendsAtIssueTime() {
        originOnly("packet", Info.of("jrma_issue", "eager"), (w, d) -> {
            assertEquals("eager", w.info().get("jrma_issue"));
            w.lock(LockType.EXCLUSIVE, 1, 0);
            d.mark();
            w.put(new long[] {1}, 1, Datatype.LONG, 1, 0);
            d.expect("eager put, before any sync", PACKETS_SENT, 1);
            w.put(new long[] {2}, 1, Datatype.LONG, 1, 1);
            d.expect("second eager put", PACKETS_SENT, 2);
            w.unlock(1);
        });
    }

    @Test
    @Timeout(60)
    void flushLocalIssueSendsTheQueueAtFlushLocalAsOneBatchWithoutAnAck() {
        originOnly("packet", Info.of("jrma_issue", "flush_local"), (w, d) -> {
            assertEquals("flush_local", w.info().get("jrma_issue"));
            w.lock(LockType.EXCLUSIVE, 1, 0);
            d.mark();
            w.put(new long[] {1}, 1, Datatype.LONG, 1, 0);
            w.accumulate(new long[] {2}, 1, Datatype.LONG, 1, 1, Op.REPLACE);
            d.expect("queued until flush_local", PACKETS_SENT, 0);
            w.flushLocal(1);
            d.expect("flush_local sends both in one batch, asks no ack", PACKETS_SENT, 2, Counter.BATCHES_SENT, 1,
                    REPLIES_RECEIVED, 0, ACKS_ELIDED, 1);
            w.flushLocal(1);
            d.expect("nothing left to send", PACKETS_SENT, 2, Counter.BATCHES_SENT, 1, ACKS_ELIDED, 2);
            d.mark();
            w.unlock(1); // the sent packets were never acked: the unlock asks for one
            d.expect("unlock after a flush_local", REPLIES_RECEIVED, 1);
        });
    }

    @Test
    @Timeout(60)
    void lazyIssueWaitsForSync() {
        originOnly("packet", null, (w, d) -> {
            w.lock(LockType.EXCLUSIVE, 1, 0);
            d.mark();
            w.put(new long[] {1}, 1, Datatype.LONG, 1, 0);
            w.put(new long[] {2}, 1, Datatype.LONG, 1, 1);
            d.expect("lazy puts", PACKETS_SENT, 0);
            w.unlock(1);
            d.expect("after unlock", PACKETS_SENT, 2, REPLIES_RECEIVED, 1);
        });
    }

    @Test
    @Timeout(60)
    void directPathCountsDirectOps() {
        originOnly("auto", null, (w, d) -> {
            assertEquals("direct", w.info().get("jrma_path"));
            long[] g = new long[1];
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.put(new long[] {3}, 1, Datatype.LONG, 1, 0);
            w.get(g, 1, Datatype.LONG, 1, 0);
            w.accumulate(new long[] {4}, 1, Datatype.LONG, 1, 0, Op.SUM);
            w.unlock(1);
            assertEquals(3L, g[0]);
            d.expect("direct put, get, accumulate", DIRECT_OPS, 3, PACKETS_SENT, 0, REPLIES_RECEIVED, 0,
                    Counter.PUTS, 1, Counter.GETS, 1, Counter.ACCUMULATES, 1);
        });
    }
}

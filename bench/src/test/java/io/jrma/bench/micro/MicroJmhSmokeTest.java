package io.jrma.bench.micro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.LockType;
import io.jrma.WinCounters;
import io.jrma.core.op.ElementLocksBench;
import io.jrma.sync.LockWordBench;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Not benchmarks: every JMH hot-path benchmark method runs once after its real setup, so the build checks they work.
 */
class MicroJmhSmokeTest {
    private static Blackhole blackhole() {
        return new Blackhole("Today's password is swordfish. I understand instantiating Blackholes directly is "
                + "dangerous.");
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(30)
    void epochAndIssue(String path) throws Exception {
        EpochBench e = new EpochBench();
        e.path = path;
        e.setup();
        try {
            e.lockPutUnlockShared();
            e.lockPutUnlockExclusive();
            e.lockUnlockEmpty();
            long[] v = new long[1];
            e.win().lock(LockType.SHARED, 1, 0);
            e.win().get(v, 1, Datatype.LONG, 1, 0);
            e.win().unlock(1);
            assertEquals(42L, v[0]);
        } finally {
            e.teardown();
        }
        IssueBench b = new IssueBench();
        b.path = path;
        b.setup();
        try {
            long before = b.win().counters().get(WinCounters.Counter.PACKETS_SENT);
            b.put8Queued();
            if (path.equals("packet")) {
                assertEquals(before, b.win().counters().get(WinCounters.Counter.PACKETS_SENT),
                        "issued puts stay queued until the flush");
            }
            b.complete();
            long[] v = new long[IssueBench.BATCH];
            b.win().get(v, v.length, Datatype.LONG, 1, 0);
            b.win().flush(1);
            assertEquals(42L, v[IssueBench.BATCH - 1]);
            System.out.println(path + " IssueBench counters: " + b.win().counters());
        } finally {
            b.teardown();
        }
    }

    @Test
    @Timeout(30)
    void codecAccumulateLocks() {
        CodecBench c = new CodecBench();
        c.setup();
        c.encodePut8();
        assertEquals(CodecBench.PACKETS, c.encodeBatch64());
        c.decodeHeaders(blackhole());
        c.encodeVectorLayout();
        assertEquals(16 * 16, c.decodeVectorLayout().size());
        for (int bytes : new int[] {8, 4096}) {
            AccumulateBench a = new AccumulateBench();
            a.bytes = bytes;
            a.setup();
            a.sumLongs();
            a.sumDoubles();
            assertEquals(1L, a.sumLongsPlain()[0]);
            a.maxlocDoubleInt();
            a.fetchAndAddLong();
            a.teardown();
        }
        LockWordBench l = new LockWordBench();
        l.setup();
        assertTrue(l.bareShared() && l.bareExclusive() && l.targetShared() && l.targetExclusive());
        l.teardown();
        ElementLocksBench el = new ElementLocksBench();
        el.setup();
        assertTrue(el.jvmTable() != 0 && el.segmentTable() != 0 && el.hashWalk() != 0);
        el.teardown();
    }
}

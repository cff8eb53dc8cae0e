package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.RmaException;
import io.jrma.Win;
import java.time.Duration;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SmokeTest {
    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(60)
    void basics(String path) {
        Jrma.job(4).param("jrma.path", path).timeout(Duration.ofSeconds(50)).run(world -> {
            int me = world.rank();
            int n = world.size();
            Win w = Win.allocate(world, 8L * n, 8, null);
            w.fence(0);
            long[] v = {me + 100};
            w.put(v, 1, Datatype.LONG, (me + 1) % n, me);
            w.fence(0);
            long[] got = new long[n];
            w.get(got, n, Datatype.LONG, me, 0);
            w.fence(0);
            int left = (me + n - 1) % n;
            assertEquals(left + 100, got[left], "fence put/get " + w.counters());
            w.lockAll(0);
            long t = w.fetchAndAddLong(0, 0, 1);
            w.unlockAll();
            world.barrier();
            w.lock(LockType.SHARED, 0, 0);
            long[] c = new long[1];
            w.get(c, 1, Datatype.LONG, 0, 0);
            w.unlock(0);
            assertEquals(n, c[0], "tickets: final counter");
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.accumulate(new long[] {5}, 1, Datatype.LONG, 1, 2, Op.SUM);
            w.unlock(1);
            world.barrier();
            w.fence(0);
            long[] c2 = new long[1];
            w.get(c2, 1, Datatype.LONG, 1, 2);
            w.fence(0);
            assertEquals(5L * n, c2[0], "acc " + w.counters());
            System.out.println("rank " + me + " path " + path + " ticket " + t + " " + w.counters());
            w.free();
        });
    }

    @Test
    @Timeout(30)
    void parameterInForce() {
        Jrma.job(1).param("jrma.path", "packet").timeout(Duration.ofSeconds(20)).run(world -> {
            assertEquals("packet", Jrma.parameter(world, "jrma.path"), "set for the job");
            assertEquals("both", Jrma.parameter(world, "jrma.progress"), "the default");
            RmaException e = Assertions.assertThrows(RmaException.class,
                    () -> Jrma.parameter(world, "jrma.no.such"));
            assertEquals(ErrorClass.ERR_ARG, e.errorClass());
        });
    }
}

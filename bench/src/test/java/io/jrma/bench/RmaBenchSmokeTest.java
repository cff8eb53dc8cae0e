package io.jrma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Datatype;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Not a benchmark: runs every benchmark method once after the real setup, so {@code mvn verify} checks they work. */
class RmaBenchSmokeTest {
    @ParameterizedTest
    @ValueSource(strings = {"auto", "packet"})
    @Timeout(30)
    void everyBenchmarkMethodRunsOnce(String path) throws Exception {
        RmaBench b = new RmaBench();
        b.path = path;
        b.setup();
        try {
            b.putFlush();
            b.getFlush();
            b.accumulateFlush();
            b.accumulateFlush();
            assertEquals(0L, b.fetchAndOpFlush(), "fetch_and_op returns the old value");
            assertEquals(0L, b.compareAndSwapFlush(), "compare_and_swap returns the old value");
            b.put1MiBx64Flush();
            long[] v = new long[5];
            b.win().get(v, 5, Datatype.LONG, RmaBench.TARGET, RmaBench.SMALL);
            b.win().flush(RmaBench.TARGET);
            assertEquals(42L, v[0], "putFlush wrote 42");
            assertEquals(2L, v[2], "two accumulateFlush(1)");
            assertEquals(1L, v[3], "one fetchAndOpFlush(1)");
            assertEquals(42L, v[4], "compareAndSwapFlush swapped 0 for 42");
        } finally {
            b.teardown();
        }
    }
}

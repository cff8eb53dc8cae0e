package io.jrma.ga;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.ga.examples.Histogram;
import io.jrma.ga.examples.Jacobi2D;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ExamplesTest {
    @ParameterizedTest(name = "{0} {1} ranks")
    @CsvSource({"auto,4", "packet,4", "auto,1", "packet,7"})
    @Timeout(60)
    void histogramMatchesSequential(String path, int nranks) {
        long[] ref = Jrma1.histogramSequential(20_000, 16, 37, 7);
        TestSupport.JOBS.run(path, nranks, world -> {
            long[] h = Histogram.histogram(world, 20_000, 16, 37, 7);
            assertArrayEquals(ref, h);
            long total = 0;
            for (long x : h) {
                total += x;
            }
            assertEquals(20_000, total);
        });
    }

    /** Sequential reference of Histogram.histogram. */
    static final class Jrma1 {
        static long[] histogramSequential(int values, int bins, int chunks, long seed) {
            long[] h = new long[bins];
            for (long c = 0; c < chunks; c++) {
                Random rnd = new Random(seed + c);
                for (long i = c * values / chunks; i < (c + 1) * values / chunks; i++) {
                    int b = (int) Math.floor((rnd.nextGaussian() / 6 + 0.5) * bins);
                    h[Math.max(0, Math.min(bins - 1, b))]++;
                }
            }
            return h;
        }
    }

    @Test
    @Timeout(60)
    void mainsRun() throws Exception {
        Jacobi2D.main(new String[] {"32", "32", "5", "4"});
        Histogram.main(new String[] {"10000", "8", "10", "3"});
    }
}

package io.jrma.msg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.Op;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A failed rank ends waits fast; messaging works whoever drives the progress agent. */
class FailureAndProgressTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void aFailedRankEndsAWaitingReceiveFast(String path) {
        long t0 = System.nanoTime();
        Jrma.JobFailedException e = assertThrows(Jrma.JobFailedException.class, () ->
                Jrma.job(3).param("jrma.path", path).timeout(Duration.ofSeconds(30)).run(world -> {
                    Messenger m = Messenger.create(world);
                    if (world.rank() == 1) {
                        throw new IllegalStateException("rank 1 gives up");
                    }
                    m.recv(new long[1], 0, 1, Datatype.LONG, 1, 0); // never sent
                    m.free();
                }));
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertEquals(1, e.failedRank(), e.getMessage());
        assertTrue(seconds < 10, "the waiting ranks failed after " + seconds + " s instead of at once");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void everyProtocolWithCallerDrivenProgress(String path) {
        Jrma.job(2).param("jrma.path", path).param("jrma.progress", "caller").timeout(Jobs.JOB_TIMEOUT).run(world -> {
            Messenger m = Messenger.create(world);
            int other = 1 - world.rank();
            for (int n : new int[] {1, 100, 50_000}) {
                long[] out = new long[n];
                Arrays.fill(out, n + world.rank());
                long[] in = new long[n];
                MsgRequest r = m.irecv(in, 0, n, Datatype.LONG, other, n);
                m.send(out, 0, n, Datatype.LONG, other, n);
                r.waitFor();
                assertEquals(n + other, in[n - 1], n + " longs");
            }
            long[] sum = new long[1];
            m.collectives().allreduce(new long[] {world.rank() + 1}, 0, sum, 0, 1, Datatype.LONG, Op.SUM);
            assertEquals(3, sum[0]);
            m.free();
        });
    }
}

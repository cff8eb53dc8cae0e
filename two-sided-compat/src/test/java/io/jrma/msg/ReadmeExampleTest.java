package io.jrma.msg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Datatype;
import io.jrma.Op;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The example of docs/two-sided.md ("Two-sided messaging"), with its results checked. */
class ReadmeExampleTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void readmeExample(String path) {
        Jobs.run(path, 4, world -> {
            Messenger msg = Messenger.create(world);
            int me = world.rank(), n = world.size();
            long[] out = {me, me * me}, in = new long[2];
            Status s = msg.sendrecv(out, 0, 2, Datatype.LONG, (me + 1) % n, 7,
                                    in, 0, 2, Datatype.LONG, Messenger.ANY_SOURCE, 7);
            MsgRequest r = msg.irecv(in, 1, 1, Datatype.LONG, (me + n - 1) % n, 8);
            msg.isend(out, 0, 1, Datatype.LONG, (me + 1) % n, 8).waitFor();
            r.waitFor();
            double[] sum = new double[1];
            msg.collectives().allreduce(new double[] {me}, 0, sum, 0, 1, Datatype.DOUBLE, Op.SUM);
            int left = (me + n - 1) % n;
            assertEquals(left, s.source());
            assertEquals(left, in[0]);
            assertEquals(left, in[1]);
            assertEquals(6.0, sum[0]);
            msg.free();
        });
    }
}

package io.jrma.msg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.Op;
import io.jrma.msg.Model.Kind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bcasts, allreduces, reduces and reduce_scatters beyond the inboxes' 4 KiB slots on shared memory ({@link
 * LargeReductions}: one barrier where P times the vector fits the combine budget and for reduce_scatter, reduce-scatter
 * and copy-out around two barriers above it), against the sequential model: sizes that grow (the slots' window made
 * again) and shrink, odd counts that do not split evenly into P blocks or cache lines, in place, a strided receive type
 * (not a plain copy), direct ByteBuffers, doubles summed to the same bits on every rank, and back-to-back calls with
 * uneven arrivals that reuse both slots; threads of one JVM (1..8 ranks) and ranks spread over 2 and 4 JVMs of this
 * host, and the same with the large slots off ({@code jrma.coll.sharedLargeMax=0}: recursive doubling and the ring by
 * messages).
 */
class LargeSharedCollectivesTest {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(90);
    /** Element counts (of 8-byte longs and doubles, 4-byte ints): around 4 KiB, the combine budget, and far above. */
    private static final int[] COUNTS = {513, 1025, 2049, 8191, 40_001, 3000, 131_073, 700};

    static Stream<Arguments> layouts() {
        Stream.Builder<Arguments> b = Stream.builder();
        for (int n : new int[] {1, 2, 3, 4, 5, 8}) {
            b.add(Arguments.of(1, n, true));
        }
        b.add(Arguments.of(1, 4, false));
        b.add(Arguments.of(2, 3, true));
        b.add(Arguments.of(4, 4, true));
        b.add(Arguments.of(4, 4, false));
        return b.build();
    }

    @ParameterizedTest(name = "jvms={0} n={1} large slots={2}")
    @MethodSource("layouts")
    @Timeout(240)
    void largeCollectivesMatchTheModel(int jvms, int n, boolean large) {
        Jrma.job(n).param("jrma.jvms", String.valueOf(jvms))
                .param("jrma.coll.sharedLargeMax", large ? "16777216" : "0")
                .timeout(JOB_TIMEOUT).run(world -> {
                    Messenger m = Messenger.create(world);
                    if (n > 1) {
                        assertTrue(m.flagBarrier(), "every inbox mapped on " + jvms + " JVM(s) of this host");
                    }
                    Collectives c = m.collectives();
                    int me = world.rank();
                    int salt = 0;
                    Object[][] cases = {{Kind.LONG, Op.SUM}, {Kind.DOUBLE, Op.MAX}, {Kind.INT, Op.BXOR},
                        {Kind.FLOAT, Op.SUM}};
                    for (int count : COUNTS) {
                        for (Object[] cs : cases) {
                            Kind k = (Kind) cs[0];
                            Op op = (Op) cs[1];
                            int s = ++salt;
                            Object send = input(k, op, me, count, s);
                            Object out = k.newArray(count + 2);
                            c.allreduce(send, 1, out, 1, count, k.type, op);
                            check(k, op, out, 1, count, n, s, "allreduce");
                            assertEquals(0, k.get(out, 0), "before the data");
                            assertEquals(0, k.get(out, count + 1), "after the data");
                            c.allreduce(send, 1, send, 1, count, k.type, op);
                            check(k, op, send, 1, count, n, s, "allreduce in place");
                            // reduce to a rank other than 0: out of place, then in place at the root
                            int root = (s + 1) % n;
                            send = input(k, op, me, count, s);
                            out = k.newArray(count + 2);
                            c.reduce(send, 1, me == root ? out : null, 1, count, k.type, op, root);
                            if (me == root) {
                                check(k, op, out, 1, count, n, s, "reduce to " + root);
                            }
                            c.reduce(send, 1, send, 1, count, k.type, op, root);
                            if (me == root) {
                                check(k, op, send, 1, count, n, s, "reduce in place to " + root);
                            }
                            reduceScatter(c, k, op, me, n, count, s);
                        }
                        bcast(c, me, n, count, ++salt);
                        strided(c, me, n, count, ++salt);
                        sameBits(c, me, n, count);
                        direct(c, me, n, count);
                    }
                    backToBack(c, me, n);
                    c.barrier();
                    m.free();
                });
    }

    /**
     * Reduce_scatter_block of {@code count} elements a rank, in place, and reduce_scatter with uneven blocks (rank 0
     * gets {@code count - 1} elements, rank r {@code count + r}).
     */
    private static void reduceScatter(Collectives c, Kind k, Op op, int me, int n, int count, int s) {
        Object vec = input(k, op, me, n * count, s);
        c.reduceScatterBlock(vec, 1, vec, 1, count, k.type, op);
        for (int i = 0; i < count; i++) {
            long want = Model.reduce(op, k, 0, n, me * count + i, s);
            if (want != k.get(vec, 1 + i)) {
                assertEquals(want, k.get(vec, 1 + i), "reduce_scatter_block " + k + " " + op + " i=" + i);
            }
        }
        long[] counts = new long[n];
        long total = 0;
        for (int r = 0; r < n; r++) {
            counts[r] = count + (r == 0 ? -1 : r);
            total += counts[r];
        }
        vec = input(k, op, me, (int) total, s);
        Object out = k.newArray((int) counts[me] + 1);
        c.reduceScatter(vec, 1, out, 1, counts, k.type, op);
        long first = 0;
        for (int r = 0; r < me; r++) {
            first += counts[r];
        }
        for (int i = 0; i < counts[me]; i++) {
            long want = Model.reduce(op, k, 0, n, (int) first + i, s);
            if (want != k.get(out, 1 + i)) {
                assertEquals(want, k.get(out, 1 + i), "reduce_scatter " + k + " " + op + " i=" + i);
            }
        }
    }

    /** Bcast of longs at an offset from a root other than 0, then of a strided type (not a plain copy). */
    private static void bcast(Collectives c, int me, int n, int count, int s) {
        int root = (s + 1) % n;
        long[] b = new long[count + 2];
        if (me == root) {
            for (int i = 0; i < count; i++) {
                b[1 + i] = Model.mix(s * 1_000_003L + i);
            }
        }
        c.bcast(b, 1, count, Datatype.LONG, root);
        for (int i = 0; i < count; i++) {
            if (b[1 + i] != Model.mix(s * 1_000_003L + i)) {
                assertEquals(Model.mix(s * 1_000_003L + i), b[1 + i], "bcast from " + root + " element " + i);
            }
        }
        assertEquals(0, b[0], "before the bcast data");
        assertEquals(0, b[count + 1], "after the bcast data");
        Datatype every2 = Datatype.vector(count, 1, 2, Datatype.LONG).commit();
        long[] v = new long[2 * count];
        if (me == root) {
            for (int i = 0; i < count; i++) {
                v[2 * i] = Model.mix(s + i);
                v[2 * i + 1] = -1;
            }
        }
        c.bcast(v, 0, 1, every2, root);
        for (int i = 0; i < count; i++) {
            if (v[2 * i] != Model.mix(s + i) || v[2 * i + 1] != (me == root ? -1 : 0)) {
                assertEquals(Model.mix(s + i), v[2 * i], "strided bcast element " + i);
                assertEquals(me == root ? -1 : 0, v[2 * i + 1], "strided bcast gap " + i);
            }
        }
    }

    /** Longs received into every other long of the receive buffer (a vector type: not a plain copy). */
    private static void strided(Collectives c, int me, int n, int count, int s) {
        Datatype every2 = Datatype.vector(count, 1, 2, Datatype.LONG).commit();
        long[] in = new long[2 * count];
        for (int i = 0; i < count; i++) {
            in[2 * i] = Kind.LONG.input(Op.SUM, me, i, s);
            in[2 * i + 1] = -1;
        }
        long[] out = new long[2 * count];
        c.allreduce(in, 0, out, 0, 1, every2, Op.SUM);
        for (int i = 0; i < count; i++) {
            long want = Model.reduce(Op.SUM, Kind.LONG, 0, n, i, s);
            if (want != out[2 * i]) {
                assertEquals(want, out[2 * i], "strided allreduce element " + i);
            }
            if (out[2 * i + 1] != 0) {
                assertEquals(0, out[2 * i + 1], "strided allreduce gap " + i);
            }
        }
    }

    /** Doubles summed: every rank gets the same bits (each block is combined once, in rank order). */
    private static void sameBits(Collectives c, int me, int n, int count) {
        double[] in = new double[count];
        for (int i = 0; i < count; i++) {
            in[i] = 1.0 / (3 + me + i % 97);
        }
        double[] out = new double[count];
        c.allreduce(in, 0, out, 0, count, Datatype.DOUBLE, Op.SUM);
        long hash = 0;
        for (int i = 0; i < count; i++) {
            hash = hash * 31 + Double.doubleToRawLongBits(out[i]);
        }
        long[] all = new long[n];
        c.allgather(new long[] {hash}, 0, 1, Datatype.LONG, all, 0, 1, Datatype.LONG);
        for (int r = 1; r < n; r++) {
            assertEquals(all[0], all[r], "rank " + r + " summed the doubles to other bits than rank 0");
        }
    }

    /** Direct ByteBuffers at an offset, floats. */
    private static void direct(Collectives c, int me, int n, int count) {
        ByteBuffer in = ByteBuffer.allocateDirect(4 * (count + 1)).order(ByteOrder.nativeOrder());
        ByteBuffer out = ByteBuffer.allocateDirect(4 * (count + 1)).order(ByteOrder.nativeOrder());
        for (int i = 0; i < count; i++) {
            in.putFloat(4 * (i + 1), me + i % 1000);
        }
        c.allreduce(in, 1, out, 1, count, Datatype.FLOAT, Op.SUM);
        for (int i = 0; i < count; i++) {
            float want = n * (i % 1000) + n * (n - 1) / 2f;
            if (want != out.getFloat(4 * (i + 1))) {
                assertEquals(want, out.getFloat(4 * (i + 1)), "direct buffer element " + i);
            }
        }
        assertEquals(0f, out.getFloat(0), "before the data");
    }

    /**
     * Allreduces back to back, each rank dawdling a pseudo-random while now and then, so that fast ranks publish the
     * next vector while slow ones still read the last: both slots in turn, results checked every time.
     */
    private static void backToBack(Collectives c, int me, int n) {
        int count = 20_000;
        long[] in = new long[count];
        long[] out = new long[count];
        for (int round = 0; round < 60; round++) {
            for (int i = 0; i < count; i++) {
                in[i] = round * 7L + me * 1_000_003L + i;
            }
            if ((Model.mix(round * 31L + me) & 3) == 0) {
                long until = System.nanoTime() + (Model.mix(round + me * 17L) & 0xffff) * 4;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
            }
            c.allreduce(in, 0, out, 0, count, Datatype.LONG, Op.SUM);
            for (int i = 0; i < count; i++) {
                long want = n * (round * 7L + i) + 1_000_003L * n * (n - 1) / 2;
                if (want != out[i]) {
                    assertEquals(want, out[i], "round " + round + " element " + i);
                }
            }
        }
    }

    private static Object input(Kind k, Op op, int rank, int count, int salt) {
        Object a = k.newArray(count + 2);
        for (int i = 0; i < count; i++) {
            k.set(a, 1 + i, k.input(op, rank, i, salt));
        }
        return a;
    }

    private static void check(Kind k, Op op, Object got, int offset, int count, int n, int salt, String what) {
        for (int i = 0; i < count; i++) {
            long want = Model.reduce(op, k, 0, n, i, salt);
            if (want != k.get(got, offset + i)) {
                assertEquals(want, k.get(got, offset + i), what + " " + k + " " + op + " count " + count + " i=" + i);
            }
        }
    }
}

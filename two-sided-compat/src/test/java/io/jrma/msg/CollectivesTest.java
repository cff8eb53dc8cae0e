package io.jrma.msg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.Op;
import io.jrma.RmaException;
import io.jrma.msg.Model.Kind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every collective against a sequential model, for 1..8 ranks, odd counts, several ops and types, both paths. */
class CollectivesTest {
    /** (kind, op) pairs: every reduction op on at least one kind it is defined for. */
    static final Object[][] CASES = {
        {Kind.LONG, Op.SUM}, {Kind.LONG, Op.PROD}, {Kind.LONG, Op.MIN}, {Kind.LONG, Op.MAX}, {Kind.LONG, Op.BAND},
        {Kind.LONG, Op.BOR}, {Kind.LONG, Op.BXOR}, {Kind.INT, Op.SUM}, {Kind.INT, Op.PROD}, {Kind.INT, Op.LAND},
        {Kind.INT, Op.LOR}, {Kind.INT, Op.LXOR}, {Kind.UINT32, Op.MIN}, {Kind.UINT32, Op.MAX}, {Kind.SHORT, Op.SUM},
        {Kind.BYTE, Op.BXOR}, {Kind.BYTE, Op.BAND}, {Kind.DOUBLE, Op.SUM}, {Kind.DOUBLE, Op.PROD},
        {Kind.DOUBLE, Op.MIN}, {Kind.FLOAT, Op.MAX}, {Kind.FLOAT, Op.SUM}, {Kind.BOOLEAN, Op.LAND},
        {Kind.BOOLEAN, Op.LOR}, {Kind.BOOLEAN, Op.LXOR},
    };
    static final int[] COUNTS = {1, 7, 101};

    private static Object inputs(Kind k, Op op, int rank, int offset, int count, int salt) {
        Object a = k.newArray(offset + count + 1);
        for (int i = 0; i < count; i++) {
            k.set(a, offset + i, k.input(op, rank, i, salt));
        }
        return a;
    }

    private static void check(Kind k, Op op, Object got, int offset, int count, int from, int to,
            int salt, String what) {
        for (int i = 0; i < count; i++) {
            long want = Model.reduce(op, k, from, to, i, salt);
            long have = k.get(got, offset + i);
            if (want != have) {
                assertEquals(want, have, what + " " + k + " " + op + " count " + count + " element " + i);
            }
        }
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.msg.Jobs#pathsAndOneToEight")
    @Timeout(120)
    void reductionsMatchTheModel(String path, int n) {
        Jobs.withMessenger(path, n, (world, m) -> {
            Collectives c = m.collectives();
            int me = world.rank();
            int salt = 0;
            for (Object[] cs : CASES) {
                Kind k = (Kind) cs[0];
                Op op = (Op) cs[1];
                for (int count : COUNTS) {
                    salt++;
                    Object send = inputs(k, op, me, 1, count, salt);
                    Object out = k.newArray(count + 3);
                    c.allreduce(send, 1, out, 2, count, k.type, op);
                    check(k, op, out, 2, count, 0, n, salt, "allreduce");
                    int root = salt % n;
                    out = k.newArray(count);
                    c.reduce(send, 1, out, 0, count, k.type, op, root);
                    if (me == root) {
                        check(k, op, out, 0, count, 0, n, salt, "reduce to " + root);
                    }
                    c.scan(send, 1, out, 0, count, k.type, op);
                    check(k, op, out, 0, count, 0, me + 1, salt, "scan");
                    c.exscan(send, 1, out, 0, count, k.type, op);
                    if (me > 0) {
                        check(k, op, out, 0, count, 0, me, salt, "exscan");
                    }
                }
            }
            // large data: ring allreduce (over 64 KiB), reduce-scatter + gather reduce (over 256 KiB)
            int big = 40_001;
            for (Object[] cs : new Object[][] {{Kind.LONG, Op.SUM}, {Kind.DOUBLE, Op.MAX}, {Kind.INT, Op.BXOR}}) {
                Kind k = (Kind) cs[0];
                Op op = (Op) cs[1];
                salt++;
                Object send = inputs(k, op, me, 0, big, salt);
                Object out = k.newArray(big);
                c.allreduce(send, 0, out, 0, big, k.type, op);
                check(k, op, out, 0, big, 0, n, salt, "large allreduce");
                out = k.newArray(big);
                c.reduce(send, 0, out, 0, big, k.type, op, n - 1);
                if (me == n - 1) {
                    check(k, op, out, 0, big, 0, n, salt, "large reduce");
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.msg.Jobs#pathsAndOneToEight")
    @Timeout(120)
    void reduceScatterPairsAndDerivedTypes(String path, int n) {
        Jobs.withMessenger(path, n, (world, m) -> {
            Collectives c = m.collectives();
            int me = world.rank();
            // reduce_scatter with uneven blocks, some empty
            long[] counts = new long[n];
            int total = 0;
            int[] start = new int[n];
            for (int r = 0; r < n; r++) {
                counts[r] = (r * 3 + 1) % 5;
                start[r] = total;
                total += (int) counts[r];
            }
            for (Object[] cs : new Object[][] {{Kind.LONG, Op.BXOR}, {Kind.INT, Op.SUM}, {Kind.DOUBLE, Op.MIN}}) {
                Kind k = (Kind) cs[0];
                Op op = (Op) cs[1];
                Object send = inputs(k, op, me, 0, total, 77);
                Object out = k.newArray((int) counts[me] + 1);
                c.reduceScatter(send, 0, out, 1, counts, k.type, op);
                for (int i = 0; i < counts[me]; i++) {
                    assertEquals(Model.reduce(op, k, 0, n, start[me] + i, 77), k.get(out, 1 + i),
                            "reduce_scatter " + k + " " + op);
                }
            }
            for (int block : new int[] {3, 5_001}) {
                Object send = inputs(Kind.LONG, Op.SUM, me, 0, block * n, 78);
                long[] out = new long[block];
                c.reduceScatterBlock(send, 0, out, 0, block, Datatype.LONG, Op.SUM);
                for (int i = 0; i < block; i++) {
                    assertEquals(Model.reduce(Op.SUM, Kind.LONG, 0, n, me * block + i, 78), out[i],
                            "reduce_scatter_block " + block);
                }
            }
            // MINLOC/MAXLOC on padded pairs: value in {0..3} (ties are likely), index = rank
            for (Op op : new Op[] {Op.MINLOC, Op.MAXLOC}) {
                int count = 9;
                ByteBuffer send = Jobs.direct(16 * count);
                ByteBuffer out = Jobs.direct(16 * count);
                for (int i = 0; i < count; i++) {
                    send.putDouble(16 * i, Math.floorMod(Model.mix(me * 31 + i), 4)).putInt(16 * i + 8, me);
                }
                c.allreduce(send, 0, out, 0, count, Datatype.DOUBLE_INT, op);
                int[] pairs = new int[2 * count];
                for (int i = 0; i < count; i++) {
                    double best = Double.NaN;
                    int at = -1;
                    for (int r = 0; r < n; r++) {
                        double v = Math.floorMod(Model.mix(r * 31 + i), 4);
                        if (at < 0 || (op == Op.MINLOC ? v < best : v > best)) {
                            best = v;
                            at = r;
                        }
                    }
                    assertEquals(best, out.getDouble(16 * i), op + " value " + i);
                    assertEquals(at, out.getInt(16 * i + 8), op + " index " + i + " (smallest rank on ties)");
                    pairs[2 * i] = me;
                    pairs[2 * i + 1] = me;
                }
                int[] res = new int[2 * count];
                c.reduce(pairs, 0, res, 0, count, Datatype.INT_INT, op, 0);
                if (me == 0) {
                    assertEquals(op == Op.MINLOC ? 0 : n - 1, res[0], "INT_INT " + op);
                }
            }
            // a derived type made of one predefined type: every other long of 2 * count
            Datatype everyOther = Datatype.vector(5, 1, 2, Datatype.LONG).commit();
            long[] send = new long[20];
            for (int i = 0; i < 20; i++) {
                send[i] = me * 100 + i;
            }
            long[] out = new long[20];
            c.allreduce(send, 0, out, 0, 2, everyOther, Op.SUM); // longs 0,2,4,6,8 and 9,11,13,15,17
            long ranks = (long) n * (n - 1) / 2;
            assertEquals(ranks * 100 + n * 11L, out[11]);
            assertEquals(0, out[1], "gaps of the type are not written");
            // ops MPI reserves for accumulate, and ops undefined on the type, are refused before communicating
            RmaException e = assertThrows(RmaException.class,
                    () -> c.allreduce(send, 0, out, 0, 1, Datatype.LONG, Op.REPLACE));
            assertEquals(ErrorClass.ERR_OP, e.errorClass());
            e = assertThrows(RmaException.class,
                    () -> c.reduce(new double[1], 0, new double[1], 0, 1, Datatype.DOUBLE, Op.BAND, 0));
            assertEquals(ErrorClass.ERR_OP, e.errorClass());
            Datatype mixed = Datatype.struct(new long[] {1, 1}, new long[] {0, 8},
                    new Datatype[] {Datatype.LONG, Datatype.INT}).commit();
            e = assertThrows(RmaException.class, () -> c.scan(new byte[12], 0, new byte[12], 0, 1, mixed, Op.SUM));
            assertEquals(ErrorClass.ERR_TYPE, e.errorClass());
            c.barrier();
        });
    }

    /**
     * Small allreduces back to back, on both sides of the size up to which ranks that map each other's inboxes
     * reduce through shared scratch slots (256 bytes): every result matches the sequential model, and doubles summed
     * on every rank come out with the same bits everywhere (each rank combines the contributions in rank order).
     */
    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.msg.Jobs#pathsAndSizes")
    @Timeout(120)
    void smallAllreducesBackToBackMatchTheModelWithTheSameBitsOnEveryRank(String path, int n) {
        Jobs.withMessenger(path, n, (world, m) -> {
            Collectives c = m.collectives();
            int me = world.rank();
            int[] counts = {1, 3, 32, 33, 7};
            long[] in = new long[33];
            long[] out = new long[33];
            double[] din = new double[33];
            double[] dout = new double[33];
            for (int round = 0; round < 200; round++) {
                int count = counts[round % counts.length];
                for (int i = 0; i < count; i++) {
                    in[i] = (long) round * 1000 + me * 31L + i;
                    din[i] = 1.0 / (3 + me + i + round);
                }
                Op op = round % 3 == 0 ? Op.MAX : Op.SUM;
                c.allreduce(in, 0, out, 0, count, Datatype.LONG, op);
                for (int i = 0; i < count; i++) {
                    long want = op == Op.MAX ? (long) round * 1000 + (n - 1) * 31L + i
                            : (long) n * (round * 1000L + i) + 31L * n * (n - 1) / 2;
                    assertEquals(want, out[i], "round " + round + " element " + i);
                }
                c.allreduce(din, 0, dout, 0, count, Datatype.DOUBLE, Op.SUM);
                long[] bits = new long[count];
                for (int i = 0; i < count; i++) {
                    bits[i] = Double.doubleToRawLongBits(dout[i]);
                }
                long[] all = new long[count * n];
                c.allgather(bits, 0, count, Datatype.LONG, all, 0, count, Datatype.LONG);
                if (path.equals("auto") || n <= 2) { // the message path's tree may add in another order per rank
                    for (int r = 1; r < n; r++) {
                        for (int i = 0; i < count; i++) {
                            assertEquals(all[i], all[r * count + i], "rank " + r + " summed doubles differently");
                        }
                    }
                }
            }
        });
    }

    /**
     * Many barriers in a row with uneven arrivals (each rank dawdles a pseudo-random few microseconds, sometimes long
     * enough for the others to go to sleep), with messages between them: every barrier must still hold every rank
     * until the last one arrives. Where every inbox is mapped, barriers run on shared flags whose epochs grow across
     * barriers, so an early flag for the next barrier must never release a rank from this one.
     */
    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.msg.Jobs#pathsAndSizes")
    @Timeout(120)
    void manyBarriersWithUnevenArrivalsHoldEveryRank(String path, int n) {
        Jobs.withMessenger(path, n, (world, m) -> {
            Collectives c = m.collectives();
            int me = world.rank();
            int rounds = 300;
            long[] times = new long[2 * rounds];
            long seed = 0x9E3779B97F4A7C15L * (me + 1);
            long[] out = new long[1];
            long[] in = new long[1];
            for (int round = 0; round < rounds; round++) {
                seed = seed * 6364136223846793005L + 1442695040888963407L;
                long dawdle = (seed >>> 33) % (round % 50 == 0 ? 2_000_000 : 20_000); // ns; now and then 2 ms
                long until = System.nanoTime() + dawdle;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                if (round % 7 == 0 && n > 1) { // a message around the ring between barriers
                    out[0] = round;
                    in[0] = -1;
                    m.sendrecv(out, 0, 1, Datatype.LONG, (me + 1) % n, round, in, 0, 1, Datatype.LONG,
                            (me - 1 + n) % n, round);
                    assertEquals(round, in[0]);
                }
                times[2 * round] = System.nanoTime();
                c.barrier();
                times[2 * round + 1] = System.nanoTime();
            }
            long[] stamps = new long[2 * rounds * n];
            c.allgather(times, 0, 2 * rounds, Datatype.LONG, stamps, 0, 2 * rounds, Datatype.LONG);
            for (int round = 0; round < rounds; round++) {
                long lastArrival = Long.MIN_VALUE;
                long firstDeparture = Long.MAX_VALUE;
                for (int r = 0; r < n; r++) {
                    lastArrival = Math.max(lastArrival, stamps[2 * rounds * r + 2 * round]);
                    firstDeparture = Math.min(firstDeparture, stamps[2 * rounds * r + 2 * round + 1]);
                }
                assertTrue(lastArrival <= firstDeparture, "someone left barrier " + (round + 1) + " of " + rounds
                        + " before everyone arrived");
            }
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.msg.Jobs#pathsAndOneToEight")
    @Timeout(120)
    void dataMovementMatchesTheModel(String path, int n) {
        Jobs.withMessenger(path, n, (world, m) -> {
            Collectives c = m.collectives();
            int me = world.rank();
            // System.nanoTime is the host's monotonic clock, the same in every JVM: a barrier is right when
            // every rank's arrival precedes every rank's departure
            long[] times = new long[10];
            for (int round = 0; round < 5; round++) {
                times[2 * round] = System.nanoTime();
                c.barrier();
                times[2 * round + 1] = System.nanoTime();
            }
            long[] stamps = new long[10 * n];
            c.allgather(times, 0, 10, Datatype.LONG, stamps, 0, 10, Datatype.LONG);
            for (int round = 0; round < 5; round++) {
                long lastArrival = Long.MIN_VALUE;
                long firstDeparture = Long.MAX_VALUE;
                for (int r = 0; r < n; r++) {
                    lastArrival = Math.max(lastArrival, stamps[10 * r + 2 * round]);
                    firstDeparture = Math.min(firstDeparture, stamps[10 * r + 2 * round + 1]);
                }
                assertTrue(lastArrival <= firstDeparture,
                        "someone left barrier " + (round + 1) + " before everyone arrived");
            }
            for (int count : new int[] {0, 5, 40_001}) { // 40001 longs: scatter + allgather on 3+ ranks
                for (int root : new int[] {0, n - 1}) {
                    long[] buf = new long[count + 2];
                    if (me == root) {
                        for (int i = 0; i < count; i++) {
                            buf[1 + i] = Model.mix(root * 7919L + i);
                        }
                    }
                    c.bcast(buf, 1, count, Datatype.LONG, root);
                    for (int i = 0; i < count; i++) {
                        if (buf[1 + i] != Model.mix(root * 7919L + i)) {
                            assertEquals(Model.mix(root * 7919L + i), buf[1 + i],
                                    "bcast of " + count + " from " + root + ": " + i);
                        }
                    }
                    assertEquals(0, buf[count + 1]);
                }
            }
            int root = n / 2;
            int k = 3;
            int[] mine = new int[k];
            for (int i = 0; i < k; i++) {
                mine[i] = me * 10 + i;
            }
            int[] all = new int[1 + n * k];
            c.gather(mine, 0, k, Datatype.INT, all, 1, k, Datatype.INT, root);
            if (me == root) {
                for (int r = 0; r < n; r++) {
                    assertEquals(r * 10 + 2, all[1 + r * k + 2], "gather block " + r);
                }
            }
            int[] allg = new int[n * k];
            c.allgather(mine, 0, k, Datatype.INT, allg, 0, k, Datatype.INT);
            for (int r = 0; r < n; r++) {
                assertEquals(r * 10 + 1, allg[r * k + 1], "allgather block " + r);
            }
            // v variants: rank r has r + 1 elements, placed in reverse rank order with a gap of one
            long[] vc = new long[n];
            long[] vd = new long[n];
            int at = 0;
            for (int r = n - 1; r >= 0; r--) {
                vc[r] = r + 1;
                vd[r] = at;
                at += r + 2;
            }
            long[] mineV = new long[me + 1];
            for (int i = 0; i <= me; i++) {
                mineV[i] = me * 1000 + i;
            }
            long[] gv = new long[at];
            c.gatherv(mineV, 0, me + 1, Datatype.LONG, gv, 0, vc, vd, Datatype.LONG, root);
            long[] agv = new long[at];
            c.allgatherv(mineV, 0, me + 1, Datatype.LONG, agv, 0, vc, vd, Datatype.LONG);
            for (int r = 0; r < n; r++) {
                for (int i = 0; i <= r; i++) {
                    if (me == root) {
                        assertEquals(r * 1000 + i, gv[(int) vd[r] + i], "gatherv " + r);
                    }
                    assertEquals(r * 1000 + i, agv[(int) vd[r] + i], "allgatherv " + r);
                }
                assertEquals(0, agv[(int) vd[r] + r + 1], "gap after block " + r);
            }
            long[] sv = new long[me + 1];
            c.scatterv(gv, 0, vc, vd, Datatype.LONG, sv, 0, me + 1, Datatype.LONG, root);
            assertEquals(me * 1000 + me, sv[me], "scatterv");
            int[] one = new int[k];
            c.scatter(all, 1, k, Datatype.INT, one, 0, k, Datatype.INT, root);
            assertEquals(me * 10 + 2, one[2], "scatter");
            // alltoall: block j of rank r is r * 100 + j; alltoallv: (r + j) % 3 elements from r to j
            double[] a2a = new double[n * k];
            for (int j = 0; j < n; j++) {
                for (int i = 0; i < k; i++) {
                    a2a[j * k + i] = me * 100 + j + i / 10.0;
                }
            }
            double[] got = new double[n * k];
            c.alltoall(a2a, 0, k, Datatype.DOUBLE, got, 0, k, Datatype.DOUBLE);
            for (int r = 0; r < n; r++) {
                assertEquals(r * 100 + me + 0.2, got[r * k + 2], 1e-12, "alltoall from " + r);
            }
            long[] sc = new long[n];
            long[] sd = new long[n];
            long[] rc = new long[n];
            long[] rd = new long[n];
            int sat = 0;
            int rat = 0;
            for (int j = 0; j < n; j++) {
                sc[j] = (me + j) % 3;
                sd[j] = sat;
                sat += (int) sc[j];
                rc[j] = (j + me) % 3;
                rd[j] = rat + 1;
                rat += (int) rc[j] + 1;
            }
            int[] sendV = new int[sat];
            for (int j = 0; j < n; j++) {
                for (int i = 0; i < sc[j]; i++) {
                    sendV[(int) sd[j] + i] = me * 1000 + j * 10 + i;
                }
            }
            int[] recvV = new int[rat + 1];
            c.alltoallv(sendV, 0, sc, sd, Datatype.INT, recvV, 0, rc, rd, Datatype.INT);
            for (int j = 0; j < n; j++) {
                for (int i = 0; i < rc[j]; i++) {
                    assertEquals(j * 1000 + me * 10 + i, recvV[(int) rd[j] + i], "alltoallv from " + j);
                }
                assertEquals(0, recvV[(int) rd[j] - 1], "gap before block " + j);
            }
            RmaException e = assertThrows(RmaException.class, () -> c.bcast(mine, 0, 1, Datatype.INT, n));
            assertEquals(ErrorClass.ERR_ROOT, e.errorClass());
        });
    }

    static Stream<Arguments> shortAndRing() {
        Stream.Builder<Arguments> b = Stream.builder();
        for (int n : new int[] {2, 3, 4, 5, 6, 8}) {
            for (String mode : new String[] {"short", "ring", "shared"}) {
                b.add(Arguments.of(n, mode));
            }
        }
        return b.build();
    }

    /**
     * The algorithms chosen by size on 3+ ranks (Bruck's allgather, reduce_scatter as an allreduce), forced on
     * ("short": thresholds of 1 GiB) and off ("ring": 0) through their run-time parameters with the shared-memory
     * path off, and the shared-memory path itself ("shared", its default on thread ranks), on 2 to 8 ranks
     * (non-powers of two 3, 5, 6 included), against the model: offsets, odd block sizes, a receive type that
     * is not contiguous, a send type other than the receive type, uneven and empty reduce_scatter blocks.
     */
    @ParameterizedTest(name = "n={0} {1}")
    @MethodSource("shortAndRing")
    @Timeout(120)
    void shortAlgorithmsMatchTheModel(int n, String mode) {
        String limit = mode.equals("ring") ? "0" : String.valueOf(1L << 30);
        Jrma.job(n).param("jrma.coll.allgatherShort", limit).param("jrma.coll.reduceScatterShort", limit)
                .param("jrma.coll.shared", String.valueOf(mode.equals("shared")))
                .timeout(Jobs.JOB_TIMEOUT).run(world -> {
                    Messenger m = Messenger.create(world);
                    Collectives c = m.collectives();
                    int me = world.rank();
                    for (int k : new int[] {1, 3, 50}) {
                        // allgather of k longs per rank, at offsets, twice: once more to see the scratch reused
                        for (int round = 0; round < 2; round++) {
                            long[] mine = new long[k + 2];
                            for (int i = 0; i < k; i++) {
                                mine[2 + i] = Model.mix(me * 1000L + i + round);
                            }
                            long[] all = new long[1 + n * k + 1];
                            c.allgather(mine, 2, k, Datatype.LONG, all, 1, k, Datatype.LONG);
                            for (int r = 0; r < n; r++) {
                                for (int i = 0; i < k; i++) {
                                    assertEquals(Model.mix(r * 1000L + i + round), all[1 + r * k + i],
                                            mode + " allgather k=" + k + " block " + r + " element " + i);
                                }
                            }
                            assertEquals(0, all[0], "before the blocks");
                            assertEquals(0, all[all.length - 1], "after the blocks");
                        }
                        // ints sent, received as a strided vector of ints (every other int of the buffer)
                        Datatype every2 = Datatype.vector(k, 1, 2, Datatype.INT).commit();
                        int[] ints = new int[k];
                        for (int i = 0; i < k; i++) {
                            ints[i] = me * 100 + i;
                        }
                        int[] spread = new int[2 * k * n];
                        c.allgather(ints, 0, k, Datatype.INT, spread, 0, 1,
                                Datatype.resized(every2, 0, 2L * k * Integer.BYTES).commit());
                        for (int r = 0; r < n; r++) {
                            for (int i = 0; i < k; i++) {
                                assertEquals(r * 100 + i, spread[2 * k * r + 2 * i], mode + " strided allgather " + r);
                                assertEquals(0, spread[2 * k * r + 2 * i + 1], mode + " gap " + r);
                            }
                        }
                        // bytes sent, received as ints
                        byte[] bytes = new byte[4 * k];
                        for (int i = 0; i < 4 * k; i++) {
                            bytes[i] = (byte) (me * 7 + i);
                        }
                        int[] asInts = new int[k * n];
                        c.allgather(bytes, 0, 4 * k, Datatype.BYTE, asInts, 0, k, Datatype.INT);
                        ByteBuffer view = ByteBuffer.allocate(4 * k * n).order(ByteOrder.nativeOrder());
                        view.asIntBuffer().put(asInts);
                        for (int r = 0; r < n; r++) {
                            for (int i = 0; i < 4 * k; i++) {
                                assertEquals((byte) (r * 7 + i), view.get(4 * k * r + i), mode + " bytes as ints " + r);
                            }
                        }
                    }
                    // reduce_scatter: uneven blocks, some empty, several ops and kinds, offsets
                    int salt = 500;
                    for (Object[] cs : new Object[][] {{Kind.LONG, Op.SUM}, {Kind.DOUBLE, Op.MIN}, {Kind.INT, Op.BXOR},
                        {Kind.FLOAT, Op.MAX}, {Kind.LONG, Op.PROD}}) {
                        Kind kd = (Kind) cs[0];
                        Op op = (Op) cs[1];
                        for (int scale : new int[] {1, 3}) {
                            salt++;
                            long[] counts = new long[n];
                            int total = 0;
                            int before = 0;
                            for (int r = 0; r < n; r++) {
                                counts[r] = ((r * 5 + scale) % 4) * scale;
                                before += r < me ? (int) counts[r] : 0;
                                total += (int) counts[r];
                            }
                            Object send = inputs(kd, op, me, 1, total, salt);
                            Object out = kd.newArray((int) counts[me] + 2);
                            c.reduceScatter(send, 1, out, 2, counts, kd.type, op);
                            for (int i = 0; i < counts[me]; i++) {
                                long want = Model.reduce(op, kd, 0, n, before + i, salt);
                                assertEquals(want, kd.get(out, 2 + i),
                                        mode + " reduce_scatter " + kd + " " + op + " element " + i);
                            }
                            long[] blockCounts = new long[n];
                            Arrays.fill(blockCounts, scale);
                            Object send2 = inputs(kd, op, me, 0, n * scale, salt);
                            Object out2 = kd.newArray(scale);
                            c.reduceScatterBlock(send2, 0, out2, 0, scale, kd.type, op);
                            for (int i = 0; i < scale; i++) {
                                assertEquals(Model.reduce(op, kd, 0, n, me * scale + i, salt), kd.get(out2, i),
                                        mode + " reduce_scatter_block " + kd + " " + op);
                            }
                        }
                    }
                    c.barrier();
                    m.free();
                });
    }
}

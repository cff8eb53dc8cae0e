package io.jrma.msg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.Op;
import io.jrma.msg.Model.Kind;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every collective against a sequential model around the sizes where the shared-memory path ({@link SharedColl},
 * the shared reductions of {@link Reductions}) hands over to messages: the 4 KiB slot, P blocks in one slot
 * (scatter, alltoall), the combine budget, v variants whose blocks partly fit and partly go by message; odd
 * counts, offsets, in-place reductions (send and receive the same memory), back-to-back calls that reuse both
 * slots; with the ranks as threads of one JVM (1..8 ranks) and spread over 2 and 4 JVMs of this host (where every
 * inbox is mapped by every JVM: the test checks that it is), each with {@code jrma.coll.shared} on and off.
 */
class SharedCollectivesTest {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(60);
    /** Element counts of longs: 1, odd ones below and above one slot (512 longs), above P-block slots. */
    private static final int[] COUNTS = {1, 3, 37, 511, 512, 513, 1500};

    static Stream<Arguments> layouts() {
        Stream.Builder<Arguments> b = Stream.builder();
        for (int n = 1; n <= 8; n++) {
            b.add(Arguments.of(1, n, true));
        }
        b.add(Arguments.of(1, 5, false));
        b.add(Arguments.of(2, 3, true));
        b.add(Arguments.of(2, 4, false));
        b.add(Arguments.of(4, 4, true));
        b.add(Arguments.of(4, 8, true));
        return b.build();
    }

    @ParameterizedTest(name = "jvms={0} n={1} shared={2}")
    @MethodSource("layouts")
    @Timeout(180)
    void everyCollectiveMatchesTheModelAroundTheSlotSizes(int jvms, int n, boolean shared) {
        Jrma.job(n).param("jrma.jvms", String.valueOf(jvms)).param("jrma.coll.shared", String.valueOf(shared))
                .timeout(JOB_TIMEOUT).run(world -> {
                    Messenger m = Messenger.create(world);
                    if (n > 1) {
                        assertTrue(m.flagBarrier(), "every inbox mapped on " + jvms + " JVM(s) of this host");
                    }
                    Collectives c = m.collectives();
                    int me = world.rank();
                    int salt = 0;
                    for (int count : COUNTS) {
                        salt++;
                        movement(c, me, n, count, salt);
                        reductions(c, me, n, count, salt);
                    }
                    c.barrier();
                    m.free();
                });
    }

    private static long v(int rank, int i, int salt) {
        return Model.mix(rank * 1_000_003L + i * 31L + salt);
    }

    private static void movement(Collectives c, int me, int n, int k, int salt) {
        int root = salt % n;
        // bcast at an offset, guard elements untouched
        long[] b = new long[k + 2];
        if (me == root) {
            for (int i = 0; i < k; i++) {
                b[1 + i] = v(root, i, salt);
            }
        }
        c.bcast(b, 1, k, Datatype.LONG, root);
        for (int i = 0; i < k; i++) {
            eq(v(root, i, salt), b[1 + i], "bcast k=" + k + " i=" + i);
        }
        eq(0, b[0], "bcast guard");
        eq(0, b[k + 1], "bcast guard");
        long[] mine = new long[k + 1];
        for (int i = 0; i < k; i++) {
            mine[1 + i] = v(me, i, salt);
        }
        // gather, allgather (blocks of k), scatter back from the root
        long[] all = new long[n * k + 1];
        c.gather(mine, 1, k, Datatype.LONG, all, 1, k, Datatype.LONG, root);
        if (me == root) {
            for (int r = 0; r < n; r++) {
                for (int i = 0; i < k; i++) {
                    eq(v(r, i, salt), all[1 + r * k + i], "gather k=" + k + " block " + r);
                }
            }
        }
        long[] ag = new long[n * k];
        c.allgather(mine, 1, k, Datatype.LONG, ag, 0, k, Datatype.LONG);
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < k; i++) {
                eq(v(r, i, salt), ag[r * k + i], "allgather k=" + k + " block " + r);
            }
        }
        long[] one = new long[k];
        c.scatter(ag, 0, k, Datatype.LONG, one, 0, k, Datatype.LONG, root);
        for (int i = 0; i < k; i++) {
            eq(v(me, i, salt), one[i], "scatter k=" + k);
        }
        // allgather in place: the own block already in the receive buffer
        long[] agIn = new long[n * k];
        System.arraycopy(mine, 1, agIn, me * k, k);
        c.allgather(agIn, (long) me * k, k, Datatype.LONG, agIn, 0, k, Datatype.LONG);
        for (int r = 0; r < n; r++) {
            eq(v(r, k - 1, salt), agIn[r * k + k - 1], "allgather in place k=" + k + " block " + r);
        }
        // allgatherv: rank r gives (k + r) % 5 + r elements, or k - 3 + r from k = 500 on (blocks on both sides of
        // a slot's 511 longs and directory), reverse order with gaps
        long[] vc = new long[n];
        long[] vd = new long[n];
        int at = 0;
        for (int r = n - 1; r >= 0; r--) {
            vc[r] = k >= 500 ? k - 3 + r : (k + r) % 5 + r;
            vd[r] = at;
            at += (int) vc[r] + 1;
        }
        long[] mv = new long[(int) vc[me]];
        for (int i = 0; i < mv.length; i++) {
            mv[i] = v(me, i, salt + 1);
        }
        long[] agv = new long[at];
        c.allgatherv(mv, 0, mv.length, Datatype.LONG, agv, 0, vc, vd, Datatype.LONG);
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < vc[r]; i++) {
                eq(v(r, i, salt + 1), agv[(int) vd[r] + i], "allgatherv k=" + k + " block " + r);
            }
            eq(0, agv[(int) (vd[r] + vc[r])], "allgatherv gap " + r);
        }
        // gatherv into the allgatherv layout, then scatterv back from it: blocks of (k + r) % 5 + r longs, some
        // fitting a slot and some not when k is near a slot's 512 longs
        long[] gv = new long[at];
        c.gatherv(mv, 0, mv.length, Datatype.LONG, gv, 0, vc, vd, Datatype.LONG, root);
        if (me == root) {
            for (int r = 0; r < n; r++) {
                for (int i = 0; i < vc[r]; i++) {
                    eq(v(r, i, salt + 1), gv[(int) vd[r] + i], "gatherv k=" + k + " block " + r);
                }
            }
        }
        long[] sv = new long[mv.length + 1];
        c.scatterv(agv, 0, vc, vd, Datatype.LONG, sv, 1, mv.length, Datatype.LONG, root);
        for (int i = 0; i < mv.length; i++) {
            eq(v(me, i, salt + 1), sv[1 + i], "scatterv k=" + k);
        }
        eq(0, sv[0], "scatterv guard");
        // alltoallv: (k / n + r + j) % 7 + k / n ints from r to j, received with a gap of one before each block
        long[] sc = new long[n];
        long[] sd = new long[n];
        long[] rc = new long[n];
        long[] rd = new long[n];
        int sat = 0;
        int rat = 0;
        for (int j = 0; j < n; j++) {
            sc[j] = (k / n + me + j) % 7 + k / n;
            sd[j] = sat;
            sat += (int) sc[j];
            rc[j] = (k / n + j + me) % 7 + k / n;
            rd[j] = rat + 1;
            rat += (int) rc[j] + 1;
        }
        int[] sendV = new int[sat];
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < sc[j]; i++) {
                sendV[(int) sd[j] + i] = me * 100_000 + j * 1000 + i % 1000;
            }
        }
        int[] recvV = new int[rat + 1];
        c.alltoallv(sendV, 0, sc, sd, Datatype.INT, recvV, 0, rc, rd, Datatype.INT);
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < rc[j]; i++) {
                eq(j * 100_000 + me * 1000 + i % 1000, recvV[(int) rd[j] + i], "alltoallv k=" + k + " from " + j);
            }
            eq(0, recvV[(int) rd[j] - 1], "alltoallv gap before " + j);
        }
        // alltoall of ints: block j of rank r is r * 1000 + j * 10 + i (k ints a block)
        int[] a2a = new int[n * k];
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < k; i++) {
                a2a[j * k + i] = me * 100_000 + j * 1000 + i;
            }
        }
        int[] got = new int[n * k + 1];
        c.alltoall(a2a, 0, k, Datatype.INT, got, 1, k, Datatype.INT);
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < k; i++) {
                eq(r * 100_000 + me * 1000 + i, got[1 + r * k + i], "alltoall k=" + k + " from " + r);
            }
        }
    }

    private static void reductions(Collectives c, int me, int n, int count, int salt) {
        Object[][] cases = {{Kind.LONG, Op.SUM}, {Kind.DOUBLE, Op.MAX}, {Kind.INT, Op.BXOR}, {Kind.FLOAT, Op.SUM}};
        for (Object[] cs : cases) {
            Kind k = (Kind) cs[0];
            Op op = (Op) cs[1];
            int s = salt * 31 + k.ordinal();
            // allreduce, out of place and in place
            Object send = input(k, op, me, count, s);
            Object out = k.newArray(count + 1);
            c.allreduce(send, 1, out, 1, count, k.type, op);
            check(k, op, out, 1, count, 0, n, s, "allreduce");
            c.allreduce(send, 1, send, 1, count, k.type, op);
            check(k, op, send, 1, count, 0, n, s, "allreduce in place");
            // reduce to a rank other than 0, in place at the root
            int root = (salt + 1) % n;
            send = input(k, op, me, count, s);
            c.reduce(send, 1, send, 1, count, k.type, op, root);
            if (me == root) {
                check(k, op, send, 1, count, 0, n, s, "reduce in place to " + root);
            }
            // scan and exscan, in place
            send = input(k, op, me, count, s);
            c.scan(send, 1, send, 1, count, k.type, op);
            check(k, op, send, 1, count, 0, me + 1, s, "scan in place");
            send = input(k, op, me, count, s);
            out = k.newArray(count + 1);
            c.exscan(send, 1, out, 1, count, k.type, op);
            if (me > 0) {
                check(k, op, out, 1, count, 0, me, s, "exscan");
            }
            // reduce_scatter_block of count elements a rank, in place (the result lands at the start)
            Object vec = input(k, op, me, n * count, s);
            c.reduceScatterBlock(vec, 1, vec, 1, count, k.type, op);
            for (int i = 0; i < count; i++) {
                long want = Model.reduce(op, k, 0, n, me * count + i, s);
                if (want != k.get(vec, 1 + i)) {
                    assertEquals(want, k.get(vec, 1 + i), "reduce_scatter_block " + k + " " + op + " i=" + i);
                }
            }
        }
    }

    private static Object input(Kind k, Op op, int rank, int count, int salt) {
        Object a = k.newArray(count + 1);
        for (int i = 0; i < count; i++) {
            k.set(a, 1 + i, k.input(op, rank, i, salt));
        }
        return a;
    }

    private static void check(Kind k, Op op, Object got, int offset, int count, int from, int to, int salt,
                              String what) {
        for (int i = 0; i < count; i++) {
            long want = Model.reduce(op, k, from, to, i, salt);
            if (want != k.get(got, offset + i)) {
                assertEquals(want, k.get(got, offset + i), what + " " + k + " " + op + " count " + count + " i=" + i);
            }
        }
    }

    private static void eq(long want, long have, String what) {
        if (want != have) {
            assertEquals(want, have, what);
        }
    }
}

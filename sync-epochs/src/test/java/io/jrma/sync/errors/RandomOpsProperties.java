package io.jrma.sync.errors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Datatype;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;

/**
 * Random sequences of put, get, accumulate (SUM, REPLACE), get_accumulate, fetch_and_op and compare_and_swap,
 * with random derived datatypes (contiguous, vector, indexed of INT or LONG) at random displacements, issued by
 * rank 0 to rank 1 inside one lock epoch with flushes at random points, compared with a sequential model of
 * rank 1's window and of every result buffer. Where MPI leaves the outcome undefined (a put or get overlapping
 * another operation of the same flush interval) a flush is inserted so that the model is exact.
 */
class RandomOpsProperties {
    static final int WIN = 512;
    static final int DISP_UNIT = 8;

    enum Kind { PUT, GET, ACC_SUM, ACC_REPLACE, GACC_SUM, GACC_REPLACE, GACC_NOOP, FOP_SUM, FOP_REPLACE,
            FOP_NOOP, CAS, FLUSH }

    /** A datatype over one element type: its type map (byte offsets of elements, in order) and bounds. */
    record TypeSpec(boolean isLong, int shape, int a, int b, int c, long[] blocks, long[] displs) {
        int esize() {
            return isLong ? 8 : 4;
        }

        Datatype elem() {
            return isLong ? Datatype.LONG : Datatype.INT;
        }

        Datatype build() {
            switch (shape) {
                case 0: return elem();
                case 1: return Datatype.contiguous(a, elem()).commit();
                case 2: return Datatype.vector(a, b, c, elem()).commit();
                default: return Datatype.indexed(blocks, displs, elem()).commit();
            }
        }

        long[] offsets() {
            List<Long> o = new ArrayList<>();
            int s = esize();
            switch (shape) {
                case 0: o.add(0L); break;
                case 1: for (int j = 0; j < a; j++) { o.add((long) j * s); } break;
                case 2:
                    for (int k = 0; k < a; k++) {
                        for (int j = 0; j < b; j++) {
                            o.add(((long) k * c + j) * s);
                        }
                    }
                    break;
                default:
                    for (int k = 0; k < blocks.length; k++) {
                        for (int j = 0; j < blocks[k]; j++) {
                            o.add((displs[k] + j) * s);
                        }
                    }
                    break;
            }
            return o.stream().mapToLong(Long::longValue).toArray();
        }

        long lb() {
            return shape == 3 ? displs[0] * esize() : 0;
        }

        long ub() {
            int s = esize();
            switch (shape) {
                case 0: return s;
                case 1: return (long) a * s;
                case 2: return ((long) (a - 1) * c + b) * s;
                default: return (displs[displs.length - 1] + blocks[blocks.length - 1]) * s;
            }
        }

        @Override
        public String toString() {
            String e = isLong ? "LONG" : "INT";
            switch (shape) {
                case 0: return e;
                case 1: return "contiguous(" + a + "," + e + ")";
                case 2: return "vector(" + a + "," + b + "," + c + "," + e + ")";
                default: return "indexed(" + Arrays.toString(blocks) + "," + Arrays.toString(displs) + "," + e + ")";
            }
        }
    }

    /** One generated step; disp and values are derived from raw numbers so that every step is valid. */
    record Step(Kind kind, TypeSpec type, int count, int dispRaw, long seed) {
        @Override
        public String toString() {
            return kind + (kind == Kind.FLUSH ? ""
                    : "(" + count + " x " + type + ", dispRaw " + dispRaw + ", seed " + seed + ")");
        }
    }

    // ------------------------------------------------------------------ generators

    @Provide
    Arbitrary<TypeSpec> types() {
        Arbitrary<Boolean> isLong = Arbitraries.of(true, false);
        Arbitrary<TypeSpec> basic = isLong.map(l -> new TypeSpec(l, 0, 0, 0, 0, null, null));
        Arbitrary<TypeSpec> contig = Combinators.combine(isLong, Arbitraries.integers().between(1, 4))
                .as((l, k) -> new TypeSpec(l, 1, k, 0, 0, null, null));
        Arbitrary<TypeSpec> vector = Combinators.combine(isLong, Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(1, 2), Arbitraries.integers().between(0, 2))
                .as((l, cnt, bl, gap) -> new TypeSpec(l, 2, cnt, bl, bl + gap, null, null));
        Arbitrary<TypeSpec> indexed = Combinators.combine(isLong,
                Arbitraries.integers().between(1, 2).list().ofMinSize(1).ofMaxSize(3),
                Arbitraries.integers().between(0, 2).list().ofMinSize(3).ofMaxSize(3),
                Arbitraries.integers().between(0, 2))
                .as((l, bls, gaps, first) -> {
                    long[] b = new long[bls.size()];
                    long[] d = new long[bls.size()];
                    long at = first;
                    for (int i = 0; i < b.length; i++) {
                        b[i] = bls.get(i);
                        d[i] = at;
                        at += b[i] + gaps.get(i);
                    }
                    return new TypeSpec(l, 3, 0, 0, 0, b, d);
                });
        return Arbitraries.frequencyOf(
                Tuple.of(3, basic), Tuple.of(2, contig),
                Tuple.of(2, vector), Tuple.of(2, indexed));
    }

    @Provide
    Arbitrary<List<Step>> programs() {
        Arbitrary<Step> step = Combinators.combine(
                Arbitraries.frequencyOf(
                        Tuple.of(3, Arbitraries.just(Kind.PUT)),
                        Tuple.of(3, Arbitraries.just(Kind.GET)),
                        Tuple.of(8, Arbitraries.of(Kind.ACC_SUM, Kind.ACC_REPLACE, Kind.GACC_SUM,
                                Kind.GACC_REPLACE, Kind.GACC_NOOP, Kind.FOP_SUM, Kind.FOP_REPLACE, Kind.FOP_NOOP)),
                        Tuple.of(2, Arbitraries.just(Kind.CAS)),
                        Tuple.of(1, Arbitraries.just(Kind.FLUSH))),
                types(), Arbitraries.integers().between(1, 3), Arbitraries.integers().between(0, 63),
                Arbitraries.longs())
                .as(Step::new);
        return step.list().ofMinSize(1).ofMaxSize(25);
    }

    // ------------------------------------------------------------------ the properties

    @Property(tries = 50, shrinking = ShrinkingMode.BOUNDED)
    void directPathMatchesModel(@ForAll("programs") List<Step> program) {
        check("auto", program);
    }

    @Property(tries = 50, shrinking = ShrinkingMode.BOUNDED)
    void packetPathMatchesModel(@ForAll("programs") List<Step> program) {
        check("packet", program);
    }

    @Property(tries = 25, shrinking = ShrinkingMode.BOUNDED)
    void packetPathEagerMatchesModel(@ForAll("programs") @Size(max = 25) List<Step> program) {
        check("packet-eager", program);
    }

    // ------------------------------------------------------------------ planning: concrete ops + the model

    /** A concrete operation, with its origin data, expected result and target byte ranges. */
    static final class Planned {
        Kind kind;
        TypeSpec type;
        boolean single; // FOP, CAS: one predefined element
        int count;
        long disp;
        long[] addrs; // byte address of each element at the target, in type-map order
        long[] origin;
        long compare;
        long[] expected; // for ops with a result
        boolean flushBefore;
    }

    static long read(ByteBuffer m, long addr, boolean isLong) {
        return isLong ? m.getLong((int) addr) : m.getInt((int) addr);
    }

    static void write(ByteBuffer m, long addr, boolean isLong, long v) {
        if (isLong) {
            m.putLong((int) addr, v);
        } else {
            m.putInt((int) addr, (int) v);
        }
    }

    static ByteBuffer initialMemory() {
        ByteBuffer m = ByteBuffer.allocate(WIN).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < WIN; i++) {
            m.put(i, (byte) (i * 13 + 1));
        }
        return m;
    }

    /** Turns the steps into concrete operations, inserts flushes where MPI needs them, runs the model. */
    static List<Planned> plan(List<Step> steps, ByteBuffer model) {
        List<Planned> out = new ArrayList<>();
        // byte ranges touched since the last flush, with whether they came from a put/get and the element type
        List<long[]> touched = new ArrayList<>(); // {lo, hi, isPutGet, isGet, isLong}
        boolean pendingFlush = false;
        for (Step s : steps) {
            if (s.kind() == Kind.FLUSH) {
                pendingFlush = true;
                continue;
            }
            Planned p = new Planned();
            p.kind = s.kind();
            p.single = s.kind().name().startsWith("FOP") || s.kind() == Kind.CAS;
            TypeSpec t = p.single ? new TypeSpec(s.type().isLong(), 0, 0, 0, 0, null, null) : s.type();
            p.type = t;
            p.count = p.single ? 1 : s.count();
            long[] offs = t.offsets();
            long extent = t.ub() - t.lb();
            int n = p.count * offs.length;
            long maxEnd = (long) (p.count - 1) * extent + Arrays.stream(offs).max().getAsLong() + t.esize();
            long maxDisp = (WIN - maxEnd) / DISP_UNIT;
            if (maxDisp < 0) {
                p.count = 1;
                n = offs.length;
                maxEnd = Arrays.stream(offs).max().getAsLong() + t.esize();
                maxDisp = (WIN - maxEnd) / DISP_UNIT;
            }
            p.disp = s.dispRaw() % (maxDisp + 1);
            p.addrs = new long[n];
            for (int i = 0, k = 0; i < p.count; i++) {
                for (long o : offs) {
                    p.addrs[k++] = p.disp * DISP_UNIT + i * extent + o;
                }
            }
            SplittableRandom rnd = new SplittableRandom(s.seed());
            p.origin = new long[n];
            for (int k = 0; k < n; k++) {
                long v = rnd.nextLong(-1000, 1000);
                p.origin[k] = t.isLong() ? v : (int) v;
            }
            boolean isPutGet = p.kind == Kind.PUT || p.kind == Kind.GET;
            boolean isGet = p.kind == Kind.GET;
            // conflicts within the current flush interval -> flush first
            boolean conflict = false;
            for (long a : p.addrs) {
                for (long[] r : touched) {
                    boolean overlap = a < r[1] && r[0] < a + t.esize();
                    if (!overlap) {
                        continue;
                    }
                    boolean bothGets = isGet && r[3] == 1;
                    boolean sameAtomics = !isPutGet && r[2] == 0 && (r[4] == 1) == t.isLong() && r[0] == a;
                    if (!bothGets && !sameAtomics) {
                        conflict = true;
                    }
                }
            }
            if (conflict || pendingFlush) {
                p.flushBefore = true;
                touched.clear();
                pendingFlush = false;
            }
            for (long a : p.addrs) {
                touched.add(new long[] {a, a + t.esize(), isPutGet ? 1 : 0, isGet ? 1 : 0, t.isLong() ? 1 : 0});
            }
            // the model
            boolean l = t.isLong();
            boolean hasResult = !(p.kind == Kind.PUT || p.kind == Kind.ACC_SUM || p.kind == Kind.ACC_REPLACE);
            if (hasResult) {
                p.expected = new long[n];
            }
            if (p.kind == Kind.CAS) {
                long old = read(model, p.addrs[0], l);
                p.compare = rnd.nextBoolean() ? old : (l ? rnd.nextLong() : rnd.nextInt());
                p.expected[0] = old;
                if (old == p.compare) {
                    write(model, p.addrs[0], l, p.origin[0]);
                }
            } else {
                for (int k = 0; k < n; k++) {
                    long a = p.addrs[k];
                    long old = read(model, a, l);
                    if (hasResult) {
                        p.expected[k] = old;
                    }
                    switch (p.kind) {
                        case PUT: case ACC_REPLACE: case GACC_REPLACE: case FOP_REPLACE:
                            write(model, a, l, p.origin[k]);
                            break;
                        case ACC_SUM: case GACC_SUM: case FOP_SUM:
                            write(model, a, l, old + p.origin[k]);
                            break;
                        default:
                            break; // GET, NO_OP
                    }
                }
            }
            out.add(p);
        }
        return out;
    }

    // ------------------------------------------------------------------ running

    private static Op op(Kind k) {
        switch (k) {
            case ACC_SUM: case GACC_SUM: case FOP_SUM: return Op.SUM;
            case ACC_REPLACE: case GACC_REPLACE: case FOP_REPLACE: return Op.REPLACE;
            default: return Op.NO_OP;
        }
    }

    private static Object arr(boolean isLong, long[] v) {
        if (isLong) {
            return v.clone();
        }
        int[] a = new int[v.length];
        for (int i = 0; i < v.length; i++) {
            a[i] = (int) v[i];
        }
        return a;
    }

    private static long[] toLongs(Object o) {
        if (o instanceof long[]) {
            return (long[]) o;
        }
        int[] a = (int[]) o;
        long[] r = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[i];
        }
        return r;
    }

    static void check(String mode, List<Step> steps) {
        ByteBuffer model = initialMemory();
        List<Planned> plan = plan(steps, model);
        String path = mode.startsWith("packet") ? "packet" : "auto";
        Info info = mode.endsWith("eager") ? Info.of("jrma_issue", "eager") : null;
        Jrma.job(2).param("jrma.path", path).timeout(Duration.ofSeconds(30)).run(world -> {
            Win w = Win.allocate(world, WIN, DISP_UNIT, info);
            ByteBuffer mine = w.buffer();
            ByteBuffer init = initialMemory();
            for (int i = 0; i < WIN; i++) {
                mine.put(i, init.get(i));
            }
            world.barrier();
            if (world.rank() == 0) {
                Object[] results = new Object[plan.size()];
                w.lock(LockType.EXCLUSIVE, 1, 0);
                for (int i = 0; i < plan.size(); i++) {
                    Planned p = plan.get(i);
                    if (p.flushBefore) {
                        w.flush(1);
                    }
                    boolean l = p.type.isLong();
                    Datatype e = l ? Datatype.LONG : Datatype.INT;
                    Datatype tt = p.type.build();
                    int n = p.addrs.length;
                    Object origin = arr(l, p.origin);
                    switch (p.kind) {
                        case PUT:
                            w.put(origin, n, e, 1, p.disp, p.count, tt);
                            break;
                        case GET:
                            results[i] = arr(l, new long[n]);
                            w.get(results[i], n, e, 1, p.disp, p.count, tt);
                            break;
                        case ACC_SUM: case ACC_REPLACE:
                            w.accumulate(origin, n, e, 1, p.disp, p.count, tt, op(p.kind));
                            break;
                        case GACC_SUM: case GACC_REPLACE: case GACC_NOOP:
                            results[i] = arr(l, new long[n]);
                            w.getAccumulate(origin, n, e, results[i], n, e, 1, p.disp, p.count, tt, op(p.kind));
                            break;
                        case FOP_SUM: case FOP_REPLACE: case FOP_NOOP:
                            results[i] = arr(l, new long[1]);
                            w.fetchAndOp(origin, results[i], e, 1, p.disp, op(p.kind));
                            break;
                        case CAS:
                            results[i] = arr(l, new long[1]);
                            w.compareAndSwap(origin, arr(l, new long[] {p.compare}), results[i], e, 1, p.disp);
                            break;
                        default:
                            throw new AssertionError(p.kind);
                    }
                }
                w.unlock(1);
                for (int i = 0; i < plan.size(); i++) {
                    if (plan.get(i).expected != null) {
                        assertArrayEquals(plan.get(i).expected, toLongs(results[i]),
                                "result of op " + i + " " + plan.get(i).kind + " " + plan.get(i).type + " in " + steps);
                    }
                }
            }
            world.barrier();
            if (world.rank() == 1) {
                w.sync();
                for (int i = 0; i < WIN; i++) {
                    assertEquals(model.get(i), mine.get(i), "window byte " + i + " of rank 1 after " + steps);
                }
            }
            world.barrier();
            w.free();
        });
    }
}

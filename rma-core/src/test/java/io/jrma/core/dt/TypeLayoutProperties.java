package io.jrma.core.dt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.Datatype;
import io.jrma.core.dt.TypeModel.Spec;
import io.jrma.core.mem.Memory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.LongRange;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Random derived-type trees (depth at most 3, small counts) checked against {@link TypeModel}, the naive
 * element-by-element expansion of the type map.
 */
class TypeLayoutProperties {
    private static final long BYTE_BASE = Memory.arrayBase(byte[].class);

    // ------------------------------------------------------------------------------------- generators

    @Provide
    Arbitrary<Spec> specs() {
        return spec(3, Arbitraries.of(BasicType.values()));
    }

    /** Trees over few basic types, so that signatures often match. */
    @Provide
    Arbitrary<Spec> narrowSpecs() {
        return spec(2, Arbitraries.of(BasicType.INT, BasicType.INT, BasicType.INT, BasicType.FLOAT));
    }

    private static Arbitrary<Spec> spec(int depth, Arbitrary<BasicType> basics) {
        Arbitrary<Spec> leaf = basics.map(TypeModel::basicSpec);
        if (depth == 0) {
            return leaf;
        }
        Arbitrary<Spec> kid = spec(depth - 1, basics);
        Arbitrary<Long> small = Arbitraries.longs().between(0, 3);
        Arbitrary<Long> stride = Arbitraries.longs().between(-4, 4);
        Arbitrary<Long> bytes = Arbitraries.longs().between(-24, 24);
        Arbitrary<long[]> pair = Combinators.combine(small, bytes).as((x, y) -> new long[] {x, y});
        Arbitrary<List<long[]>> pairs = pair.list().ofMaxSize(3);
        Arbitrary<Spec> contiguous = Combinators.combine(small, kid).as((c, k) -> TypeModel.derived(
                "contiguous(" + c + ")", new Spec[] {k}, d -> Datatype.contiguous(c, d[0]),
                m -> TypeModel.hvector(1, c, 0, m[0])));
        Arbitrary<Spec> vector = Combinators.combine(small, small, stride, kid).as((c, b, s, k) -> TypeModel.derived(
                "vector(" + c + "," + b + "," + s + ")", new Spec[] {k}, d -> Datatype.vector(c, b, s, d[0]),
                m -> TypeModel.hvector(c, b, s * m[0].extent(), m[0])));
        Arbitrary<Spec> hvector = Combinators.combine(small, small, bytes, kid).as((c, b, s, k) -> TypeModel.derived(
                "hvector(" + c + "," + b + "," + s + ")", new Spec[] {k}, d -> Datatype.hvector(c, b, s, d[0]),
                m -> TypeModel.hvector(c, b, s, m[0])));
        Arbitrary<Spec> indexed = Combinators.combine(pairs, kid).as((p, k) -> {
            long[] bl = col(p, 0);
            long[] ds = new long[p.size()];
            for (int i = 0; i < ds.length; i++) {
                ds[i] = p.get(i)[1] / 6;
            }
            return TypeModel.derived("indexed(" + str(bl) + str(ds) + ")", new Spec[] {k},
                    d -> Datatype.indexed(bl, ds, d[0]), m -> TypeModel.hindexed(bl, scale(ds, m[0].extent()), m[0]));
        });
        Arbitrary<Spec> hindexed = Combinators.combine(pairs, kid).as((p, k) -> {
            long[] bl = col(p, 0);
            long[] ds = col(p, 1);
            return TypeModel.derived("hindexed(" + str(bl) + str(ds) + ")", new Spec[] {k},
                    d -> Datatype.hindexed(bl, ds, d[0]), m -> TypeModel.hindexed(bl, ds, m[0]));
        });
        Arbitrary<Spec> indexedBlock = Combinators.combine(small, stride.list().ofMaxSize(3), kid).as((b, l, k) -> {
            long[] ds = l.stream().mapToLong(Long::longValue).toArray();
            return TypeModel.derived("indexedBlock(" + b + str(ds) + ")", new Spec[] {k},
                    d -> Datatype.indexedBlock(b, ds, d[0]),
                    m -> TypeModel.hindexed(fill(ds.length, b), scale(ds, m[0].extent()), m[0]));
        });
        Arbitrary<Spec> hindexedBlock = Combinators.combine(small, bytes.list().ofMaxSize(3), kid).as((b, l, k) -> {
            long[] ds = l.stream().mapToLong(Long::longValue).toArray();
            return TypeModel.derived("hindexedBlock(" + b + str(ds) + ")", new Spec[] {k},
                    d -> Datatype.hindexedBlock(b, ds, d[0]), m -> TypeModel.hindexed(fill(ds.length, b), ds, m[0]));
        });
        Arbitrary<Spec> resized = Combinators.combine(kid, Arbitraries.longs().between(-16, 16),
                Arbitraries.longs().between(-8, 32)).as((k, lb, ext) -> TypeModel.derived(
                "resized(" + lb + "," + ext + ")", new Spec[] {k}, d -> Datatype.resized(d[0], lb, ext),
                m -> TypeModel.resized(m[0], lb, ext)));
        Arbitrary<long[]> dim = Combinators.combine(Arbitraries.longs().between(1, 3),
                Arbitraries.longs().between(0, 2), Arbitraries.longs().between(0, 2)).as((size, sub, st) -> {
                    long subsize = 1 + sub % size;
                    return new long[] {size, subsize, st % (size - subsize + 1)};
                });
        Arbitrary<Spec> subarray = Combinators.combine(dim.list().ofMinSize(1).ofMaxSize(2),
                Arbitraries.of(Datatype.Order.values()), kid).as((dims, order, k) -> {
                    long[] sz = col(dims, 0);
                    long[] sub = col(dims, 1);
                    long[] st = col(dims, 2);
                    return TypeModel.derived("subarray(" + str(sz) + str(sub) + str(st) + order + ")",
                            new Spec[] {k}, d -> Datatype.subarray(sz, sub, st, order, d[0]),
                            m -> TypeModel.subarray(sz, sub, st, order, m[0]));
                });
        Arbitrary<Spec> struct = Combinators.combine(pair, kid).as((p, k) -> new Object[] {p, k})
                .list().ofMinSize(1).ofMaxSize(3).map(items -> {
                    long[] bl = new long[items.size()];
                    long[] ds = new long[items.size()];
                    Spec[] kids = new Spec[items.size()];
                    for (int i = 0; i < kids.length; i++) {
                        bl[i] = ((long[]) items.get(i)[0])[0];
                        ds[i] = ((long[]) items.get(i)[0])[1];
                        kids[i] = (Spec) items.get(i)[1];
                    }
                    return TypeModel.derived("struct(" + str(bl) + str(ds) + ")", kids,
                            d -> Datatype.struct(bl, ds, d), m -> TypeModel.struct(bl, ds, m));
                });
        return Arbitraries.frequencyOf(
                Tuple.of(2, leaf), Tuple.of(2, contiguous),
                Tuple.of(2, vector), Tuple.of(2, hvector),
                Tuple.of(1, indexed), Tuple.of(1, hindexed),
                Tuple.of(1, indexedBlock), Tuple.of(1, hindexedBlock),
                Tuple.of(2, resized), Tuple.of(1, subarray),
                Tuple.of(2, struct));
    }

    private static long[] col(List<long[]> rows, int c) {
        return rows.stream().mapToLong(r -> r[c]).toArray();
    }

    private static long[] scale(long[] a, long f) {
        long[] r = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[i] * f;
        }
        return r;
    }

    private static long[] fill(int n, long v) {
        long[] r = new long[n];
        Arrays.fill(r, v);
        return r;
    }

    private static String str(long[] a) {
        return Arrays.toString(a);
    }

    // ------------------------------------------------------------------------------------- properties

    @Property(tries = 400)
    void sizeBoundsAndElementTypeAgreeWithModel(@ForAll("specs") Spec s, @ForAll @LongRange(max = 3) long count) {
        Datatype t = s.build();
        TypeModel m = s.model();
        assertEquals(m.size(), t.size(), "size");
        assertEquals(m.lb, t.lb(), "lb");
        assertEquals(m.ub, t.ub(), "ub");
        assertEquals(m.trueLb(), t.trueLb(), "trueLb");
        assertEquals(m.trueUb() - m.trueLb(), t.trueExtent(), "trueExtent");
        assertEquals(m.elementType(), t.elementType(), "elementType");
        assertEquals(m.low(count), t.layout().dataLow(count), "dataLow");
        assertEquals(m.high(count), t.layout().dataHigh(count), "dataHigh");
    }

    @Property(tries = 400)
    void packAndUnpackAgreeWithModel(@ForAll("specs") Spec s, @ForAll @LongRange(max = 3) long count,
                                     @ForAll long seed) {
        TypeLayout l = s.build().layout();
        TypeModel m = s.model();
        Mem mem = new Mem(m, count, seed);
        byte[] expected = m.pack(mem.bytes, mem.base, count);
        byte[] packed = new byte[expected.length];
        TypeLayout bytes = Datatype.BYTE.layout();
        TypeLayout.copy(mem.bytes, BYTE_BASE + mem.base, count, l, packed, BYTE_BASE, packed.length, bytes);
        assertArrayEquals(expected, packed, "pack");

        byte[] stream = new byte[expected.length];
        new Random(~seed).nextBytes(stream);
        Mem target = new Mem(m, count, seed + 1);
        byte[] model = target.bytes.clone();
        m.unpack(stream, model, target.base, count);
        TypeLayout.copy(stream, BYTE_BASE, stream.length, bytes, target.bytes, BYTE_BASE + target.base, count, l);
        assertArrayEquals(model, target.bytes, "unpack");
    }

    @Property(tries = 400)
    void copyBetweenTwoTypesAgreesWithModel(@ForAll("specs") Spec a, @ForAll @LongRange(max = 3) long ca,
                                            @ForAll("specs") Spec b, @ForAll @LongRange(max = 3) long cb,
                                            @ForAll long seed) {
        checkCopy(a.build().layout(), a.model(), ca, b.build().layout(), b.model(), cb, seed);
    }

    private static void checkCopy(TypeLayout la, TypeModel ma, long ca, TypeLayout lb, TypeModel mb, long cb,
                                  long seed) {
        Mem src = new Mem(ma, ca, seed);
        Mem dst = new Mem(mb, cb, seed ^ 0x5555);
        byte[] expected = dst.bytes.clone();
        mb.unpack(ma.pack(src.bytes, src.base, ca), expected, dst.base, cb);
        TypeLayout.copy(src.bytes, BYTE_BASE + src.base, ca, la, dst.bytes, BYTE_BASE + dst.base, cb, lb);
        assertArrayEquals(expected, dst.bytes);
    }

    @Property(tries = 600)
    void signatureMatchingAgreesWithModel(@ForAll("narrowSpecs") Spec a, @ForAll @LongRange(max = 4) long ca,
                                          @ForAll("narrowSpecs") Spec b, @ForAll @LongRange(max = 4) long cb) {
        TypeModel ma = a.model();
        TypeModel mb = b.model();
        boolean expected = ma.signature(ca).equals(mb.signature(cb));
        assertEquals(expected, a.build().layout().signatureMatches(ca, b.build().layout(), cb));
        assertEquals(expected, b.build().layout().signatureMatches(cb, a.build().layout(), ca));
    }

    @Property(tries = 500)
    void signatureMatchingAgainstFlatStruct(@ForAll("narrowSpecs") Spec a, @ForAll @LongRange(max = 3) long ca,
                                            @ForAll int where, @ForAll boolean mutate) {
        // A flat struct with the same (or a one-element-changed) signature: equal element counts, often mixed.
        List<BasicType> sig = a.model().signature(ca);
        List<BasicType> other = new ArrayList<>(sig);
        if (mutate && !other.isEmpty()) {
            int i = Math.floorMod(where, other.size());
            other.set(i, other.get(i) == BasicType.INT ? BasicType.FLOAT : BasicType.INT);
        }
        long[] ones = fill(other.size(), 1);
        long[] disps = new long[other.size()];
        Datatype[] types = new Datatype[other.size()];
        for (int i = 0; i < disps.length; i++) {
            disps[i] = 8L * i;
            types[i] = TypeModel.predefined(other.get(i));
        }
        TypeLayout flat = Datatype.struct(ones, disps, types).layout();
        boolean expected = sig.equals(other);
        assertEquals(expected, a.build().layout().signatureMatches(ca, flat, 1));
        assertEquals(expected, flat.signatureMatches(1, a.build().layout(), ca));
    }

    @Property(tries = 300)
    void signatureMatchesWrappedCopies(@ForAll("specs") Spec a, @ForAll @LongRange(min = 1, max = 3) long n) {
        // contiguous(n, a) x 1 always matches a x n, and the model agrees
        Datatype t = a.build();
        Datatype c = Datatype.contiguous(n, t);
        assertEquals(true, t.layout().signatureMatches(n, c.layout(), 1));
        assertEquals(a.model().signature(n + 1).equals(a.model().signature(n)),
                t.layout().signatureMatches(n + 1, c.layout(), 1));
    }

    @Property(tries = 300)
    void decodeOfEncodeBehavesIdentically(@ForAll("specs") Spec s, @ForAll @LongRange(max = 3) long count,
                                          @ForAll long seed, @ForAll @LongRange(max = 7) long at) {
        TypeLayout l = s.build().layout();
        UnsafeBuffer buf = new UnsafeBuffer(new byte[(int) at + l.encodedLength()]);
        l.encode(buf, (int) at);
        TypeLayout d = TypeLayout.decode(buf, (int) at, l.encodedLength());
        assertEquals(l, d);
        assertEquals(l.isContiguous(), d.isContiguous());
        assertEquals(l.elementType(), d.elementType());
        assertEquals(l.dataLow(count), d.dataLow(count));
        assertEquals(l.dataHigh(count), d.dataHigh(count));
        assertEquals(true, l.signatureMatches(count, d, count));
        // the decoded layout moves data exactly like the model of the original
        checkCopy(d, s.model(), count, Datatype.BYTE.layout(), TypeModel.basic(BasicType.BYTE),
                count * l.size(), seed);
        checkCopy(Datatype.BYTE.layout(), TypeModel.basic(BasicType.BYTE), count * l.size(), d, s.model(), count,
                seed);
    }

    /** A byte array large enough for count instances of a model, filled with random bytes. */
    private static final class Mem {
        final byte[] bytes;
        /** Index of the address of instance 0. */
        final int base;

        Mem(TypeModel m, long count, long seed) {
            long lo = Math.min(0, m.low(count));
            long hi = Math.max(0, m.high(count));
            bytes = new byte[(int) (hi - lo) + 16];
            base = (int) -lo + 8;
            new Random(seed).nextBytes(bytes);
        }
    }
}

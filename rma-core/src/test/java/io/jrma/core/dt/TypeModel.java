package io.jrma.core.dt;

import io.jrma.Datatype;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * A naive reference model of MPI datatypes for the property tests: the type map expanded element by element
 * as a list of (byte offset, basic type), plus the MPI bounds. Built independently of the engine, straight
 * from the definitions of the constructors, and paired with a {@link Spec} that builds the real
 * {@link Datatype} from the same parameters.
 */
final class TypeModel {
    final long[] offsets;
    final BasicType[] types;
    final long lb;
    final long ub;
    final boolean bounded;

    private TypeModel(List<long[]> entries, List<BasicType> types, long lb, long ub, boolean bounded) {
        this.offsets = new long[entries.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = entries.get(i)[0];
        }
        this.types = types.toArray(new BasicType[0]);
        this.lb = bounded ? lb : 0;
        this.ub = bounded ? ub : 0;
        this.bounded = bounded;
    }

    long extent() {
        return ub - lb;
    }

    long size() {
        long s = 0;
        for (BasicType t : types) {
            s += t.size();
        }
        return s;
    }

    BasicType elementType() {
        if (types.length == 0) {
            return null;
        }
        for (BasicType t : types) {
            if (t != types[0]) {
                return null;
            }
        }
        return types[0];
    }

    long trueLb() {
        long lo = Long.MAX_VALUE;
        for (long o : offsets) {
            lo = Math.min(lo, o);
        }
        return types.length == 0 ? 0 : lo;
    }

    long trueUb() {
        long hi = Long.MIN_VALUE;
        for (int i = 0; i < types.length; i++) {
            hi = Math.max(hi, offsets[i] + types[i].size());
        }
        return types.length == 0 ? 0 : hi;
    }

    /** The signature of {@code count} instances. */
    List<BasicType> signature(long count) {
        List<BasicType> r = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            r.addAll(Arrays.asList(types));
        }
        return r;
    }

    /** Lowest byte touched by count instances (0 if none). */
    long low(long count) {
        long lo = Long.MAX_VALUE;
        for (long i = 0; i < count; i++) {
            for (long o : offsets) {
                lo = Math.min(lo, i * extent() + o);
            }
        }
        return lo == Long.MAX_VALUE ? 0 : lo;
    }

    /** One past the highest byte touched by count instances (0 if none). */
    long high(long count) {
        long hi = Long.MIN_VALUE;
        for (long i = 0; i < count; i++) {
            for (int e = 0; e < types.length; e++) {
                hi = Math.max(hi, i * extent() + offsets[e] + types[e].size());
            }
        }
        return hi == Long.MIN_VALUE ? 0 : hi;
    }

    /** Packs count instances found in {@code mem} (instance 0 at index {@code base}) into a byte stream. */
    byte[] pack(byte[] mem, int base, long count) {
        byte[] out = new byte[(int) (size() * count)];
        int p = 0;
        for (long i = 0; i < count; i++) {
            for (int e = 0; e < types.length; e++) {
                int at = (int) (base + i * extent() + offsets[e]);
                for (int b = 0; b < types[e].size(); b++) {
                    out[p++] = mem[at + b];
                }
            }
        }
        return out;
    }

    /** Unpacks at most {@code stream.length} bytes into count instances in {@code mem}, in type-map order. */
    void unpack(byte[] stream, byte[] mem, int base, long count) {
        int p = 0;
        for (long i = 0; i < count; i++) {
            for (int e = 0; e < types.length; e++) {
                int at = (int) (base + i * extent() + offsets[e]);
                for (int b = 0; b < types[e].size() && p < stream.length; b++) {
                    mem[at + b] = stream[p++];
                }
            }
        }
    }

    // ------------------------------------------------------------------------------ model constructors

    /** Accumulates placements of old models. */
    private static final class Acc {
        final List<long[]> entries = new ArrayList<>();
        final List<BasicType> types = new ArrayList<>();
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        boolean bounded;

        /** k copies of old, copy j at disp + j * old.extent. */
        Acc place(TypeModel old, long disp, long k) {
            for (long j = 0; j < k; j++) {
                long d = disp + j * old.extent();
                for (int e = 0; e < old.types.length; e++) {
                    entries.add(new long[] {d + old.offsets[e]});
                    types.add(old.types[e]);
                }
                if (old.bounded) {
                    lo = Math.min(lo, d + old.lb);
                    hi = Math.max(hi, d + old.ub);
                    bounded = true;
                }
            }
            return this;
        }

        TypeModel done() {
            return new TypeModel(entries, types, lo, hi, bounded);
        }
    }

    static TypeModel basic(BasicType t) {
        List<long[]> e = new ArrayList<>();
        e.add(new long[] {0});
        return new TypeModel(e, List.of(t), 0, t.extent(), true);
    }

    static TypeModel hindexed(long[] blocklengths, long[] byteDisps, TypeModel old) {
        Acc a = new Acc();
        for (int i = 0; i < blocklengths.length; i++) {
            a.place(old, byteDisps[i], blocklengths[i]);
        }
        return a.done();
    }

    static TypeModel struct(long[] blocklengths, long[] byteDisps, TypeModel[] olds) {
        Acc a = new Acc();
        for (int i = 0; i < blocklengths.length; i++) {
            a.place(olds[i], byteDisps[i], blocklengths[i]);
        }
        return a.done();
    }

    static TypeModel hvector(long count, long blocklength, long strideBytes, TypeModel old) {
        Acc a = new Acc();
        for (long i = 0; i < count; i++) {
            a.place(old, i * strideBytes, blocklength);
        }
        return a.done();
    }

    static TypeModel resized(TypeModel old, long lb, long extent) {
        return new TypeModel(entriesOf(old), Arrays.asList(old.types), lb, lb + extent, true);
    }

    private static List<long[]> entriesOf(TypeModel m) {
        List<long[]> r = new ArrayList<>();
        for (long o : m.offsets) {
            r.add(new long[] {o});
        }
        return r;
    }

    static TypeModel subarray(long[] sizes, long[] subsizes, long[] starts, Datatype.Order order, TypeModel old) {
        int n = sizes.length;
        long[] mult = new long[n]; // elements between consecutive indices of each dimension
        long m = 1;
        for (int k = 0; k < n; k++) {
            int d = order == Datatype.Order.C ? n - 1 - k : k;
            mult[d] = m;
            m *= sizes[d];
        }
        long total = m;
        Acc a = new Acc();
        long[] idx = new long[n];
        boolean done = false;
        while (!done) {
            long lin = 0;
            for (int d = 0; d < n; d++) {
                lin += (starts[d] + idx[d]) * mult[d];
            }
            // MPI subarray keeps the data placement but fixes the bounds below; only entries matter here.
            Acc one = new Acc().place(old, lin * old.extent(), 1);
            a.entries.addAll(one.entries);
            a.types.addAll(one.types);
            // advance in memory order: fastest dimension first
            done = true;
            for (int k = 0; k < n; k++) {
                int d = order == Datatype.Order.C ? n - 1 - k : k;
                if (++idx[d] < subsizes[d]) {
                    done = false;
                    break;
                }
                idx[d] = 0;
            }
        }
        return new TypeModel(a.entries, a.types, 0, total * old.extent(), true);
    }

    // ------------------------------------------------------------------------------------- spec trees

    /** A random datatype description: builds both the real type and the model. */
    abstract static class Spec {
        abstract Datatype build();

        abstract TypeModel model();

        abstract int depth();
    }

    /** The predefined datatype constant named like {@code t}. */
    static Datatype predefined(BasicType t) {
        try {
            return (Datatype) Datatype.class.getField(t.name()).get(null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    static Spec basicSpec(BasicType t) {
        return new Spec() {
            Datatype build() {
                return predefined(t);
            }

            TypeModel model() {
                return basic(t);
            }

            int depth() {
                return 0;
            }

            @Override
            public String toString() {
                return t.name();
            }
        };
    }

    /** A derived spec from a builder function over the built children and a model function. */
    static Spec derived(String desc, Spec[] kids, Function<Datatype[], Datatype> builder,
                        Function<TypeModel[], TypeModel> modeller) {
        return new Spec() {
            Datatype build() {
                Datatype[] d = new Datatype[kids.length];
                for (int i = 0; i < d.length; i++) {
                    d[i] = kids[i].build();
                }
                return builder.apply(d);
            }

            TypeModel model() {
                TypeModel[] m = new TypeModel[kids.length];
                for (int i = 0; i < m.length; i++) {
                    m[i] = kids[i].model();
                }
                return modeller.apply(m);
            }

            int depth() {
                int d = 0;
                for (Spec k : kids) {
                    d = Math.max(d, k.depth());
                }
                return d + 1;
            }

            @Override
            public String toString() {
                return desc + Arrays.toString(kids);
            }
        };
    }
}

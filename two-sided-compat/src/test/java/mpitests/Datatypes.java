package mpitests;

import static mpitests.Check.check;
import static mpitests.Check.eq;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.util.Arrays;
import mpi.Datatype;
import mpi.DoubleComplex;
import mpi.FloatComplex;
import mpi.Int2;
import mpi.Intracomm;
import mpi.LongInt;
import mpi.MPI;
import mpi.MPIException;
import mpi.Status;
import mpi.Struct;

/** Derived datatypes: sizes and extents in base elements, communication with them, structs, complex numbers. */
public final class Datatypes {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int me = world.getRank();
        int n = world.getSize();

        predefined();
        constructors(world, me, n);
        structs(world, me, n);
        complexNumbers(world, me, n);
        negativeStrideAtASlice(world);

        MPI.Finalize();
        if (me == 0) {
            System.out.println("Datatypes OK on " + n + " ranks");
        }
    }

    private static void predefined() throws MPIException {
        eq(1, MPI.INT.getSize(), "INT size in ints");
        eq(1, MPI.INT.getExtent(), "INT extent in ints");
        eq(1, MPI.DOUBLE.getExtent(), "DOUBLE extent");
        eq(2, MPI.DOUBLE_COMPLEX.getSize(), "DOUBLE_COMPLEX is two doubles");
        eq(2, MPI.FLOAT_COMPLEX.getExtent(), "FLOAT_COMPLEX extent in floats");
        eq(8, MPI.INT2.getSize(), "INT2 size in bytes");
        eq(16, MPI.DOUBLE_INT.getExtent(), "DOUBLE_INT extent in bytes");
        eq(12, MPI.DOUBLE_INT.getSize(), "DOUBLE_INT size in bytes");
        eq(16, MPI.LONG_INT.getExtent(), "LONG_INT extent");
        eq(8, MPI.SHORT_INT.getExtent(), "SHORT_INT extent");
        eq(0, MPI.BYTE.getLb(), "lb");
        eq("MPI_INT32_T", MPI.INT.getName(), "name as in Open MPI");
        eq("MPI_DOUBLE", MPI.DOUBLE.getName(), "name");
        check(MPI.DATATYPE_NULL.isNull(), "DATATYPE_NULL");
        check(!MPI.INT.isNull(), "INT");
    }

    private static void constructors(Intracomm world, int me, int n) throws MPIException {
        int right = (me + 1) % n;
        int left = (me + n - 1) % n;
        Datatype cont = Datatype.createContiguous(3, MPI.INT);
        cont.commit();
        eq(3, cont.getSize(), "contiguous size");
        eq(3, cont.getExtent(), "contiguous extent");
        Datatype vec = Datatype.createVector(3, 2, 4, MPI.DOUBLE); // 3 blocks of 2, stride 4
        vec.commit();
        eq(6, vec.getSize(), "vector size");
        eq(10, vec.getExtent(), "vector extent (in doubles)");
        Datatype hvec = Datatype.createHVector(2, 1, 24, MPI.DOUBLE); // stride 24 bytes = 3 doubles
        hvec.commit();
        eq(4, hvec.getExtent(), "hvector extent in doubles");
        Datatype idx = Datatype.createIndexed(new int[] {1, 2}, new int[] {4, 0}, MPI.INT);
        idx.commit();
        eq(3, idx.getSize(), "indexed size");
        eq(5, idx.getExtent(), "indexed extent");
        Datatype hidx = Datatype.createHIndexed(new int[] {1, 1}, new int[] {0, 12}, MPI.INT);
        hidx.commit();
        eq(4, hidx.getExtent(), "hindexed extent");
        Datatype blk = Datatype.createIndexedBlock(2, new int[] {0, 5}, MPI.INT);
        blk.commit();
        eq(7, blk.getExtent(), "indexed block extent");
        Datatype res = Datatype.createResized(MPI.INT, 0, 12);
        res.commit();
        eq(3, res.getExtent(), "resized extent in ints");
        eq(1, res.getSize(), "resized size");
        Datatype sub = Datatype.createSubarray(new int[] {4, 4}, new int[] {2, 2}, new int[] {1, 1},
                MPI.ORDER_C, MPI.INT);
        sub.commit();
        eq(4, sub.getSize(), "subarray size");
        eq(16, sub.getExtent(), "subarray extent");
        Datatype dup = vec.dup();
        eq(vec.getExtent(), dup.getExtent(), "dup");
        dup.setName("my vector");
        eq("my vector", dup.getName(), "setName");

        // a vector send lands contiguously; indexed receive scatters
        double[] grid = new double[10];
        for (int k = 0; k < 10; k++) {
            grid[k] = me * 100 + k;
        }
        double[] packed = new double[6];
        Status s = world.sendRecv(grid, 1, vec, right, 1, packed, 6, MPI.DOUBLE, left, 1);
        eq(6, s.getCount(MPI.DOUBLE), "count in doubles");
        eq(1, s.getCount(vec), "count in vectors");
        eq(6, s.getElements(vec), "basic elements");
        eq(new double[] {left * 100, left * 100 + 1, left * 100 + 4, left * 100 + 5, left * 100 + 8, left * 100 + 9},
                packed, "vector data");
        int[] scattered = new int[5];
        world.sendRecv(new int[] {me, me + 1, me + 2}, 3, MPI.INT, right, 2, scattered, 1, idx, left, 2);
        eq(new int[] {left + 1, left + 2, 0, 0, left}, scattered, "indexed receive");
        // resized: every third int
        int[] spread = new int[9];
        world.sendRecv(new int[] {7, 8, 9}, 3, MPI.INT, right, 3, spread, 3, res, left, 3);
        eq(new int[] {7, 0, 0, 8, 0, 0, 9, 0, 0}, spread, "resized receive");
        // subarray: the inner 2x2 of a 4x4
        int[] m = new int[16];
        for (int k = 0; k < 16; k++) {
            m[k] = k;
        }
        int[] inner = new int[4];
        world.sendRecv(m, 1, sub, right, 4, inner, 4, MPI.INT, left, 4);
        eq(new int[] {5, 6, 9, 10}, inner, "subarray");
        // a partial message: getCount is UNDEFINED for the vector, elements count what came
        double[] two = {1, 2};
        Status ps = world.sendRecv(two, 2, MPI.DOUBLE, right, 5, new double[10], 1, vec, left, 5);
        eq(MPI.UNDEFINED, ps.getCount(vec), "partial vector count");
        eq(2, ps.getElements(vec), "partial vector elements");
        cont.free();
        check(cont.isNull(), "freed type");
        vec.free();
        hvec.free();
        idx.free();
        hidx.free();
        blk.free();
        res.free();
        sub.free();
    }

    /** A user struct: an int, padding, a double and two chars. */
    private static final class Particle extends Struct {
        private final int id = addInt();
        private final int mass = setOffset(8).addDouble();
        private final int tag = addChar(2);

        @Override
        protected Data newData() {
            return new Data();
        }

        final class Data extends Struct.Data {
            int id() {
                return getInt(id);
            }

            double mass() {
                return getDouble(mass);
            }

            char tag(int i) {
                return getChar(tag, i);
            }

            void set(int i, double m, char a, char b) {
                putInt(id, i);
                putDouble(mass, m);
                putChar(tag, 0, a);
                putChar(tag, 1, b);
            }
        }
    }

    private static void structs(Intracomm world, int me, int n) throws MPIException {
        Particle p = new Particle();
        eq(20, p.getExtent(), "struct extent: int, pad to 8, double, 2 chars");
        Datatype pt = p.getType();
        eq(16, pt.getSize(), "struct data bytes");
        ByteBuffer out = MPI.newByteBuffer(2 * p.getExtent());
        for (int k = 0; k < 2; k++) {
            Particle.Data d = p.getData(out, k);
            d.set(me * 10 + k, me + k * 0.5, 'x', (char) ('a' + me));
        }
        ByteBuffer in = MPI.newByteBuffer(2 * p.getExtent());
        int right = (me + 1) % n;
        int left = (me + n - 1) % n;
        Status s = world.sendRecv(out, 2, pt, right, 6, in, 2, pt, left, 6);
        eq(2, s.getCount(pt), "struct count");
        eq(8, s.getElements(pt), "struct elements: int, double, 2 chars per struct");
        Particle.Data d1 = p.getData(in, 1);
        eq(left * 10 + 1, d1.id(), "struct int");
        eq(left + 0.5, d1.mass(), "struct double");
        eq('a' + left, d1.tag(1), "struct char");
        // the helpers of the pair types
        ByteBuffer pairs = MPI.newByteBuffer(MPI.int2.getExtent() * 2);
        Int2.Data a = MPI.int2.getData(pairs, 1);
        a.putValue(5);
        a.putIndex(me);
        Int2.Data again = MPI.int2.getData(pairs, 1);
        eq(5, again.getValue(), "Int2 value");
        eq(me, pairs.getInt(12), "Int2 index at byte 4 of the second pair");
        ByteBuffer li = MPI.newByteBuffer(MPI.longInt.getExtent());
        LongInt.Data l = MPI.longInt.getData(li);
        l.putValue(Long.MAX_VALUE - me);
        l.putIndex(me);
        ByteBuffer lo = MPI.newByteBuffer(MPI.longInt.getExtent());
        world.allReduce(li, lo, 1, MPI.LONG_INT, MPI.MAXLOC);
        LongInt.Data max = MPI.longInt.getData(lo);
        eq(Long.MAX_VALUE, max.getValue(), "LONG_INT MAXLOC value");
        eq(0, max.getIndex(), "LONG_INT MAXLOC index");
    }

    /**
     * A vector with a negative stride has a negative lower bound: at a slice it reads and writes the memory
     * before the slice, as the slice's address does in Open MPI's bindings (direct and heap buffers).
     */
    private static void negativeStrideAtASlice(Intracomm world) throws MPIException {
        Datatype back = Datatype.createVector(3, 1, -2, MPI.SHORT); // shorts 0, -2, -4; extent 5 shorts
        back.commit();
        eq(-4, back.getLb(), "lb in shorts");
        ByteBuffer src = MPI.newByteBuffer(24);
        byte[] heap = new byte[24];
        for (int i = 0; i < 24; i++) {
            src.put(i, (byte) i);
            heap[i] = (byte) i;
        }
        byte[] packed = new byte[12];
        byte[] fromHeap = new byte[12];
        eq(12, world.pack(MPI.slice(src, 10), 2, back, packed, 0), "pack position");
        world.pack(MPI.slice(heap, 10), 2, back, fromHeap, 0);
        byte[] expect = {10, 11, 6, 7, 2, 3, 20, 21, 16, 17, 12, 13};
        check(Arrays.equals(expect, packed), "packed from before the slice: " + Arrays.toString(packed));
        check(Arrays.equals(expect, fromHeap), "heap: " + Arrays.toString(fromHeap));
        ByteBuffer dst = MPI.newByteBuffer(24);
        byte[] heapDst = new byte[24];
        world.unpack(packed, 0, MPI.slice(dst, 10), 2, back);
        world.unpack(packed, 0, MPI.slice(heapDst, 10), 2, back);
        for (int i = 0; i < 24; i++) {
            boolean data = Arrays.binarySearch(new int[] {2, 3, 6, 7, 10, 11, 12, 13, 16, 17, 20, 21}, i) >= 0;
            eq(data ? i : 0, dst.get(i), "unpacked into byte " + i);
            eq(data ? i : 0, heapDst[i], "unpacked into heap byte " + i);
        }
        back.free();
    }

    private static void complexNumbers(Intracomm world, int me, int n) throws MPIException {
        DoubleBuffer z = MPI.newDoubleBuffer(2);
        DoubleComplex c = DoubleComplex.get(z);
        c.putReal(me);
        c.putImag(-me);
        DoubleBuffer sum = MPI.newDoubleBuffer(2);
        world.allReduce(z, sum, 1, MPI.DOUBLE_COMPLEX, MPI.SUM);
        DoubleComplex s = DoubleComplex.get(sum);
        eq(n * (n - 1) / 2.0, s.getReal(), "complex sum real");
        eq(-n * (n - 1) / 2.0, s.getImag(), "complex sum imaginary");
        float[] f = new float[4];
        FloatComplex fc = FloatComplex.get(f, 1);
        fc.putReal(1);
        fc.putImag(2);
        eq(1f, f[2], "FloatComplex real at 2");
        eq(2f, f[3], "FloatComplex imaginary at 3");
    }
}

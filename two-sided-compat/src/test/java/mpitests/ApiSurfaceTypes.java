package mpitests;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import mpi.CartComm;
import mpi.CartParms;
import mpi.Comm;
import mpi.Count;
import mpi.Datatype;
import mpi.DistGraphNeighbors;
import mpi.DoubleComplex;
import mpi.DoubleInt;
import mpi.Errhandler;
import mpi.File;
import mpi.FileView;
import mpi.FloatComplex;
import mpi.FloatInt;
import mpi.Freeable;
import mpi.GraphComm;
import mpi.GraphParms;
import mpi.Group;
import mpi.Info;
import mpi.Int2;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.LongInt;
import mpi.MPI;
import mpi.MPIException;
import mpi.Message;
import mpi.Op;
import mpi.Prequest;
import mpi.Request;
import mpi.ShiftParms;
import mpi.ShortInt;
import mpi.Status;
import mpi.Struct;
import mpi.UserFunction;
import mpi.Version;
import mpi.Win;
/**
 * The ways programs extend the mpi package's API (structs and their data, user functions, freeable resources), as
 * {@link ApiSurface} and {@link ApiSurfaceObjects} use them. Never run: it only has to compile.
 */
@SuppressWarnings({"unused", "rawtypes", "unchecked"})
final class ApiSurfaceTypes {
    private ApiSurfaceTypes() {
    }

    /** A struct type as programs define them: fields added at construction, typed accessors in a Data class. */
    static final class Particle extends Struct {
        private final int b = addByte(), bs = addByte(2), c = addChar(), cs = addChar(2), s = addShort(),
                ss = addShort(2), i = addInt(), is = addInt(2), l = addLong(), ls = addLong(2), f = addFloat(),
                fs = addFloat(2), d = addDouble(), ds = addDouble(2);

        @Override
        protected Data newData() {
            return new Data();
        }

        final class Data extends Struct.Data {
            void all(Particle inner, Datatype t) throws MPIException {
                byte vb = getByte(b) ;
                vb = getByte(bs, 1);
                putByte(b, vb);
                putByte(bs, 1, vb);
                char vc = getChar(c);
                vc = getChar(cs, 1);
                putChar(c, vc);
                putChar(cs, 1, vc);
                short vs = getShort(s);
                vs = getShort(ss, 1);
                putShort(s, vs);
                putShort(ss, 1, vs);
                int vi = getInt(i);
                vi = getInt(is, 1);
                putInt(i, vi);
                putInt(is, 1, vi);
                long vl = getLong(l);
                vl = getLong(ls, 1);
                putLong(l, vl);
                putLong(ls, 1, vl);
                float vf = getFloat(f);
                vf = getFloat(fs, 1);
                putFloat(f, vf);
                putFloat(fs, 1, vf);
                double vd = getDouble(d);
                vd = getDouble(ds, 1);
                putDouble(d, vd);
                putDouble(ds, 1, vd);
                Particle.Data nested = getData(inner, 0);
                nested = getData(inner, 0, 1);
                ByteBuffer field = getBuffer(t, 0);
                field = getBuffer(t, 0, 1);
                field = getBuffer();
            }
        }
    }

    /**
     * A struct whose classes declare helpers under names Open MPI's Struct does not use: they must not clash
     * with members of ours (Struct and Struct.Data have no members beyond Open MPI's).
     */
    static final class Flags extends Struct {
        private final int flags = addBoolean(4);

        private int addBoolean(int n) {
            return addByte(n);
        }

        @Override
        protected Data newData() {
            return new Data();
        }

        final class Data extends Struct.Data {
            boolean getBoolean(int i) {
                return getByte(flags, i) != 0;
            }

            void putBoolean(int i, boolean v) {
                putByte(flags, i, (byte) (v ? 1 : 0));
            }
        }
    }

    /** A struct holding another struct, as programs nest them. */
    static final class Pair extends Struct {
        private final int first;
        private final int second;

        Pair(Particle p) throws MPIException {
            first = addStruct(p);
            second = addStruct(p, 2);
            setOffset(second + 2 * p.getExtent()).addInt();
            addData(MPI.INT);
            addData(MPI.DOUBLE, 3);
        }

        @Override
        protected Data newData() {
            return new Data();
        }

        final class Data extends Struct.Data {
        }
    }

    /** A user operation overriding both call forms. */
    static final class Fold extends UserFunction {
        @Override
        public void call(Object inVec, Object inOutVec, int count, Datatype type) throws MPIException {
            super.call(inVec, inOutVec, count, type);
        }

        @Override
        public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype type) throws MPIException {
            super.call(in, inOut, count, type);
        }
    }

    /** Programs may implement Freeable for their own resources. */
    static final class Resource implements Freeable {
        @Override
        public void free() throws MPIException {
        }
    }
}

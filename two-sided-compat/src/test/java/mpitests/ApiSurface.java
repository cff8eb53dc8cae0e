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
 * Compile-time guard of the mpi package's source compatibility with Open MPI's Java bindings (4.1 and 5.0,
 * ompi/mpi/java/java): every public class, constructor, method and field a program can use, called with
 * arguments of the declared parameter types and its result stored in a variable of the declared return type.
 * Members Open MPI declares without {@code throws MPIException} are used in {@link #withoutCheckedExceptions},
 * which declares none, so declaring one there breaks this file as it would break such programs. The subclasses
 * below are the ways programs extend the API (structs, user operations). Never run: it only has to compile,
 * so a dropped or changed member fails the test build; {@link ApiSurfaceTest} checks it was compiled.
 */
@SuppressWarnings({"unused", "rawtypes", "unchecked"})
final class ApiSurface {
    private ApiSurface() {
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

    /** Members Open MPI declares without checked exceptions. */
    static void withoutCheckedExceptions(Comm comm, Intracomm ic, Intercomm xc, CartComm cc, GraphComm gc,
            Datatype t, Info info, Group g, Request r, Prequest pr, Status st, File file, Win win, Op op,
            Int2.Data i2, ShortInt.Data si, LongInt.Data li, FloatInt.Data fi, DoubleInt.Data di, Struct.Data sd,
            CartParms cp, GraphParms gp, ShiftParms sp, DistGraphNeighbors dgn, Version v, Particle particle) {
        Object o = null;
        int[] ia = new int[4];
        byte[] ba = new byte[4];
        char[] ca = new char[4];
        short[] sa = new short[4];
        long[] la = new long[4];
        float[] fa = new float[4];
        double[] da = new double[4];

        int k = MPI.THREAD_SINGLE + MPI.THREAD_FUNNELED + MPI.THREAD_SERIALIZED + MPI.THREAD_MULTIPLE
                + MPI.GRAPH + MPI.DIST_GRAPH + MPI.CART + MPI.ANY_SOURCE + MPI.ANY_TAG + MPI.PROC_NULL
                + MPI.UNDEFINED + MPI.IDENT + MPI.CONGRUENT + MPI.SIMILAR + MPI.UNEQUAL + MPI.TAG_UB + MPI.HOST
                + MPI.IO + MPI.WTIME_IS_GLOBAL + MPI.APPNUM + MPI.LASTUSEDCODE + MPI.UNIVERSE_SIZE + MPI.WIN_BASE
                + MPI.WIN_SIZE + MPI.WIN_DISP_UNIT + MPI.VERSION + MPI.SUBVERSION + MPI.ROOT + MPI.KEYVAL_INVALID
                + MPI.BSEND_OVERHEAD + MPI.MAX_OBJECT_NAME + MPI.MAX_PORT_NAME + MPI.MAX_DATAREP_STRING
                + MPI.MAX_INFO_KEY + MPI.MAX_INFO_VAL + MPI.ORDER_C + MPI.ORDER_FORTRAN + MPI.DISTRIBUTE_BLOCK
                + MPI.DISTRIBUTE_CYCLIC + MPI.DISTRIBUTE_NONE + MPI.DISTRIBUTE_DFLT_DARG + MPI.MODE_CREATE
                + MPI.MODE_RDONLY + MPI.MODE_WRONLY + MPI.MODE_RDWR + MPI.MODE_DELETE_ON_CLOSE
                + MPI.MODE_UNIQUE_OPEN + MPI.MODE_EXCL + MPI.MODE_APPEND + MPI.MODE_SEQUENTIAL
                + MPI.DISPLACEMENT_CURRENT + MPI.SEEK_SET + MPI.SEEK_CUR + MPI.SEEK_END + MPI.MODE_NOCHECK
                + MPI.MODE_NOPRECEDE + MPI.MODE_NOPUT + MPI.MODE_NOSTORE + MPI.MODE_NOSUCCEED + MPI.LOCK_EXCLUSIVE
                + MPI.LOCK_SHARED;
        k += MPI.SUCCESS + MPI.ERR_BUFFER + MPI.ERR_COUNT + MPI.ERR_TYPE + MPI.ERR_TAG + MPI.ERR_COMM
                + MPI.ERR_RANK + MPI.ERR_REQUEST + MPI.ERR_ROOT + MPI.ERR_GROUP + MPI.ERR_OP + MPI.ERR_TOPOLOGY
                + MPI.ERR_DIMS + MPI.ERR_ARG + MPI.ERR_UNKNOWN + MPI.ERR_TRUNCATE + MPI.ERR_OTHER + MPI.ERR_INTERN
                + MPI.ERR_IN_STATUS + MPI.ERR_PENDING + MPI.ERR_ACCESS + MPI.ERR_AMODE + MPI.ERR_ASSERT
                + MPI.ERR_BAD_FILE + MPI.ERR_BASE + MPI.ERR_CONVERSION + MPI.ERR_DISP + MPI.ERR_DUP_DATAREP
                + MPI.ERR_FILE_EXISTS + MPI.ERR_FILE_IN_USE + MPI.ERR_FILE + MPI.ERR_INFO_KEY + MPI.ERR_INFO_NOKEY
                + MPI.ERR_INFO_VALUE + MPI.ERR_INFO + MPI.ERR_IO + MPI.ERR_KEYVAL + MPI.ERR_LOCKTYPE + MPI.ERR_NAME
                + MPI.ERR_NO_MEM + MPI.ERR_NOT_SAME + MPI.ERR_NO_SPACE + MPI.ERR_NO_SUCH_FILE + MPI.ERR_PORT
                + MPI.ERR_QUOTA + MPI.ERR_READ_ONLY + MPI.ERR_RMA_CONFLICT + MPI.ERR_RMA_SYNC + MPI.ERR_SERVICE
                + MPI.ERR_SIZE + MPI.ERR_SPAWN + MPI.ERR_UNSUPPORTED_DATAREP + MPI.ERR_UNSUPPORTED_OPERATION
                + MPI.ERR_WIN + MPI.ERR_LASTCODE + MPI.ERR_SYSRESOURCE;
        k += Comm.TYPE_SHARED + Win.WIN_NULL + Win.FLAVOR_PRIVATE + Win.FLAVOR_SHARED;

        Intracomm world = MPI.COMM_WORLD;
        world = MPI.COMM_SELF;
        Op ops = MPI.MAX;
        ops = MPI.MIN;
        ops = MPI.SUM;
        ops = MPI.PROD;
        ops = MPI.LAND;
        ops = MPI.BAND;
        ops = MPI.LOR;
        ops = MPI.BOR;
        ops = MPI.LXOR;
        ops = MPI.BXOR;
        ops = MPI.MINLOC;
        ops = MPI.MAXLOC;
        ops = MPI.REPLACE;
        ops = MPI.NO_OP;
        Datatype types = MPI.DATATYPE_NULL;
        types = MPI.BYTE;
        types = MPI.CHAR;
        types = MPI.SHORT;
        types = MPI.BOOLEAN;
        types = MPI.INT;
        types = MPI.LONG;
        types = MPI.FLOAT;
        types = MPI.DOUBLE;
        types = MPI.PACKED;
        types = MPI.FLOAT_COMPLEX;
        types = MPI.DOUBLE_COMPLEX;
        types = MPI.INT2;
        types = MPI.SHORT_INT;
        types = MPI.LONG_INT;
        types = MPI.FLOAT_INT;
        types = MPI.DOUBLE_INT;
        Int2 int2 = MPI.int2;
        ShortInt shortInt = MPI.shortInt;
        LongInt longInt = MPI.longInt;
        FloatInt floatInt = MPI.floatInt;
        DoubleInt doubleInt = MPI.doubleInt;
        Struct someStruct = int2;
        someStruct = shortInt;
        someStruct = longInt;
        someStruct = floatInt;
        someStruct = doubleInt;
        Request nullRequest = MPI.REQUEST_NULL;
        Group empty = MPI.GROUP_EMPTY;
        Info env = MPI.INFO_ENV;
        env = MPI.INFO_NULL;
        Errhandler eh = MPI.ERRORS_ARE_FATAL;
        eh = MPI.ERRORS_RETURN;

        Version version = MPI.getVersion();
        String lib = MPI.getLibVersion();
        MPI.pControl(0, o);
        ByteBuffer bb = MPI.newByteBuffer(8);
        CharBuffer cb = MPI.newCharBuffer(8);
        ShortBuffer sb = MPI.newShortBuffer(8);
        IntBuffer ib = MPI.newIntBuffer(8);
        LongBuffer lb = MPI.newLongBuffer(8);
        FloatBuffer fb = MPI.newFloatBuffer(8);
        DoubleBuffer db = MPI.newDoubleBuffer(8);
        bb = MPI.slice(bb, 1);
        cb = MPI.slice(cb, 1);
        sb = MPI.slice(sb, 1);
        ib = MPI.slice(ib, 1);
        lb = MPI.slice(lb, 1);
        fb = MPI.slice(fb, 1);
        db = MPI.slice(db, 1);
        bb = MPI.slice(ba, 1);
        cb = MPI.slice(ca, 1);
        sb = MPI.slice(sa, 1);
        ib = MPI.slice(ia, 1);
        lb = MPI.slice(la, 1);
        fb = MPI.slice(fa, 1);
        db = MPI.slice(da, 1);

        Comm cl = comm.clone();
        Intracomm icl = ic.clone();
        Intercomm xcl = xc.clone();
        CartComm ccl = cc.clone();
        GraphComm gcl = gc.clone();
        Request idup = comm.getRequest();
        boolean z = comm.isNull();
        Datatype tcl = t.clone();
        z = t.isNull();
        Info icopy = info.clone();
        z = info.isNull();
        z = g.isNull();
        z = r.isNull();
        z = pr.isNull();
        Op user = new Op(new Fold(), true);
        z = user.isCommutative();
        z = op.isNull();
        k = st.getSource() + st.getTag() + st.getError() + st.getIndex();
        Message m = new Message();
        z = m.isNull();
        z = m.isNoProc();
        FileView view = file.getView();
        view = new FileView(0L, t, t, "native");
        long disp = view.getDisp();
        Datatype et = view.getEType();
        et = view.getFileType();
        String rep = view.getDataRep();

        Count count = new Count(3L);
        long cv = count.getCount();
        count.setCount(4L);
        z = count.equals(o);
        k = count.compareTo(o);
        Comparable cmp = count;
        Comparable<Count> typed = count; // Open MPI's Count implements the raw Comparable
        List<Count> counts = new ArrayList<>();
        Collections.sort(counts);
        k = version.getVersion() + version.getSubVersion();

        MPIException ex = new MPIException("message");
        ex = new MPIException(new IllegalStateException());
        k = ex.getErrorCode() + ex.getErrorClass();
        Exception asException = ex;

        k = cp.getDimCount() + cp.getDim(0) + cp.getCoord(0);
        z = cp.getPeriod(0);
        k = gp.getIndexCount() + gp.getIndex(0) + gp.getEdgeCount() + gp.getEdge(0);
        k = sp.getRankSource() + sp.getRankDest();
        k = dgn.getInDegree() + dgn.getOutDegree() + dgn.getSource(0) + dgn.getSourceWeight(0)
                + dgn.getDestination(0) + dgn.getDestinationWeight(0);
        z = dgn.isWeighted();

        DoubleComplex dc = DoubleComplex.get(db);
        dc = DoubleComplex.get(db, 1);
        dc = DoubleComplex.get(da);
        dc = DoubleComplex.get(da, 1);
        dc = DoubleComplex.get(bb);
        dc = DoubleComplex.get(bb, 1);
        double re = dc.getReal() + dc.getImag();
        dc.putReal(re);
        dc.putImag(re);
        DoubleBuffer dcb = dc.getBuffer();
        FloatComplex fc = FloatComplex.get(fb);
        fc = FloatComplex.get(fb, 1);
        fc = FloatComplex.get(fa);
        fc = FloatComplex.get(fa, 1);
        fc = FloatComplex.get(bb);
        fc = FloatComplex.get(bb, 1);
        float fre = fc.getReal() + fc.getImag();
        fc.putReal(fre);
        fc.putImag(fre);
        FloatBuffer fcb = fc.getBuffer();

        int iv = i2.getValue() + i2.getIndex();
        i2.putValue(iv);
        i2.putIndex(iv);
        short sv = si.getValue();
        iv = si.getIndex();
        si.putValue(sv);
        si.putIndex(iv);
        long lv = li.getValue();
        iv = li.getIndex();
        li.putValue(lv);
        li.putIndex(iv);
        float fv = fi.getValue();
        iv = fi.getIndex();
        fi.putValue(fv);
        fi.putIndex(iv);
        double dv = di.getValue();
        iv = di.getIndex();
        di.putValue(dv);
        di.putIndex(iv);
        Struct.Data base = i2;
        ByteBuffer structBuffer = sd.getBuffer();
        Struct chained = particle.setOffset(64);
        k = particle.addByte() + particle.addByte(2) + particle.addChar() + particle.addChar(2) + particle.addShort()
                + particle.addShort(2) + particle.addInt() + particle.addInt(2) + particle.addLong()
                + particle.addLong(2) + particle.addFloat() + particle.addFloat(2) + particle.addDouble()
                + particle.addDouble(2);

        Freeable fr = comm;
        fr = t;
        fr = info;
        fr = g;
        fr = r;
        fr = op;
        fr = win;
        fr = new Resource();
        Cloneable cln = comm;
        cln = t;
        cln = info;
        Request asRequest = pr;
        Comm asComm = xc;
        asComm = ic;
        Intracomm asIntra = cc;
        asIntra = gc;
    }

    /** Members Open MPI declares with {@code throws MPIException}. */
    static void withCheckedExceptions(String[] args, Comm comm, Intracomm ic, Intercomm xc, CartComm cc,
            GraphComm gc, Datatype t, Info info, Group g, Request r, Prequest pr, Status st, Op op, Win win, File file,
            Message m, Buffer b, Object o) throws MPIException {
        int k;
        boolean z;
        int[] ia = new int[4];
        byte[] ba = new byte[64];
        Request req;
        Prequest preq;
        Status s;
        Datatype[] ta = {t};

        String[] rest = MPI.Init(args);
        k = MPI.InitThread(args, MPI.THREAD_MULTIPLE);
        k = MPI.queryThread();
        z = MPI.isThreadMain();
        MPI.Finalize();
        double time = MPI.wtime() + MPI.wtick();
        String name = MPI.getProcessorName();
        z = MPI.isInitialized();
        z = MPI.isFinalized();
        MPI.attachBuffer(ba);
        byte[] detached = MPI.detachBuffer();

        // Comm
        Comm c = comm.dup();
        c = comm.iDup();
        c = comm.dupWithInfo(info);
        k = comm.getSize() + comm.getRank();
        k = Comm.compare(comm, c);
        comm.free();
        comm.setInfo(info);
        Info ci = comm.getInfo();
        comm.disconnect();
        Group cg = comm.getGroup();
        z = comm.isInter();
        Intercomm inter = comm.createIntercomm(ic, 0, 1, 2);
        comm.send(o, 1, t, 0, 0);
        s = comm.recv(o, 1, t, 0, 0);
        s = comm.sendRecv(o, 1, t, 0, 0, o, 1, t, 0, 0);
        s = comm.sendRecvReplace(o, 1, t, 0, 0, 0, 0);
        comm.bSend(o, 1, t, 0, 0);
        comm.sSend(o, 1, t, 0, 0);
        comm.rSend(o, 1, t, 0, 0);
        req = comm.iSend(b, 1, t, 0, 0);
        req = comm.ibSend(b, 1, t, 0, 0);
        req = comm.isSend(b, 1, t, 0, 0);
        req = comm.irSend(b, 1, t, 0, 0);
        req = comm.iRecv(b, 1, t, 0, 0);
        preq = comm.sendInit(b, 1, t, 0, 0);
        preq = comm.bSendInit(b, 1, t, 0, 0);
        preq = comm.sSendInit(b, 1, t, 0, 0);
        preq = comm.rSendInit(b, 1, t, 0, 0);
        preq = comm.recvInit(b, 1, t, 0, 0);
        k = comm.pack(o, 1, t, ba, 0);
        k = comm.unpack(ba, 0, o, 1, t);
        k = comm.packSize(1, t);
        s = comm.iProbe(0, 0);
        s = comm.probe(0, 0);
        k = Comm.createKeyval();
        Comm.freeKeyval(k);
        comm.setAttr(k, o);
        Object attr = comm.getAttr(k);
        comm.deleteAttr(k);
        k = comm.getTopology();
        comm.abort(1);
        comm.setErrhandler(MPI.ERRORS_RETURN);
        Errhandler eh = comm.getErrhandler();
        comm.callErrhandler(MPI.ERR_OTHER);
        comm.barrier();
        req = comm.iBarrier();
        comm.bcast(o, 1, t, 0);
        req = comm.iBcast(b, 1, t, 0);
        comm.gather(o, 1, t, o, 1, t, 0);
        comm.gather(o, 1, t, 0);
        req = comm.iGather(b, 1, t, b, 1, t, 0);
        req = comm.iGather(b, 1, t, 0);
        comm.gatherv(o, 1, t, o, ia, ia, t, 0);
        comm.gatherv(o, ia, ia, t, 0);
        comm.gatherv(o, 1, t, 0);
        req = comm.iGatherv(b, 1, t, b, ia, ia, t, 0);
        req = comm.iGatherv(b, ia, ia, t, 0);
        req = comm.iGatherv(b, 1, t, 0);
        comm.scatter(o, 1, t, o, 1, t, 0);
        comm.scatter(o, 1, t, 0);
        req = comm.iScatter(b, 1, t, b, 1, t, 0);
        req = comm.iScatter(b, 1, t, 0);
        comm.scatterv(o, ia, ia, t, o, 1, t, 0);
        comm.scatterv(o, ia, ia, t, 0);
        comm.scatterv(o, 1, t, 0);
        req = comm.iScatterv(b, ia, ia, t, b, 1, t, 0);
        req = comm.iScatterv(b, ia, ia, t, 0);
        req = comm.iScatterv(b, 1, t, 0);
        comm.allGather(o, 1, t, o, 1, t);
        comm.allGather(o, 1, t);
        req = comm.iAllGather(b, 1, t, b, 1, t);
        req = comm.iAllGather(b, 1, t);
        comm.allGatherv(o, 1, t, o, ia, ia, t);
        comm.allGatherv(o, ia, ia, t);
        req = comm.iAllGatherv(b, 1, t, b, ia, ia, t);
        req = comm.iAllGatherv(b, ia, ia, t);
        comm.allToAll(o, 1, t, o, 1, t);
        req = comm.iAllToAll(b, 1, t, b, 1, t);
        comm.allToAllv(o, ia, ia, t, o, ia, ia, t);
        req = comm.iAllToAllv(b, ia, ia, t, b, ia, ia, t);
        comm.allToAllw(b, ia, ia, ta, b, ia, ia, ta);
        req = comm.iAllToAllw(b, ia, ia, ta, b, ia, ia, ta);
        comm.neighborAllGather(o, 1, t, o, 1, t);
        req = comm.iNeighborAllGather(b, 1, t, b, 1, t);
        comm.neighborAllGatherv(o, 1, t, o, ia, ia, t);
        req = comm.iNeighborAllGatherv(b, 1, t, b, ia, ia, t);
        comm.neighborAllToAll(o, 1, t, o, 1, t);
        req = comm.iNeighborAllToAll(b, 1, t, b, 1, t);
        comm.neighborAllToAllv(o, ia, ia, t, o, ia, ia, t);
        req = comm.iNeighborAllToAllv(b, ia, ia, t, b, ia, ia, t);
        comm.reduce(o, o, 1, t, op, 0);
        comm.reduce(o, 1, t, op, 0);
        req = comm.iReduce(b, b, 1, t, op, 0);
        req = comm.iReduce(b, 1, t, op, 0);
        comm.allReduce(o, o, 1, t, op);
        comm.allReduce(o, 1, t, op);
        req = comm.iAllReduce(b, b, 1, t, op);
        req = comm.iAllReduce(b, 1, t, op);
        comm.reduceScatter(o, o, ia, t, op);
        comm.reduceScatter(o, ia, t, op);
        req = comm.iReduceScatter(b, b, ia, t, op);
        req = comm.iReduceScatter(b, ia, t, op);
        comm.reduceScatterBlock(o, o, 1, t, op);
        comm.reduceScatterBlock(o, 1, t, op);
        req = comm.iReduceScatterBlock(b, b, 1, t, op);
        req = comm.iReduceScatterBlock(b, 1, t, op);
        Comm.reduceLocal(o, o, 1, t, op);
        comm.setName("name");
        name = comm.getName();

        // Intracomm
        Intracomm i = ic.dup();
        i = ic.iDup();
        i = ic.dupWithInfo(info);
        i = ic.split(0, 0);
        i = ic.splitType(Comm.TYPE_SHARED, 0, info);
        i = ic.create(g);
        i = ic.createGroup(g, 0);
        CartComm cart = ic.createCart(ia, new boolean[4], true);
        GraphComm graph = ic.createGraph(ia, ia, false);
        graph = ic.createDistGraph(ia, ia, ia, ia, info, false);
        graph = ic.createDistGraph(ia, ia, ia, info, false);
        graph = ic.createDistGraphAdjacent(ia, ia, ia, ia, info, false);
        graph = ic.createDistGraphAdjacent(ia, ia, info, false);
        ic.scan(o, o, 1, t, op);
        ic.scan(o, 1, t, op);
        req = ic.iScan(b, b, 1, t, op);
        req = ic.iScan(b, 1, t, op);
        ic.exScan(o, o, 1, t, op);
        ic.exScan(o, 1, t, op);
        req = ic.iExScan(b, b, 1, t, op);
        req = ic.iExScan(b, 1, t, op);
        String port = Intracomm.openPort();
        port = Intracomm.openPort(info);
        Intracomm.closePort(port);
        inter = ic.accept(port, 0);
        inter = ic.accept(port, info, 0);
        inter = ic.connect(port, 0);
        inter = ic.connect(port, info, 0);
        Intracomm.publishName("service", port);
        Intracomm.publishName("service", info, port);
        Intracomm.unpublishName("service", port);
        Intracomm.unpublishName("service", info, port);
        port = Intracomm.lookupName("service");
        port = Intracomm.lookupName("service", info);
        inter = ic.spawn("cmd", args, 1, info, 0, ia);
        inter = ic.spawnMultiple(args, new String[][] {args}, ia, new Info[] {info}, 0, ia);

        // Intercomm
        Intercomm x = xc.dup();
        x = xc.iDup();
        x = xc.dupWithInfo(info);
        k = xc.getRemoteSize();
        Group remote = xc.getRemoteGroup();
        i = xc.merge(true);
        x = Intercomm.getParent();

        // CartComm
        CartComm cd = cc.dup();
        cd = cc.iDup();
        cd = cc.dupWithInfo(info);
        CartParms parms = cc.getTopo();
        k = cc.getRank(ia);
        int[] coords = cc.getCoords(0);
        ShiftParms shift = cc.shift(0, 1);
        cd = cc.sub(new boolean[] {true});
        k = cc.map(ia, new boolean[4]);
        CartComm.createDims(4, ia);

        // GraphComm
        GraphComm gd = gc.dup();
        gd = gc.iDup();
        gd = gc.dupWithInfo(info);
        GraphParms gparms = gc.getDims();
        int[] neighbors = gc.getNeighbors(0);
        DistGraphNeighbors dgn = gc.getDistGraphNeighbors();
        k = gc.map(ia, ia);

        // Datatype
        k = t.getLb() + t.getExtent() + t.getTrueLb() + t.getTrueExtent() + t.getSize();
        t.commit();
        t.free();
        Datatype d = t.dup();
        d = Datatype.createContiguous(2, t);
        d = Datatype.createVector(2, 1, 2, t);
        d = Datatype.createHVector(2, 1, 8, t);
        d = Datatype.createIndexed(ia, ia, t);
        d = Datatype.createHIndexed(ia, ia, t);
        d = Datatype.createStruct(ia, ia, ta);
        d = Datatype.createResized(t, 0, 2);
        t.setName("type");
        name = t.getName();
        k = Datatype.createKeyval();
        Datatype.freeKeyval(k);
        t.setAttr(k, o);
        attr = t.getAttr(k);
        t.deleteAttr(k);

        // Struct and its predefined kinds
        Particle particle = new Particle();
        k = particle.getExtent();
        d = particle.getType();
        ByteBuffer bb = MPI.newByteBuffer(256);
        Particle.Data pd = particle.getData(bb);
        pd = particle.getData(bb, 1);
        pd = particle.getData(ba);
        pd = particle.getData(ba, 1);
        Pair pair = new Pair(particle);
        Int2.Data i2 = MPI.int2.getData(bb);
        ShortInt.Data si = MPI.shortInt.getData(bb, 1);
        LongInt.Data li = MPI.longInt.getData(ba);
        FloatInt.Data fi = MPI.floatInt.getData(ba, 1);
        DoubleInt.Data di = MPI.doubleInt.getData(bb);

        // UserFunction called directly
        Fold fold = new Fold();
        fold.call(o, o, 1, t);
        fold.call(bb, bb, 1, t);
        UserFunction anonymous = new UserFunction() {
            @Override
            public void call(Object inVec, Object inOutVec, int count, Datatype type) {
            }
        };

        // Op
        op.free();

        // Group
        k = g.getSize() + g.getRank();
        g.free();
        int[] translated = Group.translateRanks(g, ia, g);
        k = Group.compare(g, g);
        Group gg = Group.union(g, g);
        gg = Group.intersection(g, g);
        gg = Group.difference(g, g);
        gg = g.incl(ia);
        gg = g.excl(ia);
        gg = g.rangeIncl(new int[][] {{0, 1, 1}});
        gg = g.rangeExcl(new int[][] {{0, 1, 1}});

        // Info
        Info created = new Info();
        info.set("key", "value");
        String value = info.get("key");
        info.delete("key");
        k = info.size();
        String key = info.getKey(0);
        Info copy = info.dup();
        info.free();

        // Request and Prequest
        r.free();
        r.cancel();
        s = r.waitStatus();
        r.waitFor();
        s = r.testStatus();
        s = r.getStatus();
        z = r.test();
        Request[] rs = {r, pr};
        s = Request.waitAnyStatus(rs);
        k = Request.waitAny(rs);
        s = Request.testAnyStatus(rs);
        k = Request.testAny(rs);
        Status[] ss = Request.waitAllStatus(rs);
        Request.waitAll(rs);
        ss = Request.testAllStatus(rs);
        z = Request.testAll(rs);
        ss = Request.waitSomeStatus(rs);
        int[] some = Request.waitSome(rs);
        ss = Request.testSomeStatus(rs);
        some = Request.testSome(rs);
        pr.start();
        Prequest.startAll(new Prequest[] {pr});

        // Status
        k = st.getCount(t) + st.getElements(t);
        z = st.isCancelled();
        Count elements = st.getElementsX(t);
        st.setElements(t, 1);
        st.setElementsX(t, elements);
        st.setCancelled(false);

        // Message
        s = m.mProbe(0, 0, comm);
        s = m.imProbe(0, 0, comm);
        s = m.mRecv(o, 1, t);
        req = m.imRecv(b, 1, t);

        // Win
        Win w = new Win(b, 4, 1, info, comm);
        w = new Win(4, 1, info, comm, b, Win.FLAVOR_PRIVATE);
        w = new Win(info, comm);
        win.attach(b, 4);
        win.detach(b);
        Group wg = win.getGroup();
        win.put(b, 1, t, 0, 0, 1, t);
        win.get(b, 1, t, 0, 0, 1, t);
        win.accumulate(b, 1, t, 0, 0, 1, t, op);
        win.fence(0);
        win.start(g, 0);
        win.complete();
        win.post(g, 0);
        win.waitFor();
        z = win.test();
        win.lock(MPI.LOCK_SHARED, 0, 0);
        win.unlock(0);
        win.setErrhandler(MPI.ERRORS_RETURN);
        eh = win.getErrhandler();
        win.callErrhandler(MPI.ERR_OTHER);
        k = Win.createKeyval();
        Win.freeKeyval(k);
        win.setAttr(k, o);
        attr = win.getAttr(k);
        win.deleteAttr(k);
        win.free();
        Info wi = win.getInfo();
        win.setInfo(info);
        req = win.rPut(b, 1, t, 0, 0, 1, t);
        req = win.rGet(b, 1, t, 0, 0, 1, t);
        req = win.rAccumulate(b, 1, t, 0, 0, 1, t, op);
        win.getAccumulate(b, 1, t, b, 1, t, 0, 0, 1, t, op);
        req = win.rGetAccumulate(b, 1, t, b, 1, t, 0, 0, 1, t, op);
        win.lockAll(0);
        win.unlockAll();
        win.sync();
        win.flush(0);
        win.flushAll();
        win.compareAndSwap(b, b, b, t, 0, 0);
        win.fetchAndOp(b, b, t, 0, 0, op);
        win.flushLocal(0);
        win.flushLocalAll();
        name = win.getName();
        win.setName("window");

        // File
        File f = new File(comm, "file", MPI.MODE_RDWR | MPI.MODE_CREATE);
        f = new File(comm, "file", MPI.MODE_RDONLY, info);
        file.close();
        File.delete("file");
        File.delete("file", info);
        file.setSize(8L);
        file.preallocate(8L);
        long size = file.getSize();
        Group fg = file.getGroup();
        k = file.getAMode();
        file.setInfo(info);
        Info fi2 = file.getInfo();
        file.setView(0L, t, t, "native");
        file.setView(0L, t, t, "native", info);
        s = file.readAt(0L, o, 1, t);
        s = file.readAtAll(0L, o, 1, t);
        s = file.writeAt(0L, o, 1, t);
        s = file.writeAtAll(0L, o, 1, t);
        req = file.iReadAt(0L, b, 1, t);
        req = file.iReadAtAll(0L, b, 1, t);
        req = file.iWriteAt(0L, b, 1, t);
        req = file.iWriteAtAll(0L, b, 1, t);
        s = file.read(o, 1, t);
        s = file.readAll(o, 1, t);
        s = file.write(o, 1, t);
        s = file.writeAll(o, 1, t);
        req = file.iRead(b, 1, t);
        req = file.iReadAll(b, 1, t);
        req = file.iWrite(b, 1, t);
        req = file.iWriteAll(b, 1, t);
        file.seek(0L, MPI.SEEK_SET);
        long pos = file.getPosition() + file.getByteOffset(0L);
        s = file.readShared(o, 1, t);
        s = file.writeShared(o, 1, t);
        req = file.iReadShared(b, 1, t);
        req = file.iWriteShared(b, 1, t);
        s = file.readOrdered(o, 1, t);
        s = file.writeOrdered(o, 1, t);
        file.seekShared(0L, MPI.SEEK_END);
        pos = file.getPositionShared();
        file.readAtAllBegin(0L, o, 1, t);
        s = file.readAtAllEnd(o);
        file.writeAtAllBegin(0L, o, 1, t);
        s = file.writeAtAllEnd(o);
        file.readAllBegin(o, 1, t);
        s = file.readAllEnd(o);
        file.writeAllBegin(o, 1, t);
        s = file.writeAllEnd(o);
        file.readOrderedBegin(o, 1, t);
        s = file.readOrderedEnd(o);
        file.writeOrderedBegin(o, 1, t);
        s = file.writeOrderedEnd(o);
        k = file.getTypeExtent(t);
        file.setAtomicity(true);
        z = file.getAtomicity();
        file.sync();
        file.setErrhandler(MPI.ERRORS_RETURN);
        eh = file.getErrhandler();
        file.callErrhandler(MPI.ERR_IO);

        Freeable fr = new Resource();
        fr.free();
    }
}

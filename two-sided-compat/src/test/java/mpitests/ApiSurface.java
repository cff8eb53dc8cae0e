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
import mpitests.ApiSurfaceTypes.Flags;
import mpitests.ApiSurfaceTypes.Fold;
import mpitests.ApiSurfaceTypes.Pair;
import mpitests.ApiSurfaceTypes.Particle;
import mpitests.ApiSurfaceTypes.Resource;

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
    }
}

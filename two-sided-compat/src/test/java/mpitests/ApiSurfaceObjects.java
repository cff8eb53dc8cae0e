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
 * The second half of {@link ApiSurface}'s members declared with {@code throws MPIException}: datatypes, structs, user
 * functions, operations, groups, info, requests, status, messages, windows and files (ApiSurface has the
 * communicators). Never run: it only has to compile; {@link ApiSurfaceTest} checks it was compiled.
 */
@SuppressWarnings({"unused", "rawtypes", "unchecked"})
final class ApiSurfaceObjects {
    private ApiSurfaceObjects() {
    }

    /** Members Open MPI declares with {@code throws MPIException}: the objects beside the communicators. */
    static void withCheckedExceptions(String[] args, Comm comm, Intracomm ic, Intercomm xc, CartComm cc,
            GraphComm gc, Datatype t, Info info, Group g, Request r, Prequest pr, Status st, Op op, Win win, File file,
            Message m, Buffer b, Object o) throws MPIException {
        int k;
        boolean z;
        int[] ia = new int[4];
        byte[] ba = new byte[64];
        Request req;
        Prequest preq;
        String name;
        Object attr;
        Errhandler eh;
        Status s;
        Datatype[] ta = {t};

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

package mpitests;

import static mpitests.Check.check;
import static mpitests.Check.eq;

import java.nio.IntBuffer;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Message;
import mpi.Prequest;
import mpi.Request;
import mpi.Status;

/**
 * What {@link Status#getIndex} and the request-array calls return, as Open MPI's binding does: a status
 * carries the index of its request only when it comes from waitAny, testAny, waitSome or testSome (UNDEFINED
 * there when no request was active); every other status (receive, probe, wait, waitAll, testAll) has index 0.
 * With only null requests waitSome and testSome give null, with none complete testSome gives an empty array.
 */
public final class StatusIndex {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int me = world.getRank();
        int n = world.getSize();
        int right = (me + 1) % n;
        int left = (me + n - 1) % n;

        // plain statuses have index 0
        int[] in = new int[2];
        Status s = world.sendRecv(new int[] {me, me}, 2, MPI.INT, right, 1, in, 2, MPI.INT, left, 1);
        eq(0, s.getIndex(), "sendRecv status index");
        eq(left, s.getSource(), "sendRecv source");
        world.send(new int[] {me}, 1, MPI.INT, right, 2);
        Status p = world.probe(left, 2);
        eq(0, p.getIndex(), "probe status index");
        s = world.recv(in, 1, MPI.INT, left, 2);
        eq(0, s.getIndex(), "recv status index");
        eq(0, world.recv(in, 1, MPI.INT, MPI.PROC_NULL, 3).getIndex(), "PROC_NULL receive status index");
        Message m = new Message();
        eq(0, m.mProbe(MPI.PROC_NULL, 0, world).getIndex(), "mProbe PROC_NULL status index");
        eq(0, MPI.REQUEST_NULL.waitStatus().getIndex(), "null request's status index");

        // waitAll/testAll: index 0 in every status; waitAny/waitSome: the request's index
        int k = 3;
        IntBuffer[] bufs = new IntBuffer[k];
        Request[] rs = new Request[k];
        for (int t = 0; t < k; t++) {
            bufs[t] = MPI.newIntBuffer(1);
            rs[t] = world.iRecv(bufs[t], 1, MPI.INT, left, 10 + t);
        }
        int[] none = Request.testSome(rs);
        check(none != null && none.length == 0, "testSome with nothing complete gives an empty array");
        Status[] noneStatus = Request.testSomeStatus(rs);
        check(noneStatus != null && noneStatus.length == 0,
                "testSomeStatus with nothing complete gives an empty array");
        check(Request.testAnyStatus(rs) == null, "testAnyStatus with nothing complete is null");
        check(Request.testAllStatus(rs) == null, "testAllStatus with nothing complete is null");
        world.barrier();
        Request[] ss = new Request[k];
        for (int t = 0; t < k; t++) {
            IntBuffer out = MPI.newIntBuffer(1);
            out.put(0, 100 * me + t);
            ss[t] = world.iSend(out, 1, MPI.INT, right, 10 + t);
        }
        Status[] all = Request.waitAllStatus(rs);
        for (int t = 0; t < k; t++) {
            eq(0, all[t].getIndex(), "waitAllStatus index of " + t);
            eq(10 + t, all[t].getTag(), "waitAllStatus tag of " + t);
            eq(100 * left + t, bufs[t].get(0), "data of " + t);
        }
        Request.waitAll(ss);

        rs[0] = MPI.REQUEST_NULL; // a null request in the array
        for (int t = 1; t < k; t++) {
            rs[t] = world.iRecv(bufs[t], 1, MPI.INT, left, 20 + t);
        }
        for (int t = 1; t < k; t++) {
            IntBuffer out = MPI.newIntBuffer(1);
            out.put(0, t);
            ss[t] = world.iSend(out, 1, MPI.INT, right, 20 + t);
        }
        Status any = Request.waitAnyStatus(rs);
        int first = any.getIndex();
        check(first == 1 || first == 2, "waitAnyStatus index is that of an active request: " + first);
        eq(20 + first, any.getTag(), "waitAnyStatus tag");
        int other = 3 - first;
        Status[] some = Request.waitSomeStatus(rs);
        check(some != null && some.length == 1, "waitSomeStatus completes the last one");
        eq(other, some[0].getIndex(), "waitSomeStatus index");
        Request.waitAll(new Request[] {ss[1], ss[2]});

        // only null requests
        check(Request.waitSome(rs) == null, "waitSome over null requests is null");
        check(Request.waitSomeStatus(rs) == null, "waitSomeStatus over null requests is null");
        check(Request.testSome(rs) == null, "testSome over null requests is null");
        check(Request.testSomeStatus(rs) == null, "testSomeStatus over null requests is null");
        eq(MPI.UNDEFINED, Request.waitAnyStatus(rs).getIndex(), "waitAnyStatus over null requests");
        eq(MPI.UNDEFINED, Request.testAnyStatus(rs).getIndex(), "testAnyStatus over null requests");
        Status[] nulls = Request.testAllStatus(rs);
        check(nulls != null && nulls.length == k, "testAllStatus over null requests gives statuses");
        eq(0, nulls[1].getIndex(), "testAllStatus index");
        eq(MPI.ANY_SOURCE, nulls[1].getSource(), "empty status source");

        // a persistent request's status
        Prequest pr = world.recvInit(bufs[0], 1, MPI.INT, left, 30);
        Prequest ps = world.sendInit(bufs[1], 1, MPI.INT, right, 30);
        Prequest.startAll(new Prequest[] {pr, ps});
        Status ps0 = pr.waitStatus();
        ps.waitFor();
        eq(0, ps0.getIndex(), "persistent receive status index");
        eq(30, ps0.getTag(), "persistent receive tag");
        check(!pr.isNull() && !ps.isNull(), "persistent requests stay after completion");
        pr.free();
        ps.free();

        MPI.Finalize();
        if (me == 0) {
            System.out.println("StatusIndex OK on " + n + " ranks");
        }
    }
}

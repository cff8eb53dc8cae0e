package mpitests;

import static mpitests.Check.check;
import static mpitests.Check.eq;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.util.Arrays;
import mpi.Comm;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Message;
import mpi.Prequest;
import mpi.Request;
import mpi.Status;

/**
 * Point-to-point messaging through the mpi package: every element type, arrays and buffers, blocking,
 * nonblocking, persistent, probes, cancel, matched probes, derived types, large messages. Needs at least 2 ranks.
 */
public final class PointToPoint {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int me = world.getRank();
        int n = world.getSize();
        check(n >= 2, "needs 2 ranks");
        int right = (me + 1) % n;
        int left = (me + n - 1) % n;

        ring(world, me, n, right, left);
        statusAndWildcards(world, me, n);
        buffers(world, me, right, left);
        nonblocking(world, me, n, right, left);
        probes(world, me, n);
        persistent(world, me, right, left);
        cancelAndMatchedProbe(world, me, n);
        derivedAndLarge(world, me, n, right, left);
        largeOnTwoCommunicators(world, me, n, right, left);
        packUnpack(world, me, n);
        procNull(world);

        world.barrier();
        MPI.Finalize();
        check(MPI.isFinalized(), "finalized");
        if (me == 0) {
            System.out.println("PointToPoint OK on " + n + " ranks");
        }
    }

    /** Every Java element type around the ring, with send/recv, sendRecv and sendRecvReplace. */
    private static void ring(Intracomm world, int me, int n, int right, int left) throws MPIException {
        int[] i = {me, me * 10};
        int[] ii = new int[2];
        if (me % 2 == 0) {
            world.send(i, 2, MPI.INT, right, 1);
            world.recv(ii, 2, MPI.INT, left, 1);
        } else {
            world.recv(ii, 2, MPI.INT, left, 1);
            world.send(i, 2, MPI.INT, right, 1);
        }
        eq(new int[] {left, left * 10}, ii, "int ring");

        double[] d = {me + 0.5};
        double[] dd = new double[1];
        world.sendRecv(d, 1, MPI.DOUBLE, right, 2, dd, 1, MPI.DOUBLE, left, 2);
        eq(left + 0.5, dd[0], "double sendRecv");

        long[] l = {Long.MAX_VALUE - me};
        long[] ll = new long[1];
        world.sendRecv(l, 1, MPI.LONG, right, 3, ll, 1, MPI.LONG, left, 3);
        eq(Long.MAX_VALUE - left, ll[0], "long");

        byte[] b = {(byte) me, (byte) -me};
        byte[] bb = new byte[2];
        world.sendRecv(b, 2, MPI.BYTE, right, 4, bb, 2, MPI.BYTE, left, 4);
        eq((byte) left, bb[0], "byte");
        eq((byte) -left, bb[1], "byte");

        char[] c = {(char) ('a' + me)};
        char[] cc = new char[1];
        world.sendRecv(c, 1, MPI.CHAR, right, 5, cc, 1, MPI.CHAR, left, 5);
        eq('a' + left, cc[0], "char");

        short[] s = {(short) (-1000 * me)};
        short[] ss = new short[1];
        world.sendRecv(s, 1, MPI.SHORT, right, 6, ss, 1, MPI.SHORT, left, 6);
        eq(-1000 * left, ss[0], "short");

        float[] f = {me * 1.25f};
        float[] ff = new float[1];
        world.sendRecv(f, 1, MPI.FLOAT, right, 7, ff, 1, MPI.FLOAT, left, 7);
        eq(left * 1.25f, ff[0], "float");

        boolean[] z = {me % 2 == 0, me % 2 == 1};
        boolean[] zz = new boolean[2];
        world.sendRecv(z, 2, MPI.BOOLEAN, right, 8, zz, 2, MPI.BOOLEAN, left, 8);
        check(zz[0] == (left % 2 == 0) && zz[1] == (left % 2 == 1), "boolean");

        int[] rep = {me, me, me};
        Status st = world.sendRecvReplace(rep, 3, MPI.INT, right, 9, left, 9);
        eq(new int[] {left, left, left}, rep, "sendRecvReplace");
        eq(left, st.getSource(), "sendRecvReplace source");
        eq(3, st.getCount(MPI.INT), "sendRecvReplace count");

        // the send modes
        int[] one = {me};
        int[] got = new int[1];
        if (me == 0) {
            world.sSend(one, 1, MPI.INT, 1, 10);
            MPI.attachBuffer(new byte[4 + MPI.BSEND_OVERHEAD]);
            world.bSend(one, 1, MPI.INT, 1, 11);
            MPI.detachBuffer();
            world.rSend(one, 1, MPI.INT, 1, 12);
        } else if (me == 1) {
            for (int t = 10; t <= 12; t++) {
                world.recv(got, 1, MPI.INT, 0, t);
                eq(0, got[0], "send mode " + t);
            }
        }
    }

    private static void statusAndWildcards(Intracomm world, int me, int n) throws MPIException {
        if (me == 0) {
            int[] in = new int[4];
            boolean[] seen = new boolean[n];
            for (int k = 1; k < n; k++) {
                Status s = world.recv(in, 4, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
                int src = s.getSource();
                check(!seen[src], "source reported twice");
                seen[src] = true;
                eq(100 + src, s.getTag(), "tag of " + src);
                eq(src, s.getCount(MPI.INT), "count from " + src);
                eq(src, s.getElements(MPI.INT), "elements from " + src);
                eq(src * 4L, s.getCount(MPI.BYTE), "count in bytes");
                eq(MPI.SUCCESS, s.getError(), "error");
                check(!s.isCancelled(), "not cancelled");
                for (int j = 0; j < src; j++) {
                    eq(src, in[j], "data from " + src);
                }
            }
        } else {
            int[] out = new int[me];
            Arrays.fill(out, me);
            world.send(out, me, MPI.INT, 0, 100 + me);
        }
        world.barrier();
    }

    /** Direct buffers (views too), heap buffers, slices of arrays. */
    private static void buffers(Intracomm world, int me, int right, int left) throws MPIException {
        IntBuffer out = MPI.newIntBuffer(5);
        for (int k = 0; k < 5; k++) {
            out.put(k, me * 100 + k);
        }
        IntBuffer in = MPI.newIntBuffer(5);
        world.sendRecv(out, 5, MPI.INT, right, 20, in, 5, MPI.INT, left, 20);
        for (int k = 0; k < 5; k++) {
            eq(left * 100 + k, in.get(k), "direct IntBuffer " + k);
        }
        // a slice of a direct buffer starts at its first element
        DoubleBuffer dout = MPI.newDoubleBuffer(4);
        dout.put(2, me + 0.25);
        dout.put(3, me + 0.75);
        DoubleBuffer din = MPI.newDoubleBuffer(4);
        world.sendRecv(MPI.slice(dout, 2), 2, MPI.DOUBLE, right, 21, MPI.slice(din, 1), 2, MPI.DOUBLE, left, 21);
        eq(0.0, din.get(0), "untouched");
        eq(left + 0.25, din.get(1), "slice 1");
        eq(left + 0.75, din.get(2), "slice 2");
        // heap buffers and slices of arrays
        int[] arr = {-1, -1, -1, -1, -1, -1};
        int[] src = {7, 8, 9, me, me + 1, me + 2};
        world.sendRecv(MPI.slice(src, 3), 3, MPI.INT, right, 22, MPI.slice(arr, 2), 3, MPI.INT, left, 22);
        eq(new int[] {-1, -1, left, left + 1, left + 2, -1}, arr, "array slices");
        ByteBuffer heap = ByteBuffer.allocate(8);
        heap.putInt(0, me);
        ByteBuffer hin = ByteBuffer.allocate(8);
        world.sendRecv(heap, 8, MPI.BYTE, right, 23, hin, 8, MPI.BYTE, left, 23);
        eq(left, hin.getInt(0), "heap ByteBuffer");
        IntBuffer wrapped = IntBuffer.wrap(new int[] {0, 0, 0, 0, 0});
        world.sendRecv(IntBuffer.wrap(new int[] {me}), 1, MPI.INT, right, 24, MPI.slice(wrapped.array(), 4), 1,
                MPI.INT, left, 24);
        eq(left, wrapped.get(4), "heap IntBuffer slice");
    }

    private static void nonblocking(Intracomm world, int me, int n, int right, int left) throws MPIException {
        IntBuffer sbuf = MPI.newIntBuffer(3);
        IntBuffer rbuf = MPI.newIntBuffer(3);
        sbuf.put(0, me).put(1, me * 2).put(2, me * 3);
        Request r = world.iRecv(rbuf, 3, MPI.INT, left, 30);
        Request s = world.iSend(sbuf, 3, MPI.INT, right, 30);
        check(!r.isNull(), "active request is not null");
        Status st = r.waitStatus();
        s.waitFor();
        check(r.isNull() && s.isNull(), "completed requests become null");
        eq(left, st.getSource(), "iRecv source");
        eq(30, st.getTag(), "iRecv tag");
        eq(left * 3, rbuf.get(2), "iRecv data");
        Status again = r.waitStatus();
        eq(MPI.ANY_SOURCE, again.getSource(), "waiting a null request gives an empty status");
        check(r.test(), "testing a null request is true");

        // waitAll, waitAny, testAny, waitSome, testSome over several tags
        int k = 4;
        IntBuffer[] ins = new IntBuffer[k];
        Request[] rs = new Request[k];
        for (int t = 0; t < k; t++) {
            ins[t] = MPI.newIntBuffer(1);
            rs[t] = world.iRecv(ins[t], 1, MPI.INT, left, 40 + t);
        }
        eq(MPI.UNDEFINED, Request.testAny(rs), "nothing sent yet");
        check(Request.testSomeStatus(rs).length == 0, "testSome finds nothing");
        check(!Request.testAll(rs), "testAll false");
        world.barrier(); // nobody sends before every rank has tested its receives
        Request[] ss = new Request[k];
        IntBuffer[] outs = new IntBuffer[k];
        for (int t = k - 1; t >= 0; t--) {
            outs[t] = MPI.newIntBuffer(1);
            outs[t].put(0, me * 1000 + t);
            ss[t] = world.isSend(outs[t], 1, MPI.INT, right, 40 + t);
        }
        Status any = Request.waitAnyStatus(rs);
        int first = any.getIndex();
        check(first >= 0 && first < k && rs[first].isNull(), "waitAny completes one");
        eq(40 + first, any.getTag(), "waitAny status tag");
        int done = 1;
        while (done < k) {
            int[] some = Request.waitSome(rs);
            check(some != null && some.length > 0, "waitSome returns at least one");
            done += some.length;
        }
        check(Request.waitSome(rs) == null, "waitSome with no active request returns null");
        eq(MPI.UNDEFINED, Request.waitAny(rs), "waitAny with no active request");
        Status[] sst = Request.waitAllStatus(ss);
        eq(k, sst.length, "statuses");
        for (int t = 0; t < k; t++) {
            eq(left * 1000 + t, ins[t].get(0), "iRecv tag " + (40 + t));
        }
        check(Request.testAll(rs), "testAll over null requests");

        // a test loop
        IntBuffer tin = MPI.newIntBuffer(1);
        Request tr = world.iRecv(tin, 1, MPI.INT, left, 50);
        world.barrier();
        IntBuffer tout = MPI.newIntBuffer(1);
        tout.put(0, 77);
        Request ts = world.iSend(tout, 1, MPI.INT, right, 50);
        Status got;
        while ((got = tr.testStatus()) == null) {
            Thread.onSpinWait();
        }
        eq(1, got.getCount(MPI.INT), "testStatus count");
        eq(77, tin.get(0), "test loop data");
        Request.waitAll(new Request[] {ts});
    }

    private static void probes(Intracomm world, int me, int n) throws MPIException {
        world.barrier();
        if (me == 0) {
            check(world.iProbe(1, 60) == null, "nothing to probe yet");
        }
        world.barrier();
        if (me == 1) {
            world.send(new double[] {1, 2, 3}, 3, MPI.DOUBLE, 0, 60);
        } else if (me == 0) {
            Status p = world.probe(MPI.ANY_SOURCE, 60);
            eq(1, p.getSource(), "probe source");
            eq(3, p.getCount(MPI.DOUBLE), "probe count");
            Status ip = world.iProbe(1, 60);
            check(ip != null, "iProbe sees the probed message");
            double[] in = new double[p.getCount(MPI.DOUBLE)];
            world.recv(in, in.length, MPI.DOUBLE, p.getSource(), p.getTag());
            eq(new double[] {1, 2, 3}, in, "received after probe");
        }
        world.barrier();
    }

    private static void persistent(Intracomm world, int me, int right, int left) throws MPIException {
        IntBuffer out = MPI.newIntBuffer(1);
        IntBuffer in = MPI.newIntBuffer(1);
        Prequest send = world.sendInit(out, 1, MPI.INT, right, 70);
        Prequest recv = world.recvInit(in, 1, MPI.INT, left, 70);
        for (int round = 0; round < 3; round++) {
            out.put(0, me * 10 + round);
            recv.start();
            send.start();
            Prequest.waitAll(new Request[] {send, recv});
            check(!send.isNull() && !recv.isNull(), "persistent requests stay");
            eq(left * 10 + round, in.get(0), "persistent round " + round);
        }
        Prequest ss = world.sSendInit(out, 1, MPI.INT, right, 71);
        Prequest rr = world.recvInit(in, 1, MPI.INT, left, 71);
        Prequest.startAll(new Prequest[] {rr, ss});
        rr.waitFor();
        ss.waitFor();
        send.free();
        recv.free();
        ss.free();
        rr.free();
        check(send.isNull() && recv.isNull(), "freed persistent requests are null");
    }

    private static void cancelAndMatchedProbe(Intracomm world, int me, int n) throws MPIException {
        IntBuffer never = MPI.newIntBuffer(1);
        Request r = world.iRecv(never, 1, MPI.INT, MPI.ANY_SOURCE, 80);
        r.cancel();
        Status s = r.waitStatus();
        check(s.isCancelled(), "cancelled receive");
        world.barrier();
        if (me == 1) {
            world.send(new int[] {5, 6}, 2, MPI.INT, 0, 81);
            world.send(new int[] {7}, 1, MPI.INT, 0, 81);
        } else if (me == 0) {
            Message m = new Message();
            check(m.isNull(), "new message is null");
            Status ps = m.mProbe(1, 81, world);
            eq(2, ps.getCount(MPI.INT), "mProbe count");
            int[] in = new int[2];
            Status rs = m.mRecv(in, 2, MPI.INT);
            eq(new int[] {5, 6}, in, "mRecv");
            eq(1, rs.getSource(), "mRecv source");
            check(m.isNull(), "received message is null");
            Status ip;
            while ((ip = m.imProbe(1, 81, world)) == null) {
                Thread.onSpinWait();
            }
            eq(1, ip.getCount(MPI.INT), "imProbe count");
            int[] one = new int[1];
            m.mRecv(one, 1, MPI.INT);
            eq(7, one[0], "second matched message");
        }
        world.barrier();
    }

    private static void derivedAndLarge(Intracomm world, int me, int n, int right, int left) throws MPIException {
        // column 1 of a 4x3 row-major matrix
        Datatype column = Datatype.createVector(4, 1, 3, MPI.INT);
        column.commit();
        int[] m = new int[12];
        for (int k = 0; k < 12; k++) {
            m[k] = me * 100 + k;
        }
        int[] col = new int[4];
        world.sendRecv(MPI.slice(m, 1), 1, column, right, 90, col, 4, MPI.INT, left, 90);
        eq(new int[] {left * 100 + 1, left * 100 + 4, left * 100 + 7, left * 100 + 10}, col, "vector column");
        int[] back = new int[12];
        world.sendRecv(col, 4, MPI.INT, left, 91, MPI.slice(back, 2), 1, column, right, 91);
        eq(me * 100 + 1, back[2], "column received into a vector");
        eq(me * 100 + 10, back[11], "column received into a vector");
        eq(0, back[3], "gaps untouched");
        column.free();

        // larger than the eager limit: rendezvous
        int len = 300_000;
        double[] big = new double[len];
        for (int k = 0; k < len; k++) {
            big[k] = me + k * 1e-3;
        }
        double[] bigIn = new double[len];
        Status s = world.sendRecv(big, len, MPI.DOUBLE, right, 92, bigIn, len, MPI.DOUBLE, left, 92);
        eq(len, s.getCount(MPI.DOUBLE), "large count");
        eq(left + (len - 1) * 1e-3, bigIn[len - 1], "large last");
        DoubleBuffer dbig = MPI.newDoubleBuffer(len);
        DoubleBuffer dbigIn = MPI.newDoubleBuffer(len);
        dbig.put(len - 1, me);
        Request rr = world.iRecv(dbigIn, len, MPI.DOUBLE, left, 93);
        world.sSend(dbig, len, MPI.DOUBLE, right, 93);
        rr.waitFor();
        eq(left, dbigIn.get(len - 1), "large direct");
    }

    /**
     * Rendezvous-sized messages on two communicators at once, completed in an order that makes each rank wait on
     * one communicator while its partner needs it to match on the other: MPI's progress rule asks that a rank
     * blocked in any call progresses every communicator (this hung when waits drove only their own).
     */
    private static void largeOnTwoCommunicators(Intracomm world, int me, int n, int right, int left)
            throws MPIException {
        Intracomm other = (Intracomm) world.clone();
        int len = 65536; // 256 KiB of ints
        IntBuffer a = MPI.newIntBuffer(len), b = MPI.newIntBuffer(len), c = MPI.newIntBuffer(len), d =
        MPI.newIntBuffer(len);
        for (int round = 0; round < 30; round++) {
            a.put(len - 1, me * 100 + round);
            b.put(len - 1, me * 100 + round + 50);
            Request[] r = {world.iSend(a, len, MPI.INT, right, 1), other.iSend(b, len, MPI.INT, left, 2),
                other.iRecv(c, len, MPI.INT, right, 2), world.iRecv(d, len, MPI.INT, left, 1)};
            Request.waitAll(r);
            eq(left * 100 + round, d.get(len - 1), "world message, round " + round);
            eq(right * 100 + round + 50, c.get(len - 1), "other communicator's message, round " + round);
        }
        other.free();
    }

    private static void packUnpack(Intracomm world, int me, int n) throws MPIException {
        byte[] packed = new byte[world.packSize(3, MPI.INT) + world.packSize(2, MPI.DOUBLE)];
        eq(12 + 16, packed.length, "pack sizes");
        int pos = world.pack(new int[] {me, 2, 3}, 3, MPI.INT, packed, 0);
        pos = world.pack(new double[] {0.5, me}, 2, MPI.DOUBLE, packed, pos);
        eq(packed.length, pos, "pack position");
        int to = (me + 1) % n;
        int from = (me + n - 1) % n;
        byte[] in = new byte[packed.length];
        world.sendRecv(packed, pos, MPI.PACKED, to, 95, in, in.length, MPI.PACKED, from, 95);
        int[] ints = new int[3];
        double[] ds = new double[2];
        int p = world.unpack(in, 0, ints, 3, MPI.INT);
        p = world.unpack(in, p, ds, 2, MPI.DOUBLE);
        eq(in.length, p, "unpack position");
        eq(from, ints[0], "unpacked int");
        eq((double) from, ds[1], "unpacked double");
    }

    private static void procNull(Comm world) throws MPIException {
        world.send(new int[] {1}, 1, MPI.INT, MPI.PROC_NULL, 0);
        int[] in = {42};
        Status s = world.recv(in, 1, MPI.INT, MPI.PROC_NULL, 0);
        eq(MPI.PROC_NULL, s.getSource(), "PROC_NULL source");
        eq(MPI.ANY_TAG, s.getTag(), "PROC_NULL tag");
        eq(0, s.getCount(MPI.INT), "PROC_NULL count");
        eq(42, in[0], "PROC_NULL buffer untouched");
    }
}

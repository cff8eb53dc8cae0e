package mpitests;

import static mpitests.Check.check;
import static mpitests.Check.eq;

import java.nio.ByteBuffer;
import java.util.Arrays;
import mpi.MPI;
import mpi.MPIException;
import mpi.Prequest;
import mpi.Request;
import mpi.Status;

/**
 * Buffered sends and the statuses of null requests, as programs written for Open MPI use them. The class is
 * not public on purpose: {@code java} runs the main of a package-private class, so jrmarun must too. Needs an
 * even number of ranks (pairs 0-1, 2-3, ...).
 */
final class SendModes {
    private static final int BIG = 100_000;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.getRank();
        int n = MPI.COMM_WORLD.getSize();
        check(n % 2 == 0, "needs an even number of ranks");
        int peer = me ^ 1;

        // both partners buffer a message too large to go eagerly, then receive: a bSend that waited for the
        // receive (a standard send) would deadlock here
        byte[] data = new byte[BIG];
        byte[] attached = new byte[2 * BIG + 2 * MPI.BSEND_OVERHEAD];
        MPI.attachBuffer(attached);
        Arrays.fill(data, (byte) (me + 1));
        MPI.COMM_WORLD.bSend(data, BIG, MPI.BYTE, peer, 1);
        Arrays.fill(data, (byte) 0); // the message was copied: changing the buffer now must not change it
        Request ib = MPI.COMM_WORLD.ibSend(MPI.newIntBuffer(1).put(0, me), 1, MPI.INT, peer, 2);
        check(ib.test(), "an ibSend is complete once copied");
        Status s = MPI.COMM_WORLD.recv(data, BIG, MPI.BYTE, peer, 1);
        eq(BIG, s.getCount(MPI.BYTE), "buffered message size");
        for (int i = 0; i < BIG; i++) {
            if (data[i] != peer + 1) {
                throw new AssertionError("byte " + i + " of the buffered message is " + data[i]);
            }
        }
        int[] v = new int[1];
        MPI.COMM_WORLD.recv(v, 1, MPI.INT, peer, 2);
        eq(peer, v[0], "ibSend data");
        // a persistent buffered send copies at each start and is complete at once, before the partner receives
        // (a persistent standard send of this size would wait for the receive: the partner is in the barrier)
        ByteBuffer big = MPI.newByteBuffer(BIG);
        Prequest pb = MPI.COMM_WORLD.bSendInit(big, BIG, MPI.BYTE, peer, 6);
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < BIG; i++) {
                big.put(i, (byte) (me + round));
            }
            pb.start();
            check(pb.test(), "a started bSendInit request is complete once copied (round " + round + ")");
            for (int i = 0; i < BIG; i++) {
                big.put(i, (byte) 99); // the copy was sent, not the buffer
            }
            MPI.COMM_WORLD.barrier();
            s = MPI.COMM_WORLD.recv(data, BIG, MPI.BYTE, peer, 6);
            eq(BIG, s.getCount(MPI.BYTE), "persistent buffered message size");
            for (int i = 0; i < BIG; i += 997) {
                eq(peer + round, data[i], "byte " + i + " of persistent buffered message " + round);
            }
        }
        check(MPI.detachBuffer() == attached, "detachBuffer returns the attached array");
        check(MPI.detachBuffer() == null, "nothing attached any more");
        // without an attached buffer, starting it fails with ERR_BUFFER
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        Check.fails(MPI.ERR_BUFFER, pb::start, "bSendInit start without an attached buffer");
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_ARE_FATAL);
        pb.free();

        // waitAllStatus gives null and inactive requests the empty status, not a null reference
        Request[] rs = {MPI.REQUEST_NULL, MPI.COMM_WORLD.iRecv(MPI.newIntBuffer(1), 1, MPI.INT, peer, 3), null};
        rs[2] = MPI.REQUEST_NULL;
        MPI.COMM_WORLD.send(new int[] {me}, 1, MPI.INT, peer, 3);
        Status[] st = Request.waitAllStatus(rs);
        eq(3, st.length, "one status per request");
        for (int i : new int[] {0, 2}) {
            check(st[i] != null, "status of a null request");
            eq(MPI.ANY_SOURCE, st[i].getSource(), "empty status source");
            eq(MPI.ANY_TAG, st[i].getTag(), "empty status tag");
            eq(0, st[i].getCount(MPI.INT), "empty status count");
        }
        eq(peer, st[1].getSource(), "the receive's source");
        MPI.REQUEST_NULL.waitFor(); // waiting for the null request returns at once

        // testAllStatus: null until every request is complete, then all statuses
        Request late = MPI.COMM_WORLD.iRecv(MPI.newIntBuffer(1), 1, MPI.INT, peer, 4);
        check(Request.testAllStatus(new Request[] {late, MPI.REQUEST_NULL}) == null, "testAllStatus before the send");
        MPI.COMM_WORLD.barrier();
        MPI.COMM_WORLD.send(new int[] {me}, 1, MPI.INT, peer, 4);
        Status[] all;
        while ((all = Request.testAllStatus(new Request[] {late, MPI.REQUEST_NULL})) == null) {
            Thread.onSpinWait();
        }
        eq(2, all.length, "testAllStatus statuses");
        eq(4, all[0].getTag(), "testAllStatus tag");

        MPI.Finalize();
        if (me == 0) {
            System.out.println("SendModes OK on " + n + " ranks");
        }
    }
}

package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.Buffer;

/**
 * The blocks of an alltoallw (MPI_ALLTOALLW) packed for the exchange: each peer's block (its count of its
 * datatype at its displacement in bytes) is packed into {@link #out}, the packed blocks from the peers arrive in
 * {@link #in}, and {@link #unpack} puts them in place with the receive types. Byte counts and offsets per peer
 * in {@link #sc}/{@link #sd} and {@link #rc}/{@link #rd}.
 *
 * <p>One per call; one thread.
 */
final class AllToAllw {
    final int[] sc;
    final int[] sd;
    final int[] rc;
    final int[] rd;
    final byte[] out;
    final byte[] in;

    private AllToAllw(int[] sc, int[] sd, int[] rc, int[] rd, byte[] out, byte[] in) {
        this.sc = sc;
        this.sd = sd;
        this.rc = rc;
        this.rd = rd;
        this.out = out;
        this.in = in;
    }

    /** Checks the arguments for {@code p} peers and packs the send blocks. */
    static AllToAllw pack(int p, Buffer sendBuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes,
                          int[] recvCount, int[] rDispls, Datatype[] recvTypes) {
        if (sendCount == null || sDispls == null || sendTypes == null || recvCount == null || rDispls == null
                || recvTypes == null || sendCount.length < p || sDispls.length < p || sendTypes.length < p
                || recvCount.length < p || rDispls.length < p || recvTypes.length < p) {
            throw new RmaException(ErrorClass.ERR_ARG, "alltoallw: counts, displacements and types need " + p
                    + " entries each");
        }
        int[] sc = new int[p];
        int[] sd = new int[p];
        int[] rc = new int[p];
        int[] rd = new int[p];
        long stotal = 0;
        long rtotal = 0;
        for (int i = 0; i < p; i++) {
            sc[i] = Math.toIntExact(sendCount[i] * Datatype.jt(sendTypes[i]).size());
            sd[i] = Math.toIntExact(stotal);
            stotal += sc[i];
            rc[i] = Math.toIntExact(recvCount[i] * Datatype.jt(recvTypes[i]).size());
            rd[i] = Math.toIntExact(rtotal);
            rtotal += rc[i];
        }
        byte[] out = new byte[Math.toIntExact(stotal)];
        Object sb = sendBuf == null ? null : Bufs.bytes(sendBuf);
        for (int i = 0; i < p; i++) {
            if (sc[i] > 0) {
                Datatype.jt(sendTypes[i]).pack(sb, sDispls[i], sendCount[i], out, sd[i]);
            }
        }
        return new AllToAllw(sc, sd, rc, rd, out, new byte[Math.toIntExact(rtotal)]);
    }

    /** Unpacks the received blocks into {@code recvBuf} at their byte displacements. */
    void unpack(Buffer recvBuf, int[] recvCount, int[] rDispls, Datatype[] recvTypes) {
        Object rb = recvBuf == null ? null : Bufs.bytes(recvBuf);
        for (int i = 0; i < rc.length; i++) {
            if (rc[i] > 0) {
                Datatype.jt(recvTypes[i]).unpack(in, rd[i], rc[i], rb, rDispls[i], recvCount[i]);
            }
        }
    }
}

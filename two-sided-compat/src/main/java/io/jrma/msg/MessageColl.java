package io.jrma.msg;

import static io.jrma.msg.Collectives.TAG_ALLGATHER;
import static io.jrma.msg.Collectives.TAG_ALLTOALL;
import static io.jrma.msg.Collectives.TAG_BCAST;
import static io.jrma.msg.Collectives.TAG_GATHER;
import static io.jrma.msg.Collectives.TAG_SCATTER;

import io.jrma.Datatype;
import java.nio.ByteBuffer;

/**
 * The data-movement collectives of {@link Collectives} by messages on the collective context, for ranks that do
 * not all share memory and for data too large for {@link SharedColl}'s slots (algorithms: {@link Collectives}).
 *
 * <p>Owned by its {@link Collectives}; one call at a time.
 */
final class MessageColl {
    private final Collectives c;
    private final int me;
    private final int p;

    MessageColl(Collectives c) {
        this.c = c;
        this.me = c.me;
        this.p = c.p;
    }

    /** Binomial-tree bcast, or scatter then ring allgather (van de Geijn) from {@link Collectives#BCAST_LONG}. */
    void bcast(UserBuf u, Object buf, long offset, long count, Datatype type, int root) {
        if (u.bytes >= Collectives.BCAST_LONG && p > 2) {
            scatterAllgatherBcast(u, root);
        } else {
            binomialBcast(buf, offset, count, type, root);
        }
    }

    private void binomialBcast(Object buf, long offset, long count, Datatype type, int root) {
        int vr = (me - root + p) % p;
        int mask = 1;
        while (mask < p) {
            if ((vr & mask) != 0) {
                c.recv(buf, offset, count, type, (vr - mask + root) % p, TAG_BCAST);
                break;
            }
            mask <<= 1;
        }
        for (mask >>= 1; mask > 0; mask >>= 1) {
            if (vr + mask < p) {
                c.send(buf, offset, count, type, (vr + mask + root) % p, TAG_BCAST);
            }
        }
    }

    private void scatterAllgatherBcast(UserBuf u, int root) {
        ByteBuffer t = c.work.scratch(0, u.bytes);
        long[] lo = new long[p];
        long[] len = new long[p];
        c.work.split(u.bytes, 1, lo, len);
        if (me == root) {
            u.packInto(t, 0);
            MsgRequest[] rs = new MsgRequest[p];
            for (int r = 0; r < p; r++) {
                if (r != root) {
                    rs[r] = c.isend(t, lo[r], len[r], Datatype.BYTE, r, TAG_BCAST);
                }
            }
            c.await(rs, p);
        } else {
            c.recv(t, lo[me], len[me], Datatype.BYTE, root, TAG_BCAST);
        }
        ringAllgather(t, lo, len, Datatype.BYTE, TAG_BCAST);
        if (me != root) {
            u.unpackFrom(t, 0, u.bytes);
        }
    }

    /** Gatherv by messages: the root posts every receive at once. */
    void gatherv(Object sendBuf, long sendOffset, long sendCount, Datatype sendType,
                 Object recvBuf, long recvOffset, long[] recvCounts, long[] displs, Datatype recvType, int root) {
        if (me != root) {
            c.send(sendBuf, sendOffset, sendCount, sendType, root, TAG_GATHER);
            return;
        }
        MsgRequest[] rs = c.requests();
        for (int r = 0; r < p; r++) {
            if (r != root) {
                rs[r] = c.irecv(recvBuf, recvOffset + displs[r], recvCounts[r], recvType, r, TAG_GATHER);
            }
        }
        c.work.localCopy(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset + displs[root],
                recvCounts[root], recvType);
        c.await(rs, p);
    }

    /** Scatterv by messages: the root posts every send at once. */
    void scatterv(Object sendBuf, long sendOffset, long[] sendCounts, long[] displs, Datatype sendType,
                  Object recvBuf, long recvOffset, long recvCount, Datatype recvType, int root) {
        if (me != root) {
            c.recv(recvBuf, recvOffset, recvCount, recvType, root, TAG_SCATTER);
            return;
        }
        MsgRequest[] rs = c.requests();
        for (int r = 0; r < p; r++) {
            if (r != root) {
                rs[r] = c.isend(sendBuf, sendOffset + displs[r], sendCounts[r], sendType, r, TAG_SCATTER);
            }
        }
        c.work.localCopy(sendBuf, sendOffset + displs[root], sendCounts[root], sendType, recvBuf, recvOffset,
                recvCount, recvType);
        c.await(rs, p);
    }

    /**
     * Bruck's allgather on packed blocks: block i of the scratch buffer holds rank (me + i) mod P's data; in step
     * k (1, 2, 4, ...) a rank sends its first min(k, P - k) blocks to rank me - k and receives as many from
     * rank me + k behind them; the blocks are unpacked in place at the end, in two runs.
     */
    void bruckAllgather(Object sendBuf, long sendOffset, long sendCount, Datatype sendType,
                                Object recvBuf, long recvOffset, long recvCount, Datatype recvType, long block) {
        UserBuf s = UserBuf.of(sendBuf, sendOffset, sendCount, sendType, "allgather send buffer");
        UserBuf.of(recvBuf, recvOffset, p * recvCount, recvType, "allgather receive buffer"); // checks the bounds
        ByteBuffer t = c.work.scratch(3, p * block);
        s.packInto(t, 0);
        for (int k = 1; k < p; k <<= 1) {
            long n = Math.min(k, p - k);
            MsgRequest r = c.irecv(t, k * block, n * block, Datatype.BYTE, (me + k) % p, TAG_ALLGATHER);
            MsgRequest x = c.isend(t, 0, n * block, Datatype.BYTE, (me - k + p) % p, TAG_ALLGATHER);
            c.await(r, x);
        }
        long ext = recvType.extent();
        long head = (p - me) * block; // the blocks of ranks me..p-1
        recvType.unpack(t, 0, head, recvBuf, (recvOffset + me * recvCount) * ext, (p - me) * recvCount);
        if (me > 0) {
            recvType.unpack(t, head, me * block, recvBuf, recvOffset * ext, me * recvCount);
        }
    }

    /** Allgatherv by the ring: every rank's own block first, then P - 1 steps of one block. */
    void allgatherv(Object sendBuf, long sendOffset, long sendCount, Datatype sendType,
                    Object recvBuf, long recvOffset, long[] recvCounts, long[] displs, Datatype recvType) {
        c.work.localCopy(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset + displs[me], recvCounts[me],
                recvType);
        long[] lo = c.lo;
        for (int r = 0; r < p; r++) {
            lo[r] = recvOffset + displs[r];
        }
        ringAllgather(recvBuf, lo, recvCounts, recvType, TAG_ALLGATHER);
    }

    /** Alltoallv by messages: every rank posts all its receives, then all its sends (pairwise order). */
    void alltoallv(Object sendBuf, long sendOffset, long[] sendCounts, long[] sendDispls, Datatype sendType,
                   Object recvBuf, long recvOffset, long[] recvCounts, long[] recvDispls, Datatype recvType) {
        MsgRequest[] rs = c.requests();
        for (int i = 1; i < p; i++) {
            int src = (me - i + p) % p;
            rs[2 * i] = c.irecv(recvBuf, recvOffset + recvDispls[src], recvCounts[src], recvType, src, TAG_ALLTOALL);
        }
        for (int i = 1; i < p; i++) {
            int dst = (me + i) % p;
            rs[2 * i + 1] = c.isend(sendBuf, sendOffset + sendDispls[dst], sendCounts[dst], sendType, dst,
                    TAG_ALLTOALL);
        }
        c.work.localCopy(sendBuf, sendOffset + sendDispls[me], sendCounts[me], sendType,
                recvBuf, recvOffset + recvDispls[me], recvCounts[me], recvType);
        c.await(rs, 2 * p);
    }

    /**
     * Ring allgather of blocks of {@code buf} (block r: {@code count[r]} elements of {@code type} at element
     * {@code lo[r]}) when every rank holds its own block: in step s rank r passes block r - s to its right.
     */
    void ringAllgather(Object buf, long[] lo, long[] count, Datatype type, int tag) {
        int right = (me + 1) % p;
        int left = (me - 1 + p) % p;
        for (int s = 0; s < p - 1; s++) {
            int sb = (me - s + p) % p;
            int rb = (me - s - 1 + p) % p;
            MsgRequest r = c.irecv(buf, lo[rb], count[rb], type, left, tag);
            MsgRequest x = c.isend(buf, lo[sb], count[sb], type, right, tag);
            c.await(r, x);
        }
    }
}

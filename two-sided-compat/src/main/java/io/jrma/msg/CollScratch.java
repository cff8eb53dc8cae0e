package io.jrma.msg;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The working memory of a rank's {@link Collectives}: direct scratch buffers kept between calls, the split of a
 * vector into p near-equal blocks, and the copy of the rank's own block from its send to its receive buffer, with
 * nothing allocated once the buffers have grown. Owned by the collectives of one messenger; used by the rank's
 * thread in a collective (MPI's rule: one at a time).
 */
final class CollScratch {
    private final int me;
    private final int p;
    private final ByteBuffer[] scratch = new ByteBuffer[4];

    CollScratch(int me, int p) {
        this.me = me;
        this.p = p;
    }

    /** Splits {@code n} items (in units of {@code unit}) into p near-equal blocks. */
    void split(long n, long unit, long[] lo, long[] len) {
        long units = n / unit;
        long base = units / p;
        long extra = units % p;
        long at = 0;
        for (int r = 0; r < p; r++) {
            long k = base + (r < extra ? 1 : 0);
            lo[r] = at * unit;
            len[r] = k * unit;
            at += k;
        }
        len[p - 1] += n - at * unit; // a remainder smaller than one unit goes to the last block
    }

    /**
     * A direct scratch buffer of at least {@code bytes} bytes, kept between calls ({@code slot} 0..2: see
     * {@link Reductions}; 3: Bruck's allgather and local copies between non-contiguous types).
     */
    ByteBuffer scratch(int slot, long bytes) {
        ByteBuffer b = scratch[slot];
        if (b == null || b.capacity() < bytes) {
            if (bytes > Integer.MAX_VALUE - 64) {
                throw new RmaException(ErrorClass.ERR_COUNT, "collective data of " + bytes + " bytes exceeds 2 GiB");
            }
            long size = Math.max(4096, Long.highestOneBit(Math.max(1, bytes - 1)) << 1);
            b = ByteBuffer.allocateDirect((int) Math.min(size, Integer.MAX_VALUE - 64)).order(ByteOrder.LITTLE_ENDIAN);
            scratch[slot] = b;
        }
        return b;
    }

    /**
     * Copies this rank's own block (send side to receive side, different datatypes allowed): packed straight
     * into the receive memory when that is contiguous, unpacked straight from the send memory when that is,
     * else through a scratch buffer; nothing allocated.
     */
    void localCopy(Object sendBuf, long sendOffset, long sendCount, Datatype sendType,
                   Object recvBuf, long recvOffset, long recvCount, Datatype recvType) {
        UserBuf s = UserBuf.of(sendBuf, sendOffset, sendCount, sendType, "collective send buffer");
        UserBuf r = UserBuf.of(recvBuf, recvOffset, recvCount, recvType, "collective receive buffer");
        if (s.bytes > r.bytes) {
            throw new RmaException(ErrorClass.ERR_TRUNCATE, "rank " + me + " sends itself " + s.bytes
                    + " bytes but its receive block holds " + r.bytes);
        }
        if (s.bytes == 0) {
            return;
        }
        if (r.plain()) {
            s.packInto(r.buf, r.offset);
        } else if (s.plain()) {
            r.unpackFrom(s.buf, s.offset, s.bytes);
        } else {
            ByteBuffer tmp = scratch(3, s.bytes);
            s.packInto(tmp, 0);
            r.unpackFrom(tmp, 0, s.bytes);
        }
    }
}

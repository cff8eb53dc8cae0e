package io.jrma.msg;

import io.jrma.Op;
import io.jrma.Win;
import io.jrma.core.dt.BasicType;
import java.nio.ByteBuffer;

/**
 * The reductions of {@link Reductions} on shared memory beyond the inboxes' 4 KiB slots, through the large slots of
 * {@link BigSlots} ({@link SharedColl#reducesBig}: jrma.coll.sharedLargeMin, jrma.coll.sharedLargeMax). Each rank
 * packs its data into its large slot (the one copy in) and after a barrier on shared flags:
 * <ul>
 *   <li>allreduce and reduce, where P times the vector is at most {@link SharedColl#COMBINE_BUDGET}: every rank
 *       (reduce: the root) combines all P vectors itself; one barrier in all;</li>
 *   <li>allreduce and reduce above it: rank r combines block r (elements split in P near-equal blocks, at
 *       64-byte boundaries where the element size allows) of the P slots in rank order into block r of its own slot
 *       (no other rank reads that block of it), a second barrier, and every rank (reduce: the root) copies each
 *       block of the result from the rank that made it into its receive buffer (the one copy out);</li>
 *   <li>reduce_scatter: each rank combines its own block of the P vectors; one barrier.</li>
 * </ul>
 * Every rank reads 2 (P - 1) / P of the data from other ranks' memory, as the ring moves, but waits for the others
 * once or twice instead of in 2 (P - 1) dependent steps, and no message, rendezvous or kernel copy is involved. Each
 * block is combined by one rank in rank order, so every rank gets the same bits. In place: the whole input is packed
 * before the first barrier, the receive buffer written after the last. Combines are one-pass sums ({@link FusedSum})
 * where they can, else pairwise {@link Op#reduceLocal} passes through scratch slot 0.
 *
 * <p>Owned by the {@link Reductions} of a rank; one call at a time.
 */
final class LargeReductions {
    /** Bytes of a cache line: the blocks of a large shared reduction start at such boundaries where they can. */
    private static final int CACHE_LINE = 64;

    private final Collectives c;
    private final int me;
    private final int p;
    /** Block bounds (elements), kept between calls. */
    private final long[] lo;
    private final long[] len;

    LargeReductions(Collectives c) {
        this.c = c;
        this.me = c.me;
        this.p = c.p;
        this.lo = new long[p];
        this.len = new long[p];
    }

    /** Packs this rank's data into its large slot for this reduction; the slot's byte offset. */
    private int publish(Reductions.Packed d) {
        BigSlots big = c.shared.big;
        int base = big.at(big.next());
        d.send.packInto(big.mem(me), base);
        return base;
    }

    /**
     * Allreduce ({@code root} -1; every rank has {@code recv}) or reduce to {@code root} ({@code recv} null on the
     * other ranks) of {@code d}.
     */
    void reduce(Op op, Reductions.Packed d, UserBuf recv, int root) {
        BigSlots big = c.shared.big;
        long bytes = d.bytes();
        int base = publish(d);
        boolean gets = root < 0 || root == me;
        if (bytes * p <= SharedColl.COMBINE_BUDGET) {
            c.barrier();
            if (gets) {
                recv.unpackFrom(combine(op, d, base, d.n, false), 0, bytes);
            }
            return;
        }
        c.work.split(d.n, Math.max(1, CACHE_LINE / d.es), lo, len);
        c.barrier();
        int from = base + (int) (lo[me] * d.es);
        if (len[me] > 0) {
            ByteBuffer res = combine(op, d, from, len[me], true);
            if (res != big.mem(me)) {
                big.mem(me).put(from, res, 0, (int) (len[me] * d.es));
            }
        }
        c.barrier();
        if (!gets) {
            return; // the root still reads this rank's slot: written again only after the next one's barrier
        }
        if (recv.raw) {
            for (int r = 0; r < p; r++) {
                recv.unpackRange(big.mem(r), base + lo[r] * d.es, lo[r] * d.es, len[r] * d.es);
            }
        } else {
            ByteBuffer acc = c.work.scratch(0, bytes);
            for (int r = 0; r < p; r++) {
                int at = (int) (lo[r] * d.es);
                acc.put(at, big.mem(r), base + at, (int) (len[r] * d.es));
            }
            recv.unpackFrom(acc, 0, bytes);
        }
    }

    /**
     * Reduce_scatter of {@code d}: this rank's block is {@code n} elements from element {@code first}; returns the
     * buffer that holds its result from byte 0.
     */
    ByteBuffer reduceScatter(Op op, Reductions.Packed d, long first, long n) {
        int base = publish(d);
        c.barrier();
        return combine(op, d, base + (int) (first * d.es), n, false);
    }

    /**
     * Combines {@code n} elements at byte {@code at} of every rank's large slots in rank order. {@code own}: into
     * this rank's own slot at {@code at} where a one-pass sum reads its contribution before writing it (then that
     * slot's buffer is returned), else into scratch slot 0 from byte 0 (returned).
     */
    private ByteBuffer combine(Op op, Reductions.Packed d, int at, long n, boolean own) {
        BigSlots big = c.shared.big;
        BasicType t = d.elem.elementType();
        if (FusedSum.handles(op, t)) {
            if (own && me < FusedSum.PER_PASS) {
                FusedSum.sum(t, big.addresses(), at, p, big.addresses()[me] + at, n);
                return big.mem(me);
            }
            ByteBuffer acc = c.work.scratch(0, n * d.es);
            FusedSum.sum(t, big.addresses(), at, p, Win.address(acc), n);
            return acc;
        }
        ByteBuffer acc = c.work.scratch(0, n * d.es);
        acc.put(0, big.mem(0), at, (int) (n * d.es));
        for (int r = 1; r < p; r++) {
            Reductions.combine(op, d, big.mem(r), at, acc, 0, n);
        }
        return acc;
    }
}

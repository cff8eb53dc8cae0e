package io.jrma.msg;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Op;
import io.jrma.RmaException;
import io.jrma.core.dt.BasicType;
import java.nio.ByteBuffer;

/**
 * The reduction collectives of {@link Collectives} (reduce, allreduce, reduce_scatter, scan, exscan). Each
 * packs the caller's data once into a scratch buffer as back-to-back elements of its one predefined type,
 * runs the algorithm on packed bytes (messages of {@link Datatype#BYTE}, blocks split at element
 * boundaries), combines with {@link Op#reduceLocal} ({@code acc = incoming op acc}) and unpacks the result
 * once. Scratch slot 0 holds the accumulator, 1 incoming data, 2 a second result (scan).
 *
 * <p>Owned by its {@link Collectives}; one call at a time.
 */
final class Reductions {
    private final Collectives c;
    private final int me;
    private final int p;
    /** Block bounds of reduce_scatter, kept between calls. */
    private final long[] rsLo;
    private final long[] rsLen;
    /** The reductions through the large shared slots. */
    private final LargeReductions big;

    Reductions(Collectives c) {
        this.c = c;
        this.me = c.me;
        this.p = c.p;
        this.rsLo = new long[p];
        this.rsLen = new long[p];
        this.big = new LargeReductions(c);
    }

    /** The packed form of a reduction's data: {@code n} elements of {@code elem}, {@code es} bytes each. */
    static final class Packed {
        final Datatype elem;
        final long n;
        final int es;
        final UserBuf send;

        Packed(Datatype elem, long n, int es, UserBuf send) {
            this.elem = elem;
            this.n = n;
            this.es = es;
            this.send = send;
        }

        long bytes() {
            return n * es;
        }
    }

    /** Checks a reduction's arguments and describes its packed data. */
    private Packed packed(Object sendBuf, long sendOffset, long count, Datatype type, Op op, String what) {
        if (op == null) {
            throw new RmaException(ErrorClass.ERR_OP, what + ": op is null");
        }
        if (op == Op.REPLACE || op == Op.NO_OP) {
            throw new RmaException(ErrorClass.ERR_OP, what + ": " + op + " is only allowed in accumulate operations");
        }
        UserBuf send = UserBuf.of(sendBuf, sendOffset, count, type, what + " send buffer");
        BasicType e = type.elementType();
        if (e == null) {
            if (send.bytes == 0) {
                return new Packed(Datatype.BYTE, 0, 1, send);
            }
            throw new RmaException(ErrorClass.ERR_TYPE,
                    what + ": datatype " + type + " must consist of one predefined type");
        }
        if (!op.isValidFor(e)) {
            throw new RmaException(ErrorClass.ERR_OP, what + ": " + op + " is not defined on " + e);
        }
        return new Packed(packedType(e), send.bytes / e.size(), e.size(), send);
    }

    /** The predefined type of {@code e}, resized to its size when it has padding (pair types), committed. */
    private static Datatype packedType(BasicType e) {
        Datatype t = predefined(e);
        return t.size() == t.extent() ? t : Datatype.resized(t, 0, t.size()).commit();
    }

    private static Datatype predefined(BasicType e) {
        switch (e) {
            case BYTE: return Datatype.BYTE;
            case BOOLEAN: return Datatype.BOOLEAN;
            case CHAR: return Datatype.CHAR;
            case SHORT: return Datatype.SHORT;
            case INT: return Datatype.INT;
            case LONG: return Datatype.LONG;
            case FLOAT: return Datatype.FLOAT;
            case DOUBLE: return Datatype.DOUBLE;
            case INT8: return Datatype.INT8;
            case UINT8: return Datatype.UINT8;
            case UINT16: return Datatype.UINT16;
            case UINT32: return Datatype.UINT32;
            case UINT64: return Datatype.UINT64;
            case FLOAT_COMPLEX: return Datatype.FLOAT_COMPLEX;
            case DOUBLE_COMPLEX: return Datatype.DOUBLE_COMPLEX;
            case SHORT_INT: return Datatype.SHORT_INT;
            case INT_INT: return Datatype.INT_INT;
            case LONG_INT: return Datatype.LONG_INT;
            case FLOAT_INT: return Datatype.FLOAT_INT;
            default: return Datatype.DOUBLE_INT;
        }
    }

    /** acc[at..] = in[from..] op acc[at..] for {@code n} packed elements. */
    static void combine(Op op, Packed d, ByteBuffer in, long from, ByteBuffer acc, long at, long n) {
        if (n > 0) {
            op.reduceLocal(in, from, acc, at, n, d.elem);
        }
    }

    private ByteBuffer packSend(Packed d) {
        ByteBuffer acc = c.work.scratch(0, d.bytes());
        d.send.packInto(acc, 0);
        return acc;
    }

    private static void unpackResult(ByteBuffer acc, long from, long bytes, Object recvBuf, long recvOffset, long count,
                                     Datatype type, String what) {
        UserBuf r = UserBuf.of(recvBuf, recvOffset, count, type, what + " receive buffer");
        r.unpackFrom(acc, from, bytes);
    }

    // ------------------------------------------------------------------ reduce

    void reduce(Object sendBuf, long sendOffset, Object recvBuf, long recvOffset, long count,
            Datatype type, Op op, int root) {
        Packed d = packed(sendBuf, sendOffset, count, type, op, "reduce");
        if (me == root) {
            UserBuf.of(recvBuf, recvOffset, count, type, "reduce receive buffer"); // fail before communicating
        }
        if (p > 1 && d.n > 0 && c.shared.reducesBig(d.bytes())) {
            big.reduce(op, d, me == root ? UserBuf.of(recvBuf, recvOffset, count, type, "reduce receive buffer")
                    : null, root);
            return;
        }
        ByteBuffer acc = packSend(d);
        if (p > 1 && d.n > 0 && c.shared.reduces(d.bytes())) {
            sharedCombine(op, d, acc, root == me ? p : 0, 0, d.n);
        } else if (d.bytes() >= Collectives.REDUCE_LONG && p > 2 && d.n >= p) {
            long[] lo = new long[p];
            long[] len = new long[p];
            c.work.split(d.n, 1, lo, len);
            ringReduceScatter(op, d, acc, lo, len, Collectives.TAG_REDUCE);
            if (me == root) {
                MsgRequest[] rs = new MsgRequest[p];
                for (int r = 0; r < p; r++) {
                    if (r != root) {
                        rs[r] = c.irecv(acc, lo[r] * d.es, len[r] * d.es, Datatype.BYTE, r, Collectives.TAG_REDUCE);
                    }
                }
                c.await(rs, p);
            } else {
                c.send(acc, lo[me] * d.es, len[me] * d.es, Datatype.BYTE, root, Collectives.TAG_REDUCE);
            }
        } else {
            binomialReduce(op, d, acc, root);
        }
        if (me == root) {
            unpackResult(acc, 0, d.bytes(), recvBuf, recvOffset, count, type, "reduce");
        }
    }

    /** Binomial tree towards the root: in round k, ranks (relative to the root) with bit k set send and leave. */
    private void binomialReduce(Op op, Packed d, ByteBuffer acc, int root) {
        ByteBuffer tmp = c.work.scratch(1, d.bytes());
        int vr = (me - root + p) % p;
        for (int mask = 1; mask < p; mask <<= 1) {
            if ((vr & mask) == 0) {
                int src = vr | mask;
                if (src < p) {
                    c.recv(tmp, 0, d.bytes(), Datatype.BYTE, (src + root) % p, Collectives.TAG_REDUCE);
                    combine(op, d, tmp, 0, acc, 0, d.n);
                }
            } else {
                c.send(acc, 0, d.bytes(), Datatype.BYTE, ((vr & ~mask) + root) % p, Collectives.TAG_REDUCE);
                return;
            }
        }
    }

    // ------------------------------------------------------------------ allreduce

    void allreduce(Object sendBuf, long sendOffset, Object recvBuf, long recvOffset, long count, Datatype type, Op op) {
        Packed d = packed(sendBuf, sendOffset, count, type, op, "allreduce");
        UserBuf recv = UserBuf.of(recvBuf, recvOffset, count, type, "allreduce receive buffer");
        if (p > 1 && d.n > 0 && c.shared.reducesBig(d.bytes())) {
            big.reduce(op, d, recv, -1);
            return;
        }
        ByteBuffer acc = packSend(d);
        if (p > 1 && d.n > 0) {
            if (c.shared.reduces(d.bytes())) {
                sharedCombine(op, d, acc, p, 0, d.n);
            } else if (d.bytes() <= Collectives.ALLREDUCE_SHORT || d.n < p) {
                recursiveDoubling(op, d, acc, Collectives.TAG_ALLREDUCE);
            } else {
                long[] lo = new long[p];
                long[] len = new long[p];
                c.work.split(d.n, 1, lo, len);
                ringReduceScatter(op, d, acc, lo, len, Collectives.TAG_ALLREDUCE);
                long[] blo = new long[p];
                long[] blen = new long[p];
                for (int r = 0; r < p; r++) {
                    blo[r] = lo[r] * d.es;
                    blen[r] = len[r] * d.es;
                }
                c.msg.ringAllgather(acc, blo, blen, Datatype.BYTE, Collectives.TAG_ALLREDUCE);
            }
        }
        unpackResult(acc, 0, d.bytes(), recvBuf, recvOffset, count, type, "allreduce");
    }

    /**
     * A reduction on shared memory, where every rank's inbox is mapped by every other (threads of a JVM, JVMs of a
     * host): each rank publishes its packed contribution ({@code acc}) in its scratch slot, a barrier on shared
     * flags, then this rank combines elements {@code [from, from + n)} of the contributions of ranks
     * {@code 0..upTo-1} in rank order into {@code acc} at the same place, read straight from their slots ({@code
     * upTo} 0: nothing; the caller's data is then left in {@code acc}). No message: allreduce (every rank combines
     * all P), reduce (the root does), reduce_scatter (every rank its block), scan and exscan (rank r the first r + 1
     * or r). Since every rank combines in the same order, every rank gets the same bits, floating point included.
     */
    private void sharedCombine(Op op, Packed d, ByteBuffer acc, int upTo, long from, long n) {
        SharedColl sh = c.shared;
        int bytes = (int) d.bytes();
        int slot = sh.next();
        sh.write(slot, acc, bytes);
        c.barrier();
        if (upTo <= 0 || n == 0) {
            return;
        }
        int at = sh.at(slot) + (int) (from * d.es);
        int len = (int) (n * d.es);
        acc.put((int) (from * d.es), sh.mem(0), at, len);
        for (int r = 1; r < upTo; r++) {
            combine(op, d, sh.mem(r), at, acc, from * d.es, n);
        }
    }

    /**
     * Recursive doubling on the largest power of two {@code q <= p}: first the {@code p - q} extra ranks fold
     * their data into a partner (even ranks below {@code 2(p - q)} give to the next odd one), then log2 q rounds
     * of pairwise exchange, then the partners hand the result back.
     */
    private void recursiveDoubling(Op op, Packed d, ByteBuffer acc, int tag) {
        ByteBuffer tmp = c.work.scratch(1, d.bytes());
        long bytes = d.bytes();
        int q = Integer.highestOneBit(p);
        int rem = p - q;
        int newRank;
        if (me < 2 * rem) {
            if (me % 2 == 0) {
                c.send(acc, 0, bytes, Datatype.BYTE, me + 1, tag);
                newRank = -1;
            } else {
                c.recv(tmp, 0, bytes, Datatype.BYTE, me - 1, tag);
                combine(op, d, tmp, 0, acc, 0, d.n);
                newRank = me / 2;
            }
        } else {
            newRank = me - rem;
        }
        if (newRank >= 0) {
            for (int mask = 1; mask < q; mask <<= 1) {
                int newDst = newRank ^ mask;
                int dst = newDst < rem ? 2 * newDst + 1 : newDst + rem;
                exchange(acc, 0, tmp, 0, bytes, dst, tag);
                combine(op, d, tmp, 0, acc, 0, d.n);
            }
        }
        if (me < 2 * rem) {
            if (me % 2 == 1) {
                c.send(acc, 0, bytes, Datatype.BYTE, me - 1, tag);
            } else {
                c.recv(acc, 0, bytes, Datatype.BYTE, me + 1, tag);
            }
        }
    }

    /**
     * Ring reduce-scatter over blocks of packed elements (block r: {@code len[r]} elements at element
     * {@code lo[r]}): in step s rank r sends its partial block r - s - 1 to the right and folds the left
     * neighbour's partial block r - s - 2 into its own; after p - 1 steps block r at rank r is complete.
     */
    private void ringReduceScatter(Op op, Packed d, ByteBuffer acc, long[] lo, long[] len, int tag) {
        long max = 0;
        for (long l : len) {
            max = Math.max(max, l);
        }
        ByteBuffer tmp = c.work.scratch(1, max * d.es);
        int right = (me + 1) % p;
        int left = (me - 1 + p) % p;
        for (int s = 0; s < p - 1; s++) {
            int sb = (me - s - 1 + 2 * p) % p;
            int rb = (me - s - 2 + 2 * p) % p;
            MsgRequest r = c.irecv(tmp, 0, len[rb] * d.es, Datatype.BYTE, left, tag);
            MsgRequest x = c.isend(acc, lo[sb] * d.es, len[sb] * d.es, Datatype.BYTE, right, tag);
            c.await(r, x);
            combine(op, d, tmp, 0, acc, lo[rb] * d.es, len[rb]);
        }
    }

    // ------------------------------------------------------------------ reduce_scatter

    void reduceScatter(Object sendBuf, long sendOffset, Object recvBuf, long recvOffset, long[] recvCounts,
                       Datatype type, Op op) {
        if (recvCounts == null || recvCounts.length < p) {
            throw new RmaException(ErrorClass.ERR_ARG, "reduce_scatter: recvCounts needs " + p + " entries");
        }
        long total = 0;
        for (int r = 0; r < p; r++) {
            if (recvCounts[r] < 0) {
                throw new RmaException(ErrorClass.ERR_COUNT,
                        "reduce_scatter: recvCounts[" + r + "] = " + recvCounts[r] + " is negative");
            }
            total += recvCounts[r];
        }
        Packed d = packed(sendBuf, sendOffset, total, type, op, "reduce_scatter");
        UserBuf.of(recvBuf, recvOffset, recvCounts[me], type, "reduce_scatter receive buffer");
        long perType = d.n == 0 ? 0 : type.size() / d.es; // packed elements per instance of the type
        long[] lo = rsLo;
        long[] len = rsLen;
        for (int r = 0, at = 0; r < p; r++) {
            lo[r] = at * perType;
            len[r] = recvCounts[r] * perType;
            at += recvCounts[r];
        }
        if (p > 1 && d.n > 0 && !c.shared.fits(d.bytes()) && c.shared.reducesBig(d.bytes())) {
            ByteBuffer res = big.reduceScatter(op, d, lo[me], len[me]);
            unpackResult(res, 0, len[me] * d.es, recvBuf, recvOffset, recvCounts[me], type, "reduce_scatter");
            return;
        }
        ByteBuffer acc = packSend(d);
        if (p > 1 && d.n > 0 && c.shared.fits(d.bytes())) {
            sharedCombine(op, d, acc, p, lo[me], len[me]); // each rank combines only its own block
        } else if (p > 2 && d.n > 0 && d.bytes() <= c.reduceScatterShort) {
            // small vectors: the whole vector's allreduce (log2 P steps; all ops here are commutative) beats P - 1
            // dependent ring steps; each rank keeps its block
            recursiveDoubling(op, d, acc, Collectives.TAG_REDUCE_SCATTER);
        } else if (p > 1 && d.n > 0) {
            ringReduceScatter(op, d, acc, lo, len, Collectives.TAG_REDUCE_SCATTER);
        }
        unpackResult(acc, lo[me] * d.es, len[me] * d.es, recvBuf, recvOffset, recvCounts[me], type, "reduce_scatter");
    }

    // ------------------------------------------------------------------ scan, exscan

    /**
     * Recursive doubling prefix reduction (as MPICH's): in round k each rank exchanges its partial reduction
     * of a block of 2^k ranks with rank {@code me ^ 2^k}; what comes from a lower rank also goes into the
     * result. With {@code exclusive}, the result starts from the first such contribution, and rank 0 gets none.
     */
    void scan(Object sendBuf, long sendOffset, Object recvBuf, long recvOffset, long count, Datatype type, Op op,
              boolean exclusive) {
        String what = exclusive ? "exscan" : "scan";
        Packed d = packed(sendBuf, sendOffset, count, type, op, what);
        if (!exclusive || me > 0) {
            UserBuf.of(recvBuf, recvOffset, count, type, what + " receive buffer");
        }
        long bytes = d.bytes();
        if (p > 1 && d.n > 0 && c.shared.reduces(bytes)) {
            ByteBuffer acc = packSend(d);
            int upTo = exclusive ? me : me + 1;
            sharedCombine(op, d, acc, upTo, 0, d.n);
            if (upTo > 0) {
                unpackResult(acc, 0, bytes, recvBuf, recvOffset, count, type, what);
            }
            return;
        }
        ByteBuffer partial = packSend(d);
        ByteBuffer tmp = c.work.scratch(1, bytes);
        ByteBuffer result = c.work.scratch(2, bytes);
        boolean haveResult = !exclusive;
        if (!exclusive) {
            d.send.packInto(result, 0);
        }
        for (int mask = 1; mask < p; mask <<= 1) {
            int dst = me ^ mask;
            if (dst >= p) {
                continue;
            }
            exchange(partial, 0, tmp, 0, bytes, dst, Collectives.TAG_SCAN);
            combine(op, d, tmp, 0, partial, 0, d.n);
            if (dst < me) {
                if (haveResult) {
                    combine(op, d, tmp, 0, result, 0, d.n);
                } else {
                    copy(tmp, result, bytes);
                    haveResult = true;
                }
            }
        }
        if (haveResult) {
            unpackResult(result, 0, bytes, recvBuf, recvOffset, count, type, what);
        }
    }

    private static void copy(ByteBuffer from, ByteBuffer to, long bytes) {
        to.put(0, from, 0, (int) bytes);
    }

    /** Sends {@code bytes} of {@code out} to {@code peer} while receiving as many into {@code in}. */
    private void exchange(ByteBuffer out, long outAt, ByteBuffer in, long inAt, long bytes, int peer, int tag) {
        MsgRequest r = c.irecv(in, inAt, bytes, Datatype.BYTE, peer, tag);
        MsgRequest s = c.isend(out, outAt, bytes, Datatype.BYTE, peer, tag);
        c.await(r, s);
    }
}

package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.msg.Collectives;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reductions with user-defined operations. The engine's collectives only know the predefined (commutative)
 * operations, so these gather every rank's packed contribution and fold them in rank order,
 * {@code d(0) op (d(1) op (... op d(n-1)))}: the order MPI requires for operations that are not commutative,
 * and the same at every rank, so every rank of an allreduce gets the same bits. The data reaches the user
 * function laid out as in memory ({@code count} instances of the datatype, {@code extent} bytes apart).
 *
 * <p>Stateless; called by the rank owning the communicator.
 */
final class UserOps {
    private UserOps() {
    }

    /** The packed data of {@code count} elements of {@code type} in a prepared buffer. */
    static byte[] pack(Bufs.Msg b, long count, Datatype type) {
        io.jrma.Datatype t = Datatype.jt(type);
        byte[] out = new byte[Math.toIntExact(count * t.size())];
        if (out.length > 0) {
            t.pack(b.obj, b.off * t.extent(), count, out, 0);
        }
        return out;
    }

    /** Unpacks {@code len} packed bytes from {@code from} at {@code at} into a prepared buffer. */
    static void unpack(byte[] from, long at, long len, Bufs.Msg b, long count, Datatype type) {
        io.jrma.Datatype t = Datatype.jt(type);
        if (len > 0) {
            t.unpack(from, at, len, b.obj, b.off * t.extent(), count);
        }
        b.done();
    }

    /** The memory image of packed data: {@code count} instances laid out from byte 0 as in a user buffer. */
    private static ByteBuffer image(byte[] packed, long at, int count, io.jrma.Datatype t) {
        if (t.trueLb() < 0) {
            throw new RmaException(ErrorClass.ERR_TYPE, "user-defined operations take datatypes without data before"
                    + " their origin (true lower bound " + t.trueLb() + ")");
        }
        long span = count == 0 ? 0 : Math.max(count * t.extent(),
                (count - 1) * t.extent() + t.trueLb() + t.trueExtent());
        ByteBuffer img = ByteBuffer.allocateDirect(Math.toIntExact(span)).order(ByteOrder.nativeOrder());
        if (count > 0 && t.size() > 0) {
            t.unpack(packed, at, count * t.size(), img, 0, count);
        }
        return img;
    }

    /**
     * Folds the contributions of ranks {@code from..to-1} (each {@code count * size} packed bytes, rank r's at
     * {@code r * len}) in rank order and returns the packed result.
     */
    static byte[] fold(Op op, byte[] all, int from, int to, int count, Datatype type) throws MPIException {
        io.jrma.Datatype t = Datatype.jt(type);
        int len = Math.toIntExact(count * t.size());
        ByteBuffer acc = image(all, (long) (to - 1) * len, count, t);
        for (int r = to - 2; r >= from; r--) {
            op.apply(image(all, (long) r * len, count, t), acc, count, type);
        }
        byte[] out = new byte[len];
        if (len > 0) {
            t.pack(acc, 0, count, out, 0);
        }
        return out;
    }

    /** MPI_Reduce with a user operation: gather to the root, fold there. */
    static void reduce(Collectives c, int me, int p, Bufs.Msg send, Bufs.Msg recv, int count, Datatype type, Op op,
                       int root) throws MPIException {
        byte[] mine = pack(send, count, type);
        int len = mine.length;
        byte[] all = me == root ? new byte[Math.multiplyExact(len, p)] : null;
        c.gather(mine, 0, len, io.jrma.Datatype.BYTE, all, 0, len, io.jrma.Datatype.BYTE, root);
        if (me == root) {
            unpack(fold(op, all, 0, p, count, type), 0, len, recv, count, type);
        }
    }

    /** Every rank's packed contribution, rank r's at {@code r * len}. */
    private static byte[] allgather(Collectives c, int p, byte[] mine) {
        byte[] all = new byte[Math.multiplyExact(mine.length, p)];
        c.allgather(mine, 0, mine.length, io.jrma.Datatype.BYTE, all, 0, mine.length, io.jrma.Datatype.BYTE);
        return all;
    }

    /** MPI_Allreduce with a user operation: allgather, then every rank folds all contributions. */
    static void allreduce(Collectives c, int p, Bufs.Msg send, Bufs.Msg recv, int count, Datatype type, Op op)
            throws MPIException {
        byte[] mine = pack(send, count, type);
        byte[] res = fold(op, allgather(c, p, mine), 0, p, count, type);
        unpack(res, 0, res.length, recv, count, type);
    }

    /** MPI_Scan / MPI_Exscan with a user operation: rank r folds ranks 0..r (exclusive: 0..r-1). */
    static void scan(Collectives c, int me, int p, Bufs.Msg send, Bufs.Msg recv, int count, Datatype type, Op op,
                     boolean exclusive) throws MPIException {
        byte[] all = allgather(c, p, pack(send, count, type));
        int to = exclusive ? me : me + 1;
        if (to > 0) {
            byte[] res = fold(op, all, 0, to, count, type);
            unpack(res, 0, res.length, recv, count, type);
        }
    }

    /** MPI_Reduce_scatter with a user operation: allgather, fold all, keep this rank's block. */
    static void reduceScatter(Collectives c, int me, int p, Bufs.Msg send, Bufs.Msg recv, int[] counts, Datatype type,
                              Op op) throws MPIException {
        if (counts == null || counts.length < p) {
            throw new RmaException(ErrorClass.ERR_ARG, "reduce_scatter: recvcounts needs " + p + " entries");
        }
        int total = 0;
        int before = 0;
        for (int r = 0; r < p; r++) {
            if (counts[r] < 0) {
                throw new RmaException(ErrorClass.ERR_COUNT, "reduce_scatter: recvcounts[" + r + "] = " + counts[r]
                        + " is negative");
            }
            before += r < me ? counts[r] : 0;
            total += counts[r];
        }
        byte[] res = fold(op, allgather(c, p, pack(send, total, type)), 0, p, total, type);
        long size = Datatype.jt(type).size();
        unpack(res, before * size, counts[me] * size, recv, counts[me], type);
    }

    /** MPI_Reduce_local with a user operation. */
    static void reduceLocal(Bufs.Msg in, Bufs.Msg inOut, int count, Datatype type, Op op) throws MPIException {
        byte[] both = new byte[0];
        byte[] a = pack(in, count, type);
        byte[] b = pack(inOut, count, type);
        both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        byte[] res = fold(op, both, 0, 2, count, type);
        unpack(res, 0, res.length, inOut, count, type);
    }
}

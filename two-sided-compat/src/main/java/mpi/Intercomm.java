package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.runtime.LocalComm;
import io.jrma.msg.Collectives;
import io.jrma.msg.MsgRequest;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An inter-communicator (MPI-3 section 6.6): a local and a remote group, disjoint; point-to-point ranks and
 * the roots of collectives name ranks of the remote group. Made by {@link Comm#createIntercomm} or by
 * {@link Intracomm#accept} / {@link Intracomm#connect}; {@link #merge} turns it into an intra-communicator.
 *
 * <p>Underneath is a jrma communicator of both groups (the union), made by their members alone through
 * jrma's control plane: point-to-point messages travel on it with the remote rank translated, and the
 * collectives (all of MPI's inter-communicator collectives) are messages between the
 * groups on its collective context, reductions folded in the remote group's rank order. {@link #getParent()}
 * returns a null communicator: jrma does not spawn processes.
 */
public final class Intercomm extends Comm {
    /** createGroup tag of the communicators under inter-communicators (user tags of createGroup are >= 0). */
    private static final int UNION_TAG = -7_000_001;

    private static final int T_BCAST = Collectives.OWN_TAG_BASE + 1;
    private static final int T_GATHER = Collectives.OWN_TAG_BASE + 2;
    private static final int T_SCATTER = Collectives.OWN_TAG_BASE + 3;
    private static final int T_ALLGATHER = Collectives.OWN_TAG_BASE + 4;
    private static final int T_ALLTOALL = Collectives.OWN_TAG_BASE + 5;
    private static final int T_REDUCE = Collectives.OWN_TAG_BASE + 6;
    private static final int T_ALLREDUCE = Collectives.OWN_TAG_BASE + 7;
    private static final int T_REDUCE_SCATTER = Collectives.OWN_TAG_BASE + 8;

    /** World ranks of the local and the remote group, in group rank order. */
    private final int[] localWorld;
    private final int[] remoteWorld;
    /** Whether the local group's ranks come first in the union. */
    private final boolean localFirst;

    /** The null inter-communicator ({@link #getParent()}). */
    Intercomm() {
        super(null, null);
        localWorld = new int[0];
        remoteWorld = new int[0];
        localFirst = true;
    }

    private Intercomm(io.jrma.Comm union, Comm parent, int[] localWorld, int[] remoteWorld, boolean localFirst) {
        super(union, parent);
        this.localWorld = localWorld;
        this.remoteWorld = remoteWorld;
        this.localFirst = localFirst;
    }

    // ------------------------------------------------------------------------------------------- creation

    /** The leaders' exchange of their groups' world ranks (run at the local leader only). */
    @FunctionalInterface
    interface LeaderExchange {
        int[] exchange(int[] localWorldRanks) throws MPIException;
    }

    /**
     * Runs {@code ex} at the local leader and broadcasts its result (the remote group's world ranks) over
     * {@code localComm}; every member returns it.
     */
    static int[] exchangeLeaders(Comm localComm, int localLeader, LeaderExchange ex) throws MPIException {
        io.jrma.Comm lc = localComm.core();
        if (localLeader < 0 || localLeader >= lc.size()) {
            throw new RmaException(ErrorClass.ERR_RANK,
                    "leader rank " + localLeader + " is not in a communicator of size "
                    + lc.size());
        }
        int[] remote = null;
        int[] len = new int[1];
        if (lc.rank() == localLeader) {
            remote = ex.exchange(lc.group().worldRanks());
            len[0] = remote.length;
        }
        if (lc.size() > 1) {
            Collectives c = localComm.coll();
            c.bcast(len, 0, 1, io.jrma.Datatype.INT, localLeader);
            if (remote == null) {
                remote = new int[len[0]];
            }
            c.bcast(remote, 0, len[0], io.jrma.Datatype.INT, localLeader);
        }
        return remote;
    }

    /**
     * The inter-communicator between {@code localComm}'s group and the group of world ranks {@code remote}
     * (whose members call this at the same time with theirs). Collective over both groups.
     */
    static Intercomm create(Comm localComm, int[] remote) {
        io.jrma.Comm lc = localComm.core();
        int[] local = lc.group().worldRanks();
        if (remote.length == 0) {
            throw new RmaException(ErrorClass.ERR_COMM, "the remote group is empty");
        }
        for (int w : remote) {
            for (int l : local) {
                if (w == l) {
                    throw new RmaException(ErrorClass.ERR_COMM,
                            "the local and the remote group overlap (world rank " + w
                            + "): an inter-communicator needs disjoint groups");
                }
            }
        }
        boolean localFirst = local[0] < remote[0]; // both sides compare the same two ranks
        int[] union = new int[local.length + remote.length];
        System.arraycopy(localFirst ? local : remote, 0, union, 0, localFirst ? local.length : remote.length);
        System.arraycopy(localFirst ? remote : local, 0, union, localFirst ? local.length : remote.length,
                localFirst ? remote.length : local.length);
        io.jrma.Comm world = MPI.env.world;
        if (!(world instanceof LocalComm w)) {
            throw new RmaException(ErrorClass.ERR_UNSUPPORTED_OPERATION,
                    "inter-communicators need jrma's own world communicator");
        }
        int myWorld = local[lc.rank()];
        io.jrma.Comm u = w.createGroup(new io.jrma.Group(union, myWorld), UNION_TAG);
        return new Intercomm(u, localComm, local, remote, localFirst);
    }

    @Override
    Comm derive(io.jrma.Comm c) {
        return new Intercomm(c, this, localWorld, remoteWorld, localFirst);
    }

    @Override
    public Intercomm clone() {
        return (Intercomm) super.clone();
    }

    @Override
    public Intercomm dup() throws MPIException {
        return (Intercomm) super.dup();
    }

    @Override
    public Intercomm iDup() throws MPIException {
        return (Intercomm) super.iDup();
    }

    @Override
    public Intercomm dupWithInfo(Info info) throws MPIException {
        return (Intercomm) super.dupWithInfo(info);
    }

    // ------------------------------------------------------------------------------------------- groups and ranks

    private int unionOfLocal(int localRank) {
        return localFirst ? localRank : remoteWorld.length + localRank;
    }

    private int unionOfRemote(int remoteRank) {
        return localFirst ? localWorld.length + remoteRank : remoteRank;
    }

    @Override
    int localSize() {
        core();
        return localWorld.length;
    }

    @Override
    int localRank() {
        int u = core().rank();
        return localFirst ? u : u - remoteWorld.length;
    }

    @Override
    io.jrma.Group localGroup() {
        return new io.jrma.Group(localWorld, localWorld[localRank()]);
    }

    @Override
    int peer(int rank) {
        if (rank == MPI.PROC_NULL || rank == MPI.ANY_SOURCE) {
            return rank;
        }
        if (rank < 0 || rank >= remoteWorld.length) {
            throw new RmaException(ErrorClass.ERR_RANK, "rank " + rank + " is not in the remote group of size "
                    + remoteWorld.length);
        }
        return unionOfRemote(rank);
    }

    /** The remote-group rank of a rank of the union (sources of received messages). */
    int remoteRankOf(int unionRank) {
        if (unionRank < 0) {
            return unionRank; // ANY_SOURCE, PROC_NULL
        }
        int r = localFirst ? unionRank - localWorld.length : unionRank;
        return r >= 0 && r < remoteWorld.length ? r : MPI.UNDEFINED;
    }

    /** Size of the remote group (MPI_COMM_REMOTE_SIZE). */
    public int getRemoteSize() throws MPIException {
        return run(() -> {
            core();
            return remoteWorld.length;
        });
    }

    /** The remote group (MPI_COMM_REMOTE_GROUP). */
    public Group getRemoteGroup() throws MPIException {
        return run(() -> new Group(new io.jrma.Group(remoteWorld, localWorld[localRank()])));
    }

    /**
     * An intra-communicator of both groups (MPI_INTERCOMM_MERGE); collective over both. The group whose
     * members pass {@code high = false} comes first; if both pass the same value, the order is the same at
     * every member (the group holding the lower world rank first).
     */
    public Intracomm merge(boolean high) throws MPIException {
        return run(() -> {
            io.jrma.Comm u = core();
            int[] flags = new int[u.size()];
            coll().allgather(new int[] {high ? 1 : 0}, 0, 1, io.jrma.Datatype.INT, flags, 0, 1, io.jrma.Datatype.INT);
            boolean mine = flags[u.rank()] != 0;
            boolean theirs = flags[unionOfRemote(0)] != 0;
            boolean first = mine == theirs ? localFirst : !mine;
            io.jrma.Comm merged = u.split(0, (first ? 0 : remoteWorld.length) + localRank());
            return new Intracomm(merged, this);
        });
    }

    /** The parent of a spawned program (MPI_COMM_GET_PARENT): in jrma always a null communicator. */
    public static Intercomm getParent() throws MPIException {
        MPI.check();
        return new Intercomm();
    }

    // ------------------------------------------------------------------------------------------- collectives

    /** A root argument: {@link MPI#ROOT} (the root itself), {@link MPI#PROC_NULL} (its group), or a remote rank. */
    private int rootKind(int root) {
        if (root == MPI.ROOT || root == MPI.PROC_NULL) {
            return root;
        }
        if (root < 0 || root >= remoteWorld.length) {
            throw new RmaException(ErrorClass.ERR_ROOT,
                    "root " + root + " is not MPI.ROOT, MPI.PROC_NULL or a rank of the"
                    + " remote group of size " + remoteWorld.length);
        }
        return root;
    }

    private static void waitAll(List<MsgRequest> reqs) {
        RmaException first = null;
        for (MsgRequest r : reqs) {
            try {
                r.waitFor();
            } catch (RmaException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static void counts(int[] counts, int[] displs, int n, String what) {
        if (counts == null || counts.length < n || displs != null && displs.length < n) {
            throw new RmaException(ErrorClass.ERR_ARG, what + ": counts and displacements need " + n
                    + " entries (the size of the remote group)");
        }
    }

    void xBcast(Object buf, int count, Datatype type, int root) throws MPIException {
        exec(() -> {
            int k = rootKind(root);
            Collectives c = coll();
            Bufs.Msg b = b(buf, type);
            io.jrma.Datatype t = jt(type);
            if (k == MPI.ROOT) {
                List<MsgRequest> rs = new ArrayList<>();
                for (int r = 0; r < remoteWorld.length; r++) {
                    rs.add(c.isendOwn(b.obj, b.off, count, t, unionOfRemote(r), T_BCAST));
                }
                waitAll(rs);
            } else if (k != MPI.PROC_NULL) {
                c.irecvOwn(b.obj, b.off, count, t, unionOfRemote(k), T_BCAST).waitFor();
                b.done();
            }
        });
    }

    void xGather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount, Datatype recvtype,
                 int root) throws MPIException {
        exec(() -> {
            int k = rootKind(root);
            Collectives c = coll();
            if (k == MPI.ROOT) {
                Bufs.Msg r = b(recvbuf, recvtype);
                List<MsgRequest> rs = new ArrayList<>();
                for (int i = 0; i < remoteWorld.length; i++) {
                    rs.add(c.irecvOwn(r.obj, r.off + (long) i * recvcount, recvcount, jt(recvtype),
                            unionOfRemote(i), T_GATHER));
                }
                waitAll(rs);
                r.done();
            } else if (k != MPI.PROC_NULL) {
                Bufs.Msg s = b(sendbuf, sendtype);
                c.isendOwn(s.obj, s.off, sendcount, jt(sendtype), unionOfRemote(k), T_GATHER).waitFor();
                s.done();
            }
        });
    }

    void xGatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount, int[] displs,
                  Datatype recvtype, int root) throws MPIException {
        exec(() -> {
            int k = rootKind(root);
            Collectives c = coll();
            if (k == MPI.ROOT) {
                counts(recvcount, displs, remoteWorld.length, "gatherv");
                Bufs.Msg r = b(recvbuf, recvtype);
                List<MsgRequest> rs = new ArrayList<>();
                for (int i = 0; i < remoteWorld.length; i++) {
                    rs.add(c.irecvOwn(r.obj, r.off + displs[i], recvcount[i], jt(recvtype),
                            unionOfRemote(i), T_GATHER));
                }
                waitAll(rs);
                r.done();
            } else if (k != MPI.PROC_NULL) {
                Bufs.Msg s = b(sendbuf, sendtype);
                c.isendOwn(s.obj, s.off, sendcount, jt(sendtype), unionOfRemote(k), T_GATHER).waitFor();
                s.done();
            }
        });
    }

    void xScatter(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount, Datatype recvtype,
                  int root) throws MPIException {
        exec(() -> {
            int k = rootKind(root);
            Collectives c = coll();
            if (k == MPI.ROOT) {
                Bufs.Msg s = b(sendbuf, sendtype);
                List<MsgRequest> rs = new ArrayList<>();
                for (int i = 0; i < remoteWorld.length; i++) {
                    rs.add(c.isendOwn(s.obj, s.off + (long) i * sendcount, sendcount, jt(sendtype),
                            unionOfRemote(i), T_SCATTER));
                }
                waitAll(rs);
                s.done();
            } else if (k != MPI.PROC_NULL) {
                Bufs.Msg r = b(recvbuf, recvtype);
                c.irecvOwn(r.obj, r.off, recvcount, jt(recvtype), unionOfRemote(k), T_SCATTER).waitFor();
                r.done();
            }
        });
    }

    void xScatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype, Object recvbuf, int recvcount,
                   Datatype recvtype, int root) throws MPIException {
        exec(() -> {
            int k = rootKind(root);
            Collectives c = coll();
            if (k == MPI.ROOT) {
                counts(sendcount, displs, remoteWorld.length, "scatterv");
                Bufs.Msg s = b(sendbuf, sendtype);
                List<MsgRequest> rs = new ArrayList<>();
                for (int i = 0; i < remoteWorld.length; i++) {
                    rs.add(c.isendOwn(s.obj, s.off + displs[i], sendcount[i], jt(sendtype),
                            unionOfRemote(i), T_SCATTER));
                }
                waitAll(rs);
                s.done();
            } else if (k != MPI.PROC_NULL) {
                Bufs.Msg r = b(recvbuf, recvtype);
                c.irecvOwn(r.obj, r.off, recvcount, jt(recvtype), unionOfRemote(k), T_SCATTER).waitFor();
                r.done();
            }
        });
    }

    void xAllGather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount, Datatype recvtype)
            throws MPIException {
        exec(() -> {
            Collectives c = coll();
            Bufs.Msg s = b(sendbuf, sendtype);
            Bufs.Msg r = b(recvbuf, recvtype);
            List<MsgRequest> rs = new ArrayList<>();
            for (int i = 0; i < remoteWorld.length; i++) {
                rs.add(c.irecvOwn(r.obj, r.off + (long) i * recvcount, recvcount, jt(recvtype),
                        unionOfRemote(i), T_ALLGATHER));
            }
            for (int i = 0; i < remoteWorld.length; i++) {
                rs.add(c.isendOwn(s.obj, s.off, sendcount, jt(sendtype), unionOfRemote(i), T_ALLGATHER));
            }
            waitAll(rs);
            r.done();
            s.done();
        });
    }

    void xAllGatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount, int[] displs,
                     Datatype recvtype) throws MPIException {
        exec(() -> {
            counts(recvcount, displs, remoteWorld.length, "allGatherv");
            Collectives c = coll();
            Bufs.Msg s = b(sendbuf, sendtype);
            Bufs.Msg r = b(recvbuf, recvtype);
            List<MsgRequest> rs = new ArrayList<>();
            for (int i = 0; i < remoteWorld.length; i++) {
                rs.add(c.irecvOwn(r.obj, r.off + displs[i], recvcount[i], jt(recvtype), unionOfRemote(i), T_ALLGATHER));
            }
            for (int i = 0; i < remoteWorld.length; i++) {
                rs.add(c.isendOwn(s.obj, s.off, sendcount, jt(sendtype), unionOfRemote(i), T_ALLGATHER));
            }
            waitAll(rs);
            r.done();
            s.done();
        });
    }

    void xAllToAll(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount, Datatype recvtype)
            throws MPIException {
        exec(() -> {
            Collectives c = coll();
            Bufs.Msg s = b(sendbuf, sendtype);
            Bufs.Msg r = b(recvbuf, recvtype);
            List<MsgRequest> rs = new ArrayList<>();
            for (int i = 0; i < remoteWorld.length; i++) {
                rs.add(c.irecvOwn(r.obj, r.off + (long) i * recvcount, recvcount, jt(recvtype),
                        unionOfRemote(i), T_ALLTOALL));
            }
            for (int i = 0; i < remoteWorld.length; i++) {
                rs.add(c.isendOwn(s.obj, s.off + (long) i * sendcount, sendcount, jt(sendtype),
                        unionOfRemote(i), T_ALLTOALL));
            }
            waitAll(rs);
            r.done();
            s.done();
        });
    }

    void xAllToAllv(Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype, Object recvbuf, int[] recvcount,
                    int[] rdispls, Datatype recvtype) throws MPIException {
        exec(() -> {
            counts(sendcount, sdispls, remoteWorld.length, "allToAllv");
            counts(recvcount, rdispls, remoteWorld.length, "allToAllv");
            Bufs.Msg s = b(sendbuf, sendtype);
            Bufs.Msg r = b(recvbuf, recvtype);
            exchangeV(s.obj, s.off, sendcount, sdispls, jt(sendtype), r.obj, r.off, recvcount, rdispls, jt(recvtype));
            r.done();
            s.done();
        });
    }

    /** The exchange of an alltoallw: packed blocks (byte counts and offsets) with every remote rank. */
    void allToAllvBytes(byte[] out, int[] sc, int[] sd, byte[] in, int[] rc, int[] rd) {
        exchangeV(out, 0, sc, sd, io.jrma.Datatype.BYTE, in, 0, rc, rd, io.jrma.Datatype.BYTE);
    }

    /** Sends block i of the send buffer to remote rank i and receives block i from it (displacements in elements). */
    private void exchangeV(Object sb, long soff, int[] sendcount, int[] sdispls, io.jrma.Datatype st, Object rb,
                           long roff, int[] recvcount, int[] rdispls, io.jrma.Datatype rt) {
        Collectives c = coll();
        List<MsgRequest> rs = new ArrayList<>();
        for (int i = 0; i < remoteWorld.length; i++) {
            rs.add(c.irecvOwn(rb, roff + rdispls[i], recvcount[i], rt, unionOfRemote(i), T_ALLTOALL));
        }
        for (int i = 0; i < remoteWorld.length; i++) {
            rs.add(c.isendOwn(sb, soff + sdispls[i], sendcount[i], st, unionOfRemote(i), T_ALLTOALL));
        }
        waitAll(rs);
    }

    // reductions: every remote contribution arrives into a memory image of count elements; they are folded in
    // the remote group's rank order (r0 op (r1 op (... op rn-1))), as MPI requires for non-commutative ops

    private static ByteBuffer image(io.jrma.Datatype t, long count) {
        if (t.trueLb() < 0) {
            throw new RmaException(ErrorClass.ERR_TYPE,
                    "inter-communicator reductions take datatypes without data before"
                    + " their origin (true lower bound " + t.trueLb() + ")");
        }
        long span = count == 0 ? 0 : (count - 1) * t.extent() + Math.max(t.extent(), t.trueLb() + t.trueExtent());
        return ByteBuffer.allocateDirect(Math.toIntExact(span)).order(ByteOrder.nativeOrder());
    }

    /** Receives one contribution of {@code count} elements from every remote rank and folds them. */
    private ByteBuffer foldRemote(Collectives c, List<MsgRequest> sends, long count, Datatype type, Op op, int tag)
            throws MPIException {
        io.jrma.Datatype t = jt(type);
        int n = remoteWorld.length;
        ByteBuffer[] in = new ByteBuffer[n];
        List<MsgRequest> rs = new ArrayList<>(sends);
        for (int i = 0; i < n; i++) {
            in[i] = image(t, count);
            rs.add(c.irecvOwn(in[i], 0, count, t, unionOfRemote(i), tag));
        }
        waitAll(rs);
        ByteBuffer acc = in[n - 1];
        for (int i = n - 2; i >= 0; i--) {
            if (op.jop == null) {
                op.apply(in[i], acc, Math.toIntExact(count), type);
            } else {
                op.jop.reduceLocal(in[i], 0, acc, 0, count, t);
            }
        }
        return acc;
    }

    /** Copies elements {@code from .. from+count-1} of a memory image into a user buffer. */
    private static void deliver(ByteBuffer img, long from, long count, Datatype type, Object recvbuf) {
        io.jrma.Datatype t = jt(type);
        Bufs.Msg r = b(recvbuf, type);
        if (count > 0 && t.size() > 0) {
            byte[] packed = new byte[Math.toIntExact(count * t.size())];
            t.pack(img, from * t.extent(), count, packed, 0);
            t.unpack(packed, 0, packed.length, r.obj, r.off * t.extent(), count);
        }
        r.done();
    }

    private static void reductionOp(Op op) {
        Op.check(op);
        if (op.jop == io.jrma.Op.REPLACE || op.jop == io.jrma.Op.NO_OP) {
            throw new RmaException(ErrorClass.ERR_OP, op + " is only allowed in accumulate operations");
        }
    }

    void xReduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op, int root) throws MPIException {
        exec(() -> {
            int k = rootKind(root);
            reductionOp(op);
            Collectives c = coll();
            if (k == MPI.ROOT) {
                deliver(foldRemote(c, List.of(), count, type, op, T_REDUCE), 0, count, type, recvbuf);
            } else if (k != MPI.PROC_NULL) {
                Bufs.Msg s = b(sendbuf, type);
                c.isendOwn(s.obj, s.off, count, jt(type), unionOfRemote(k), T_REDUCE).waitFor();
                s.done();
            }
        });
    }

    /** Sends this rank's {@code count} elements to every remote rank. */
    private List<MsgRequest> sendToAll(Collectives c, Object sendbuf, long count, Datatype type, int tag) {
        Bufs.Msg s = b(sendbuf, type);
        List<MsgRequest> rs = new ArrayList<>();
        for (int i = 0; i < remoteWorld.length; i++) {
            rs.add(c.isendOwn(s.obj, s.off, count, jt(type), unionOfRemote(i), tag));
        }
        return rs;
    }

    void xAllReduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        exec(() -> {
            reductionOp(op);
            Collectives c = coll();
            ByteBuffer acc = foldRemote(c, sendToAll(c, sendbuf, count, type, T_ALLREDUCE), count,
                    type, op, T_ALLREDUCE);
            deliver(acc, 0, count, type, recvbuf);
        });
    }

    void xReduceScatter(Object sendbuf, Object recvbuf, int[] recvcounts, Datatype type, Op op) throws MPIException {
        exec(() -> {
            reductionOp(op);
            int n = localWorld.length;
            if (recvcounts == null || recvcounts.length < n) {
                throw new RmaException(ErrorClass.ERR_ARG, "reduceScatter: recvcounts needs " + n
                        + " entries (the size of the local group)");
            }
            long total = 0;
            long before = 0;
            int me = localRank();
            for (int i = 0; i < n; i++) {
                if (recvcounts[i] < 0) {
                    throw new RmaException(ErrorClass.ERR_COUNT, "reduceScatter: recvcounts[" + i + "] is negative");
                }
                total += recvcounts[i];
                before += i < me ? recvcounts[i] : 0;
            }
            // MPI: the send vectors of both groups have the same length, the sum of either group's recvcounts
            Collectives c = coll();
            ByteBuffer acc = foldRemote(c, sendToAll(c, sendbuf, total, type, T_REDUCE_SCATTER), total, type, op,
                    T_REDUCE_SCATTER);
            deliver(acc, before, recvcounts[me], type, recvbuf);
        });
    }

    void xReduceScatterBlock(Object sendbuf, Object recvbuf, int recvcount, Datatype type, Op op) throws MPIException {
        exec(() -> {
            reductionOp(op);
            if (recvcount < 0) {
                throw new RmaException(ErrorClass.ERR_COUNT, "reduceScatterBlock: recvcount is negative");
            }
            long total = (long) recvcount * localWorld.length;
            Collectives c = coll();
            ByteBuffer acc = foldRemote(c, sendToAll(c, sendbuf, total, type, T_REDUCE_SCATTER), total, type, op,
                    T_REDUCE_SCATTER);
            deliver(acc, (long) localRank() * recvcount, recvcount, type, recvbuf);
        });
    }

    @Override
    public String toString() {
        return "Intercomm[local " + Arrays.toString(localWorld) + ", remote " + Arrays.toString(remoteWorld) + "]";
    }
}

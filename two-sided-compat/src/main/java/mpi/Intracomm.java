package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.runtime.LocalComm;
import io.jrma.msg.Collectives;
import io.jrma.msg.Messenger;
import io.jrma.msg.MsgRequest;
import java.nio.Buffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An intra-communicator: {@link MPI#COMM_WORLD}, {@link MPI#COMM_SELF} and the communicators made from them,
 * with the operations that make new communicators and the prefix reductions.
 */
public class Intracomm extends Comm {
    Intracomm(String name) {
        super(name);
    }

    Intracomm(io.jrma.Comm core, Comm parent) {
        super(core, parent);
    }

    @Override
    Comm derive(io.jrma.Comm c) {
        return new Intracomm(c, this);
    }

    /** Same as {@link #dup}, with MPIException wrapped in a RuntimeException. */
    @Override
    public Intracomm clone() {
        return (Intracomm) super.clone();
    }

    /** A new communicator with the same group (MPI_COMM_DUP). */
    @Override
    public Intracomm dup() throws MPIException {
        return (Intracomm) super.dup();
    }

    /** {@link #dup}, done at once (MPI_COMM_IDUP). */
    @Override
    public Intracomm iDup() throws MPIException {
        return (Intracomm) super.iDup();
    }

    /** {@link #dup} with the hints of {@code info} (MPI_COMM_DUP_WITH_INFO). */
    @Override
    public Intracomm dupWithInfo(Info info) throws MPIException {
        return (Intracomm) super.dupWithInfo(info);
    }

    /**
     * Partitions the ranks by {@code colour}, ordered by {@code key} then by rank (MPI_COMM_SPLIT). Ranks passing
     * {@link MPI#UNDEFINED} get a null communicator ({@link #isNull()}).
     */
    public final Intracomm split(int colour, int key) throws MPIException {
        return run(() -> new Intracomm(core().split(colour == MPI.UNDEFINED ? io.jrma.Group.UNDEFINED
                : colour, key), this));
    }

    /**
     * Partitions the ranks by type (MPI_COMM_SPLIT_TYPE): {@link Comm#TYPE_SHARED} ({@link MPI#COMM_TYPE_SHARED})
     * groups the ranks that can share memory: the ranks of one host (of one JVM when {@code jrma.shm.windows=false});
     * {@link MPI#UNDEFINED} gives a null communicator.
     */
    public final Intracomm splitType(int splitType, int key, Info info) throws MPIException {
        return run(() -> {
            io.jrma.Comm c = core();
            if (splitType == MPI.UNDEFINED) {
                return new Intracomm(c.split(io.jrma.Group.UNDEFINED, key), this);
            } else if (splitType == MPI.COMM_TYPE_SHARED) {
                return new Intracomm(c.splitShared(key), this);
            }
            throw new RmaException(ErrorClass.ERR_ARG,
                    "split type " + splitType + " is not COMM_TYPE_SHARED or UNDEFINED");
        });
    }

    /**
     * A communicator of the members of {@code group}, a subgroup of this one's (MPI_COMM_CREATE); collective over
     * this communicator. Non-members get a null communicator.
     */
    public final Intracomm create(Group group) throws MPIException {
        return run(() -> new Intracomm(core().create(Group.jg(group)), this));
    }

    /**
     * A communicator of the members of {@code group}, a subgroup of this one's, made by them alone
     * (MPI_COMM_CREATE_GROUP): only the members call it. Calls that may run at the same time on overlapping groups
     * need different tags, as in MPI; the tag never meets point-to-point messages. A rank outside the group gets
     * a null communicator.
     */
    public final Intracomm createGroup(Group group, int tag) throws MPIException {
        return run(() -> {
            io.jrma.Comm c = core();
            if (!(c instanceof LocalComm lc)) {
                throw new RmaException(ErrorClass.ERR_UNSUPPORTED_OPERATION, "createGroup: communicator "
                        + c.name() + " is not one of jrma's own");
            }
            io.jrma.Comm nc = lc.createGroup(Group.jg(group), tag);
            return new Intracomm(nc, this);
        });
    }

    // ---------------------------------------------------------------------------------------- topologies

    /**
     * A communicator with a Cartesian topology of {@code dims} (MPI_CART_CREATE). The first
     * {@code product(dims)} ranks keep their rank (jrma does not reorder); the others get a null communicator.
     */
    public final CartComm createCart(int[] dims, boolean[] periods, boolean reorder) throws MPIException {
        return run(() -> CartComm.create(this, dims, periods));
    }

    /**
     * A communicator with a graph topology (MPI_GRAPH_CREATE): node i's neighbors are
     * {@code edges[index[i-1] .. index[i]-1]}. The first {@code index.length} ranks keep their rank; the others
     * get a null communicator.
     */
    public final GraphComm createGraph(int[] index, int[] edges, boolean reorder) throws MPIException {
        return run(() -> GraphComm.create(this, index, edges));
    }

    /**
     * A communicator with a distributed graph topology and edge weights, one per destination (MPI_DIST_GRAPH_CREATE).
     */
    public final GraphComm createDistGraph(int[] sources, int[] degrees, int[] destinations, int[] weights, Info info,
                                           boolean reorder) throws MPIException {
        return run(() -> GraphComm.createDist(this, sources, degrees, destinations, weights));
    }

    /** A communicator with a distributed graph topology, unweighted (MPI_DIST_GRAPH_CREATE). */
    public final GraphComm createDistGraph(int[] sources, int[] degrees, int[] destinations, Info info, boolean reorder)
            throws MPIException {
        return run(() -> GraphComm.createDist(this, sources, degrees, destinations, null));
    }

    /**
     * A distributed graph topology from each rank's own neighbors and edge weights (MPI_DIST_GRAPH_CREATE_ADJACENT).
     */
    public final GraphComm createDistGraphAdjacent(int[] sources, int[] sourceWeights, int[] destinations,
                                                   int[] destWeights, Info info, boolean reorder) throws MPIException {
        return run(() -> GraphComm.createAdjacent(this, sources, sourceWeights, destinations, destWeights));
    }

    /** A distributed graph topology from each rank's own neighbors, unweighted (MPI_DIST_GRAPH_CREATE_ADJACENT). */
    public final GraphComm createDistGraphAdjacent(int[] sources, int[] destinations, Info info, boolean reorder)
            throws MPIException {
        return run(() -> GraphComm.createAdjacent(this, sources, null, destinations, null));
    }

    // ---------------------------------------------------------------------------------------- prefix reductions

    /** Inclusive prefix reduction: rank r gets data(0) op ... op data(r) (MPI_SCAN). */
    public final void scan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        exec(() -> scan(b(sendbuf, type), b(recvbuf, type), count, type, op, false));
    }

    /** Scan in place: {@code recvbuf} holds this rank's contribution and receives the result (MPI_IN_PLACE). */
    public final void scan(Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        exec(() -> {
            Bufs.Msg b = b(recvbuf, type);
            scan(copy(b, type, op), b, count, type, op, false);
        });
    }

    private void scan(Bufs.Msg s, Bufs.Msg r, int count, Datatype type, Op op, boolean exclusive) throws MPIException {
        Op.check(op);
        if (op.jop == null) {
            UserOps.scan(coll(), me(), size(), s, r, count, type, op, exclusive);
            return;
        }
        if (exclusive) {
            coll().exscan(s.obj, s.off, r.obj, r.off, count, jt(type), op.jop);
        } else {
            coll().scan(s.obj, s.off, r.obj, r.off, count, jt(type), op.jop);
        }
        r.done();
    }

    /** Nonblocking scan (MPI_ISCAN); completes in this call. */
    public final Request iScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> scan(sendbuf, recvbuf, count, type, op));
    }

    /** Nonblocking in-place scan; completes in this call. */
    public final Request iScan(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return async(() -> scan(buf, count, type, op));
    }

    /**
     * Exclusive prefix reduction: rank r > 0 gets data(0) op ... op data(r-1); rank 0's receive buffer is left
     * as it is (MPI_EXSCAN).
     */
    public final void exScan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        exec(() -> scan(b(sendbuf, type), b(recvbuf, type), count, type, op, true));
    }

    /** Exscan in place. */
    public final void exScan(Object buf, int count, Datatype type, Op op) throws MPIException {
        exec(() -> {
            Bufs.Msg b = b(buf, type);
            scan(copy(b, type, op), b, count, type, op, true);
        });
    }

    /** Nonblocking exscan (MPI_IEXSCAN); completes in this call. */
    public final Request iExScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(sendbuf, recvbuf);
        return async(() -> exScan(sendbuf, recvbuf, count, type, op));
    }

    /** Nonblocking in-place exscan; completes in this call. */
    public final Request iExScan(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return async(() -> exScan(buf, count, type, op));
    }

    // ------------------------------------------------------------------------- dynamic processes (unsupported)

    private static RmaException noDynamic(String what) {
        return new RmaException(ErrorClass.ERR_UNSUPPORTED_OPERATION, what + ": dynamic process management is not"
                + " supported by jrma");
    }

    private static <T> T unsupported(String what) throws MPIException {
        MPI.check();
        throw Err.handle(MPI.COMM_WORLD.errh, "MPI_COMM_WORLD", noDynamic(what));
    }

    // ports: between groups of ranks of this job (no process joins it from outside)

    private static final String PORT_PREFIX = "jrma-port:";
    /** Tags (on COMM_WORLD's collective context) of a connect request and of its answer, plus the port number. */
    private static final int T_PORT_CONNECT = Collectives.OWN_TAG_BASE + (1 << 24);
    private static final int T_PORT_ANSWER = Collectives.OWN_TAG_BASE + (2 << 24);
    private static final int PORT_NUMBERS = 1 << 24;
    private static final AtomicInteger PORTS = new AtomicInteger();

    /**
     * A port name for {@link #accept} (MPI_OPEN_PORT): it names this rank and a number of its own. Ports join
     * groups of ranks of the same job (a jrma job cannot be joined from outside); the name is a string of at
     * most {@link MPI#MAX_PORT_NAME} characters to be passed to the connecting side, e.g. in a message.
     */
    public static String openPort() throws MPIException {
        return openPort(null);
    }

    /** A port name (MPI_OPEN_PORT); the info is ignored. */
    public static String openPort(Info info) throws MPIException {
        MPI.check();
        int n = PORTS.getAndIncrement() % PORT_NUMBERS;
        return PORT_PREFIX + MPI.env.world.rank() + ":" + n;
    }

    /** Releases a port name (MPI_CLOSE_PORT); ERR_PORT if it is not a port of this rank. */
    public static void closePort(String name) throws MPIException {
        MPI.check();
        try {
            int[] p = parsePort(name);
            if (p[0] != MPI.env.world.rank()) {
                throw new RmaException(ErrorClass.ERR_PORT, "closePort: " + name + " was opened by another rank");
            }
        } catch (RuntimeException e) {
            throw Err.handle(MPI.COMM_WORLD.errh, "MPI_COMM_WORLD", e);
        }
    }

    /** World rank and number of a port name. */
    private static int[] parsePort(String name) {
        if (name != null) {
            String n = name.trim();
            int colon = n.lastIndexOf(':');
            if (n.startsWith(PORT_PREFIX) && colon > PORT_PREFIX.length()) {
                try {
                    int owner = Integer.parseInt(n.substring(PORT_PREFIX.length(), colon));
                    int number = Integer.parseInt(n.substring(colon + 1));
                    if (owner >= 0 && owner < MPI.env.world.size() && number >= 0 && number < PORT_NUMBERS) {
                        return new int[] {owner, number};
                    }
                } catch (NumberFormatException e) {
                    // not a port name
                }
            }
        }
        throw new RmaException(ErrorClass.ERR_PORT,
                "\"" + name + "\" is not a port name of this job (see Intracomm.openPort)");
    }

    /**
     * Waits for a group to connect to {@code port} and returns an inter-communicator to it (MPI_COMM_ACCEPT).
     * Collective over this communicator; {@code port} is read at {@code root}, which must have opened it.
     */
    public final Intercomm accept(String port, int root) throws MPIException {
        return accept(port, null, root);
    }

    /** {@link #accept(String, int)}; the info is ignored. */
    public final Intercomm accept(String port, Info info, int root) throws MPIException {
        return run(() -> {
            int[] remote = Intercomm.exchangeLeaders(this, root, local -> {
                int[] p = parsePort(port);
                if (p[0] != MPI.env.world.rank()) {
                    throw new RmaException(ErrorClass.ERR_PORT, "accept: " + port + " was opened by another rank");
                }
                Collectives w = MPI.COMM_WORLD.m().collectives();
                int[] request = new int[MPI.env.world.size() + 1];
                MsgRequest r = w.irecvOwn(request, 0, request.length, io.jrma.Datatype.INT,
                        Messenger.ANY_SOURCE, T_PORT_CONNECT + p[1]);
                io.jrma.msg.Status st = r.waitFor();
                int[] other = Arrays.copyOfRange(request, 1, 1 + request[0]);
                int[] answer = new int[local.length + 1];
                answer[0] = local.length;
                System.arraycopy(local, 0, answer, 1, local.length);
                w.isendOwn(answer, 0, answer.length, io.jrma.Datatype.INT, st.source(), T_PORT_ANSWER + p[1]).waitFor();
                return other;
            });
            return Intercomm.create(this, remote);
        });
    }

    /**
     * Connects to a group waiting in {@link #accept} on {@code port} and returns an inter-communicator to it
     * (MPI_COMM_CONNECT). Collective over this communicator; {@code port} is read at {@code root}.
     */
    public final Intercomm connect(String port, int root) throws MPIException {
        return connect(port, null, root);
    }

    /** {@link #connect(String, int)}; the info is ignored. */
    public final Intercomm connect(String port, Info info, int root) throws MPIException {
        return run(() -> {
            int[] remote = Intercomm.exchangeLeaders(this, root, local -> {
                int[] p = parsePort(port);
                Collectives w = MPI.COMM_WORLD.m().collectives();
                int[] request = new int[local.length + 1];
                request[0] = local.length;
                System.arraycopy(local, 0, request, 1, local.length);
                int[] answer = new int[MPI.env.world.size() + 1];
                MsgRequest r = w.irecvOwn(answer, 0, answer.length, io.jrma.Datatype.INT, p[0],
                        T_PORT_ANSWER + p[1]);
                w.isendOwn(request, 0, request.length, io.jrma.Datatype.INT, p[0], T_PORT_CONNECT + p[1]).waitFor();
                r.waitFor();
                return Arrays.copyOfRange(answer, 1, 1 + answer[0]);
            });
            return Intercomm.create(this, remote);
        });
    }

    /** Not supported by jrma (MPI_PUBLISH_NAME). */
    public static void publishName(String service, String port) throws MPIException {
        unsupported("publishName");
    }

    /** Not supported by jrma (MPI_PUBLISH_NAME). */
    public static void publishName(String service, Info info, String port) throws MPIException {
        unsupported("publishName");
    }

    /** Not supported by jrma (MPI_UNPUBLISH_NAME). */
    public static void unpublishName(String service, String port) throws MPIException {
        unsupported("unpublishName");
    }

    /** Not supported by jrma (MPI_UNPUBLISH_NAME). */
    public static void unpublishName(String service, Info info, String port) throws MPIException {
        unsupported("unpublishName");
    }

    /** Not supported by jrma (MPI_LOOKUP_NAME). */
    public static String lookupName(String service) throws MPIException {
        return unsupported("lookupName");
    }

    /** Not supported by jrma (MPI_LOOKUP_NAME). */
    public static String lookupName(String service, Info info) throws MPIException {
        return unsupported("lookupName");
    }

    /** Not supported by jrma (MPI_COMM_SPAWN). */
    public final Intercomm spawn(String command, String[] argv, int maxprocs, Info info, int root, int[] errcodes)
            throws MPIException {
        return unsupported("spawn");
    }

    /** Not supported by jrma (MPI_COMM_SPAWN_MULTIPLE). */
    public final Intercomm spawnMultiple(String[] commands, String[][] argv, int[] maxprocs, Info[] info, int root,
                                         int[] errcodes) throws MPIException {
        return unsupported("spawnMultiple");
    }
}

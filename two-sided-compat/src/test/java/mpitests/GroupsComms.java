package mpitests;

import static mpitests.Check.check;
import static mpitests.Check.eq;
import static mpitests.Check.fails;

import java.nio.IntBuffer;
import java.util.Arrays;
import mpi.CartComm;
import mpi.CartParms;
import mpi.Comm;
import mpi.DistGraphNeighbors;
import mpi.GraphComm;
import mpi.GraphParms;
import mpi.Group;
import mpi.Info;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.ShiftParms;
import mpi.Status;

/** Environment, groups, communicator management, attributes, info, topologies. */
public final class GroupsComms {
    public static void main(String[] args) throws MPIException {
        check(!MPI.isInitialized(), "not initialized before Init");
        int provided = MPI.InitThread(args, MPI.THREAD_MULTIPLE);
        eq(MPI.THREAD_MULTIPLE, provided, "thread level provided");
        eq(MPI.THREAD_MULTIPLE, MPI.queryThread(), "queryThread");
        check(MPI.isThreadMain(), "the thread that initialized is main");
        check(MPI.isInitialized() && !MPI.isFinalized(), "initialized");
        Intracomm world = MPI.COMM_WORLD;
        int me = world.getRank();
        int n = world.getSize();

        environment(world, me, n);
        groups(world, me, n);
        communicators(world, me, n);
        attributesAndInfo(world, me, n);
        cartesian(world, me, n);
        graphs(world, me, n);

        MPI.Finalize();
        if (me == 0) {
            System.out.println("GroupsComms OK on " + n + " ranks");
        }
    }

    private static void environment(Intracomm world, int me, int n) throws MPIException {
        double t0 = MPI.wtime();
        check(MPI.wtick() > 0 && MPI.wtick() < 1e-3, "wtick");
        check(MPI.wtime() >= t0, "wtime is monotonic");
        eq(3, MPI.getVersion().getVersion(), "MPI version");
        eq(1, MPI.getVersion().getSubVersion(), "MPI subversion");
        check(MPI.getLibVersion().contains("jrma"), "library version");
        check(!MPI.getProcessorName().isEmpty(), "processor name");
        boolean[] inThread = {false};
        Thread t = new Thread(() -> {
            try {
                inThread[0] = MPI.isThreadMain();
            } catch (MPIException e) {
                throw new IllegalStateException(e);
            }
        });
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        check(!inThread[0], "another thread is not main");
        eq("MPI_COMM_WORLD", world.getName(), "world name");
        eq("MPI_COMM_SELF", MPI.COMM_SELF.getName(), "self name");
        eq(1, MPI.COMM_SELF.getSize(), "self size");
        eq(0, MPI.COMM_SELF.getRank(), "self rank");
        int[] x = {me};
        int[] y = new int[1];
        MPI.COMM_SELF.sendRecv(x, 1, MPI.INT, 0, 1, y, 1, MPI.INT, 0, 1);
        eq(me, y[0], "send to self on COMM_SELF");
        MPI.COMM_SELF.allReduce(x, y, 1, MPI.INT, MPI.SUM);
        eq(me, y[0], "allReduce on COMM_SELF");
        check(MPI.COMM_WORLD.getErrhandler() == MPI.ERRORS_ARE_FATAL, "default error handler");
        eq(MPI.UNDEFINED, world.getTopology(), "no topology");
        check(!world.isInter(), "intra");
        check(Intercomm.getParent().isNull(), "no parent");
        check(MPI.INFO_ENV.get("maxprocs").equals(String.valueOf(n)), "INFO_ENV maxprocs");
        // the program's main class, as java names it (not the launcher's), and Open MPI's keys
        eq(GroupsComms.class.getName(), MPI.INFO_ENV.get("command"), "INFO_ENV command");
        eq(MPI.getProcessorName(), MPI.INFO_ENV.get("host"), "INFO_ENV host");
        eq(String.valueOf(n), MPI.INFO_ENV.get("ompi_np"), "INFO_ENV ompi_np");
        check(MPI.INFO_ENV.get("arch") != null && MPI.INFO_ENV.get("ompi_first_rank") != null
                && MPI.INFO_ENV.get("ompi_num_apps") != null, "INFO_ENV arch, ompi_first_rank, ompi_num_apps");
    }

    private static void groups(Intracomm world, int me, int n) throws MPIException {
        Group g = world.getGroup();
        eq(n, g.getSize(), "group size");
        eq(me, g.getRank(), "group rank");
        int[] evens = new int[(n + 1) / 2];
        for (int k = 0; k < evens.length; k++) {
            evens[k] = 2 * k;
        }
        Group ge = g.incl(evens);
        eq(evens.length, ge.getSize(), "incl size");
        eq(me % 2 == 0 ? me / 2 : MPI.UNDEFINED, ge.getRank(), "incl rank");
        Group go = g.excl(evens);
        eq(n / 2, go.getSize(), "excl size");
        Group gr = g.rangeIncl(new int[][] {{0, n - 1, 2}});
        eq(MPI.IDENT, Group.compare(ge, gr), "rangeIncl = incl of evens");
        Group gx = g.rangeExcl(new int[][] {{0, n - 1, 2}});
        eq(MPI.IDENT, Group.compare(go, gx), "rangeExcl = excl of evens");
        Group u = Group.union(go, ge);
        eq(n, u.getSize(), "union size");
        eq(n > 1 ? MPI.SIMILAR : MPI.IDENT, Group.compare(u, g), "union of odds and evens is similar to the world");
        eq(0, Group.intersection(go, ge).getSize(), "intersection");
        eq(MPI.IDENT, Group.compare(Group.difference(g, go), ge), "difference");
        int[] all = new int[n];
        for (int k = 0; k < n; k++) {
            all[k] = k;
        }
        int[] tr = Group.translateRanks(g, all, ge);
        for (int k = 0; k < n; k++) {
            eq(k % 2 == 0 ? k / 2 : MPI.UNDEFINED, tr[k], "translateRanks " + k);
        }
        int[] rev = new int[n];
        for (int k = 0; k < n; k++) {
            rev[k] = n - 1 - k;
        }
        Group grev = g.incl(rev);
        eq(n - 1 - me, grev.getRank(), "reversed rank");
        eq(n > 1 ? MPI.SIMILAR : MPI.IDENT, Group.compare(g, grev), "reversed group is similar");
        eq(0, MPI.GROUP_EMPTY.getSize(), "GROUP_EMPTY");
        eq(MPI.UNDEFINED, MPI.GROUP_EMPTY.getRank(), "GROUP_EMPTY rank");
        eq(MPI.UNEQUAL, Group.compare(g, MPI.GROUP_EMPTY), "unequal");
        ge.free();
        check(ge.isNull(), "freed group");
    }

    private static void communicators(Intracomm world, int me, int n) throws MPIException {
        Intracomm d = world.dup();
        eq(MPI.IDENT, Comm.compare(world, world), "IDENT");
        eq(MPI.CONGRUENT, Comm.compare(world, d), "dup is CONGRUENT");
        check(d.getErrhandler() == world.getErrhandler(), "dup inherits the error handler");
        // a message on the duplicate is not seen on the world
        if (n > 1) {
            if (me == 0) {
                d.send(new int[] {1}, 1, MPI.INT, 1, 5);
                world.send(new int[] {2}, 1, MPI.INT, 1, 5);
            } else if (me == 1) {
                int[] in = new int[1];
                world.recv(in, 1, MPI.INT, 0, MPI.ANY_TAG);
                eq(2, in[0], "contexts are separate");
                d.recv(in, 1, MPI.INT, 0, 5);
                eq(1, in[0], "message on the duplicate");
            }
        }
        Intracomm rev = world.split(0, n - me);
        eq(n - 1 - me, rev.getRank(), "split by reversed key");
        eq(n > 1 ? MPI.SIMILAR : MPI.CONGRUENT, Comm.compare(world, rev), "reversed is SIMILAR");
        Intracomm none = world.split(me == 0 ? MPI.UNDEFINED : 1, 0);
        check(me == 0 ? none.isNull() : !none.isNull(), "UNDEFINED colour gives a null communicator");
        if (!none.isNull()) {
            eq(n - 1, none.getSize(), "split without rank 0");
            none.free();
        }
        Group g = world.getGroup();
        Group first = g.incl(new int[] {0});
        Intracomm c0 = world.create(first);
        check(me == 0 ? !c0.isNull() && c0.getSize() == 1 : c0.isNull(), "create");
        if (!c0.isNull()) {
            c0.free();
        }
        // createGroup: only the members call it; disjoint groups may use the same tag at the same time, and a
        // receive with ANY_TAG posted before must not see anything of it
        IntBuffer pending = MPI.newIntBuffer(1);
        Request anyTag = world.iRecv(pending, 1, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
        int[] parity = new int[(n - me % 2 + 1) / 2];
        int expectSum = 0;
        for (int i = 0; i < parity.length; i++) {
            parity[i] = me % 2 + 2 * i;
            expectSum += parity[i];
        }
        Group sameParity = g.incl(parity);
        for (int round = 0; round < 2; round++) {
            Intracomm cg = world.createGroup(sameParity, 7);
            check(!cg.isNull(), "createGroup gives members a communicator");
            eq(parity.length, cg.getSize(), "createGroup size");
            eq(me / 2, cg.getRank(), "createGroup rank");
            int[] sum = new int[1];
            cg.allReduce(new int[] {me}, sum, 1, MPI.INT, MPI.SUM);
            eq(expectSum, sum[0], "allReduce on the createGroup communicator, round " + round);
            cg.free();
        }
        Status early = anyTag.testStatus();
        check(early == null, "a receive with ANY_TAG does not match createGroup's traffic"
                + (early == null ? "" : ": tag " + early.getTag() + " from " + early.getSource()));
        world.barrier(); // every rank has checked before anyone sends
        world.send(new int[] {100 + me}, 1, MPI.INT, (me + 1) % n, 99);
        Status st = anyTag.waitStatus();
        eq(100 + (me + n - 1) % n, pending.get(0), "message after createGroup");
        eq(99, st.getTag(), "tag of the message after createGroup");
        Intracomm shared = world.splitType(Comm.TYPE_SHARED, me, MPI.INFO_NULL);
        // every rank of these runs is on this host: one part, as Open MPI gives (a JVM each was a bug)
        boolean byJvm = "false".equals(System.getProperty("jrma.shm.windows"));
        check(byJvm ? shared.getSize() >= 1 && shared.getSize() <= n : shared.getSize() == n, "splitType shared");
        int[] jvmRanks = new int[1];
        shared.allReduce(new int[] {1}, jvmRanks, 1, MPI.INT, MPI.SUM);
        eq(shared.getSize(), jvmRanks[0], "collective on the shared communicator");
        shared.free();
        d.setName("dup of world");
        eq("dup of world", d.getName(), "setName");
        Intracomm idup = world.iDup();
        check(idup.getRequest() != null, "iDup has a request");
        idup.getRequest().waitFor();
        idup.barrier();
        idup.free();
        d.free();
        rev.free();
        check(d.isNull(), "freed");
    }

    private static void attributesAndInfo(Intracomm world, int me, int n) throws MPIException {
        eq(Integer.MAX_VALUE, world.getAttr(MPI.TAG_UB), "TAG_UB");
        eq(Boolean.FALSE, world.getAttr(MPI.WTIME_IS_GLOBAL), "WTIME_IS_GLOBAL");
        eq(n, world.getAttr(MPI.UNIVERSE_SIZE), "UNIVERSE_SIZE");
        eq(MPI.PROC_NULL, world.getAttr(MPI.HOST), "HOST");
        eq(0, world.getAttr(MPI.APPNUM), "APPNUM");
        int key = Comm.createKeyval();
        check(world.getAttr(key) == null, "unset attribute");
        world.setAttr(key, "rank " + me);
        eq("rank " + me, world.getAttr(key), "attribute");
        Intracomm d = world.dup();
        eq("rank " + me, d.getAttr(key), "dup copies attributes");
        d.deleteAttr(key);
        check(d.getAttr(key) == null, "deleted attribute");
        eq("rank " + me, world.getAttr(key), "the original keeps it");
        d.free();
        Comm.freeKeyval(key);
        // MPI frees a key once no object holds it: world still has its value, so the key works there
        eq("rank " + me, world.getAttr(key), "a freed key that world still holds");
        world.deleteAttr(key);
        world.setErrhandler(MPI.ERRORS_RETURN);
        fails(MPI.ERR_KEYVAL, () -> world.getAttr(key), "the freed key once its last value is gone");
        world.setErrhandler(MPI.ERRORS_ARE_FATAL);

        Info info = new Info();
        info.set("alpha", "1");
        info.set("beta", "two");
        eq(2, info.size(), "info size");
        eq("alpha", info.getKey(0), "first key");
        eq("two", info.get("beta"), "get");
        check(info.get("gamma") == null, "missing key");
        Info copy = info.dup();
        info.delete("alpha");
        eq(1, info.size(), "after delete");
        eq(2, copy.size(), "dup is a copy");
        copy.free();
        check(copy.isNull(), "freed info");
        check(MPI.INFO_NULL.isNull(), "INFO_NULL");
        world.setInfo(info);
        eq("two", world.getInfo().get("beta"), "communicator info");
    }

    private static void cartesian(Intracomm world, int me, int n) throws MPIException {
        int[] dims = new int[2];
        CartComm.createDims(n, dims);
        eq(n, dims[0] * dims[1], "createDims product");
        check(dims[0] >= dims[1], "createDims non-increasing");
        int[] d12 = new int[2];
        CartComm.createDims(12, d12);
        eq(new int[] {4, 3}, d12, "createDims(12, 2)");
        int[] d3 = {0, 3, 0};
        CartComm.createDims(24, d3);
        eq(new int[] {4, 3, 2}, d3, "createDims with a fixed dimension");

        CartComm cart = world.createCart(dims, new boolean[] {true, false}, false);
        eq(MPI.CART, cart.getTopology(), "cart topology");
        CartParms p = cart.getTopo();
        eq(2, p.getDimCount(), "dims");
        int[] c = cart.getCoords(me);
        eq(me, cart.getRank(c), "getRank of getCoords");
        eq(c[0], p.getCoord(0), "coords");
        check(p.getPeriod(0) && !p.getPeriod(1), "periods");
        ShiftParms s0 = cart.shift(0, 1);
        eq(cart.getRank(new int[] {c[0] - 1, c[1]}), s0.getRankSource(), "periodic shift source");
        eq(cart.getRank(new int[] {c[0] + 1, c[1]}), s0.getRankDest(), "periodic shift dest");
        ShiftParms s1 = cart.shift(1, 1);
        eq(c[1] == 0 ? MPI.PROC_NULL : cart.getRank(new int[] {c[0], c[1] - 1}), s1.getRankSource(), "edge source");
        eq(c[1] == dims[1] - 1 ? MPI.PROC_NULL : cart.getRank(new int[] {c[0], c[1] + 1}),
                s1.getRankDest(), "edge dest");
        // neighbor allgather: slots (-d0, +d0, -d1, +d1)
        int[] nb = new int[4];
        Arrays.fill(nb, -1);
        cart.neighborAllGather(new int[] {me}, 1, MPI.INT, nb, 1, MPI.INT);
        eq(s0.getRankSource(), nb[0], "neighbor below in dim 0");
        eq(s0.getRankDest(), nb[1], "neighbor above in dim 0");
        eq(s1.getRankSource() == MPI.PROC_NULL ? -1 : s1.getRankSource(), nb[2], "neighbor below in dim 1");
        eq(s1.getRankDest() == MPI.PROC_NULL ? -1 : s1.getRankDest(), nb[3], "neighbor above in dim 1");
        // neighbor alltoall: what I send "up" arrives in the "below" slot of the rank above
        int[] out = {me * 10, me * 10 + 1, me * 10 + 2, me * 10 + 3};
        int[] in = {-1, -1, -1, -1};
        cart.neighborAllToAll(out, 1, MPI.INT, in, 1, MPI.INT);
        eq(s0.getRankSource() * 10 + 1, in[0], "from below in dim 0: its upward block");
        eq(s0.getRankDest() * 10, in[1], "from above in dim 0: its downward block");
        CartComm row = cart.sub(new boolean[] {false, true});
        eq(dims[1], row.getSize(), "sub keeps dim 1");
        eq(c[1], row.getRank(), "rank in the row");
        CartComm cd = cart.dup();
        eq(MPI.CART, cd.getTopology(), "dup keeps the topology");
        cd.free();
        // arrays longer than the dimension count are fine, as in Open MPI (only the first entries are read)
        CartComm none = cart.sub(new boolean[] {false, false, true, true});
        eq(MPI.CART, none.getTopology(), "sub keeping no dimension is a Cartesian communicator");
        eq(0, none.getTopo().getDimCount(), "of 0 dimensions");
        eq(1, none.getSize(), "holding this rank alone");
        eq(me, cart.getRank(new int[] {c[0], c[1], 99}), "getRank reads dims.length coordinates");
        CartComm wide = world.createCart(new int[] {n}, new boolean[] {true, false, false}, false);
        eq(1, wide.getTopo().getDimCount(), "createCart takes its dimension count from dims");
        wide.free();
        none.free();
        row.free();
        cart.free();
        // a 0-dimensional grid (MPI-2.1): rank 0 alone, the others get a null communicator
        CartComm zero = world.createCart(new int[0], new boolean[0], false);
        check(me == 0 ? !zero.isNull() && zero.getSize() == 1 : zero.isNull(), "0-dimensional createCart");
        if (me == 0) {
            eq(0, zero.getRank(new int[0]), "rank in a 0-dimensional grid");
            zero.free();
        }
        if (n >= 2) {
            CartComm line = world.createCart(new int[] {n - 1}, new boolean[] {false}, false);
            check(me == n - 1 ? line.isNull() : line.getSize() == n - 1, "createCart leaves extra ranks out");
            if (!line.isNull()) {
                line.free();
            }
        }
    }

    private static void graphs(Intracomm world, int me, int n) throws MPIException {
        // a ring: node i's neighbors are i-1 and i+1
        int[] index = new int[n];
        int[] edges = new int[2 * n];
        for (int i = 0; i < n; i++) {
            index[i] = 2 * (i + 1);
            edges[2 * i] = (i + n - 1) % n;
            edges[2 * i + 1] = (i + 1) % n;
        }
        GraphComm ring = world.createGraph(index, edges, false);
        eq(MPI.GRAPH, ring.getTopology(), "graph topology");
        GraphParms gp = ring.getDims();
        eq(n, gp.getIndexCount(), "nodes");
        eq(2 * n, gp.getEdgeCount(), "edges");
        int[] nb = ring.getNeighbors(me);
        eq(new int[] {(me + n - 1) % n, (me + 1) % n}, nb, "neighbors");
        int[] got = new int[2];
        ring.neighborAllGather(new int[] {me}, 1, MPI.INT, got, 1, MPI.INT);
        eq(nb, got, "graph neighbor allgather");
        ring.free();
        // a distributed graph: every rank sends to the next one
        GraphComm dg = world.createDistGraphAdjacent(new int[] {(me + n - 1) % n}, new int[] {(me + 1) % n},
                MPI.INFO_NULL, false);
        eq(MPI.DIST_GRAPH, dg.getTopology(), "dist graph topology");
        DistGraphNeighbors dn = dg.getDistGraphNeighbors();
        eq(1, dn.getInDegree(), "in degree");
        eq((me + 1) % n, dn.getDestination(0), "destination");
        int[] one = new int[1];
        dg.neighborAllToAll(new int[] {me}, 1, MPI.INT, one, 1, MPI.INT);
        eq((me + n - 1) % n, one[0], "dist graph alltoall");
        dg.free();
        GraphComm dist = world.createDistGraph(new int[] {me}, new int[] {1}, new int[] {(me + 1) % n}, MPI.INFO_NULL,
                false);
        DistGraphNeighbors dd = dist.getDistGraphNeighbors();
        eq((me + n - 1) % n, dd.getSource(0), "createDistGraph source");
        check(!dd.isWeighted(), "unweighted createDistGraph");
        dist.free();
        // weights are kept: adjacent (weight arrays may be longer than the neighbor lists), and rank 0 naming
        // every edge (i -> i+1 of weight 100 + i)
        GraphComm wa = world.createDistGraphAdjacent(new int[] {(me + n - 1) % n}, new int[] {me, -1, -1},
                new int[] {(me + 1) % n}, new int[] {(me + 1) % n + 50, -1}, MPI.INFO_NULL, true);
        DistGraphNeighbors wn = wa.getDistGraphNeighbors();
        check(wn.isWeighted(), "weighted createDistGraphAdjacent");
        eq(me, wn.getSourceWeight(0), "source weight");
        eq((me + 1) % n + 50, wn.getDestinationWeight(0), "destination weight");
        GraphComm wd = wa.clone();
        eq(me, wd.getDistGraphNeighbors().getSourceWeight(0), "clone keeps the weights");
        wd.free();
        wa.free();
        int[] src = new int[n];
        int[] deg = new int[n];
        int[] dst = new int[n];
        int[] wts = new int[n];
        for (int i = 0; i < n; i++) {
            src[i] = i;
            deg[i] = 1;
            dst[i] = (i + 1) % n;
            wts[i] = 100 + i;
        }
        GraphComm w0 = world.createDistGraph(Arrays.copyOf(src, me == 0 ? n : 0), deg, dst, wts,
                MPI.INFO_NULL, false);
        DistGraphNeighbors w0n = w0.getDistGraphNeighbors();
        check(w0n.isWeighted(), "weighted createDistGraph");
        eq(1, w0n.getInDegree(), "in degree from rank 0's edges");
        eq((me + n - 1) % n, w0n.getSource(0), "source from rank 0's edges");
        eq(100 + (me + n - 1) % n, w0n.getSourceWeight(0), "in weight from rank 0's edges");
        eq(100 + me, w0n.getDestinationWeight(0), "out weight from rank 0's edges");
        w0.free();
    }
}

package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.runtime.CommCore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A communicator with a graph topology (MPI_GRAPH_CREATE) or a distributed graph topology
 * (MPI_DIST_GRAPH_CREATE, MPI_DIST_GRAPH_CREATE_ADJACENT). jrma does not reorder ranks; edge weights are
 * kept and reported by {@link #getDistGraphNeighbors} (they do not change how messages travel).
 */
public final class GraphComm extends Intracomm {
    /** Graph topology: node degrees (cumulative) and edges; null for a distributed graph. */
    private final int[] index;
    private final int[] edges;
    /** This rank's in- and out-neighbors (and weights, or null) for a distributed graph. */
    private final int[] sources;
    private final int[] destinations;
    private final int[] sourceWeights;
    private final int[] destWeights;

    private GraphComm(io.jrma.Comm core, Comm parent, int[] index, int[] edges, int[] sources, int[] destinations,
                      int[] sourceWeights, int[] destWeights) {
        super(core, parent);
        this.index = index;
        this.edges = edges;
        if (core != null && index != null) {
            int[] nb = neighborsOf(core.rank());
            this.sources = nb;
            this.destinations = nb;
        } else {
            this.sources = sources;
            this.destinations = destinations;
        }
        this.sourceWeights = sourceWeights;
        this.destWeights = destWeights;
        if (core != null) {
            topo = new Topo(core, index != null ? MPI.GRAPH : MPI.DIST_GRAPH, this.sources, this.destinations,
                    Topo.occurrences(this.destinations), Topo.occurrences(this.sources));
        }
    }

    static GraphComm create(Intracomm parent, int[] index, int[] edges) {
        io.jrma.Comm c = parent.core();
        if (index == null || edges == null) {
            throw new RmaException(ErrorClass.ERR_ARG, "createGraph: index and edges must not be null");
        }
        int n = index.length;
        if (n > c.size()) {
            throw new RmaException(ErrorClass.ERR_ARG, "createGraph: " + n + " nodes do not fit in a communicator of "
                    + c.size());
        }
        for (int i = 0; i < n; i++) {
            if (index[i] < (i == 0 ? 0 : index[i - 1]) || index[i] > edges.length) {
                throw new RmaException(ErrorClass.ERR_ARG, "createGraph: index must be non-decreasing and at most the"
                        + " number of edges");
            }
        }
        for (int e : edges) {
            if (e < 0 || e >= n) {
                throw new RmaException(ErrorClass.ERR_RANK,
                        "createGraph: edge to node " + e + " outside 0.." + (n - 1));
            }
        }
        io.jrma.Comm sub = c.split(c.rank() < n ? 0 : io.jrma.Group.UNDEFINED, c.rank());
        return new GraphComm(sub, parent, index.clone(), edges.clone(), null, null, null, null);
    }

    /**
     * Each rank names its own in- and out-neighbors; {@code sourceWeights} and {@code destWeights} are null for an
     * unweighted graph, else at least as long as {@code sources} and {@code destinations} (extra entries are not
     * read, as in MPI).
     */
    static GraphComm createAdjacent(Intracomm parent, int[] sources, int[] sourceWeights, int[] destinations,
                                    int[] destWeights) {
        io.jrma.Comm c = parent.core();
        checkRanks(c, sources, "sources");
        checkRanks(c, destinations, "destinations");
        boolean weighted = sourceWeights != null || destWeights != null;
        return new GraphComm(c.dup(), parent, null, null, sources.clone(), destinations.clone(),
                weighted ? weights(sourceWeights, sources.length, "sourceWeights") : null,
                weighted ? weights(destWeights, destinations.length, "destWeights") : null);
    }

    private static int[] weights(int[] w, int n, String what) {
        if (w == null || w.length < n) {
            throw new RmaException(ErrorClass.ERR_ARG, "createDistGraph: " + what + " needs " + n + " entries, has "
                    + (w == null ? "none" : String.valueOf(w.length)));
        }
        for (int i = 0; i < n; i++) {
            if (w[i] < 0) {
                throw new RmaException(ErrorClass.ERR_ARG, "createDistGraph: " + what + "[" + i + "] = " + w[i]
                        + " is negative");
            }
        }
        return Arrays.copyOf(w, n);
    }

    /** Every rank names edges {@code sources[i] -> destinations[...]}; all ranks learn their in- and out-neighbors. */
    static GraphComm createDist(Intracomm parent, int[] sources, int[] degrees, int[] destinations, int[] weights) {
        io.jrma.Comm c = parent.core();
        if (sources == null || degrees == null || destinations == null || degrees.length < sources.length) {
            throw new RmaException(ErrorClass.ERR_ARG, "createDistGraph: sources, degrees and destinations must match");
        }
        checkRanks(c, sources, "sources");
        checkRanks(c, destinations, "destinations");
        List<int[]> mine = new ArrayList<>();
        int k = 0;
        for (int i = 0; i < sources.length; i++) {
            for (int j = 0; j < degrees[i]; j++) {
                if (k >= destinations.length) {
                    throw new RmaException(ErrorClass.ERR_ARG,
                            "createDistGraph: degrees add up to more than the destinations");
                }
                if (weights != null && k >= weights.length) {
                    throw new RmaException(ErrorClass.ERR_ARG, "createDistGraph: a weight is needed for each of the "
                            + "destinations");
                }
                int w = weights == null ? 0 : weights[k];
                if (w < 0) {
                    throw new RmaException(ErrorClass.ERR_ARG, "createDistGraph: weights[" + k + "] = " + w
                            + " is negative");
                }
                mine.add(new int[] {sources[i], destinations[k++], w});
            }
        }
        io.jrma.Comm d = c.dup();
        Object[] all = ((CommCore) d).allgather(mine.toArray(new int[0][]));
        int me = d.rank();
        List<Integer> in = new ArrayList<>();
        List<Integer> inW = new ArrayList<>();
        List<Integer> out = new ArrayList<>();
        List<Integer> outW = new ArrayList<>();
        for (Object o : all) {
            for (int[] e : (int[][]) o) {
                if (e[1] == me) {
                    in.add(e[0]);
                    inW.add(e[2]);
                }
                if (e[0] == me) {
                    out.add(e[1]);
                    outW.add(e[2]);
                }
            }
        }
        boolean weighted = weights != null;
        return new GraphComm(d, parent, null, null, ints(in), ints(out), weighted ? ints(inW) : null,
                weighted ? ints(outW) : null);
    }

    private static int[] ints(List<Integer> l) {
        return l.stream().mapToInt(Integer::intValue).toArray();
    }

    private static void checkRanks(io.jrma.Comm c, int[] ranks, String what) {
        if (ranks == null) {
            throw new RmaException(ErrorClass.ERR_ARG, what + " is null");
        }
        for (int r : ranks) {
            if (r < 0 || r >= c.size()) {
                throw new RmaException(ErrorClass.ERR_RANK,
                        what + ": rank " + r + " is not in a communicator of " + c.size());
            }
        }
    }

    private int[] neighborsOf(int rank) {
        int from = rank == 0 ? 0 : index[rank - 1];
        return Arrays.copyOfRange(edges, from, index[rank]);
    }

    @Override
    Comm derive(io.jrma.Comm c) {
        return new GraphComm(c, this, index, edges, sources, destinations, sourceWeights, destWeights);
    }

    @Override
    public GraphComm clone() {
        return (GraphComm) super.clone();
    }

    @Override
    public GraphComm dup() throws MPIException {
        return (GraphComm) super.dup();
    }

    @Override
    public GraphComm iDup() throws MPIException {
        return (GraphComm) super.iDup();
    }

    @Override
    public GraphComm dupWithInfo(Info info) throws MPIException {
        return (GraphComm) super.dupWithInfo(info);
    }

    /** Node degrees and edges (MPI_GRAPHDIMS_GET, MPI_GRAPH_GET); ERR_TOPOLOGY for a distributed graph. */
    public GraphParms getDims() throws MPIException {
        return run(() -> {
            core();
            requireGraph("getDims");
            return new GraphParms(index.clone(), edges.clone());
        });
    }

    /** The neighbors of {@code rank} (MPI_GRAPH_NEIGHBORS); ERR_TOPOLOGY for a distributed graph. */
    public int[] getNeighbors(int rank) throws MPIException {
        return run(() -> {
            core();
            requireGraph("getNeighbors");
            if (rank < 0 || rank >= index.length) {
                throw new RmaException(ErrorClass.ERR_RANK,
                        "getNeighbors: rank " + rank + " is not a node of the graph");
            }
            return neighborsOf(rank);
        });
    }

    private void requireGraph(String what) {
        if (index == null) {
            throw new RmaException(ErrorClass.ERR_TOPOLOGY,
                    what + " needs a graph topology; this is a distributed graph");
        }
    }

    /** This rank's in- and out-neighbors (MPI_DIST_GRAPH_NEIGHBORS); for a graph topology both are its neighbors. */
    public DistGraphNeighbors getDistGraphNeighbors() throws MPIException {
        return run(() -> {
            core();
            boolean weighted = sourceWeights != null;
            return new DistGraphNeighbors(sources.clone(), weighted ? sourceWeights.clone() : new int[sources.length],
                    destinations.clone(), weighted ? destWeights.clone() : new int[destinations.length], weighted);
        });
    }

    /** This rank's rank in the graph (MPI_GRAPH_MAP): itself, or UNDEFINED if it is not a node. */
    public int map(int[] index, int[] edges) throws MPIException {
        return run(() -> me() < index.length ? me() : MPI.UNDEFINED);
    }
}

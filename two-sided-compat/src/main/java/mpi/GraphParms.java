package mpi;

/** The graph topology of a communicator as {@link GraphComm#getDims} returns it. */
public final class GraphParms {
    private final int[] index;
    private final int[] edges;

    GraphParms(int[] index, int[] edges) {
        this.index = index;
        this.edges = edges;
    }

    /** Number of nodes. */
    public int getIndexCount() {
        return index.length;
    }

    /** The cumulative degree of node {@code i}: its neighbors are edges {@code getIndex(i-1) .. getIndex(i)-1}. */
    public int getIndex(int i) {
        return index[i];
    }

    /** Number of edges. */
    public int getEdgeCount() {
        return edges.length;
    }

    /** Edge {@code i}: a node number. */
    public int getEdge(int i) {
        return edges[i];
    }
}

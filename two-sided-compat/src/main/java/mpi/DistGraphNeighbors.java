package mpi;

/** This rank's neighbors in a (distributed) graph topology, as {@link GraphComm#getDistGraphNeighbors} returns them. */
public final class DistGraphNeighbors {
    private final int[] sources;
    private final int[] sourceWeights;
    private final int[] destinations;
    private final int[] destWeights;
    private final boolean weighted;

    DistGraphNeighbors(int[] sources, int[] sourceWeights, int[] destinations, int[] destWeights, boolean weighted) {
        this.sources = sources;
        this.sourceWeights = sourceWeights;
        this.destinations = destinations;
        this.destWeights = destWeights;
        this.weighted = weighted;
    }

    /** Number of edges into this rank. */
    public int getInDegree() {
        return sources.length;
    }

    /** Number of edges out of this rank. */
    public int getOutDegree() {
        return destinations.length;
    }

    /** Whether the graph was created with weights (the variants of createDistGraph that take them). */
    public boolean isWeighted() {
        return weighted;
    }

    /** The {@code i}-th rank this one receives from. */
    public int getSource(int i) {
        return sources[i];
    }

    /** The weight of the {@code i}-th edge into this rank. */
    public int getSourceWeight(int i) {
        return sourceWeights[i];
    }

    /** The {@code i}-th rank this one sends to. */
    public int getDestination(int i) {
        return destinations[i];
    }

    /** The weight of the {@code i}-th edge out of this rank. */
    public int getDestinationWeight(int i) {
        return destWeights[i];
    }
}

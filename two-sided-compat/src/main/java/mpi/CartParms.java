package mpi;

/** The Cartesian topology of a communicator as {@link CartComm#getTopo} returns it. */
public final class CartParms {
    private final int[] dims;
    private final boolean[] periods;
    private final int[] coords;

    CartParms(int[] dims, boolean[] periods, int[] coords) {
        this.dims = dims;
        this.periods = periods;
        this.coords = coords;
    }

    /** Number of dimensions. */
    public int getDimCount() {
        return dims.length;
    }

    /** Ranks along dimension {@code i}. */
    public int getDim(int i) {
        return dims[i];
    }

    /** Whether dimension {@code i} is periodic. */
    public boolean getPeriod(int i) {
        return periods[i];
    }

    /** This rank's coordinate in dimension {@code i}. */
    public int getCoord(int i) {
        return coords[i];
    }
}

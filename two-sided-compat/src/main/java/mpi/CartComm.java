package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A communicator with a Cartesian topology (MPI_CART_CREATE): ranks are points of a grid of {@code dims},
 * numbered in row-major order (the last dimension varies fastest), periodic or not per dimension. jrma does not
 * reorder ranks. Its neighborhood collectives exchange with the neighbors below and above in each dimension,
 * in that order.
 */
public final class CartComm extends Intracomm {
    private final int[] dims;
    private final boolean[] periods;

    CartComm(io.jrma.Comm core, Comm parent, int[] dims, boolean[] periods) {
        super(core, parent);
        this.dims = dims;
        this.periods = periods;
        if (core != null) {
            int n = dims.length;
            int[] nb = new int[2 * n];
            int[] sendTags = new int[2 * n];
            int[] recvTags = new int[2 * n];
            int me = core.rank();
            for (int d = 0; d < n; d++) {
                int[] sd = shiftOf(me, d, 1);
                nb[2 * d] = sd[0];
                nb[2 * d + 1] = sd[1];
                sendTags[2 * d] = 2 * d;
                sendTags[2 * d + 1] = 2 * d + 1;
                recvTags[2 * d] = 2 * d + 1; // from the rank below, which sent "up"
                recvTags[2 * d + 1] = 2 * d;
            }
            topo = new Topo(core, MPI.CART, nb, nb.clone(), sendTags, recvTags);
        }
    }

    static CartComm create(Intracomm parent, int[] dims, boolean[] periods) {
        io.jrma.Comm c = parent.core();
        if (dims == null || periods == null || periods.length < dims.length) {
            // the dimension count is dims.length, as in Open MPI; longer periods arrays are fine
            throw new RmaException(ErrorClass.ERR_ARG, "createCart: periods needs an entry for each of the "
                    + (dims == null ? 0 : dims.length) + " dimensions");
        }
        periods = Arrays.copyOf(periods, dims.length);
        long n = 1;
        for (int d : dims) {
            if (d <= 0) {
                throw new RmaException(ErrorClass.ERR_DIMS, "createCart: dimension sizes must be positive");
            }
            n *= d;
        }
        if (n > c.size()) {
            throw new RmaException(ErrorClass.ERR_ARG, "createCart: a grid of " + n + " ranks does not fit in a"
                    + " communicator of " + c.size());
        }
        io.jrma.Comm sub = c.split(c.rank() < n ? 0 : io.jrma.Group.UNDEFINED, c.rank());
        return new CartComm(sub, parent, dims.clone(), periods.clone());
    }

    @Override
    Comm derive(io.jrma.Comm c) {
        return new CartComm(c, this, dims, periods);
    }

    @Override
    public CartComm clone() {
        return (CartComm) super.clone();
    }

    @Override
    public CartComm dup() throws MPIException {
        return (CartComm) super.dup();
    }

    @Override
    public CartComm iDup() throws MPIException {
        return (CartComm) super.iDup();
    }

    @Override
    public CartComm dupWithInfo(Info info) throws MPIException {
        return (CartComm) super.dupWithInfo(info);
    }

    /** Dimensions, periods and this rank's coordinates (MPI_CARTDIM_GET, MPI_CART_GET). */
    public CartParms getTopo() throws MPIException {
        return run(() -> new CartParms(dims.clone(), periods.clone(), coordsOf(me())));
    }

    /** The rank at {@code coords} (MPI_CART_RANK); coordinates in periodic dimensions wrap around. */
    public int getRank(int[] coords) throws MPIException {
        return run(() -> {
            core();
            if (coords == null || coords.length < dims.length) { // extra entries are not read, as in MPI
                throw new RmaException(ErrorClass.ERR_ARG, "getRank: coords must have " + dims.length + " entries");
            }
            int r = 0;
            for (int d = 0; d < dims.length; d++) {
                int c = coords[d];
                if (periods[d]) {
                    c = Math.floorMod(c, dims[d]);
                } else if (c < 0 || c >= dims[d]) {
                    throw new RmaException(ErrorClass.ERR_ARG,
                            "getRank: coordinate " + c + " is outside 0.." + (dims[d] - 1)
                            + " in non-periodic dimension " + d);
                }
                r = r * dims[d] + c;
            }
            return r;
        });
    }

    /** The coordinates of {@code rank} (MPI_CART_COORDS). */
    public int[] getCoords(int rank) throws MPIException {
        return run(() -> {
            if (rank < 0 || rank >= size()) {
                throw new RmaException(ErrorClass.ERR_RANK,
                        "getCoords: rank " + rank + " is not in a grid of " + size());
            }
            return coordsOf(rank);
        });
    }

    private int[] coordsOf(int rank) {
        int[] c = new int[dims.length];
        for (int d = dims.length - 1; d >= 0; d--) {
            c[d] = rank % dims[d];
            rank /= dims[d];
        }
        return c;
    }

    /**
     * {source, dest} of a shift by {@code disp} in {@code direction} for {@code rank}; PROC_NULL off a non-periodic
     * edge.
     */
    private int[] shiftOf(int rank, int direction, int disp) {
        int[] c = coordsOf(rank);
        int[] r = new int[2];
        for (int k = 0; k < 2; k++) {
            int[] t = c.clone();
            t[direction] += k == 0 ? -disp : disp;
            if (periods[direction]) {
                t[direction] = Math.floorMod(t[direction], dims[direction]);
            } else if (t[direction] < 0 || t[direction] >= dims[direction]) {
                r[k] = MPI.PROC_NULL;
                continue;
            }
            int x = 0;
            for (int d = 0; d < dims.length; d++) {
                x = x * dims[d] + t[d];
            }
            r[k] = x;
        }
        return r;
    }

    /**
     * The ranks to receive from and send to in a shift by {@code disp} along dimension {@code direction}
     * (MPI_CART_SHIFT); PROC_NULL off the edge of a non-periodic dimension.
     */
    public ShiftParms shift(int direction, int disp) throws MPIException {
        return run(() -> {
            if (direction < 0 || direction >= dims.length) {
                throw new RmaException(ErrorClass.ERR_ARG,
                        "shift: direction " + direction + " is outside 0.." + (dims.length - 1));
            }
            int[] sd = shiftOf(me(), direction, disp);
            return new ShiftParms(sd[0], sd[1]);
        });
    }

    /**
     * The sub-grid of the dimensions marked in {@code remainDims} that contains this rank (MPI_CART_SUB);
     * collective.
     */
    public CartComm sub(boolean[] remainDims) throws MPIException {
        return run(() -> {
            if (remainDims == null || remainDims.length < dims.length) { // extra entries are not read, as in MPI
                throw new RmaException(ErrorClass.ERR_ARG, "sub: remainDims must have " + dims.length + " entries");
            }
            int[] c = coordsOf(me());
            int colour = 0;
            int key = 0;
            List<Integer> keptDims = new ArrayList<>();
            List<Boolean> keptPeriods = new ArrayList<>();
            for (int d = 0; d < dims.length; d++) {
                if (remainDims[d]) {
                    key = key * dims[d] + c[d];
                    keptDims.add(dims[d]);
                    keptPeriods.add(periods[d]);
                } else {
                    colour = colour * dims[d] + c[d];
                }
            }
            int[] nd = keptDims.stream().mapToInt(Integer::intValue).toArray();
            boolean[] np = new boolean[nd.length];
            for (int i = 0; i < np.length; i++) {
                np[i] = keptPeriods.get(i);
            }
            return new CartComm(core().split(colour, key), this, nd, np);
        });
    }

    /** This rank's rank in a grid of {@code dims} (MPI_CART_MAP): itself, or UNDEFINED if it does not fit. */
    public int map(int[] dims, boolean[] periods) throws MPIException {
        return run(() -> {
            long n = 1;
            for (int d : dims) {
                n *= d;
            }
            return me() < n ? me() : MPI.UNDEFINED;
        });
    }

    /**
     * Fills the zero entries of {@code dims} so that the product of all entries is {@code nnodes}, as balanced
     * as possible and non-increasing (MPI_DIMS_CREATE); ERR_DIMS if the non-zero entries do not divide
     * {@code nnodes}.
     */
    public static void createDims(int nnodes, int[] dims) throws MPIException {
        MPI.check();
        try {
            if (nnodes <= 0 || dims == null) {
                throw new RmaException(ErrorClass.ERR_DIMS, "createDims: nnodes must be positive and dims not null");
            }
            int fixed = 1;
            int free = 0;
            for (int d : dims) {
                if (d < 0) {
                    throw new RmaException(ErrorClass.ERR_DIMS, "createDims: negative dimension " + d);
                }
                if (d > 0) {
                    fixed *= d;
                } else {
                    free++;
                }
            }
            if (nnodes % fixed != 0) {
                throw new RmaException(ErrorClass.ERR_DIMS, "createDims: " + nnodes + " nodes are not a multiple of the"
                        + " fixed dimensions' product " + fixed);
            }
            int rest = nnodes / fixed;
            if (free == 0) {
                if (rest != 1) {
                    throw new RmaException(ErrorClass.ERR_DIMS, "createDims: the dimensions give " + fixed
                            + " nodes, not " + nnodes);
                }
                return;
            }
            List<Integer> primes = new ArrayList<>();
            for (int p = 2, n = rest; n > 1; ) {
                if ((long) p * p > n) {
                    primes.add(n);
                    break;
                }
                if (n % p == 0) {
                    primes.add(p);
                    n /= p;
                } else {
                    p++;
                }
            }
            int[] f = new int[free];
            Arrays.fill(f, 1);
            for (int i = primes.size() - 1; i >= 0; i--) { // largest factors first, each to the smallest dimension
                int min = 0;
                for (int j = 1; j < free; j++) {
                    if (f[j] < f[min]) {
                        min = j;
                    }
                }
                f[min] *= primes.get(i);
            }
            Arrays.sort(f);
            for (int i = 0, k = free - 1; i < dims.length; i++) {
                if (dims[i] == 0) {
                    dims[i] = f[k--];
                }
            }
        } catch (RuntimeException e) {
            throw Err.handle(MPI.COMM_WORLD.errh, "MPI_COMM_WORLD", e);
        }
    }
}

package io.jrma.bench.osu;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.Locale;
import mpi.Datatype;
import mpi.Group;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.Win;

/**
 * The OSU 7.x one-sided latency tests as an Open MPI Java user runs them: written against the {@code mpi} package
 * only, with OSU's loops and iteration counts (10,000 timed after 100 skipped up to 8 KiB, 1,000 after 10 above) and
 * no warm-up of its own. It is the user's view beside {@link OsuRma} (jrma's own API, which warms the JIT first) and
 * bench/c/osu_rma.c (the C twin). Started by {@code jrmarun}, {@code mpirun} or {@code mpiexec}:
 *
 * <pre>
 *   bin/jrmarun -n 2 [--jvms 2] -cp bench/target/classes io.jrma.bench.osu.OsuMpiRma put_latency -w allocate -s flush
 *   mpirun -np 2 java $(bin/jrma-flags) -cp "$(bin/jrma-flags --classpath):bench/target/classes" \
 *       io.jrma.bench.osu.OsuMpiRma fop_latency
 * </pre>
 *
 * Tests: {@code put_latency}, {@code get_latency}, {@code acc_latency} (ints with SUM; bytes with REPLACE below 4
 * bytes, as the C twin), {@code get_acc_latency}, {@code fop_latency}, {@code cas_latency} (8-byte longs in
 * {@code MPI.newLongBuffer}s, as a Java user holds them). Options as OSU's: {@code -w allocate|create|dynamic},
 * {@code -s flush|flush_local|lock|lock_all|fence|pscw}, {@code -m [MIN:]MAX}, {@code -i ITER}, {@code -x SKIP}.
 * {@code -P N} (jrma's own) prints, for each size, the mean and median of each block of N timed operations of rank
 * 0 and the <em>time to steady state</em>: the number of operations after which every block's median stays within
 * 2&times; the median of the last block — how long a user waits before the figures are those of the steady state.
 * Fence and PSCW latencies are halved, as OSU reports them. After each size, outside the timing, the target checks what
 * the operations left in its window (puts: the origin's bytes; accumulates: the sum of every operation; fetch_and_op:
 * one per operation; compare_and_swap: the swapped value) and the origin what gets fetched (the target's pattern);
 * a wrong byte ends the run with {@code # DATA VALIDATION ERROR} and a non-zero exit.
 *
 * <p>{@code put_bw} and {@code get_bw} are OSU's {@code osu_put_bw} and {@code osu_get_bw}: each iteration issues a
 * window of {@code -W} operations (64, OSU's default) to consecutive slots of the target's window, then one flush (or
 * the synchronization {@code -s} names: {@code flush}, {@code flush_local}, {@code lock}, {@code lock_all}); 100 timed
 * iterations after 10 skipped up to 8 KiB, 20 after 2 above; the row is MB/s (10<sup>6</sup> bytes), as OSU's and the
 * C twin's {@code put_bw}/{@code get_bw}.
 */
public final class OsuMpiRma {
    private static final int LARGE = 8192;
    private static final int LOOP_SMALL = 10_000;
    private static final int SKIP_SMALL = 100;
    private static final int LOOP_LARGE = 1_000;
    private static final int SKIP_LARGE = 10;
    private static final long MAX_DEFAULT = 4L << 20;
    private static final int BW_LOOP_SMALL = 100;
    private static final int BW_SKIP_SMALL = 10;
    private static final int BW_LOOP_LARGE = 20;
    private static final int BW_SKIP_LARGE = 2;
    /** Operations in flight per iteration of a bandwidth test (OSU's window size). */
    private static final int BW_WINDOW_DEFAULT = 64;
    /** A block of the probe is steady when its median is within this factor of the last block's. */
    private static final double STEADY_FACTOR = 2.0;

    private static final int PUT = 0, GET = 1, ACC = 2, GET_ACC = 3, FOP = 4, CAS = 5;
    private static final int FLUSH = 0, FLUSH_LOCAL = 1, LOCK = 2, LOCK_ALL = 3, FENCE = 4, PSCW = 5;

    private final int op;
    private final int sync;
    private final String window;
    private final String title;
    private final String syncName;
    /** A bandwidth test: {@link #windowOps} operations per iteration, the row in MB/s. */
    private final boolean bw;
    private final int windowOps;

    private Win win;
    private ByteBuffer winMem;
    private ByteBuffer src;
    private ByteBuffer res;
    /** Per operation of a bandwidth window: its slice of {@link #src} and of {@link #res}. */
    private ByteBuffer[] srcSlot;
    private ByteBuffer[] resSlot;
    private LongBuffer lsrc;
    private LongBuffer lcmp;
    private LongBuffer lres;
    private Group peerGroup;

    private OsuMpiRma(String test, String sync, String window, int windowOps) {
        this.bw = test.endsWith("_bw");
        this.windowOps = bw ? windowOps : 1;
        this.op = switch (test) {
            case "put_latency", "put_bw" -> PUT;
            case "get_latency", "get_bw" -> GET;
            case "acc_latency" -> ACC;
            case "get_acc_latency" -> GET_ACC;
            case "fop_latency" -> FOP;
            case "cas_latency" -> CAS;
            default -> throw new IllegalArgumentException("unknown test " + test
                    + " (put_latency, get_latency, acc_latency, get_acc_latency, fop_latency, cas_latency, put_bw,"
                    + " get_bw)");
        };
        this.title = switch (op) {
            case PUT -> bw ? "Put Bandwidth" : "Put Latency";
            case GET -> bw ? "Get Bandwidth" : "Get Latency";
            case ACC -> "Accumulate Latency";
            case GET_ACC -> "Get_accumulate Latency";
            case FOP -> "Fetch_and_op Latency";
            default -> "Compare_and_swap Latency";
        };
        this.sync = switch (sync) {
            case "flush" -> FLUSH;
            case "flush_local" -> FLUSH_LOCAL;
            case "lock" -> LOCK;
            case "lock_all" -> LOCK_ALL;
            case "fence" -> FENCE;
            case "pscw" -> PSCW;
            default -> throw new IllegalArgumentException("unknown synchronization " + sync
                    + " (flush, flush_local, lock, lock_all, fence, pscw)");
        };
        this.syncName = switch (this.sync) {
            case FLUSH -> "MPI_Win_flush";
            case FLUSH_LOCAL -> "MPI_Win_flush_local";
            case LOCK -> "MPI_Win_lock/unlock";
            case LOCK_ALL -> "MPI_Win_lock_all/unlock_all";
            case FENCE -> "MPI_Win_fence";
            default -> "MPI_Win_post/start/complete/wait";
        };
        if (!window.equals("allocate") && !window.equals("create") && !window.equals("dynamic")) {
            throw new IllegalArgumentException("unknown window " + window + " (allocate, create, dynamic)");
        }
        this.window = window;
        if (bw && (this.sync == FENCE || this.sync == PSCW)) {
            throw new IllegalArgumentException("the bandwidth tests take -s flush, flush_local, lock or lock_all");
        }
        if (this.windowOps < 1) {
            throw new IllegalArgumentException("-W takes a positive number of operations, not " + windowOps);
        }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: OsuMpiRma put_latency|get_latency|acc_latency|get_acc_latency"
                    + "|fop_latency|cas_latency|put_bw|get_bw [-w allocate|create|dynamic] [-s flush|flush_local|lock"
                    + "|lock_all|fence|pscw] [-m [MIN:]MAX] [-i ITER] [-x SKIP] [-W WINDOW] [-P N]");
        }
        String sync = "flush";
        String window = "allocate";
        long min = 1;
        long max = MAX_DEFAULT;
        int iters = -1;
        int skip = -1;
        int probe = 0;
        int windowOps = BW_WINDOW_DEFAULT;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "-w" -> window = args[++i];
                case "-s" -> sync = args[++i];
                case "-m" -> {
                    String m = args[++i];
                    int c = m.indexOf(':');
                    min = c >= 0 ? Long.parseLong(m.substring(0, c)) : min;
                    max = Long.parseLong(c >= 0 ? m.substring(c + 1) : m);
                }
                case "-i" -> iters = Integer.parseInt(args[++i]);
                case "-x" -> skip = Integer.parseInt(args[++i]);
                case "-P" -> probe = Integer.parseInt(args[++i]);
                case "-W" -> windowOps = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (MPI.COMM_WORLD.getSize() != 2) {
            throw new IllegalArgumentException("the OSU one-sided tests run on exactly 2 ranks, not "
                    + MPI.COMM_WORLD.getSize());
        }
        new OsuMpiRma(args[0], sync, window, windowOps).run(min, max, iters, skip, probe);
        MPI.Finalize();
    }

    private boolean atomic() {
        return op == FOP || op == CAS;
    }

    private void run(long min, long max, int iters, int skip, int probe) throws MPIException {
        int me = MPI.COMM_WORLD.getRank();
        long lo = atomic() ? Long.BYTES : min;
        long hi = atomic() ? Long.BYTES : max;
        if (lo < 1 || hi < lo || hi * windowOps > Integer.MAX_VALUE / 2) {
            throw new IllegalArgumentException("bad sizes " + min + ":" + max);
        }
        if (me == 0) {
            System.out.println("# OSU MPI_" + title + " Test (jrma mpi package)");
            System.out.println("# Window creation: MPI_Win_" + switch (window) {
                case "create" -> "create";
                case "dynamic" -> "create_dynamic";
                default -> "allocate";
            });
            System.out.println("# Synchronization: " + syncName);
            System.out.printf(Locale.ROOT, "%-10s%20s%n", "# Size", bw ? "Bandwidth (MB/s)" : "Latency (us)");
        }
        peerGroup = MPI.COMM_WORLD.getGroup().incl(new int[] {1 - me});
        src = MPI.newByteBuffer((int) hi * windowOps);
        res = MPI.newByteBuffer((int) hi * windowOps);
        lsrc = MPI.newLongBuffer(1);
        lcmp = MPI.newLongBuffer(1);
        lres = MPI.newLongBuffer(1);
        for (int i = 0; i < hi * windowOps; i++) {
            src.put(i, (byte) i);
        }
        lsrc.put(0, 1);
        long errors = 0;
        long failedAt = -1;
        for (long size = lo; size <= hi; size *= 2) {
            boolean large = size > LARGE;
            int loop = bw ? (large ? BW_LOOP_LARGE : BW_LOOP_SMALL) : large ? LOOP_LARGE : LOOP_SMALL;
            int n = iters > 0 ? iters : loop;
            int osuSkip = bw ? (large ? BW_SKIP_LARGE : BW_SKIP_SMALL) : large ? SKIP_LARGE : SKIP_SMALL;
            int warm = skip >= 0 ? skip : osuSkip;
            int span = (int) size * windowOps; // the bytes one iteration reaches in the target's window
            makeWindow(span);
            slots((int) size);
            double[] times = probe > 0 && me == 0 ? new double[n] : null;
            double t = measure(me, (int) size, n, warm, times);
            long[] bad = {check(me, span, warm + n)};
            long[] allBad = new long[1];
            MPI.COMM_WORLD.allReduce(bad, allBad, 1, MPI.LONG, MPI.SUM);
            if (me == 0) {
                // t: the mean time of one iteration in microseconds; a bandwidth row is bytes per microsecond
                System.out.printf(Locale.ROOT, "%-10d%20.2f%n", size, bw ? (double) size * windowOps / t : t);
                if (times != null) {
                    printProbe(size, times, probe);
                }
            }
            freeWindow();
            if (allBad[0] != 0) {
                errors = allBad[0];
                failedAt = size;
                break;
            }
        }
        peerGroup.free();
        if (me == 0) {
            System.out.println(errors == 0 ? "# Validation: all results correct"
                    : "# DATA VALIDATION ERROR: " + title + " left " + errors + " wrong bytes at size " + failedAt);
        }
        if (errors != 0) {
            throw new IllegalStateException(title + ": " + errors + " wrong bytes at size " + failedAt);
        }
    }

    /** The byte the target's window starts with at {@code i} (what gets read back). */
    private static byte pattern(int i) {
        return (byte) (i * 7 + 3);
    }

    /**
     * After {@code ops} operations of one size: the wrong bytes this rank sees in what it received (its window when it
     * was a target, the fetched data when it was the origin). Rank 0 is the only origin except under fence and PSCW,
     * where both ranks issue to each other.
     */
    private long check(int me, int size, long ops) throws MPIException {
        boolean origin = me == 0 || sync == FENCE || sync == PSCW;
        boolean target = me == 1 || sync == FENCE || sync == PSCW;
        long bad = 0;
        // after the origin's unlock and a barrier (passive target), or the last fence or wait (active target), the
        // operations are complete in the target's window; a lock on itself makes its public copy its own to read
        boolean passive = sync != FENCE && sync != PSCW;
        MPI.COMM_WORLD.barrier();
        if (target) {
            if (passive) {
                win.lock(MPI.LOCK_EXCLUSIVE, me, 0);
            }
            try {
                bad += checkWindow(size, ops);
            } finally {
                if (passive) {
                    win.unlock(me);
                }
            }
        }
        if (origin && op == GET) {
            for (int i = 0; i < size; i++) {
                bad += res.get(i) == pattern(i) ? 0 : 1;
            }
        }
        if (origin && op == GET_ACC) {
            bad += checkAccumulated(res, size, ops - 1); // the target as it was before the last operation
        }
        if (origin && op == FOP && lres.get(0) != ops - 1) {
            bad++;
        }
        MPI.COMM_WORLD.barrier();
        return bad;
    }

    private long checkWindow(int size, long ops) {
        switch (op) {
            case PUT -> {
                long bad = 0;
                for (int i = 0; i < size; i++) {
                    bad += winMem.get(i) == src.get(i) ? 0 : 1;
                }
                return bad;
            }
            case ACC, GET_ACC -> {
                return checkAccumulated(winMem, size, ops);
            }
            case FOP -> {
                return winMem.getLong(0) == ops ? 0 : 1;
            }
            case CAS -> {
                return winMem.getLong(0) == 1 ? 0 : 1;
            }
            default -> {
                long bad = 0;
                for (int i = 0; i < size; i++) {
                    bad += winMem.get(i) == pattern(i) ? 0 : 1; // gets leave the window as it was
                }
                return bad;
            }
        }
    }

    /**
     * Wrong bytes of {@code b} after {@code ops} accumulates of the origin's data into the target's pattern: below
     * 4 bytes REPLACE (the origin's bytes), else SUM of ints (wrapping as the ints of the window wrap).
     */
    private long checkAccumulated(ByteBuffer b, int size, long ops) {
        long bad = 0;
        if (size < Integer.BYTES) {
            for (int i = 0; i < size; i++) {
                bad += b.get(i) == (ops == 0 ? pattern(i) : src.get(i)) ? 0 : 1;
            }
            return bad;
        }
        // the window, the origin and this copy of the start all hold ints in native order (MPI.INT's)
        ByteBuffer start = ByteBuffer.allocate(size).order(ByteOrder.nativeOrder());
        for (int i = 0; i < size; i++) {
            start.put(i, pattern(i));
        }
        for (int k = 0; k + Integer.BYTES <= size; k += Integer.BYTES) {
            int want = (int) (start.getInt(k) + ops * src.getInt(k));
            bad += b.getInt(k) == want ? 0 : Integer.BYTES;
        }
        return bad;
    }

    private void makeWindow(int size) throws MPIException {
        makeWindowOnly(size);
        win.lock(MPI.LOCK_EXCLUSIVE, MPI.COMM_WORLD.getRank(), 0);
        for (int i = 0; i < size; i++) {
            winMem.put(i, pattern(i));
        }
        if (atomic()) {
            winMem.putLong(0, 0); // fetch_and_op counts from 0; compare_and_swap swaps 0 for 1 once
        }
        win.unlock(MPI.COMM_WORLD.getRank());
        lcmp.put(0, 0);
        lres.put(0, -1);
        MPI.COMM_WORLD.barrier();
    }

    private void makeWindowOnly(int size) throws MPIException {
        switch (window) {
            case "create" -> {
                winMem = MPI.newByteBuffer(size);
                win = new Win(winMem, size, 1, MPI.INFO_NULL, MPI.COMM_WORLD);
            }
            case "dynamic" -> {
                winMem = MPI.newByteBuffer(size);
                win = new Win(MPI.INFO_NULL, MPI.COMM_WORLD);
                win.attach(winMem, size);
            }
            default -> {
                winMem = MPI.newByteBuffer(size);
                win = new Win(size, 1, MPI.INFO_NULL, MPI.COMM_WORLD, winMem, Win.FLAVOR_PRIVATE);
            }
        }
        MPI.COMM_WORLD.barrier();
    }

    private void freeWindow() throws MPIException {
        if (window.equals("dynamic")) {
            win.detach(winMem);
        }
        win.free();
        win = null;
    }

    /** Cuts the origin's buffers into the slots of a bandwidth window (outside the timing, as OSU's pointers). */
    private void slots(int size) {
        srcSlot = new ByteBuffer[windowOps];
        resSlot = new ByteBuffer[windowOps];
        for (int j = 0; j < windowOps; j++) {
            srcSlot[j] = src.slice(j * size, size);
            resSlot[j] = res.slice(j * size, size);
        }
    }

    /** One iteration's operations to rank {@code peer}: one for a latency test, a window for a bandwidth test. */
    private void issue(int peer, int size, long disp) throws MPIException {
        if (!bw) {
            issueOne(peer, size, disp, src, res); // the whole buffers: one operation
            return;
        }
        for (int j = 0; j < windowOps; j++) {
            issueOne(peer, size, disp + (long) j * size, srcSlot[j], resSlot[j]);
        }
    }

    /** One operation of the test to rank {@code peer}, as OSU issues it. */
    private void issueOne(int peer, int size, long disp, ByteBuffer from, ByteBuffer into) throws MPIException {
        switch (op) {
            case PUT -> win.put(from, size, MPI.BYTE, peer, disp, size, MPI.BYTE);
            case GET -> win.get(into, size, MPI.BYTE, peer, disp, size, MPI.BYTE);
            case ACC -> win.accumulate(from, count(size), type(size), peer, disp, count(size), type(size), op(size));
            case GET_ACC -> win.getAccumulate(from, count(size), type(size), into, count(size), type(size), peer, disp,
                    count(size), type(size), op(size));
            case FOP -> win.fetchAndOp(lsrc, lres, MPI.LONG, peer, disp, MPI.SUM);
            default -> win.compareAndSwap(lsrc, lcmp, lres, MPI.LONG, peer, disp);
        }
    }

    private static int count(int size) {
        return size < Integer.BYTES ? size : size / Integer.BYTES;
    }

    private static Datatype type(int size) {
        return size < Integer.BYTES ? MPI.BYTE : MPI.INT;
    }

    private static Op op(int size) {
        return size < Integer.BYTES ? MPI.REPLACE : MPI.SUM;
    }

    /** OSU's loop for the size: the mean latency in microseconds (rank 0's; fence and PSCW halved). */
    private double measure(int me, int size, int n, int warm, double[] times) throws MPIException {
        // a dynamic window's displacement is the attached memory's address, which the target tells the origin
        long disp = 0;
        if (window.equals("dynamic")) {
            long[] mine = {MPI.getAddress(winMem)};
            long[] theirs = new long[1];
            MPI.COMM_WORLD.sendRecv(mine, 1, MPI.LONG, 1 - me, 7, theirs, 1, MPI.LONG, 1 - me, 7);
            disp = theirs[0];
        }
        double start = 0;
        double end = 0;
        int peer = 1 - me;
        if (sync == FENCE || sync == PSCW) {
            if (sync == FENCE) {
                win.fence(0);
            }
            for (int i = 0; i < warm + n; i++) {
                double t0 = MPI.wtime();
                if (i == warm) {
                    start = t0;
                }
                if (sync == FENCE) {
                    if (me == 0) {
                        issue(peer, size, disp);
                    }
                    win.fence(0);
                    if (me == 1) {
                        issue(peer, size, disp);
                    }
                    win.fence(0);
                } else if (me == 0) {
                    win.start(peerGroup, 0);
                    issue(peer, size, disp);
                    win.complete();
                    win.post(peerGroup, 0);
                    win.waitFor();
                } else {
                    win.post(peerGroup, 0);
                    win.waitFor();
                    win.start(peerGroup, 0);
                    issue(peer, size, disp);
                    win.complete();
                }
                if (times != null && i >= warm) {
                    times[i - warm] = (MPI.wtime() - t0) / 2;
                }
            }
            end = MPI.wtime();
            MPI.COMM_WORLD.barrier();
            return (end - start) * 1e6 / n / 2;
        }
        if (me == 0) {
            if (sync == LOCK_ALL) {
                win.lockAll(0);
            } else if (sync != LOCK) {
                win.lock(MPI.LOCK_SHARED, peer, 0);
            }
            for (int i = 0; i < warm + n; i++) {
                double t0 = MPI.wtime();
                if (i == warm) {
                    start = t0;
                }
                if (sync == LOCK) {
                    win.lock(MPI.LOCK_SHARED, peer, 0);
                    issue(peer, size, disp);
                    win.unlock(peer);
                } else {
                    issue(peer, size, disp);
                    if (sync == FLUSH_LOCAL) {
                        win.flushLocal(peer);
                    } else {
                        win.flush(peer);
                    }
                }
                if (times != null && i >= warm) {
                    times[i - warm] = MPI.wtime() - t0;
                }
            }
            end = MPI.wtime();
            if (sync == LOCK_ALL) {
                win.unlockAll();
            } else if (sync != LOCK) {
                win.unlock(peer);
            }
        }
        MPI.COMM_WORLD.barrier();
        return (end - start) * 1e6 / n;
    }

    /** Per block of {@code every} timed operations: mean and median; then the time to steady state. */
    private static void printProbe(long size, double[] times, int every) {
        int blocks = times.length / every;
        if (blocks == 0) {
            return;
        }
        double[] medians = new double[blocks];
        for (int b = 0; b < blocks; b++) {
            double[] t = Arrays.copyOfRange(times, b * every, (b + 1) * every);
            double sum = 0;
            for (double x : t) {
                sum += x;
            }
            Arrays.sort(t);
            medians[b] = t[every / 2];
            System.out.printf(Locale.ROOT, "# probe size %d ops %6d-%6d: mean %9.3f p50 %8.3f us%n", size,
                    b * every, (b + 1) * every - 1, sum * 1e6 / every, medians[b] * 1e6);
        }
        double last = medians[blocks - 1];
        int steady = blocks;
        while (steady > 0 && medians[steady - 1] <= last * STEADY_FACTOR) {
            steady--;
        }
        System.out.printf(Locale.ROOT, "# probe size %d: steady (block p50 within %.0fx of the last block's %.3f us)"
                + " after %d of %d timed operations%n", size, STEADY_FACTOR, last * 1e6, steady * every,
                times.length);
    }
}

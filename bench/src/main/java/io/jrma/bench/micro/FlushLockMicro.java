package io.jrma.bench.micro;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Group;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import java.io.PrintStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;

/**
 * Microbenchmarks of jrma's synchronization calls, each line with the counters the library keeps over the
 * measured loop (per operation, summed over every rank's window): empty lock/unlock epochs, lock+put+unlock
 * with and without lock coalescing, flush with 0, 1 and 16 queued puts, lock_all(MODE_NOCHECK) with flush,
 * fence and PSCW against the number of ranks, and the 8-byte put message rate with one and several threads of
 * a rank.
 *
 * <pre>
 *   java $(flags) -cp "bench/target/classes:bench/target/lib/*" io.jrma.bench.micro.FlushLockMicro [options]
 *       thread ranks of this JVM: pair cases on 2 ranks, fence/PSCW on 2, 4 and 8, for --path auto and packet
 *   bin/jrmarun -n N [--jvms J] [--param jrma.path=packet] -cp bench/target/classes io.jrma.bench.micro.FlushLockMicro
 *       the job's N ranks, its path; pair cases from rank 0 to rank N-1 (in the last JVM)
 * </pre>
 *
 * Options: {@code --cases lock,coalesce,flush,nocheck,fence,pscw,rate} (default all), {@code --path
 * auto|packet|both} (thread ranks only), {@code --ranks 2,4,8} (fence/PSCW job sizes, thread ranks only),
 * {@code --threads 1,2} (rate), {@code --reps R} (7), {@code --rep-ms MS} (time per repetition, 20),
 * {@code --warmup-ms MS} (untimed repetitions per line first, 300),
 * {@code --iters N} (fixed iterations per repetition instead of calibrating), {@code --target T}, {@code --csv}.
 *
 * <p>Method: for each line, iterations per repetition are calibrated so that one repetition takes about
 * {@code --rep-ms}, repetitions run untimed for {@code --warmup-ms} (the JIT compiles the case's path) and the
 * count is re-sized by the fastest of them, then {@code --reps}
 * repetitions are timed by rank 0 between barriers; the line shows the median time per operation (µs) or the
 * median rate (million messages per second), and the minimum. Counters are the deltas of every rank's
 * {@link Win#counters()} over the timed repetitions, summed over ranks and divided by the operations timed
 * ({@code wait_us}: µs per operation spent waiting in synchronization calls); epochs that stay open across the
 * loop (lock_all for flush and the message rate) are opened before the first repetition and closed after the
 * last, so they do not enter the counters either. Pair cases: rank 0 is the only
 * origin and the target sits in a barrier (passive target), as in OSU's tests. The loops are written out in each
 * case, so the JIT sees one call target per loop.
 */
public final class FlushLockMicro implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Counters shown in the table (all are in the CSV), with their short names. */
    static final Counter[] SHOWN = {Counter.PACKETS_SENT, Counter.BATCHES_SENT, Counter.PACKETS_COALESCED,
        Counter.ACKS_ELIDED, Counter.ACKS_PIGGYBACKED, Counter.REPLIES_RECEIVED, Counter.PACKETS_APPLIED,
        Counter.DIRECT_OPS, Counter.LOCK_WAITS, Counter.SYNC_WAIT_NS};
    static final String[] SHORT = {"pkts", "batch", "coal", "elid", "pigg", "repl", "appl", "direct",
            "lockw", "wait_us"};
    static final List<String> ALL_CASES = List.of("lock", "coalesce", "flush", "nocheck", "fence", "pscw", "rate");
    static final int NC = Counter.values().length;
    /** Puts per flush in the message-rate case (OSU's window). */
    static final int RATE_WINDOW = 64;
    /** Bytes of each rank's window (one page). */
    private static final long WIN_BYTES = 4096;

    private Set<String> cases = new LinkedHashSet<>(ALL_CASES);
    private String paths = "both";
    private int[] rankCounts = {2, 4, 8};
    private int[] threads = {1, 2};
    private int reps = 7;
    private double repMs = 20;
    private double warmupMs = 300;
    private int iters;
    private int target = -1;
    private boolean csv;
    private transient PrintStream out = System.out;
    private transient boolean headerPrinted;

    public static void main(String[] args) throws Exception {
        FlushLockMicro m = parse(args);
        m.runAll();
    }

    static FlushLockMicro parse(String[] args) {
        FlushLockMicro m = new FlushLockMicro();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--cases" -> {
                    m.cases = new LinkedHashSet<>(Arrays.asList(args[++i].split(",")));
                    for (String c : m.cases) {
                        if (!ALL_CASES.contains(c)) {
                            throw new IllegalArgumentException("unknown case " + c + " (cases: " + ALL_CASES + ")");
                        }
                    }
                }
                case "--path" -> m.paths = args[++i];
                case "--ranks" -> m.rankCounts = ints(args[++i]);
                case "--threads" -> m.threads = ints(args[++i]);
                case "--reps" -> m.reps = Integer.parseInt(args[++i]);
                case "--rep-ms" -> m.repMs = Double.parseDouble(args[++i]);
                case "--warmup-ms" -> m.warmupMs = Double.parseDouble(args[++i]);
                case "--iters" -> m.iters = Integer.parseInt(args[++i]);
                case "--target" -> m.target = Integer.parseInt(args[++i]);
                case "--csv" -> m.csv = true;
                case "-h", "--help" -> {
                    System.out.println("usage: FlushLockMicro [--cases " + String.join(",", ALL_CASES)
                            + "] [--path auto|packet|both]"
                            + " [--ranks 2,4,8] [--threads 1,2] [--reps 7] [--rep-ms 20] [--warmup-ms 300] [--iters "
                            + "N] [--target T] [--csv]");
                    System.exit(0);
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (!m.paths.equals("both") && !m.paths.equals("auto") && !m.paths.equals("packet")) {
            throw new IllegalArgumentException("--path auto|packet|both, not " + m.paths);
        }
        if (m.reps < 1) {
            throw new IllegalArgumentException("--reps must be at least 1");
        }
        return m;
    }

    private static int[] ints(String s) {
        return Arrays.stream(s.split(",")).mapToInt(Integer::parseInt).toArray();
    }

    FlushLockMicro out(PrintStream o) {
        this.out = o;
        return this;
    }

    /** Runs every selected case: on this job's ranks under jrmarun, else on thread-rank jobs per path. */
    void runAll() throws Exception {
        if (Jrma.inJob() || Jrma.startedAsRank()) {
            run(Jrma.world(), true, true);
            return;
        }
        List<String> ps = paths.equals("both") ? List.of("auto", "packet") : List.of(paths);
        boolean pair = cases.stream().anyMatch(c -> !c.equals("fence") && !c.equals("pscw"));
        boolean coll = cases.contains("fence") || cases.contains("pscw");
        for (String p : ps) {
            if (pair) {
                Jrma.job(2).param("jrma.path", p).run(world -> run(world, true, false));
            }
            if (coll) {
                for (int n : rankCounts) {
                    Jrma.job(n).param("jrma.path", p).run(world -> run(world, false, true));
                }
            }
        }
    }

    // ------------------------------------------------------------------ one job

    /** One repetition of {@code iters} iterations on every rank; returns rank 0's elapsed ns (others: any). */
    @FunctionalInterface
    interface Rep {
        long run(int iters) throws Exception;
    }

    private void run(Comm world, boolean pairCases, boolean collCases) throws Exception {
        MeasureRank c = new MeasureRank(world);
        try {
            if (pairCases && c.n >= 2) {
                pair(c);
            }
            if (collCases) {
                collective(c);
            }
        } finally {
            world.barrier();
            c.stats.free();
        }
    }

    private void pair(MeasureRank c) throws Exception {
        Comm world = c.world;
        int t = target >= 0 ? target : c.n - 1;
        if (t <= 0 || t >= c.n) {
            throw new IllegalArgumentException("--target must be a rank other than 0, not " + t);
        }
        Win w = Win.allocate(world, WIN_BYTES, 8, null);
        Win off = Win.allocate(world, WIN_BYTES, 8, Info.of("jrma_lock_coalesce", "false"));
        boolean origin = c.me == 0;
        long[] src = {42};
        try {
            if (cases.contains("lock")) {
                for (LockType lt : new LockType[] {LockType.SHARED, LockType.EXCLUSIVE}) {
                    String name = "lock/unlock empty " + lt.name().toLowerCase(Locale.ROOT);
                    measure(c, w, name, 1, false, 1, n -> pairRep(c, origin, () -> {
                        long t0 = System.nanoTime();
                        for (int i = 0; i < n; i++) {
                            w.lock(lt, t, 0);
                            w.unlock(t);
                        }
                        return System.nanoTime() - t0;
                    }));
                }
            }
            if (cases.contains("coalesce")) {
                for (Win x : new Win[] {w, off}) {
                    String co = x == w ? "coalesce=on" : "coalesce=off";
                    for (LockType lt : new LockType[] {LockType.SHARED, LockType.EXCLUSIVE}) {
                        String name = "lock/put8/unlock "
                                + lt.name().toLowerCase(Locale.ROOT).substring(0, 4) + " " + co;
                        measure(c, x, name, 1, false, 1, n -> pairRep(c, origin, () -> {
                            long t0 = System.nanoTime();
                            for (int i = 0; i < n; i++) {
                                x.lock(lt, t, 0);
                                x.put(src, 1, Datatype.LONG, t, 0);
                                x.unlock(t);
                            }
                            return System.nanoTime() - t0;
                        }));
                    }
                }
                measure(c, off, "lock/unlock empty shar coalesce=off", 1, false, 1, n -> pairRep(c, origin, () -> {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        off.lock(LockType.SHARED, t, 0);
                        off.unlock(t);
                    }
                    return System.nanoTime() - t0;
                }));
            }
            if (cases.contains("flush")) {
                for (int k : new int[] {0, 1, 16}) {
                    // lock_all stays open over all repetitions; a priming put+flush takes the lock first
                    measure(c, w, "lock_all: " + k + " x put8 + flush", 1, false, 1, () -> {
                        w.lockAll(0);
                        w.put(src, 1, Datatype.LONG, t, 0);
                        w.flush(t);
                    }, n -> pairRep(c, origin, () -> {
                        long t0 = System.nanoTime();
                        for (int i = 0; i < n; i++) {
                            for (int j = 0; j < k; j++) {
                                w.put(src, 1, Datatype.LONG, t, j);
                            }
                            w.flush(t);
                        }
                        return System.nanoTime() - t0;
                    }), w::unlockAll);
                }
            }
            if (cases.contains("nocheck")) {
                measure(c, w, "lock_all(NOCHECK): put8 + flush", 1, false, 1, () -> w.lockAll(Win.MODE_NOCHECK),
                        n -> pairRep(c, origin, () -> {
                            long t0 = System.nanoTime();
                            for (int i = 0; i < n; i++) {
                                w.put(src, 1, Datatype.LONG, t, 0);
                                w.flush(t);
                            }
                            return System.nanoTime() - t0;
                        }), w::unlockAll);
                measure(c, w, "lock_all(NOCHECK)/put8/flush/unlock_all", 1, false, 1, n -> pairRep(c, origin, () -> {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        w.lockAll(Win.MODE_NOCHECK);
                        w.put(src, 1, Datatype.LONG, t, 0);
                        w.flush(t);
                        w.unlockAll();
                    }
                    return System.nanoTime() - t0;
                }));
            }
            if (cases.contains("rate")) {
                for (int th : threads) {
                    rate(c, w, t, th);
                }
            }
        } finally {
            world.barrier();
            off.free();
            w.free();
        }
    }

    @FunctionalInterface
    private interface Timed {
        long run() throws Exception;
    }

    /** A pair repetition: rank 0 runs the timed loop, the others wait in the barriers (passive target). */
    private static long pairRep(MeasureRank c, boolean origin, Timed loop) throws Exception {
        c.world.barrier();
        long el = origin ? loop.run() : 0;
        c.world.barrier();
        return el;
    }

    /**
     * 8-byte puts, windows of {@link #RATE_WINDOW} then flush, from {@code th} threads of rank 0 in one lock_all epoch.
     */
    private void rate(MeasureRank c, Win w, int t, int th) throws Exception {
        boolean origin = c.me == 0;
        RateWorker[] helpers = new RateWorker[origin ? th - 1 : 0];
        CyclicBarrier start = new CyclicBarrier(th);
        CyclicBarrier end = new CyclicBarrier(th);
        int[] itersBox = new int[1];
        for (int j = 0; j < helpers.length; j++) {
            helpers[j] = new RateWorker(w, t, j + 1, start, end, itersBox);
            helpers[j].start();
        }
        try {
            measure(c, w, "put8 rate (x" + RATE_WINDOW + " + flush) " + th + " thread" + (th > 1 ? "s" : ""),
                    th, true, RATE_WINDOW * th, () -> {
                        w.lockAll(0);
                        w.put(new long[] {0}, 1, Datatype.LONG, t, 0);
                        w.flush(t);
                    }, n -> pairRep(c, origin, () -> {
                        itersBox[0] = n;
                        start.await();
                        long t0 = System.nanoTime();
                        RateWorker.puts(w, t, 0, n);
                        end.await();
                        return System.nanoTime() - t0;
                    }), w::unlockAll);
        } finally {
            for (RateWorker h : helpers) {
                h.interrupt();
                h.join(10_000);
            }
        }
    }

    private void collective(MeasureRank c) throws Exception {
        Comm world = c.world;
        int n = c.n;
        int right = (c.me + 1) % n;
        int left = (c.me + n - 1) % n;
        Win w = Win.allocate(world, WIN_BYTES, 8, null);
        long[] src = {c.me};
        Group rightG = w.group().incl(right);
        Group leftG = w.group().incl(left);
        try {
            if (cases.contains("fence")) {
                w.fence(0);
                measure(c, w, "fence (empty)", 1, false, 1, k -> {
                    world.barrier();
                    long t0 = System.nanoTime();
                    for (int i = 0; i < k; i++) {
                        w.fence(0);
                    }
                    long el = System.nanoTime() - t0;
                    world.barrier();
                    return el;
                });
                measure(c, w, "fence + put8 to right", 1, false, 1, k -> {
                    world.barrier();
                    long t0 = System.nanoTime();
                    for (int i = 0; i < k; i++) {
                        w.put(src, 1, Datatype.LONG, right, 0);
                        w.fence(0);
                    }
                    long el = System.nanoTime() - t0;
                    world.barrier();
                    return el;
                });
                w.fence(Win.MODE_NOSUCCEED);
            }
            if (cases.contains("pscw")) {
                measure(c, w, "pscw ring (empty)", 1, false, 1, k -> {
                    world.barrier();
                    long t0 = System.nanoTime();
                    for (int i = 0; i < k; i++) {
                        w.post(leftG, 0);
                        w.start(rightG, 0);
                        w.complete();
                        w.waitFor();
                    }
                    long el = System.nanoTime() - t0;
                    world.barrier();
                    return el;
                });
                measure(c, w, "pscw ring + put8 to right", 1, false, 1, k -> {
                    world.barrier();
                    long t0 = System.nanoTime();
                    for (int i = 0; i < k; i++) {
                        w.post(leftG, 0);
                        w.start(rightG, 0);
                        w.put(src, 1, Datatype.LONG, right, 0);
                        w.complete();
                        w.waitFor();
                    }
                    long el = System.nanoTime() - t0;
                    world.barrier();
                    return el;
                });
            }
        } finally {
            world.barrier();
            w.free();
        }
    }

    // ------------------------------------------------------------------ measuring and printing

    /** A result line. */
    record Row(String name, String path, int ranks, int threads, int iters, double median, double best, String unit,
               long ops, long[] counters) {
        double perOp(Counter k) {
            double v = (double) counters[k.ordinal()] / ops;
            return k == Counter.SYNC_WAIT_NS ? v / 1000 : v;
        }
    }

    final transient List<Row> rows = new ArrayList<>();

    private void measure(MeasureRank c, Win w, String name, int th, boolean rate, int opsPerIter, Rep rep)
            throws Exception {
        measure(c, w, name, th, rate, opsPerIter, null, rep, null);
    }

    /** Set-up or tear-down run by rank 0 around all repetitions of a pair case (outside time and counters). */
    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    private void measure(MeasureRank c, Win w, String name, int th, boolean rate, int opsPerIter, Step open, Rep rep,
                         Step close) throws Exception {
        if (open != null && c.me == 0) {
            open.run();
        }
        try {
            measureOpen(c, w, name, th, rate, opsPerIter, rep);
        } finally {
            if (close != null && c.me == 0) {
                close.run();
            }
        }
    }

    private void measureOpen(MeasureRank c, Win w, String name, int th, boolean rate, int opsPerIter,
            Rep rep) throws Exception {
        int n = iters > 0 ? iters : calibrate(c, rep);
        n = warmUp(c, rep, n);
        Map<Counter, Long> before = w.counters().snapshot();
        long[] ns = new long[reps];
        for (int r = 0; r < reps; r++) {
            ns[r] = rep.run(n);
        }
        Map<Counter, Long> after = w.counters().snapshot();
        long[] mine = new long[NC];
        for (Counter k : Counter.values()) {
            mine[k.ordinal()] = after.get(k) - before.get(k);
        }
        long[] sum = c.gather(mine);
        String path = w.info().get("jrma_path");
        if (c.me != 0) {
            return;
        }
        long ops = (long) reps * n * opsPerIter;
        double[] per = new double[reps];
        for (int r = 0; r < reps; r++) {
            double perOpNs = (double) ns[r] / ((long) n * opsPerIter);
            per[r] = rate ? 1e3 / perOpNs : perOpNs / 1e3;  // Mmsg/s, or us per op
        }
        double[] sorted = per.clone();
        Arrays.sort(sorted);
        double median = reps % 2 == 1 ? sorted[reps / 2] : (sorted[reps / 2 - 1] + sorted[reps / 2]) / 2;
        double best = rate ? sorted[reps - 1] : sorted[0];
        Row row = new Row(name, path, c.n, th, n, median, best, rate ? "Mmsg/s" : "us", ops, sum);
        rows.add(row);
        print(row);
    }

    /**
     * Warm-up repetitions until {@code warmupMs} have passed on rank 0 (at least one), so the JIT has compiled the
     * case's whole path before timing starts; then, unless iterations are fixed, resizes the repetition by the
     * fastest warm-up repetition (the calibration ran partly in the interpreter and in C1 code).
     */
    private int warmUp(MeasureRank c, Rep rep, int n) throws Exception {
        long goal = (long) (warmupMs * 1e6);
        long spent = 0;
        double best = Double.MAX_VALUE;
        while (true) {
            long el = rep.run(n);
            spent += el;
            best = Math.min(best, (double) Math.max(1, el) / n);
            long more = c.me == 0 && spent < goal ? 1 : 0;
            if (c.bcast(more) == 0) {
                break;
            }
        }
        if (iters > 0) {
            return n;
        }
        return (int) c.bcast(Math.max(1, Math.min(1L << 26, (long) (repMs * 1e6 / best))));
    }

    /**
     * Iterations for one repetition of about {@code repMs}: runs a trial count on every rank, four times larger each
     * round, until a round is long enough (and at least 64 iterations), then sizes the repetition by the fastest
     * time per iteration seen (a round slowed by a descheduled thread does not shrink the count). Rank 0 decides.
     */
    private int calibrate(MeasureRank c, Rep rep) throws Exception {
        long goal = (long) (repMs * 1e6);
        int k = 4;
        double best = Double.MAX_VALUE;
        while (true) {
            long el = rep.run(k);
            long next;
            if (c.me == 0) {
                if (k >= 16) {
                    best = Math.min(best, (double) Math.max(1, el) / k);
                }
                if ((el >= goal / 8 && k >= 64) || k >= (1 << 24)) {
                    next = -Math.max(1, Math.min(1L << 26, (long) (goal / best)));
                } else {
                    next = (long) k * 4;
                }
            } else {
                next = 0;
            }
            long agreed = c.bcast(next);
            if (agreed < 0) {
                return (int) -agreed;
            }
            k = (int) agreed;
        }
    }

    private static final String ROW_FMT = "%-44s %-6s %5d %3d %9d %10.3f %10.3f %-6s";

    private void print(Row r) {
        if (!headerPrinted) {
            headerPrinted = true;
            if (csv) {
                StringBuilder h = new StringBuilder("case,path,ranks,threads,iters,median,best,unit");
                for (Counter k : Counter.values()) {
                    h.append(',').append(k == Counter.SYNC_WAIT_NS ? "sync_wait_us"
                            : k.name().toLowerCase(Locale.ROOT)).append("_per_op");
                }
                out.println(h);
            } else {
                out.printf(Locale.ROOT,
                        "# jrma flush/lock microbenchmarks: median of %d repetitions; counters per operation, all "
                        + "ranks%n", reps);
                StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "%-44s %-6s %5s %3s %9s %10s %10s %-6s",
                        "case", "path", "ranks", "thr", "iters", "median", "best", "unit"));
                for (String s : SHORT) {
                    h.append(String.format(Locale.ROOT, " %7s", s));
                }
                out.println(h);
            }
        }
        if (csv) {
            StringBuilder b = new StringBuilder();
            b.append('"').append(r.name()).append('"').append(',').append(r.path()).append(',').append(r.ranks())
                    .append(',').append(r.threads()).append(',').append(r.iters())
                    .append(String.format(Locale.ROOT, ",%.4f,%.4f,", r.median(), r.best())).append(r.unit());
            for (Counter k : Counter.values()) {
                b.append(String.format(Locale.ROOT, ",%.4f", r.perOp(k)));
            }
            out.println(b);
        } else {
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT, ROW_FMT, r.name(), r.path(), r.ranks(),
                    r.threads(), r.iters(), r.median(), r.best(), r.unit()));
            for (Counter k : SHOWN) {
                b.append(String.format(Locale.ROOT, " %7.2f", r.perOp(k)));
            }
            out.println(b);
        }
        out.flush();
    }
}

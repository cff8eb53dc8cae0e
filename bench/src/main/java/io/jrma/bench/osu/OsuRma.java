package io.jrma.bench.osu;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Group;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import io.jrma.WinCounters;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * The OSU 7.x one-sided benchmarks on jrma, with their loops and output: {@code put_latency},
 * {@code get_latency}, {@code acc_latency}, {@code get_acc_latency}, {@code fop_latency},
 * {@code cas_latency}, {@code put_bw}, {@code get_bw}, {@code put_bibw}.
 *
 * <pre>
 *   bin/jrmarun -n 2 [--jvms 2] -cp bench/target/classes io.jrma.bench.osu.OsuRma put_latency -w allocate -s flush
 *   java $(flags) -cp ... io.jrma.bench.osu.OsuRma get_bw -s lock_all -m 1:4194304   (2 thread ranks)
 * </pre>
 *
 * Options as OSU's: {@code -w create|allocate|dynamic} (and {@code dynamic_alloc}: a dynamic window over memory
 * from {@code Jrma.allocateMemory}, MPI_Alloc_mem in the C twin, where OSU attaches malloc'ed memory;
 * {@code create_malloc}: a create window over {@code ByteBuffer.allocateDirect}, malloc'ed in the C twin, where
 * {@code create} uses MPI_Alloc_mem), {@code -s lock|flush|flush_local|lock_all|pscw|fence},
 * {@code -m [MIN:]MAX} message sizes (powers of two from MIN), {@code -i} iterations, {@code -x} warm-up
 * iterations (OSU's defaults: 10000/100 below 8 KiB, 1000/10 above; bandwidth 20/2 with a window of 64
 * operations, {@code -W}). Fence and PSCW latencies are halved, as OSU reports them. Before the measured pass,
 * silent passes over all sizes (ten times the counts up to 8 KiB, and at least {@link #FRAME_WARMUP_OPS} operations
 * at the first size from 512 KiB) let the JIT compile the loops (a C benchmark needs none): one pass when the size
 * range reaches the large sizes, else as many as make {@link #JIT_WARMUP_ITERATIONS} iterations over the range. In
 * the measured pass each size's epoch then begins with one more pass's iterations (when the range is one size, at
 * a passive target's origin for at least {@link #WARMUP_MIN_NS}) before OSU's warm-up. {@code --no-jit-warmup}
 * leaves OSU's own warm-up only, {@code --jit-passes N} sets the number of silent passes. {@code --counters} prints
 * each rank's window counters over the timed iterations of each size, {@code --trace} the spread of those iterations
 * (p50, p90, p99, max, and the iterations above 100 us: a mean far above the p50 is a few stalls, not a slow path),
 * both on stderr. Rank 0 is the origin; rank 1 the target (for bibw both are). The atomics use 8-byte longs whatever
 * the size range.
 */
public final class OsuRma implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final int LARGE = 8192;
    /**
     * From this size on a transfer takes code of its own over TCP (a frame of its own, sent from and read straight
     * into user memory), run once per operation: the silent pass runs the first such size for at least
     * {@link #FRAME_WARMUP_OPS} operations. With the 12 windows of OSU's counts, get_bw at 1 MiB measured 1.4-2.0
     * GB/s for the first windows after a pass of 1-4 MiB, 4.4 after sixteen windows, and 5.1 after ten passes.
     */
    private static final long FRAME_SIZE = 512 << 10;
    static final int FRAME_WARMUP_OPS = 3000;

    private final String test;
    private String window = "allocate";
    private String sync = "flush";
    private long minSize = 1;
    private long maxSize = 4 << 20;
    private int iters = -1;
    private int skip = -1;
    private int windowOps = 64;
    private boolean jitWarmup = true;
    private int jitPasses = -1;
    private boolean counters;
    private boolean trace;

    // the test and synchronization resolved once (resolve()), so that the timed loop compares no strings (OSU has a
    // function per test and per synchronization; the C twin resolves the same way)
    private static final int PUT = 0, GET = 1, ACC = 2, GET_ACC = 3, FOP = 4, CAS = 5;
    private static final int FLUSH = 0, FLUSH_LOCAL = 1, LOCK = 2, LOCK_ALL = 3, FENCE = 4, PSCW = 5;
    private int opKind;
    private int syncKind;
    private boolean bibw;

    private OsuRma(String test) {
        this.test = test;
    }

    private void resolve() {
        opKind = switch (test) {
            case "put_latency", "put_bw", "put_bibw" -> PUT;
            case "get_latency", "get_bw" -> GET;
            case "acc_latency" -> ACC;
            case "get_acc_latency" -> GET_ACC;
            case "fop_latency" -> FOP;
            case "cas_latency" -> CAS;
            default -> throw new IllegalArgumentException("unknown test " + test);
        };
        syncKind = switch (sync) {
            case "flush_local" -> FLUSH_LOCAL;
            case "lock" -> LOCK;
            case "lock_all" -> LOCK_ALL;
            case "fence" -> FENCE;
            case "pscw" -> PSCW;
            default -> FLUSH;
        };
        bibw = test.endsWith("bibw");
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: OsuRma "
                    + "put_latency|get_latency|acc_latency|get_acc_latency|fop_latency|cas_latency"
                    + "|put_bw|get_bw|put_bibw"
                    + " [-w create|create_malloc|allocate|dynamic|dynamic_alloc]"
                    + " [-s lock|flush|flush_local|lock_all|pscw|fence]"
                    + " [-m [MIN:]MAX] [-i ITER] [-x SKIP] [-W WINDOW] [--counters] [--trace]");
            System.exit(2);
        }
        OsuRma b = new OsuRma(args[0]);
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "-w" -> b.window = args[++i];
                case "-s" -> b.sync = args[++i];
                case "-m" -> {
                    String m = args[++i];
                    int c = m.indexOf(':');
                    b.minSize = c >= 0 ? Long.parseLong(m.substring(0, c)) : 1;
                    b.maxSize = Long.parseLong(c >= 0 ? m.substring(c + 1) : m);
                }
                case "-i" -> b.iters = Integer.parseInt(args[++i]);
                case "-x" -> b.skip = Integer.parseInt(args[++i]);
                case "-W" -> b.windowOps = Integer.parseInt(args[++i]);
                case "--no-jit-warmup" -> b.jitWarmup = false;
                case "--jit-passes" -> b.jitPasses = Integer.parseInt(args[++i]);
                case "--counters" -> b.counters = true;
                case "--trace" -> b.trace = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Jrma.runOrJoin(2, b::run);
    }

    private boolean atomic() {
        return test.equals("fop_latency") || test.equals("cas_latency");
    }

    private boolean bw() {
        return test.endsWith("_bw") || test.endsWith("_bibw");
    }

    private void run(Comm world) {
        if (world.size() != 2) {
            throw new IllegalArgumentException("the OSU one-sided tests run on exactly 2 ranks, not " + world.size());
        }
        int me = world.rank();
        resolve();
        if (me == 0) {
            System.out.println("# OSU MPI_" + title() + " Test (jrma)");
            System.out.println("# Window creation: MPI_Win_" + switch (window) {
                case "create", "create_malloc" -> "create";
                case "dynamic", "dynamic_alloc" -> "create_dynamic";
                default -> "allocate";
            });
            System.out.println("# Synchronization: " + syncName());
            System.out.printf(Locale.ROOT, "%-10s%20s%n", "# Size", bw() ? "Bandwidth (MB/s)" : "Latency (us)");
        }
        long lo = atomic() ? 8 : minSize;
        long hi = atomic() ? 8 : maxSize;
        // silent JIT warm-up passes over every size (10x OSU's counts each), then the measured pass: per size, in the
        // epoch it measures, one more such warm-up, OSU's warm-up, and the timed iterations
        int passes = !jitWarmup ? 0 : jitPasses >= 0 ? jitPasses : warmupPasses(lo, hi);
        for (int pass = 0; pass < passes; pass++) {
            sizes(world, me, lo, hi, false);
        }
        sizes(world, me, lo, hi, true);
    }

    /**
     * Timed iterations (operations, for bandwidth) the warm-up passes must add up to. One pass over a single small
     * size (put_latency -m 8:8: 100,000 iterations, ~50 ms) ended while C2 was still compiling, and re-compiling
     * what the window's free and re-creation had invalidated, on a 2-core machine: the measured pass then reported
     * 0.6-3.6 us for a lock/put/unlock that takes 0.2 us. Over the default size range one pass already suffices.
     * The measured pass repeats a pass's iterations at the start of each size's epoch: when its epoch began with
     * OSU's warm-up alone, 100,000 measured fetch_and_ops through the request slots averaged 1.6-2.4 us on 2 cores,
     * with a stall of 0.1-4 ms every 1,000-1,500 operations: C2 compiler threads of either JVM taking a rank's core
     * (perf sched) to compile again what the end of the previous epoch had deoptimized (the exit of a loop compiled
     * on stack, never taken before it was compiled: the benchmark's loop, and the target's wait in its barrier). A
     * long-lived window, after 600,000 operations, averaged 0.61-0.67.
     */
    static final long JIT_WARMUP_ITERATIONS = 500_000;

    /**
     * The JIT's passes: enough for {@link #JIT_WARMUP_ITERATIONS}, at most 20; one when the
     * range reaches the large sizes, whose iterations already give the JIT its time (20 passes of 64 x 4 MiB
     * moved over 100 GB before measuring).
     */
    int warmupPasses(long lo, long hi) {
        if (hi > LARGE) {
            return 1;
        }
        long perPass = 0;
        for (long size = lo; size <= hi; size *= 2) {
            int n = iters > 0 ? iters : bw() ? (size > LARGE ? 20 : 100) : size > LARGE ? 1000 : 10_000;
            int warm = skip >= 0 ? skip : bw() ? (size > LARGE ? 2 : 10) : size > LARGE ? 10 : 100;
            perPass += 10L * (n + warm) * (bw() ? windowOps : 1);
        }
        return (int) Math.max(1, Math.min(20, (JIT_WARMUP_ITERATIONS + perPass - 1) / Math.max(1, perPass)));
    }

    private void sizes(Comm world, int me, long lo, long hi, boolean print) {
        for (long size = lo; size <= hi; size *= 2) {
            int n = iters > 0 ? iters : bw() ? (size > LARGE ? 20 : 100) : size > LARGE ? 1000 : 10_000;
            int warm = skip >= 0 ? skip : bw() ? (size > LARGE ? 2 : 10) : size > LARGE ? 10 : 100;
            int ops = bw() ? windowOps : 1;
            int jitN = n;
            if (size <= LARGE) {
                jitN *= 10; // a JIT pass: long enough for C2 to compile the whole issue path; the large sizes
                            // run the same code, and ten times them would only move gigabytes before measuring
            } else if (size >= FRAME_SIZE && size / 2 < Math.max(lo, FRAME_SIZE)) {
                jitN = Math.max(n, (FRAME_WARMUP_OPS + ops - 1) / ops - warm); // but the frame path needs its own
            }
            long winBytes = Math.max(8, size * ops);
            ByteBuffer local = ByteBuffer.allocateDirect((int) winBytes);
            ByteBuffer result = ByteBuffer.allocateDirect((int) winBytes + 8);
            Win w;
            long base = 0;
            switch (window) {
                case "create" -> w = Win.create(world, Jrma.allocateMemory((int) winBytes), 1, null);
                // create_malloc: over memory private to the JVM (malloc'ed in the C twin)
                case "create_malloc" -> w = Win.create(world, ByteBuffer.allocateDirect((int) winBytes), 1, null);
                case "dynamic", "dynamic_alloc" -> {
                    w = Win.createDynamic(world, null);
                    // dynamic: malloc'ed memory, as OSU attaches; dynamic_alloc: memory from MPI_Alloc_mem
                    ByteBuffer mem = window.equals("dynamic") ? ByteBuffer.allocateDirect((int) winBytes)
                            : Jrma.allocateMemory((int) winBytes);
                    w.attach(mem);
                    long[] mine = {Win.address(mem)};
                    // exchange base addresses through a tiny allocate window (MPI programs use a gather)
                    try (Win x = Win.allocate(world, 16, 8, null)) {
                        x.fence(0);
                        x.put(mine, 1, Datatype.LONG, 1 - me, me);
                        x.fence(0);
                        base = x.buffer().getLong(8 * (1 - me));
                    }
                }
                default -> w = Win.allocate(world, winBytes, 1, null);
            }
            world.barrier();
            ByteBuffer[] slices = slices(local, size, ops);
            ByteBuffer compare = result.duplicate().position(8).slice();
            @SuppressWarnings("unchecked")
            Map<WinCounters.Counter, Long>[] before = counters && print ? new Map[1] : null;
            // a silent JIT pass; or the measured one: OSU's warm-up iterations, and before them a JIT pass's, in the
            // measured epoch
            double t = print ? measure(world, w, me, size, n, warm + (jitWarmup ? jitN + warm : 0), ops, slices,
                    compare, result, base, before, true, jitWarmup && lo == hi)
                    : measure(world, w, me, size, jitN, warm, ops, slices, compare, result, base, null, false, false);
            if (me == 0 && print) {
                double value = bw() ? size / 1e6 * ops * n * (test.endsWith("bibw") ? 2 : 1) / t : t * 1e6 / n
                        / (sync.equals("fence") || sync.equals("pscw") ? 2 : 1);
                // latency to the ns (OSU prints 0.01 us, a fifth of an 8-byte operation over shared memory)
                System.out.printf(Locale.ROOT, bw() ? "%-10d%20.2f%n" : "%-10d%20.3f%n", size, value);
            }
            if (before != null) { // each rank's window counters over the timed iterations (stderr: the size lines
                                  // stay parseable)
                StringBuilder d = new StringBuilder("{");
                w.counters().snapshot().forEach((c, v) -> {
                    if (v - before[0].get(c) != 0) {
                        d.append(d.length() > 1 ? ", " : "").append(c.name().toLowerCase(Locale.ROOT)).append('=')
                                .append(v - before[0].get(c));
                    }
                });
                System.err.printf(Locale.ROOT, "rank %d, %d bytes: %s}%n", me, size, d);
            }
            world.barrier();
            w.free();
        }
    }

    private String title() {
        return switch (test) {
            case "put_latency" -> "Put Latency";
            case "get_latency" -> "Get Latency";
            case "acc_latency" -> "Accumulate Latency";
            case "get_acc_latency" -> "Get_accumulate Latency";
            case "fop_latency" -> "Fetch_and_op Latency";
            case "cas_latency" -> "Compare_and_swap Latency";
            case "put_bw" -> "Put Bandwidth";
            case "get_bw" -> "Get Bandwidth";
            case "put_bibw" -> "Put Bi-directional Bandwidth";
            default -> throw new IllegalArgumentException("unknown test " + test);
        };
    }

    private String syncName() {
        return switch (sync) {
            case "lock" -> "MPI_Win_lock/unlock";
            case "flush" -> "MPI_Win_flush";
            case "flush_local" -> "MPI_Win_flush_local";
            case "lock_all" -> "MPI_Win_lock_all/unlock_all";
            case "pscw" -> "MPI_Win_post/start/complete/wait";
            case "fence" -> "MPI_Win_fence";
            default -> throw new IllegalArgumentException("unknown synchronization " + sync);
        };
    }

    /** Warm-up iterations per call of {@link #loop}: calls many enough for the JIT to compile it as a method. */
    private static final int CHUNK = 1000;
    /**
     * The shortest warm-up of a passive target's measured epoch: the JIT needs time as well as calls (the 20,000
     * iterations of a pass at 8 bytes take a few milliseconds on the direct path, less than C2 takes to compile
     * what the epoch's first operations deoptimized). Without the silent passes, with this warm-up per size only
     * by count, put_latency -m 8:8192 on an allocate window measured 0.38 us at 8 bytes and 0.11 at 16 (0.022 and
     * 0.031 with them). Only for a range of one size: 300 ms of 8-byte puts before the 16-byte epoch left the JIT's
     * profile all 8-byte puts, and 16 and 32 bytes then measured 0.05-0.08 us against 0.025-0.05 without.
     */
    static final long WARMUP_MIN_NS = 300_000_000L;

    /**
     * Seconds for the {@code n} timed iterations (rank 0's clock; rank 1's for bibw is not used), after
     * {@code warm} untimed ones in the same epoch (with {@code floor}, at least {@link #WARMUP_MIN_NS} of them at a
     * passive target's origin); {@code before} gets the window's counters as the clock starts; {@code print}: the
     * measured pass ({@code --trace} reports it).
     */
    private double measure(Comm world, Win w, int me, long size, int n, long warm, int ops, ByteBuffer[] slices,
                           ByteBuffer compare, ByteBuffer result, long base,
                           Map<WinCounters.Counter, Long>[] before, boolean print, boolean floor) {
        int peer = 1 - me;
        boolean active = sync.equals("fence") || sync.equals("pscw");
        boolean origin = me == 0 || test.endsWith("bibw") || sync.equals("fence");
        Group peerGroup = w.group().incl(peer);
        if (!active && origin && me == 0 || !active && test.endsWith("bibw")) {
            if (sync.equals("flush") || sync.equals("flush_local")) {
                w.lock(LockType.SHARED, peer, 0);
            } else if (sync.equals("lock_all")) {
                w.lockAll(0);
            }
        }
        // --trace times every iteration, the warm-up's too, so that the timed iterations run code the JIT compiled
        long[] times = trace && print && me == 0 ? new long[Math.max(n, CHUNK)] : null;
        // the warm-up in calls of CHUNK iterations, the timed iterations in one more call of the same method: the
        // timed ones run its compiled code, never a loop compiled on stack that a first exit would deoptimize
        // with floor, a passive target's origin (the only rank that loops) goes on until WARMUP_MIN_NS have passed
        // (the JIT needs time as well as calls)
        long minNs = floor && !active && !bibw && me == 0 ? WARMUP_MIN_NS : 0;
        long start = System.nanoTime();
        for (long left = warm; left > 0 || System.nanoTime() - start < minNs; left -= CHUNK) {
            loop(w, me, peer, origin, peerGroup, size, ops, slices, compare, result, base,
                    (int) (left > 0 ? Math.min(CHUNK, left) : CHUNK), times);
        }
        if (before != null) {
            before[0] = w.counters().snapshot();
        }
        long t0 = System.nanoTime();
        loop(w, me, peer, origin, peerGroup, size, ops, slices, compare, result, base, n, times);
        double secs = (System.nanoTime() - t0) / 1e9;
        if (times != null && n > 0) {
            traceLine(size, Arrays.copyOf(times, n));
        }
        if (!active && (me == 0 || test.endsWith("bibw"))) {
            if (sync.equals("flush") || sync.equals("flush_local")) {
                w.unlock(peer);
            } else if (sync.equals("lock_all")) {
                w.unlockAll();
            }
        }
        world.barrier();
        return secs;
    }

    /** {@code count} iterations; their times into {@code times} when not null. */
    private void loop(Win w, int me, int peer, boolean origin, Group peerGroup, long size, int ops, ByteBuffer[] slices,
                      ByteBuffer compare, ByteBuffer result, long base, int count, long[] times) {
        if (times == null) {
            for (int i = 0; i < count; i++) {
                iteration(w, me, peer, origin, peerGroup, size, ops, slices, compare, result, base);
            }
        } else {
            for (int i = 0; i < count; i++) {
                long s = System.nanoTime();
                iteration(w, me, peer, origin, peerGroup, size, ops, slices, compare, result, base);
                times[i] = System.nanoTime() - s;
            }
        }
    }

    /**
     * {@code --trace}: the distribution of the measured pass's iterations (stderr), to tell a slow steady state from
     * a few long stalls (a thread descheduled while the JIT or the other rank takes the core). "stalls" are the
     * iterations above 100 us and the share of the pass's time they took.
     */
    private static void traceLine(long size, long[] s) { // (sorts s)
        Arrays.sort(s);
        long total = 0;
        long stalled = 0;
        int stalls = 0;
        for (long x : s) {
            total += x;
            if (x > 100_000) {
                stalls++;
                stalled += x;
            }
        }
        System.err.printf(Locale.ROOT, "trace %d bytes: p50 %.3f p90 %.3f p99 %.3f max %.1f mean %.3f us;"
                        + " stalls %d (%.0f%% of the time)%n", size, s[s.length / 2] / 1e3, s[s.length * 9 / 10] / 1e3,
                s[s.length * 99 / 100] / 1e3, s[s.length - 1] / 1e3, total / 1e3 / s.length, stalls,
                100.0 * stalled / Math.max(1, total));
    }

    /**
     * One iteration of the timed loop: a method of its own, so that the JIT compiles it as an ordinary method
     * during the warm-up ({@link #loop} too).
     */
    private void iteration(Win w, int me, int peer, boolean origin, Group peerGroup, long size, int ops,
                           ByteBuffer[] slices, ByteBuffer compare, ByteBuffer result, long base) {
        switch (syncKind) {
            case FENCE -> {
                w.fence(0);
                ops(w, peer, size, ops, slices, compare, result, base);
                w.fence(0);
            }
            case PSCW -> {
                if (me == 0 || bibw) {
                    if (bibw) {
                        w.post(peerGroup, 0);
                    }
                    w.start(peerGroup, 0);
                    ops(w, peer, size, ops, slices, compare, result, base);
                    w.complete();
                    if (bibw) {
                        w.waitFor();
                    }
                } else {
                    w.post(peerGroup, 0);
                    w.waitFor();
                }
            }
            default -> {
                if (!origin || me != 0 && !bibw) {
                    break;
                }
                if (syncKind == LOCK) {
                    w.lock(LockType.SHARED, peer, 0);
                }
                ops(w, peer, size, ops, slices, compare, result, base);
                switch (syncKind) {
                    case LOCK -> w.unlock(peer);
                    case FLUSH, LOCK_ALL -> w.flush(peer);
                    default -> w.flushLocal(peer);
                }
            }
        }
    }

    /** OSU accumulates ints (SUM); sizes below an int use bytes with REPLACE (bytes have no SUM here). */
    private static long count(long size) {
        return size < 4 ? size : size / 4;
    }

    private static Datatype type(long size) {
        return size < 4 ? Datatype.BYTE : Datatype.INT;
    }

    private static Op op(long size) {
        return size < 4 ? Op.REPLACE : Op.SUM;
    }

    /** The origin buffer of each operation of a window of {@code ops}, made once per size (per rank). */
    private static ByteBuffer[] slices(ByteBuffer local, long size, int ops) {
        int s = (int) size;
        ByteBuffer[] slices = new ByteBuffer[ops];
        for (int j = 0; j < ops; j++) {
            slices[j] = local.duplicate().position(j * s).limit(j * s + s).slice();
        }
        return slices;
    }

    private void ops(Win w, int peer, long size, int ops, ByteBuffer[] slices, ByteBuffer compare, ByteBuffer result,
                     long base) {
        for (int j = 0; j < ops; j++) {
            long disp = base + (long) j * size;
            ByteBuffer src = slices[j];
            switch (opKind) {
                case PUT -> w.put(src, size, Datatype.BYTE, peer, disp);
                case GET -> w.get(src, size, Datatype.BYTE, peer, disp);
                case ACC -> w.accumulate(src, count(size), type(size), peer, disp, op(size));
                case GET_ACC -> w.getAccumulate(src, count(size), type(size), result, count(size), type(size),
                        peer, disp, count(size), type(size), op(size));
                case FOP -> w.fetchAndOp(src, result, Datatype.LONG, peer, disp, Op.SUM);
                case CAS -> w.compareAndSwap(src, compare, result, Datatype.LONG,
                        peer, disp);
                default -> throw new IllegalStateException("op " + opKind);
            }
        }
    }
}

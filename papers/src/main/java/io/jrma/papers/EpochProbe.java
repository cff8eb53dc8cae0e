package io.jrma.papers;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import java.io.PrintStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Passive-target epochs from rank 0 to rank 1 of a 2-rank job, timed, with both ranks' window counters per epoch:
 * the experiments of the MPICH claims (papers/mpich-*). The job's parameters (jrmarun {@code --param}, or
 * {@link #run(String[], Map, PrintStream)} for thread ranks) choose the variant: coalescing, acks, issue mode, path.
 *
 * <pre>
 *   bin/jrmarun -n 2 --jvms 2 --param jrma.path=packet -cp papers/target/classes io.jrma.papers.EpochProbe \
 *       --pattern one-packet --series shm-rings --rep 1
 * </pre>
 *
 * Patterns: {@code one-packet} (lock, one 8-byte put, unlock; x = shared, exclusive), {@code acks} (the three cases
 * where an ack is elided or piggy-backed; x = unlock-after-flush, empty-flush, get-at-tail), {@code issue}
 * ({@code --ops K} puts of each {@code --sizes} size then a flush in a lock_all epoch; x = size). Options:
 * {@code --series NAME}, {@code --rep R}, {@code --ms MS} (measured time per case, in {@link #CHUNKS} chunks),
 * {@code --warmup-ms MS}. Output: {@code series,x,metric,rep,value} lines on stdout (rank 0), metrics
 * {@code us} (median chunk's time per epoch), {@code mbs} (issue: MB/s), and counts per epoch: {@code packets},
 * {@code batches}, {@code replies}, {@code coalesced}, {@code acks_elided}, {@code acks_piggybacked} (origin),
 * {@code ring_acks}, {@code applied} (target), {@code bypass} (origin operations that took no packet: direct,
 * kernel copy, request slot).
 */
public final class EpochProbe implements Serializable {
    private static final long serialVersionUID = 1L;
    /** The measured time of a case is split in this many chunks; the median chunk gives the time per epoch. */
    static final int CHUNKS = 5;
    static final int TARGET = 1;
    private static final int NC = Counter.values().length;
    /** The smallest window and source buffer (one page), for the patterns that do not size them. */
    private static final long MIN_WIN_BYTES = 4096;

    private String pattern = "one-packet";
    private String series = "jrma";
    private int rep = 1;
    private double ms = 1000;
    private double warmupMs = 500;
    private long[] sizes = {8, 1024, 65536, 1 << 20};
    private int ops = 16;
    private transient PrintStream out = System.out;

    public static void main(String[] args) throws Exception {
        EpochProbe p = parse(args);
        Jrma.runOrJoin(2, p::run);
    }

    /** Runs the probe on 2 thread ranks of this JVM with the given job parameters, printing to {@code out}. */
    public static void run(String[] args, Map<String, String> params, PrintStream out) {
        EpochProbe p = parse(args);
        p.out = out;
        Jrma.Builder b = Jrma.job(2);
        params.forEach(b::param);
        b.run(p::run);
    }

    static EpochProbe parse(String[] args) {
        EpochProbe p = new EpochProbe();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--pattern" -> p.pattern = args[++i];
                case "--series" -> p.series = args[++i];
                case "--rep" -> p.rep = Integer.parseInt(args[++i]);
                case "--ms" -> p.ms = Double.parseDouble(args[++i]);
                case "--warmup-ms" -> p.warmupMs = Double.parseDouble(args[++i]);
                case "--sizes" -> p.sizes = Arrays.stream(args[++i].split(",")).mapToLong(Long::parseLong).toArray();
                case "--ops" -> p.ops = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (p.series.contains(",")) {
            throw new IllegalArgumentException("--series must hold no comma (the output is CSV): " + p.series);
        }
        if (!List.of("one-packet", "acks", "issue").contains(p.pattern)) {
            throw new IllegalArgumentException("--pattern one-packet|acks|issue, not " + p.pattern);
        }
        return p;
    }

    /** One iteration at the origin (rank 0). */
    @FunctionalInterface
    interface Epoch {
        void run(Win w);
    }

    /** A measured case: x, what opens and closes it around all iterations (may be null), an iteration. */
    record Case(String x, Epoch open, Epoch body, Epoch close, long bytesPerEpoch) {
    }

    private void run(Comm world) {
        if (world.size() != 2) {
            throw new IllegalArgumentException("EpochProbe runs on 2 ranks, not " + world.size());
        }
        long most = pattern.equals("issue") ? Arrays.stream(sizes).max().orElse(8) * ops : MIN_WIN_BYTES;
        Win w = Win.allocate(world, Math.max(MIN_WIN_BYTES, most), 1, null);
        Win stats = Win.allocate(world, 8L * 2 * NC, 8, null);
        ByteBuffer src = ByteBuffer.allocateDirect((int) Math.max(MIN_WIN_BYTES, most));
        try {
            for (Case c : cases(src)) {
                measure(world, w, stats, c);
            }
        } finally {
            world.barrier();
            stats.free();
            w.free();
        }
    }

    private List<Case> cases(ByteBuffer src) {
        long[] one = {42};
        long[] got = new long[1];
        List<Case> cs = new ArrayList<>();
        switch (pattern) {
            case "one-packet" -> {
                for (LockType lt : new LockType[] {LockType.SHARED, LockType.EXCLUSIVE}) {
                    cs.add(new Case(lt.name().toLowerCase(Locale.ROOT), null, w -> {
                        w.lock(lt, TARGET, 0);
                        w.put(one, 1, Datatype.LONG, TARGET, 0);
                        w.unlock(TARGET);
                    }, null, 8));
                }
            }
            case "acks" -> {
                // MPICH's first case (no ack needed while the origin holds the lock and has nothing unacknowledged):
                // the unlock of an exclusive epoch whose put a flush already completed
                cs.add(new Case("unlock-after-flush", null, w -> {
                    w.lock(LockType.EXCLUSIVE, TARGET, 0);
                    w.put(one, 1, Datatype.LONG, TARGET, 0);
                    w.flush(TARGET);
                    w.unlock(TARGET);
                }, null, 8));
                // the second: a flush with an empty operation list (the second flush)
                cs.add(new Case("empty-flush", w -> w.lockAll(0), w -> {
                    w.put(one, 1, Datatype.LONG, TARGET, 0);
                    w.flush(TARGET);
                    w.flush(TARGET);
                }, Win::unlockAll, 8));
                // the third: a GET issued before a put is moved to the tail and its reply carries the flush's ack
                cs.add(new Case("get-at-tail", w -> w.lockAll(0), w -> {
                    w.get(got, 1, Datatype.LONG, TARGET, 8);
                    w.put(one, 1, Datatype.LONG, TARGET, 0);
                    w.flush(TARGET);
                }, Win::unlockAll, 16));
            }
            default -> {
                for (long size : sizes) {
                    ByteBuffer[] slices = new ByteBuffer[ops];
                    for (int j = 0; j < ops; j++) {
                        slices[j] = src.duplicate().position((int) (j * size)).limit((int) ((j + 1) * size)).slice();
                    }
                    cs.add(new Case(Long.toString(size), w -> w.lockAll(0), w -> {
                        for (int j = 0; j < ops; j++) {
                            w.put(slices[j], size, Datatype.BYTE, TARGET, j * size);
                        }
                        w.flush(TARGET);
                    }, Win::unlockAll, size * ops));
                }
            }
        }
        return cs;
    }

    private void measure(Comm world, Win w, Win stats, Case c) {
        boolean origin = world.rank() == 0;
        if (origin && c.open() != null) {
            c.open().run(w);
        }
        if (origin) {
            loopFor(w, c, (long) (warmupMs * 1e6));
        }
        world.barrier();
        Map<Counter, Long> before = w.counters().snapshot();
        double[] perEpochNs = new double[CHUNKS];
        long epochs = 0;
        if (origin) {
            for (int k = 0; k < CHUNKS; k++) {
                long t0 = System.nanoTime();
                long n = loopFor(w, c, (long) (ms * 1e6 / CHUNKS));
                perEpochNs[k] = (double) (System.nanoTime() - t0) / n;
                epochs += n;
            }
        }
        world.barrier();
        Map<Counter, Long> after = w.counters().snapshot();
        if (origin && c.close() != null) {
            c.close().run(w);
        }
        long[] mine = new long[NC];
        for (Counter k : Counter.values()) {
            mine[k.ordinal()] = after.get(k) - before.get(k);
        }
        stats.fence(0);
        stats.put(mine, NC, Datatype.LONG, 0, (long) world.rank() * NC);
        stats.fence(0);
        if (!origin) {
            return;
        }
        long[] o = new long[NC];
        long[] t = new long[NC];
        for (int k = 0; k < NC; k++) {
            o[k] = stats.buffer().getLong(8 * k);
            t[k] = stats.buffer().getLong(8 * (NC + k));
        }
        Arrays.sort(perEpochNs);
        double us = perEpochNs[CHUNKS / 2] / 1e3;
        emit(c.x(), "us", us);
        if (pattern.equals("issue")) {
            emit(c.x(), "mbs", c.bytesPerEpoch() / us);
        }
        double e = epochs;
        emit(c.x(), "packets", o[Counter.PACKETS_SENT.ordinal()] / e);
        emit(c.x(), "batches", o[Counter.BATCHES_SENT.ordinal()] / e);
        emit(c.x(), "replies", o[Counter.REPLIES_RECEIVED.ordinal()] / e);
        emit(c.x(), "coalesced", o[Counter.PACKETS_COALESCED.ordinal()] / e);
        emit(c.x(), "acks_elided", o[Counter.ACKS_ELIDED.ordinal()] / e);
        emit(c.x(), "acks_piggybacked", o[Counter.ACKS_PIGGYBACKED.ordinal()] / e);
        emit(c.x(), "ring_acks", t[Counter.ACKS_BY_RING.ordinal()] / e);
        emit(c.x(), "applied", t[Counter.PACKETS_APPLIED.ordinal()] / e);
        emit(c.x(), "bypass", (o[Counter.DIRECT_OPS.ordinal()] + o[Counter.CROSS_MEMORY_OPS.ordinal()]
                + o[Counter.SLOT_OPS.ordinal()]) / e);
        out.flush();
    }

    /** Iterations of {@code c} until {@code ns} have passed (at least one); returns how many ran. */
    private static long loopFor(Win w, Case c, long ns) {
        long start = System.nanoTime();
        long n = 0;
        do {
            c.body().run(w);
            n++;
        } while (System.nanoTime() - start < ns);
        return n;
    }

    private void emit(String x, String metric, double v) {
        out.printf(Locale.ROOT, "%s,%s,%s,%d,%.6g%n", series, x, metric, rep, v);
    }
}

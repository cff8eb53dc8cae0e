package io.jrma.papers;

import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.Win;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;

/**
 * The Open MPI components claim's probe, outside JMH: starts a {@link WiredPair} wired one way, drives 8-byte
 * put+flush and get+flush through it, and prints {@code series,x,metric,rep,value} lines: what the wiring found and
 * opened ({@code providers_found}, {@code transports_opened}, x = the lane), and with {@code --time} the time per
 * operation ({@code us}, x = lane and operation) from a plain timing loop (the JMH figures come from
 * {@link SelectionBench}; this loop serves the reduced form in the tests).
 *
 * <pre>
 *   java $(flags) -cp "papers/target/classes:papers/target/lib/*" io.jrma.papers.SelectionProbe \
 *       --wiring spi|hand --lane shm|tcp [--series NAME] [--ops N] [--rep R] [--time] [--mixed]
 * </pre>
 *
 * {@code --mixed} first drives the same call sites through the other transport classes ({@link #mixTransports}).
 */
public final class SelectionProbe {
    /** Operations per phase unless {@code --ops} says otherwise. */
    static final int DEFAULT_OPS = 2_000;
    /** A tenth of the operations run first, untimed. */
    static final int WARMUP_FRACTION = 10;
    /** Displacement (bytes) of the put's target and of the get's source in the 8-byte-aligned window. */
    static final long PUT_DISP = 0;
    static final long GET_DISP = 8;
    /** Nanoseconds per microsecond, for the times printed. */
    static final double NS_PER_US = 1_000;
    /** Rounds of {@link #mixTransports}: each drives every transport class once more. */
    static final int MIX_ROUNDS = 2;
    /** Operations per transport and round in {@link #mixTransports}, at most ... */
    static final int MIX_OPS = 10_000;
    /** ... and for at most this long (a loaded machine makes each operation slow). */
    static final long MIX_PHASE_NS = 1_500_000_000L;

    private SelectionProbe() {
    }

    public static void main(String[] args) throws Exception {
        run(args, System.out);
    }

    /** Runs the probe with {@code args} (see the class comment), printing to {@code out}. */
    public static void run(String[] args, PrintStream out) throws Exception {
        WiredPair.Wiring wiring = WiredPair.Wiring.SPI;
        WiredPair.Lane lane = WiredPair.Lane.SHM;
        String series = null;
        int ops = DEFAULT_OPS;
        int rep = 1;
        boolean time = false;
        boolean mixed = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--wiring" -> wiring = WiredPair.wiring(args[++i]);
                case "--lane" -> lane = WiredPair.lane(args[++i]);
                case "--series" -> series = args[++i];
                case "--ops" -> ops = Integer.parseInt(args[++i]);
                case "--rep" -> rep = Integer.parseInt(args[++i]);
                case "--time" -> time = true;
                case "--mixed" -> mixed = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        String s = series != null ? series : wiring.name().toLowerCase(Locale.ROOT);
        String l = lane.name().toLowerCase(Locale.ROOT);
        if (mixed) {
            mixTransports(MIX_ROUNDS, MIX_OPS);
        }
        try (WiredPair pair = WiredPair.start(wiring, lane, Map.of())) {
            if (!pair.via().equals(l)) {
                throw new IllegalStateException("rank 1 is reached through " + pair.via() + ", not " + l);
            }
            Win w = pair.win();
            long[] v = {1};
            traffic(w, ops / WARMUP_FRACTION);
            if (time) {
                long t0 = System.nanoTime();
                puts(w, v, ops);
                long t1 = System.nanoTime();
                gets(w, v, ops);
                long t2 = System.nanoTime();
                line(out, s, l + " put+flush", "us", rep, (t1 - t0) / NS_PER_US / ops);
                line(out, s, l + " get+flush", "us", rep, (t2 - t1) / NS_PER_US / ops);
            } else {
                traffic(w, ops);
            }
            line(out, s, l, "providers_found", rep, pair.providersFound());
            line(out, s, l, "transports_opened", rep, pair.providersUsed());
        }
    }

    static void line(PrintStream out, String series, String x, String metric, int rep, double value) {
        out.println(String.format(Locale.ROOT, "%s,%s,%s,%d,%s", series, x, metric, rep, value));
    }

    /** {@code n} put+flush then {@code n} get+flush of one long to rank 1. */
    static void traffic(Win w, int n) {
        long[] v = {1};
        puts(w, v, n);
        gets(w, v, n);
    }

    /** Up to {@code n} put+flush and get+flush pairs to rank 1, for at most {@code maxNs}. */
    static void traffic(Win w, int n, long maxNs) {
        long[] v = {1};
        long until = System.nanoTime() + maxNs;
        for (int i = 0; i < n && System.nanoTime() - until < 0; i++) {
            puts(w, v, 1);
            gets(w, v, 1);
        }
    }

    static void puts(Win w, long[] v, int n) {
        for (int i = 0; i < n; i++) {
            w.put(v, 1, Datatype.LONG, 1, PUT_DISP);
            w.flush(1);
        }
    }

    static void gets(Win w, long[] v, int n) {
        for (int i = 0; i < n; i++) {
            w.get(v, 1, Datatype.LONG, 1, GET_DISP);
            w.flush(1);
        }
    }

    /**
     * Drives the window engine's packet call sites through three transport classes in turn, {@code rounds} times,
     * up to {@code ops} put+flush and get+flush each (for at most {@link #MIX_PHASE_NS}): a job of two thread ranks
     * on the packet path (the in-JVM transport), then a pair over TCP and a pair over the shared-memory rings, both
     * opened through the SPI. Afterwards those call sites have seen three receiver classes, as in a JVM whose ranks
     * reach peers in memory, on this host and on another: HotSpot's type profile then holds more classes than C2
     * inlines by profile (two), so a later job's calls go through the interface's dispatch (a megamorphic site).
     */
    static void mixTransports(int rounds, int ops) throws Exception {
        for (int r = 0; r < rounds; r++) {
            Jrma.job(2).param("jrma.path", "packet").run(world -> {
                Win w = Win.allocate(world, WiredPair.WIN_BYTES, 1, null);
                if (world.rank() == 0) {
                    w.lockAll(0);
                    traffic(w, ops, MIX_PHASE_NS);
                    w.unlockAll();
                }
                world.barrier();
                w.free();
            });
            for (WiredPair.Lane l : WiredPair.Lane.values()) {
                try (WiredPair p = WiredPair.start(WiredPair.Wiring.SPI, l, Map.of())) {
                    traffic(p.win(), ops, MIX_PHASE_NS);
                }
            }
        }
    }
}

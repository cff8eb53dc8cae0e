package io.jrma.soak;

import io.jrma.Flavor;
import io.jrma.Jrma;
import io.jrma.shm.ShmFiles;
import io.jrma.transport.ucx.UcxWorker;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The soak's driver: runs {@link SoakRank} jobs on the layouts (threads of one JVM, 2 and 4 JVMs over the
 * shared-memory rings, 2 JVMs over TCP only, 2 JVMs over UCX) and adds up what they ran and checked, with the window
 * counters of their JVMs ({@link CountedRank}: RDMA lane operations, UCP atomics, packets).
 *
 * <p>Settings (system properties): {@code jrma.soak.seed} (default: random, printed), {@code jrma.soak.layouts}
 * (comma-separated names, default all), {@code jrma.soak.rounds} (quick mode: rounds per layout),
 * {@code jrma.soak.ranks} (quick mode: ranks per job), {@code jrma.soak.minutes} (long mode: the total time,
 * spread over the layouts in turn).
 */
final class Soak {
    /** Where a job's ranks run. */
    enum Layout {
        THREADS("threads", 1, "local", Map.of()),
        THREADS_PACKET("threads-packet", 1, "local", Map.of("jrma.path", "packet")),
        JVMS2("2jvms", 2, "shm", Map.of()),
        JVMS2_PACKET("2jvms-packet", 2, "shm", Map.of("jrma.path", "packet")),
        JVMS4("4jvms", 4, "shm", Map.of()),
        JVMS2_TCP("2jvms-tcp", 2, "tcp", Map.of("jrma.transports", "^shm", "jrma.shm.windows", "false")),
        /**
         * UCX between the JVMs over UCX's shared-memory transports: packets as UCP messages, puts and gets of
         * allocate and create windows by the RDMA lane, accumulates by UCP atomics (the atomic domain).
         */
        JVMS2_UCX("2jvms-ucx", 2, "ucx", ucx("sm,self")),
        /** The same over UCX's TCP transport (puts, gets and atomics emulated by the target worker's progress). */
        JVMS2_UCX_TCP("2jvms-ucx-tcp", 2, "ucx", ucx("tcp,self"));

        final String label;
        final int jvms;
        final String between;
        final Map<String, String> params;

        Layout(String label, int jvms, String between, Map<String, String> params) {
            this.label = label;
            this.jvms = jvms;
            this.between = between;
            this.params = params;
        }

        /** Whether the layout needs UCX (libucp) in every JVM. */
        boolean ucx() {
            return between.equals("ucx");
        }

        /**
         * Why the layout cannot run on this host (a UCX layout where libucp is missing), or null.
         */
        String unavailableReason() {
            return ucx() ? UcxWorker.unavailableReason() : null;
        }

        /** UCX carries everything between the JVMs, over the given UCX transports; no window memory is shared. */
        private static Map<String, String> ucx(String tls) {
            return Map.of("jrma.transports", "tcp,ucx", "jrma.ucx.tls", tls, "jrma.shm.windows", "false");
        }

        static Layout of(String label) {
            for (Layout l : values()) {
                if (l.label.equals(label)) {
                    return l;
                }
            }
            throw new IllegalArgumentException("no soak layout " + label + "; layouts: " + Arrays.toString(labels()));
        }

        static String[] labels() {
            return Arrays.stream(values()).map(l -> l.label).toArray(String[]::new);
        }
    }

    /** Operation sizes per round, the same in both modes (so a long-mode failure reproduces in quick mode). */
    static final int MAX_OPS = 16;
    static final int MAX_MSGS = 6;

    /** What a job reports: the soak's counts ({@link SoakRank#COUNTERS}), then window counters summed over JVMs. */
    static final String[] NAMES = Stream.concat(Arrays.stream(SoakRank.COUNTERS),
            Arrays.stream(CountedRank.COUNTERS).map(k -> k.name().toLowerCase())).toArray(String[]::new);
    /** Indices in {@link #NAMES} of the window counters: puts and gets by the RDMA lane, UCP atomics, packets. */
    static final int RDMA_OPS = SoakRank.COUNTERS.length;
    static final int RDMA_BYTES = RDMA_OPS + 1;
    static final int RDMA_ATOMICS = RDMA_OPS + 2;
    static final int PACKETS = RDMA_OPS + 3;

    static final long SEED = Long.getLong("jrma.soak.seed", new SplittableRandom().nextLong());
    static final int QUICK_ROUNDS = Integer.getInteger("jrma.soak.rounds", 12);
    static final int QUICK_RANKS = Integer.getInteger("jrma.soak.ranks", 4);
    /** Long mode: tune each job with {@link #tuning} ({@code -Djrma.soak.tune=false}: only jrma.soak.params). */
    static final boolean TUNE = !"false".equals(System.getProperty("jrma.soak.tune"));
    static final double MINUTES = Double.parseDouble(System.getProperty("jrma.soak.minutes", "0"));

    static List<Layout> layouts() {
        String s = System.getProperty("jrma.soak.layouts", "");
        List<Layout> out = new ArrayList<>();
        if (s.isBlank()) {
            out.addAll(Arrays.asList(Layout.values()));
        } else {
            for (String x : s.split(",")) {
                out.add(Layout.of(x.trim()));
            }
        }
        return out;
    }

    /**
     * Whether a quick-mode job of {@code rounds} rounds with this seed makes a window of one of these flavors
     * that runs a round: the soak's own draw of windows ({@link #nextWindow}, as SoakRank draws them until the rounds
     * are done), so that a test knows whether the job must show the window counters of allocate and create windows
     * (the RDMA lane, UCP atomics).
     */
    static boolean drawsWindow(long seed, int rounds, Set<Flavor> flavors) {
        SplittableRandom r = new SplittableRandom(seed);
        int left = rounds;
        while (left > 0) {
            WindowDraw w = nextWindow(r);
            if (flavors.contains(w.flavor())) {
                return true;
            }
            left -= w.rounds();
        }
        return false;
    }

    /** The most rounds of one window. */
    private static final int MAX_WINDOW_ROUNDS = 5;

    /** A job's next window: its seed, its rounds and its flavor. */
    record WindowDraw(long seed, int rounds, Flavor flavor) {
    }

    /** Draws a job's next window from the job's random stream (SoakRank's and {@link #drawsWindow}'s one draw). */
    static WindowDraw nextWindow(SplittableRandom jobRandom) {
        long windowSeed = jobRandom.nextLong();
        int rounds = 1 + jobRandom.nextInt(MAX_WINDOW_ROUNDS);
        return new WindowDraw(windowSeed, rounds, Flavor.values()[jobRandom.nextInt(Flavor.values().length)]);
    }

    /** Job k's seed: the soak's seed itself for the first job, so that a printed seed reproduces as job 0. */
    static long jobSeed(long seed, int k) {
        return k == 0 ? seed : Model.mix(seed + 0x632BE59BD9B4E019L * k);
    }

    /** What jobs on one layout ran and checked, summed. */
    static final class Totals {
        final long[] c = new long[NAMES.length];
        int jobs;
        long millis;

        void add(long[] more, long ms) {
            for (int i = 0; i < c.length; i++) {
                c[i] += more[i];
            }
            jobs++;
            millis += ms;
        }

        long get(int i) {
            return c[i];
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            sb.append(String.format("jobs %d, %.1f s", jobs, millis / 1000.0));
            return sb.append(", ").append(describe(c)).toString();
        }
    }

    /**
     * Runs one job: {@code rounds} rounds (or rounds until {@code deadlineMillis} when that is positive) on
     * {@code n} ranks of the layout. Returns the counts; a failed check throws, naming seed, round and rank.
     */
    static long[] runJob(Layout l, int n, long seed, int rounds, long deadlineMillis,
            Duration timeout, String breakModel)
            throws IOException {
        return runJob(l, n, seed, rounds, deadlineMillis, timeout, breakModel != null ? breakModel : BREAK, PARAMS);
    }

    /**
     * {@code -Djrma.soak.break=lost-update}: a model that drops some accumulates, to see a failure (and its clean-up).
     */
    static final String BREAK = System.getProperty("jrma.soak.break");

    /** Run-time parameters for every job ({@code -Djrma.soak.params=name=value,name=value}). */
    static final String PARAMS = System.getProperty("jrma.soak.params", "");

    /**
     * Long mode's tuning of a job: none, or one to three run-time parameters at values that push the library off
     * its usual paths (small rings, credits and frames, every packet eager, one pending op, no lock coalescing,
     * kernel copies for everything or nothing, progress only by a thread or only by callers).
     */
    static String tuning(SplittableRandom r) {
        String[][] choices = {
            {"jrma.progress=thread", "jrma.progress=caller"},
            {"jrma.issue=eager", "jrma.issue=flush_local"},
            {"jrma.issue.eagerBytes=64", "jrma.issue.eagerBytes=4096"},
            {"jrma.maxPendingOps=1", "jrma.maxPendingOps=8"},
            {"jrma.lock.coalesce=false"},
            {"jrma.cma.minBytes=0", "jrma.cma.minBytes=1048576"},
            {"jrma.shm.opSlots=false"},
            {"jrma.shm.ringBytes=65536"},
            {"jrma.shm.heldBytes=65536"},
            {"jrma.shm.ringAcks=false"},
            {"jrma.tcp.credits=65536"},
            {"jrma.tcp.frameBytes=4096"},
            {"jrma.tcp.sendQueueBytes=65536"},
        };
        if (r.nextInt(3) == 0) {
            return "";
        }
        TreeMap<String, String> picked = new TreeMap<>();
        for (int k = 1 + r.nextInt(3); k > 0; k--) {
            String[] c = choices[r.nextInt(choices.length)];
            String[] kv = c[r.nextInt(c.length)].split("=");
            picked.put(kv[0], kv[1]);
        }
        StringBuilder sb = new StringBuilder();
        picked.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ",").append(k).append('=').append(v));
        return sb.toString();
    }

    static Map<String, String> parse(String params) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : params.split(",")) {
            if (!kv.isBlank()) {
                String[] p = kv.split("=", 2);
                m.put(p[0].trim(), p[1].trim());
            }
        }
        return m;
    }

    static long[] runJob(Layout l, int n, long seed, int rounds, long deadlineMillis,
            Duration timeout, String breakModel,
                         String tuning) throws IOException {
        Path result = Files.createTempFile("jrma-soak-", ".counts");
        try {
            SoakRank.Config cfg = new SoakRank.Config(l.label, l.jvms, l.between, seed, rounds, deadlineMillis,
                    MAX_OPS, MAX_MSGS, true, result.toString(), breakModel, tuning);
            Jrma.job(n).params(l.params).params(parse(tuning)).jvms(l.jvms).timeout(timeout)
                    .run(new CountedRank(new SoakRank(cfg), result.toString()));
            long[] out = new long[NAMES.length];
            read(result, out);
            for (int j = 0; j < l.jvms; j++) {
                read(CountedRank.fileOf(result.toString(), j), out);
            }
            return out;
        } finally {
            Files.deleteIfExists(result);
            for (int j = 0; j < l.jvms; j++) {
                Files.deleteIfExists(CountedRank.fileOf(result.toString(), j));
            }
        }
    }

    /** Adds the {@code name=value} lines of a result file (if it exists: a JVM without ranks writes none). */
    private static void read(Path file, long[] out) throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        for (String line : Files.readAllLines(file)) {
            String[] kv = line.split("=");
            int i = Arrays.asList(NAMES).indexOf(kv[0]);
            out[i] += Long.parseLong(kv[1]);
        }
    }

    /**
     * Long mode: layouts in turn, each job running rounds for up to {@code chunk}, until {@code minutes} are
     * over; prints a line per job and the totals per layout.
     */
    static Map<Layout, Totals> longMode(double minutes, List<Layout> asked, long seed,
            PrintStream out) throws IOException {
        Map<Layout, Totals> totals = new LinkedHashMap<>();
        List<Layout> layouts = new ArrayList<>();
        for (Layout l : asked) {
            String why = l.unavailableReason();
            if (why != null) {
                out.println("soak: layout " + l.label + " skipped: " + why);
            } else {
                layouts.add(l);
                totals.put(l, new Totals());
            }
        }
        if (layouts.isEmpty()) {
            return totals;
        }
        long end = System.currentTimeMillis() + (long) (minutes * 60_000);
        long chunk = Math.max(10_000, Math.min(120_000, (long) (minutes * 60_000) / (2L * layouts.size())));
        SplittableRandom sizes = new SplittableRandom(seed);
        out.printf("soak long mode: seed %d, %.1f minutes, layouts %s, jobs of up to %d s%n", seed, minutes,
                layouts, chunk / 1000);
        int k = 0;
        boolean firstPass = true; // every layout runs at least one job, however short the time
        while (firstPass || System.currentTimeMillis() < end - 5_000) {
            for (Layout l : layouts) {
                long now = System.currentTimeMillis();
                if (!firstPass && now >= end - 5_000) {
                    break;
                }
                int[] choices = l.jvms == 4 ? new int[] {4, 5, 6} : new int[] {3, 4, 5, 6};
                int n = choices[sizes.nextInt(choices.length)];
                n = Integer.getInteger("jrma.soak.ranks", n);
                long js = jobSeed(seed, k++);
                long deadline = Math.max(now + 5_000, Math.min(end, now + chunk));
                long t0 = System.currentTimeMillis();
                String tune = TUNE ? tuning(sizes) : PARAMS;
                out.printf("soak job %d: layout %s, %d ranks, seed %d%s ...%n", k - 1, l.label, n, js,
                        tune.isEmpty() ? "" : ", params " + tune);
                long[] c = runJob(l, n, js, 1, deadline, // at least one round, then until the deadline
                        Duration.ofMillis(deadline - now + 120_000), null, tune);
                long ms = System.currentTimeMillis() - t0;
                totals.get(l).add(c, ms);
                out.printf("soak job %d: layout %s, %d ranks, %.1f s: %s%n", k - 1, l.label, n,
                        ms / 1000.0, describe(c));
            }
            firstPass = false;
        }
        out.println("soak long mode done: seed " + seed);
        totals.forEach((l, t) -> out.println("soak totals " + l.label + ": " + t));
        return totals;
    }

    /** The counts and, where the library used UCX (or any RDMA lane), its window counters. */
    static String describe(long[] c) {
        StringBuilder sb = new StringBuilder();
        boolean rdma = c[RDMA_OPS] + c[RDMA_ATOMICS] > 0;
        for (int i = 0; i < c.length; i++) {
            if (i < SoakRank.COUNTERS.length || rdma) {
                sb.append(i == 0 ? "" : ", ").append(NAMES[i]).append(' ').append(c[i]);
            }
        }
        return sb.toString();
    }

    /**
     * Ends the JVMs this JVM started (the launcher keeps a pool of them between jobs) and removes the /dev/shm
     * files they created: run after the soak, whether it passed or not. Returns the files removed.
     */
    static List<String> cleanUp() {
        List<String> removed = new ArrayList<>();
        List<ProcessHandle> kids = ProcessHandle.current().descendants().toList();
        for (ProcessHandle p : kids) {
            p.destroyForcibly();
        }
        for (ProcessHandle p : kids) {
            try {
                p.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // reported below through the files left
            }
            removed.addAll(ShmFiles.filesOf(Path.of("/dev/shm"), p.pid()));
            for (String f : ShmFiles.filesOf(Path.of("/dev/shm"), p.pid())) {
                try {
                    Files.deleteIfExists(Path.of("/dev/shm", f));
                } catch (IOException ignored) {
                    // gone already
                }
            }
        }
        return removed;
    }

    private Soak() {
    }
}

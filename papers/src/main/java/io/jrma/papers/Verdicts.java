package io.jrma.papers;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The verdict of each claim, decided from its measurements by rules written down here (so a reader can check them
 * against the tables): counts where the claim is about counts, medians of timings where it is about time, and a
 * timing comparison taken as evidence only when it is not marked noisy or when it is lopsided enough
 * ({@link #CLEAR_RATIO}) to survive the noise.
 */
public final class Verdicts {
    public static final String HOLDS = "holds";
    public static final String PARTLY = "holds partly";
    public static final String NOT = "does not hold here";
    /** A count "is" k when within this of it (counts per epoch are averages over many epochs). */
    static final double COUNT_EPS = 0.05;
    /** A ratio of medians this far from 1 counts even when the medians are noisy. */
    static final double CLEAR_RATIO = 1.5;

    private Verdicts() {
    }

    /** A verdict: its level, one sentence, and the figures behind it. */
    public record Verdict(String level, String summary, List<String> reasons) {
    }

    /** Judges claim {@code id} on {@code m}. */
    public static Verdict judge(String id, Measurements m) {
        return switch (id) {
            case "mpich-one-packet-epoch" -> onePacket(m);
            case "mpich-ack-elision" -> acks(m);
            case "mpich-lazy-early-issue" -> issue(m);
            case "lockless-spin-then-sleep" -> spinSleep(m);
            case "tmpi-threads-vs-processes" -> threadsVsProcesses(m);
            case "lockless-one-copy" -> oneCopy(m);
            case "lockless-io-agent" -> ioAgent(m);
            case "lama-mapping-binding" -> binding(m);
            case "openmpi-components-no-cost" -> components(m);
            default -> throw new IllegalArgumentException("no verdict rules for claim " + id);
        };
    }

    static String f(double v) {
        return Report.cell(v);
    }

    /** Series name "transport variant" split at the last space. */
    private static String prefix(String series) {
        int sp = series.lastIndexOf(' ');
        return sp < 0 ? series : series.substring(0, sp);
    }

    private static Set<String> prefixes(Measurements m) {
        Set<String> p = new LinkedHashSet<>();
        m.series().forEach(s -> p.add(prefix(s)));
        return p;
    }

    /** 1 when a is better than b by a ratio the noise cannot explain, -1 when b is, 0 when unsure. */
    private static int compareTime(Measurements m, String sa, String sb, String x, String metric,
                                   boolean higherBetter) {
        double a = m.median(sa, x, metric);
        double b = m.median(sb, x, metric);
        if (Double.isNaN(a) || Double.isNaN(b)) {
            return 0;
        }
        double r = higherBetter ? b / a : a / b; // < 1: a better
        boolean noisy = m.noisy(sa, x, metric) || m.noisy(sb, x, metric);
        if (r < 1 && (!noisy || r < 1 / CLEAR_RATIO)) {
            return 1;
        }
        if (r > 1 && (!noisy || r > CLEAR_RATIO)) {
            return -1;
        }
        return 0;
    }

    static Verdict onePacket(Measurements m) {
        List<String> reasons = new ArrayList<>();
        boolean counts = true;
        int faster = 0;
        int slower = 0;
        int unsure = 0;
        for (String p : prefixes(m)) {
            String on = p + " coalesce=on";
            String off = p + " coalesce=off";
            for (String x : m.xs(on, "packets")) {
                double pOn = m.median(on, x, "packets");
                double back = m.median(on, x, "replies") + m.median(on, x, "ring_acks");
                double pOff = m.median(off, x, "packets");
                double backOff = m.median(off, x, "replies") + m.median(off, x, "ring_acks");
                boolean one = Math.abs(pOn - 1) < COUNT_EPS && Math.abs(back - 1) < COUNT_EPS
                        && m.median(on, x, "bypass") < COUNT_EPS;
                counts &= one && pOff > pOn + 1 - COUNT_EPS;
                int c = compareTime(m, on, off, x, "us", false);
                faster += c > 0 ? 1 : 0;
                slower += c < 0 ? 1 : 0;
                unsure += c == 0 ? 1 : 0;
                reasons.add(String.format(Locale.ROOT, "%s, %s lock: coalesced %s packet(s) and %s ack(s) per epoch "
                        + "(%s us); without coalescing %s and %s (%s us)%s", p, x, f(pOn), f(back),
                        f(m.median(on, x, "us")), f(pOff), f(backOff), f(m.median(off, x, "us")),
                        c > 0 ? "" : c < 0 ? ": coalescing was slower here" : ": time difference within the noise"));
            }
        }
        if (!counts) {
            return new Verdict(NOT, "A coalesced single-operation epoch did not travel as one packet with one ack "
                    + "on every path measured (see the counts).", reasons);
        }
        if (slower == 0 && unsure == 0) {
            return new Verdict(HOLDS, "Every single-operation epoch was one request packet and one acknowledgement "
                    + "(against three packets and two acks without coalescing), and it was faster on every path.",
                    reasons);
        }
        return new Verdict(PARTLY, "The counts hold on every path (one packet and one ack per epoch, three and two "
                + "without coalescing); the time saved shows on " + faster + " of " + (faster + slower + unsure)
                + " comparisons, the rest " + (slower > 0 ? "went the other way or " : "") + "stayed within the noise.",
                reasons);
    }

    static Verdict acks(Measurements m) {
        List<String> reasons = new ArrayList<>();
        boolean counts = true;
        int faster = 0;
        int slower = 0;
        int total = 0;
        for (String p : prefixes(m)) {
            String auto = p + " acks=auto";
            String always = p + " acks=always";
            for (String x : m.xs(auto, "replies")) {
                double backA = m.median(auto, x, "replies") + m.median(auto, x, "ring_acks");
                double backB = m.median(always, x, "replies") + m.median(always, x, "ring_acks");
                double saved = m.median(auto, x, "acks_elided") + m.median(auto, x, "acks_piggybacked");
                boolean fewer = backA < backB - 1 + COUNT_EPS && saved > 1 - COUNT_EPS;
                counts &= fewer;
                int c = compareTime(m, auto, always, x, "us", false);
                faster += c > 0 ? 1 : 0;
                slower += c < 0 ? 1 : 0;
                total++;
                reasons.add(String.format(Locale.ROOT, "%s, %s: %s ack message(s) back per epoch with elision "
                        + "(%s elided, %s piggy-backed; %s us) against %s always acking (%s us)%s", p, x, f(backA),
                        f(m.median(auto, x, "acks_elided")), f(m.median(auto, x, "acks_piggybacked")),
                        f(m.median(auto, x, "us")), f(backB), f(m.median(always, x, "us")),
                        c > 0 ? "" : c < 0 ? ": eliding was slower here" : ": time difference within the noise"));
            }
        }
        if (!counts) {
            return new Verdict(NOT, "In some case eliding or piggy-backing did not save an ack message (see the "
                    + "counts).", reasons);
        }
        if (faster == total) {
            return new Verdict(HOLDS, "Each of the three cases saved one ack message per epoch, and the epochs were "
                    + "faster for it on every path.", reasons);
        }
        return new Verdict(PARTLY, "Each of the three cases saved one ack message per epoch; the time saved showed "
                + "beyond the noise in " + faster + " of " + total + " comparisons" + (slower > 0 ? ", and " + slower
                + " went the other way." : "; the rest stayed within the noise."), reasons);
    }

    static Verdict issue(Measurements m) {
        List<String> reasons = new ArrayList<>();
        int smallOk = 0;
        int small = 0;
        int largeOk = 0;
        int large = 0;
        for (String s : m.series()) {
            if (!s.startsWith("lazy")) {
                continue;
            }
            String eager = "eager" + s.substring("lazy".length());
            for (String x : m.xs(s, "us")) {
                long size = Long.parseLong(x);
                int c = compareTime(m, s, eager, x, "us", false);
                double bl = m.median(s, x, "batches");
                double be = m.median(eager, x, "batches");
                String line = String.format(Locale.ROOT, "%s, %s B: lazy %s us (%s batches) / eager %s us (%s "
                        + "batches)", s.substring("lazy ".length()), x, f(m.median(s, x, "us")), f(bl),
                        f(m.median(eager, x, "us")), f(be));
                if (size <= SMALL_BYTES) {
                    small++;
                    smallOk += c > 0 ? 1 : 0;
                    reasons.add(line + (c > 0 ? ": lazy faster" : c < 0 ? ": eager faster" : ": within the noise"));
                } else if (size >= LARGE_BYTES) {
                    large++;
                    largeOk += c <= 0 ? 1 : 0; // early issue at least as good (or lazy not clearly better)
                    reasons.add(line + (c < 0 ? ": eager faster" : c > 0 ? ": lazy faster" : ": within the noise"));
                } else {
                    reasons.add(line);
                }
            }
        }
        double lazyMax = 0;
        double eagerMin = Double.MAX_VALUE;
        for (String s : m.series()) {
            for (String x : m.xs(s, "batches")) {
                double b = m.median(s, x, "batches");
                if (s.startsWith("lazy")) {
                    lazyMax = Math.max(lazyMax, b);
                } else if (s.startsWith("eager")) {
                    eagerMin = Math.min(eagerMin, b);
                }
            }
        }
        String summary = String.format(Locale.ROOT, "Lazy issue won %d of %d latency-bound comparisons (up to %d B "
                + "per operation); early issue was at least as fast in %d of %d bandwidth-bound ones (from %d B). "
                + "The counts are as designed: lazy issue handed each epoch to the transport in at most %s batch(es), "
                + "eager issue in at least %s.", smallOk, small, SMALL_BYTES, largeOk, large, LARGE_BYTES, f(lazyMax),
                f(eagerMin));
        String level = smallOk == small && largeOk == large ? HOLDS : smallOk + largeOk == 0 ? NOT : PARTLY;
        return new Verdict(level, summary, reasons);
    }

    /** Issue claim: operations up to this size are latency-bound, from {@link #LARGE_BYTES} bandwidth-bound. */
    static final long SMALL_BYTES = 1024;
    static final long LARGE_BYTES = 65536;

    static Verdict spinSleep(Measurements m) {
        List<String> reasons = new ArrayList<>();
        int lessCpu = 0;
        int notSlower = 0;
        int total = 0;
        String spin = "spin";
        for (String s : m.series()) {
            if (s.equals(spin)) {
                continue;
            }
            for (String x : m.xs(s, "us")) {
                total++;
                int t = compareTime(m, s, spin, x, "us", false);
                int c = compareTime(m, s, spin, x, "cpu_us", false);
                lessCpu += c > 0 ? 1 : 0;
                notSlower += t >= 0 ? 1 : 0;
                reasons.add(String.format(Locale.ROOT, "%s, %s: %s us and %s CPU us per operation, against %s us "
                        + "and %s CPU us spinning only", s, x, f(m.median(s, x, "us")), f(m.median(s, x, "cpu_us")),
                        f(m.median(spin, x, "us")), f(m.median(spin, x, "cpu_us"))));
            }
        }
        String level = lessCpu == total && notSlower == total ? HOLDS : lessCpu + notSlower == 0 ? NOT : PARTLY;
        return new Verdict(level, String.format(Locale.ROOT, "With more ranks than cores, waiting that ends in sleep "
                + "used less CPU in %d of %d comparisons and was no slower in %d of %d.", lessCpu, total, notSlower,
                total), reasons);
    }

    static Verdict threadsVsProcesses(Measurements m) {
        List<String> reasons = new ArrayList<>();
        int win = 0;
        int lose = 0;
        int total = 0;
        int noisy = 0;
        for (String metric : List.of("latency", "bw", "allreduce")) {
            boolean higher = metric.equals("bw");
            for (String x : m.xs("threads", metric)) {
                int c = compareTime(m, "threads", "jvms", x, metric, higher);
                total++;
                noisy += m.noisy("threads", x, metric) || m.noisy("jvms", x, metric) ? 1 : 0;
                win += c > 0 ? 1 : 0;
                lose += c < 0 ? 1 : 0;
                reasons.add(String.format(Locale.ROOT, "%s %s B: threads %s, JVMs %s%s", metric, x,
                        f(m.median("threads", x, metric)), f(m.median("jvms", x, metric)),
                        c > 0 ? " (threads better)" : c < 0 ? " (JVMs better)" : " (within the noise)"));
            }
        }
        String level = win == total ? HOLDS : win > lose ? PARTLY : NOT;
        return new Verdict(level, String.format(Locale.ROOT, "Thread ranks beat JVM ranks in %d of %d comparisons, "
                + "lost %d, the rest within the noise; %d of the %d comparisons had a noisy side%s.", win, total, lose,
                noisy, total, noisy * 2 > total ? " (most of them: the machine's load decides more than the design "
                + "here, rerun on a quiet machine)" : ""), reasons);
    }

    static Verdict oneCopy(Measurements m) {
        List<String> reasons = new ArrayList<>();
        double best = 0;
        int twice = 0;
        int total = 0;
        for (String metric : List.of("bw", "latency")) {
            boolean higher = metric.equals("bw");
            for (String x : m.xs("threads", metric)) {
                double t = m.median("threads", x, metric);
                double j = m.median("jvms", x, metric);
                if (Double.isNaN(j)) {
                    continue;
                }
                double speedup = higher ? t / j : j / t;
                total++;
                twice += speedup >= 2 ? 1 : 0;
                best = Math.max(best, speedup);
                StringBuilder others = new StringBuilder();
                for (String s : m.series()) {
                    if (!s.equals("threads") && !s.equals("jvms") && !Double.isNaN(m.median(s, x, metric))) {
                        others.append(", ").append(s).append(' ').append(f(m.median(s, x, metric)));
                    }
                }
                reasons.add(String.format(Locale.ROOT, "%s %s B: threads %s, JVMs %s (threads %sx as fast)%s", metric,
                        x, f(t), f(j), f(speedup), others));
            }
        }
        String level = total > 0 && twice == total ? HOLDS : best > 1 ? PARTLY : NOT;
        return new Verdict(level, String.format(Locale.ROOT, "Thread ranks (one copy) were at least twice as fast as "
                + "JVM ranks in %d of %d large-message comparisons; the best ratio was %sx.", twice, total, f(best)),
                reasons);
    }

    /** IO agent claim: an epoch to a computing target counts as progressed when this much faster than without. */
    static final double PROGRESS_RATIO = 5;

    static Verdict ioAgent(Measurements m) {
        List<String> reasons = new ArrayList<>();
        boolean fewer = true;
        int points = 0;
        for (String x : m.xs("threads", "sockets")) {
            double t = m.median("threads", x, "sockets");
            double j = m.median("jvms", x, "sockets");
            if (Double.isNaN(j)) {
                continue;
            }
            points++;
            fewer &= t < j;
            reasons.add(String.format(Locale.ROOT, "%s ranks: %s sockets and %s MB resident as threads of one JVM, "
                    + "%s sockets and %s MB as %s JVMs", x, f(t), f(m.median("threads", x, "rss_mb")), f(j),
                    f(m.median("jvms", x, "rss_mb")), f(m.median("jvms", x, "jvms"))));
        }
        boolean progressed = false;
        String agent = "agent-thread";
        String caller = "callers-only";
        for (String x : m.xs(agent, "epoch_ms")) {
            double a = m.median(agent, x, "epoch_ms");
            double c = m.median(caller, x, "epoch_ms");
            progressed = a * PROGRESS_RATIO < c;
            reasons.add(String.format(Locale.ROOT, "%s: lock + put + unlock took %s ms with the progress agent's "
                    + "thread, %s ms when only callers progress", x, f(a), f(c)));
        }
        boolean sockets = points > 0 && fewer;
        String level = sockets && progressed ? HOLDS : sockets || progressed ? PARTLY : NOT;
        return new Verdict(level, (sockets ? "Thread ranks sharing one JVM (one agent) held fewer sockets than one "
                + "JVM per rank at every size measured" : "Thread ranks did not hold fewer sockets at every size")
                + (progressed ? ", and the agent's thread completed an epoch to a computing target without waiting "
                + "for it." : ", and an epoch to a computing target was not progressed by the agent."), reasons);
    }

    /**
     * LAMA claim: binding is judged by bound against unbound medians; mapping cannot be judged on a machine with one
     * socket, so the verdict is at most "holds partly" here.
     */
    static Verdict binding(Measurements m) {
        List<String> reasons = new ArrayList<>();
        int better = 0;
        int worse = 0;
        int total = 0;
        for (String p : prefixes(m)) {
            String bound = p + " bind=core";
            String free = p + " bind=none";
            for (String metric : List.of("latency", "allreduce")) {
                for (String x : m.xs(bound, metric)) {
                    int c = compareTime(m, bound, free, x, metric, false);
                    if (Double.isNaN(m.median(free, x, metric))) {
                        continue;
                    }
                    total++;
                    better += c > 0 ? 1 : 0;
                    worse += c < 0 ? 1 : 0;
                    reasons.add(String.format(Locale.ROOT, "%s %s %s B: bound %s us, unbound %s us%s", p, metric, x,
                            f(m.median(bound, x, metric)), f(m.median(free, x, metric)),
                            c > 0 ? " (bound faster)" : c < 0 ? " (unbound faster)" : " (within the noise)"));
                }
            }
        }
        String level = better > worse && better * 2 >= total ? PARTLY : NOT;
        return new Verdict(level, String.format(Locale.ROOT, "Binding made ranks faster in %d of %d comparisons and "
                + "slower in %d; mapping could not be tested on this one-socket machine (see the note for a larger "
                + "host).", better, total, worse), reasons);
    }

    /**
     * Components claim: a variant "costs" when its median is slower than the reference's by more than this fraction
     * and the difference survives the noise ({@link #compareTime}); Open MPI measured its component layer at about
     * 1%, below what a shared 2-core machine resolves.
     */
    static final double SAME_TOLERANCE = 0.05;

    /** The components claim's series (papers/openmpi-components-no-cost/run). */
    static final String HAND = "hand";
    static final String SPI = "spi";
    static final String BARE = "spi-bare";
    static final String MIXED = "spi-mixed";

    /**
     * -1 when {@code a} is slower than {@code b} beyond {@link #SAME_TOLERANCE} and the noise, 1 when faster, 0 when
     * neither, {@link Integer#MIN_VALUE} when a side was not measured.
     */
    private static int cost(Measurements m, String a, String b, String x) {
        double r = m.median(a, x, "us") / m.median(b, x, "us");
        if (Double.isNaN(r)) {
            return Integer.MIN_VALUE;
        }
        if (Math.abs(r - 1) <= SAME_TOLERANCE) {
            return 0;
        }
        return compareTime(m, a, b, x, "us", false);
    }

    /** How one comparison of the components claim came out, for the reasons' lines. */
    private static String costWord(int c, String a, String b) {
        if (c == Integer.MIN_VALUE) {
            return "not measured";
        }
        return c < 0 ? a + " slower than " + b : c > 0 ? a + " faster than " + b : "no difference beyond "
                + Math.round(SAME_TOLERANCE * 100) + "% or the noise";
    }

    /** The comparisons of one kind in the components claim: how many were measured, how many showed a cost. */
    private static final class Tally {
        int measured;
        int costs;

        int add(int c) {
            if (c != Integer.MIN_VALUE) {
                measured++;
                costs += c < 0 ? 1 : 0;
            }
            return c;
        }
    }

    /**
     * The SPI against hand wiring ({@code spi} vs {@code hand}) and the ucx and disni components on the class path
     * against none ({@code spi} vs {@code spi-bare}) decide whether the claim holds; a megamorphic call site
     * ({@code spi-mixed} vs {@code spi}) can only make it hold partly: it is the cost of running several components
     * at once, not of choosing one. A comparison that was not measured (a failed run) cannot count for the claim,
     * and a table whose rows are mostly noisy decides nothing either way (at most "holds partly", for the census).
     * The census (providers looked up, transport classes loaded) is reported with it.
     */
    static Verdict components(Measurements m) {
        List<String> reasons = new ArrayList<>();
        int total = 0;
        Tally selection = new Tally();
        Tally providers = new Tally();
        Tally mixed = new Tally();
        int noisy = 0;
        for (String x : m.xs(SPI, "us")) {
            total++;
            int sel = selection.add(cost(m, SPI, HAND, x));
            int prov = providers.add(cost(m, SPI, BARE, x));
            int mix = mixed.add(cost(m, MIXED, SPI, x));
            boolean anyNoisy = false;
            for (String s : List.of(HAND, SPI, BARE, MIXED)) {
                anyNoisy |= m.noisy(s, x, "us");
            }
            noisy += anyNoisy ? 1 : 0;
            reasons.add(String.format(Locale.ROOT, "%s: hand %s us, spi %s us (%s), spi-bare %s us (%s), spi-mixed "
                    + "%s us (%s)", x, f(m.median(HAND, x, "us")), f(m.median(SPI, x, "us")),
                    costWord(sel, "spi", "hand"), f(m.median(BARE, x, "us")), costWord(prov, "spi", "spi-bare"),
                    f(m.median(MIXED, x, "us")), costWord(mix, "spi-mixed", "spi")));
        }
        for (String lane : m.xs(SPI, "providers_found")) {
            reasons.add(String.format(Locale.ROOT, "census, %s: the wiring looked up %s components by hand, %s "
                    + "through the SPI, %s without ucx and disni on the class path (provider classes the JVM loaded: "
                    + "%s, %s, %s); transports opened %s and %s; transport classes "
                    + "loaded %s by hand, %s through the SPI; classes of the ucx and disni components loaded %s "
                    + "through the SPI (%s of them transports)", lane, f(m.median(HAND, lane, "providers_found")),
                    f(m.median(SPI, lane, "providers_found")), f(m.median(BARE, lane, "providers_found")),
                    f(m.median(HAND, lane, "provider_classes")), f(m.median(SPI, lane, "provider_classes")),
                    f(m.median(BARE, lane, "provider_classes")),
                    f(m.median(HAND, lane, "transports_opened")), f(m.median(SPI, lane, "transports_opened")),
                    f(m.median(HAND, lane, "transport_classes")), f(m.median(SPI, lane, "transport_classes")),
                    f(m.median(SPI, lane, "rdma_classes")), f(m.median(SPI, lane, "rdma_transport_classes"))));
        }
        if (total == 0) {
            return new Verdict(NOT, "No timing was measured (every run failed).", reasons);
        }
        boolean resolved = noisy * 2 <= total;
        boolean noRdmaTransport = !m.xs(SPI, "rdma_transport_classes").isEmpty();
        for (String lane : m.xs(SPI, "rdma_transport_classes")) {
            noRdmaTransport &= m.median(SPI, lane, "rdma_transport_classes") < COUNT_EPS;
        }
        String census = noRdmaTransport ? " The components that were not used never loaded a transport class." : "";
        int missing = 3 * total - selection.measured - providers.measured - mixed.measured;
        String gaps = missing > 0 ? " " + missing + " comparison(s) were not measured (a failed run)." : "";
        String timings = String.format(Locale.ROOT, "Transports chosen through the SPI were slower than transports "
                + "wired by hand in %d of %d comparisons, and the ucx and disni components on the class path slowed "
                + "the hot path in %d of %d (more than %d%% beyond the noise); a JVM whose call sites had seen three "
                + "transport classes (megamorphic) was slower in %d of %d.%s%s", selection.costs, selection.measured,
                providers.costs, providers.measured, Math.round(SAME_TOLERANCE * 100), mixed.costs, mixed.measured,
                gaps, census);
        if (!resolved) {
            return new Verdict(PARTLY, timings + String.format(Locale.ROOT, " But %d of the %d rows had a noisy "
                    + "variant: the machine's load was larger than any effect of a few percent, so the timings decide "
                    + "nothing here either way; only the census counts. Rerun on a quiet machine.", noisy, total),
                    reasons);
        }
        String level;
        if (selection.costs * 2 > selection.measured || providers.costs * 2 > providers.measured) {
            level = NOT;
        } else if (missing == 0 && noRdmaTransport && selection.costs + providers.costs + mixed.costs == 0) {
            level = HOLDS;
        } else {
            level = PARTLY;
        }
        return new Verdict(level, timings, reasons);
    }
}

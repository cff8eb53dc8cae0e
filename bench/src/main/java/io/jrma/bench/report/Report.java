package io.jrma.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Turns the raw measurements of {@code bench/compare} into {@code RESULTS.md} and PNG plots: medians of the
 * repetitions, a mark on noisy figures, ratios of each jrma path to the best C library measured in the same run.
 *
 * <p>Input: a CSV with the header {@code impl,test,window,sync,size,rep,value} (value in µs for latency tests,
 * MB/s for bandwidth tests, as the OSU programs print them) and a {@code key=value} file describing the machine
 * and the run. Usage: {@code Report RAW.csv META.txt OUTDIR} writes {@code OUTDIR/RESULTS.md},
 * {@code OUTDIR/medians.csv} and {@code OUTDIR/*.png}.
 */
public final class Report {
    /** A figure is marked noisy when its repetitions spread more than this fraction of their median. */
    static final double NOISY = 0.20;

    /** One measured configuration and its repetitions. */
    record Key(String impl, String test, String window, String sync, long size) {
    }

    private final Map<Key, List<Double>> values = new LinkedHashMap<>();
    private final Set<String> impls = new LinkedHashSet<>();

    private Report() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: Report RAW.csv META.txt OUTDIR");
            System.exit(2);
        }
        Report r = read(Path.of(args[0]));
        Map<String, String> meta = readMeta(Path.of(args[1]));
        Path out = Path.of(args[2]);
        Files.createDirectories(out);
        List<String> pngs = r.plots(out);
        Files.writeString(out.resolve("medians.csv"), r.mediansCsv(), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("RESULTS.md"), r.markdown(meta, pngs), StandardCharsets.UTF_8);
        System.out.println(r.console());
    }

    static Report read(Path csv) throws IOException {
        Report r = new Report();
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        for (String l : lines) {
            if (l.isBlank() || l.startsWith("impl,")) {
                continue;
            }
            String[] f = l.split(",");
            if (f.length != 7) {
                throw new IllegalArgumentException("bad line in " + csv + ": " + l);
            }
            Key k = new Key(f[0], f[1], f[2], f[3], Long.parseLong(f[4]));
            r.impls.add(f[0]);
            r.values.computeIfAbsent(k, x -> new ArrayList<>()).add(Double.parseDouble(f[6]));
        }
        return r;
    }

    static Map<String, String> readMeta(Path p) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        for (String l : Files.readAllLines(p, StandardCharsets.UTF_8)) {
            int eq = l.indexOf('=');
            if (eq > 0) {
                m.put(l.substring(0, eq), l.substring(eq + 1));
            }
        }
        return m;
    }

    static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = a.length;
        return n % 2 == 1 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
    }

    static boolean noisy(List<Double> v) {
        double lo = v.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        double hi = v.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        double m = median(v);
        return v.size() < 3 || m > 0 && (hi - lo) / m > NOISY;
    }

    static boolean latency(String test) {
        return test.endsWith("_latency");
    }

    private static boolean jrma(String impl) {
        return impl.startsWith("jrma");
    }

    /** The physical limit beside the bandwidth tests (bench/c/memcpy_bw.c): shown, never taken for a peer. */
    static final String LIMIT = "memcpy";

    /** Rows of a table: every (test, window, sync, size) measured, in first-seen order. */
    private List<Key> rows(boolean lat) {
        Set<Key> rows = new LinkedHashSet<>();
        for (Key k : values.keySet()) {
            if (latency(k.test()) == lat) {
                rows.add(new Key("", k.test(), k.window(), k.sync(), k.size()));
            }
        }
        return new ArrayList<>(rows);
    }

    private List<Double> get(String impl, Key row) {
        return values.get(new Key(impl, row.test(), row.window(), row.sync(), row.size()));
    }

    /** Whether an implementation runs over TCP (compared with peers over TCP only). */
    /**
     * The kind of path a column measures, whose peers it is compared with: {@code ucx-sm}/{@code ucx-tcp} (jrma over
     * UCX beside Open MPI's osc/ucx with the same UCX_TLS), {@code tcp}, else one host's shared memory.
     */
    private static String kind(String impl) {
        int ucx = impl.indexOf("-ucx-");
        if (ucx >= 0) {
            return impl.substring(ucx + 1);
        }
        return impl.endsWith("-tcp") ? "tcp" : "local";
    }

    /**
     * The best peer's median for a row, for jrma implementation {@code of}: lowest latency or highest bandwidth
     * among the C libraries on the same kind of path (over TCP: the peers over TCP; over UCX: the peers over UCX
     * with the same UCX_TLS; else the others).
     */
    private Double bestPeer(Key row, boolean lat, String of) {
        Double best = null;
        for (String i : impls) {
            List<Double> v = get(i, row);
            if (!jrma(i) && !i.equals(LIMIT) && kind(i).equals(kind(of)) && v != null) {
                double m = median(v);
                if (best == null || (lat ? m < best : m > best)) {
                    best = m;
                }
            }
        }
        return best;
    }

    String fmt(List<Double> v, boolean lat) {
        if (v == null) {
            return "n/a";
        }
        double m = median(v);
        String s = lat ? String.format(Locale.ROOT, m < 1 ? "%.3f" : "%.2f", m)
                : String.format(Locale.ROOT, "%.2f", m / 1000);
        return noisy(v) ? s + " ~" : s;
    }

    private String table(boolean lat, boolean markdown) {
        List<Key> rows = rows(lat);
        if (rows.isEmpty()) {
            return "";
        }
        List<String> cols = new ArrayList<>(impls);
        List<String> ratioCols = new ArrayList<>();
        for (String i : impls) {
            if (jrma(i)) {
                ratioCols.add(i + " / best peer");
            }
        }
        // bandwidth beside the memcpy limit, for jrma over shared memory (a copy is all a put or get there is)
        List<String> limitOf = new ArrayList<>();
        if (!lat && impls.contains(LIMIT)) {
            for (String i : impls) {
                if (jrma(i) && kind(i).equals("local")) {
                    limitOf.add(i);
                    ratioCols.add(i + " / " + LIMIT);
                }
            }
        }
        List<String> header = new ArrayList<>(List.of("test", "window", "sync", "size"));
        header.addAll(cols);
        header.addAll(ratioCols);
        List<List<String>> body = new ArrayList<>();
        for (Key row : rows) {
            List<String> line = new ArrayList<>(List.of(row.test(), row.window(), row.sync(), size(row.size())));
            for (String i : cols) {
                line.add(fmt(get(i, row), lat));
            }
            for (String i : impls) {
                if (jrma(i)) {
                    Double best = bestPeer(row, lat, i);
                    List<Double> v = get(i, row);
                    line.add(v == null || best == null || best == 0 ? "n/a"
                            : String.format(Locale.ROOT, "%.2f", median(v) / best));
                }
            }
            for (String i : limitOf) {
                List<Double> v = get(i, row);
                List<Double> limit = get(LIMIT, row);
                line.add(v == null || limit == null || median(limit) == 0 ? "n/a"
                        : String.format(Locale.ROOT, "%.2f", median(v) / median(limit)));
            }
            body.add(line);
        }
        StringBuilder sb = new StringBuilder();
        if (markdown) {
            sb.append("| ").append(String.join(" | ", header)).append(" |\n");
            sb.append("|").append(" --- |".repeat(header.size())).append('\n');
            for (List<String> l : body) {
                sb.append("| ").append(String.join(" | ", l)).append(" |\n");
            }
        } else {
            int[] w = new int[header.size()];
            for (int c = 0; c < w.length; c++) {
                w[c] = header.get(c).length();
                for (List<String> l : body) {
                    w[c] = Math.max(w[c], l.get(c).length());
                }
            }
            List<List<String>> all = new ArrayList<>();
            all.add(header);
            all.addAll(body);
            for (List<String> l : all) {
                for (int c = 0; c < w.length; c++) {
                    sb.append(String.format(Locale.ROOT, c < 4 ? "%-" + w[c] + "s  " : "%" + w[c] + "s  ", l.get(c)));
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    static String size(long s) {
        if (s >= 1 << 20 && s % (1 << 20) == 0) {
            return (s >> 20) + " MiB";
        }
        if (s >= 1024 && s % 1024 == 0) {
            return (s >> 10) + " KiB";
        }
        return s + " B";
    }

    String console() {
        String lat = table(true, false);
        String bw = table(false, false);
        return (lat.isEmpty() ? "" : "latency (us; ratio < 1: jrma faster)\n" + lat + "\n")
                + (bw.isEmpty() ? "" : "bandwidth (GB/s; ratio > 1: jrma faster)\n" + bw)
                + "(~ marks a figure whose repetitions spread more than " + (int) (NOISY * 100) + "% of their median)";
    }

    String mediansCsv() {
        StringBuilder sb = new StringBuilder("impl,test,window,sync,size,reps,median,min,max,noisy\n");
        for (Map.Entry<Key, List<Double>> e : values.entrySet()) {
            Key k = e.getKey();
            List<Double> v = e.getValue();
            sb.append(String.join(",", k.impl(), k.test(), k.window(), k.sync(), String.valueOf(k.size()),
                    String.valueOf(v.size()), String.valueOf(median(v)),
                    String.valueOf(v.stream().mapToDouble(Double::doubleValue).min().orElse(0)),
                    String.valueOf(v.stream().mapToDouble(Double::doubleValue).max().orElse(0)),
                    String.valueOf(noisy(v)))).append('\n');
        }
        return sb.toString();
    }

    /** One plot per (test, window, sync) measured at two sizes or more: value against size, a series per impl. */
    List<String> plots(Path out) throws IOException {
        Map<String, Map<String, TreeMap<Long, Double>>> byPlot = new LinkedHashMap<>();
        for (Map.Entry<Key, List<Double>> e : values.entrySet()) {
            Key k = e.getKey();
            String name = k.test() + "-" + k.window() + "-" + k.sync();
            byPlot.computeIfAbsent(name, x -> new LinkedHashMap<>())
                    .computeIfAbsent(k.impl(), x -> new TreeMap<>())
                    .put(k.size(), median(e.getValue()) / (latency(k.test()) ? 1 : 1000));
        }
        List<String> files = new ArrayList<>();
        for (Map.Entry<String, Map<String, TreeMap<Long, Double>>> p : byPlot.entrySet()) {
            boolean multi = p.getValue().values().stream().anyMatch(m -> m.size() > 1);
            if (!multi) {
                continue;
            }
            boolean lat = latency(p.getKey().substring(0, p.getKey().indexOf('-')));
            XYChart chart = new XYChartBuilder().width(900).height(560).title(p.getKey().replace('-', ' '))
                    .xAxisTitle("message size (bytes)").yAxisTitle(lat ? "latency (us)" : "bandwidth (GB/s)").build();
            chart.getStyler().setXAxisLogarithmic(true);
            chart.getStyler().setYAxisLogarithmic(lat);
            chart.getStyler().setMarkerSize(6);
            for (Map.Entry<String, TreeMap<Long, Double>> s : p.getValue().entrySet()) {
                double[] x = s.getValue().keySet().stream().mapToDouble(Long::doubleValue).toArray();
                double[] y = s.getValue().values().stream().mapToDouble(Double::doubleValue).toArray();
                chart.addSeries(s.getKey(), x, y).setMarker(SeriesMarkers.CIRCLE);
            }
            String file = p.getKey().replaceAll("[^A-Za-z0-9_.]+", "-") + ".png";
            BitmapEncoder.saveBitmap(chart, out.resolve(file).toString(), BitmapEncoder.BitmapFormat.PNG);
            files.add(file);
        }
        return files;
    }

    String markdown(Map<String, String> meta, List<String> pngs) {
        StringBuilder sb = new StringBuilder();
        sb.append("# jrma beside Open MPI and MPICH\n\n");
        sb.append("Generated by `").append(meta.getOrDefault("command",
                "bench/compare")).append("`; do not edit by hand.\n\n");
        sb.append("| | |\n| --- | --- |\n");
        for (Map.Entry<String, String> e : meta.entrySet()) {
            // implementations are described below, and only those that were measured
            if (!e.getKey().equals("command") && !e.getKey().startsWith("impl.")) {
                sb.append("| ").append(e.getKey()).append(" | ").append(e.getValue().replace("|", "/")).append(" |\n");
            }
        }
        sb.append("\nEvery figure is the median of the repetitions of one run, in which the implementations took turns "
                + "(jrma, then each C library, per repetition). `~` marks a figure whose repetitions spread more than "
                + (int) (NOISY * 100) + "% of their median: this 2-core machine is noisy, so read those as rough. "
                + "Ratios divide a jrma figure by the best C library's in the same row on the same kind of path (jrma "
                + "over TCP by the C libraries over TCP, the others by those over shared memory; latency: below 1 "
                + "means jrma is faster; bandwidth: above 1 means jrma is faster). `memcpy`, where measured, is no "
                + "peer but the physical limit of the bandwidth tests; the `/ memcpy` columns divide jrma's bandwidth "
                + "over shared memory by it. Implementations:\n\n");
        for (String i : impls) {
            sb.append("- `").append(i).append("`: ").append(meta.getOrDefault("impl." + i, "")).append('\n');
        }
        // a run of latency tests only (bench/compare --only collectives) has no bandwidth section, and vice versa
        String lat = table(true, true);
        String bw = table(false, true);
        if (!lat.isEmpty()) {
            sb.append("\n## Latency (µs)\n\n").append(lat);
        }
        if (!bw.isEmpty()) {
            sb.append("\n## Bandwidth (GB/s)\n\n").append(bw);
        }
        if (!pngs.isEmpty()) {
            sb.append("\n## Plots\n\n");
            for (String p : pngs) {
                sb.append("![").append(p).append("](").append(meta.getOrDefault("plotdir",
                        ".")).append('/').append(p).append(")\n");
            }
        }
        return sb.toString();
    }

    /** Tests: the values of one configuration. */
    List<Double> valuesOf(String impl, String test, String window, String sync, long size) {
        return values.get(new Key(impl, test, window, sync, size));
    }

    @Override
    public String toString() {
        return values.toString() + " " + Arrays.toString(impls.toArray());
    }
}

package io.jrma.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Turns the measurements of {@code bench/multihost/run} into its {@code RESULTS.md}: per group (one-sided,
 * two-sided, start-up) a table of every implementation's median beside the others, with the ratios the run asks for,
 * a mark on noisy figures, and the jobs that failed.
 *
 * <p>Input, in one directory: {@code raw.csv} ({@code group,impl,test,size,rep,value}: µs for latency tests, MB/s for
 * {@code *_bw} tests, seconds for the start-up group), {@code failures.csv} ({@code group,impl,test,size,rep,reason};
 * optional) and {@code meta.txt} ({@code key=value}: the machine and the run; {@code impl.NAME} describes an
 * implementation, {@code ratios.GROUP} lists the ratio columns as {@code a/b,c/d}). Usage:
 * {@code MultiHostReport DIR} writes {@code DIR/RESULTS.md} and {@code DIR/medians.csv}. Run by one thread.
 */
public final class MultiHostReport {
    /** The groups in the order of the report, with their headings. */
    private static final Map<String, String> GROUPS = Map.of(
            "rma", "One-sided: the mpi package's Win beside the C twins (window allocate, MPI_Win_flush)",
            "pt2pt", "Two-sided: ping-pong and allreduce",
            "startup", "Start-up: a hello world of N ranks, N/2 on each host");
    private static final List<String> ORDER = List.of("rma", "pt2pt", "startup");

    /** One row of a table: a test at one size. */
    record Row(String test, long size) {
    }

    /** One group's measurements: per row, per implementation, the repetitions' values. */
    private final Map<String, Map<Row, Map<String, List<Double>>>> groups = new LinkedHashMap<>();
    private final Map<String, Set<String>> implsOf = new LinkedHashMap<>();
    private final List<String[]> failures = new ArrayList<>();

    private MultiHostReport() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: MultiHostReport DIR   (reads raw.csv, failures.csv, meta.txt; writes RESULTS.md"
                    + " and medians.csv)");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        MultiHostReport r = read(dir.resolve("raw.csv"), dir.resolve("failures.csv"));
        Map<String, String> meta = Report.readMeta(dir.resolve("meta.txt"));
        Files.writeString(dir.resolve("medians.csv"), r.mediansCsv(), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("RESULTS.md"), r.markdown(meta), StandardCharsets.UTF_8);
    }

    static MultiHostReport read(Path raw, Path fails) throws IOException {
        MultiHostReport r = new MultiHostReport();
        for (String l : Files.readAllLines(raw, StandardCharsets.UTF_8)) {
            if (l.isBlank() || l.startsWith("group,")) {
                continue;
            }
            String[] f = l.split(",");
            if (f.length != 6) {
                throw new IllegalArgumentException("bad line in " + raw + ": " + l);
            }
            r.add(f[0], f[1], f[2], Long.parseLong(f[3]), Double.parseDouble(f[5]));
        }
        if (Files.exists(fails)) {
            for (String l : Files.readAllLines(fails, StandardCharsets.UTF_8)) {
                if (!l.isBlank() && !l.startsWith("group,")) {
                    r.failures.add(l.split(",", 6));
                }
            }
        }
        return r;
    }

    void add(String group, String impl, String test, long size, double value) {
        groups.computeIfAbsent(group, g -> new LinkedHashMap<>()).computeIfAbsent(new Row(test, size),
                x -> new LinkedHashMap<>()).computeIfAbsent(impl, x -> new ArrayList<>()).add(value);
        implsOf.computeIfAbsent(group, g -> new LinkedHashSet<>()).add(impl);
    }

    /** The unit of a test's values: bandwidth tests in MB/s, start-up in seconds, the rest in µs. */
    static String unit(String group, String test) {
        return group.equals("startup") ? "s" : test.endsWith("_bw") ? "MB/s" : "µs";
    }

    static String fmt(List<Double> v, String unit) {
        if (v == null || v.isEmpty()) {
            return "n/a";
        }
        double m = Report.median(v);
        String s = switch (unit) {
            case "MB/s" -> String.format(Locale.ROOT, "%.0f", m);
            case "s" -> String.format(Locale.ROOT, "%.2f", m);
            default -> String.format(Locale.ROOT, m < 10 ? "%.2f" : "%.1f", m);
        };
        return Report.noisy(v) ? s + " ~" : s;
    }

    /** {@code a/b} of two medians of a row, or n/a when either is missing. */
    static String ratio(Map<String, List<Double>> row, String a, String b) {
        List<Double> x = row.get(a);
        List<Double> y = row.get(b);
        if (x == null || y == null || x.isEmpty() || y.isEmpty() || Report.median(y) == 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.2f", Report.median(x) / Report.median(y));
    }

    /** The ratio columns {@code a/b} of a group that name implementations it measured. */
    private List<String[]> ratios(String group, Map<String, String> meta) {
        List<String[]> l = new ArrayList<>();
        Set<String> impls = implsOf.getOrDefault(group, Set.of());
        for (String r : meta.getOrDefault("ratios." + group, "").split(",")) {
            String[] ab = r.trim().split("/");
            if (ab.length == 2 && impls.contains(ab[0]) && impls.contains(ab[1])) {
                l.add(ab);
            }
        }
        return l;
    }

    String table(String group, Map<String, String> meta) {
        Map<Row, Map<String, List<Double>>> rows = groups.get(group);
        if (rows == null) {
            return "";
        }
        List<String> impls = new ArrayList<>(implsOf.get(group));
        List<String[]> ratios = ratios(group, meta);
        List<String> header = new ArrayList<>(List.of("test", group.equals("startup") ? "ranks" : "size", "unit"));
        header.addAll(impls);
        for (String[] ab : ratios) {
            header.add(ab[0] + " / " + ab[1]);
        }
        StringBuilder sb = new StringBuilder();
        sb.append("| ").append(String.join(" | ", header)).append(" |\n");
        sb.append("|").append(" --- |".repeat(header.size())).append('\n');
        for (Map.Entry<Row, Map<String, List<Double>>> e : rows.entrySet()) {
            Row row = e.getKey();
            String unit = unit(group, row.test());
            List<String> line = new ArrayList<>(List.of(row.test(),
                    group.equals("startup") ? String.valueOf(row.size()) : Report.size(row.size()), unit));
            for (String i : impls) {
                line.add(fmt(e.getValue().get(i), unit));
            }
            for (String[] ab : ratios) {
                line.add(ratio(e.getValue(), ab[0], ab[1]));
            }
            sb.append("| ").append(String.join(" | ", line)).append(" |\n");
        }
        return sb.toString();
    }

    String mediansCsv() {
        StringBuilder sb = new StringBuilder("group,impl,test,size,reps,median,min,max,noisy\n");
        for (Map.Entry<String, Map<Row, Map<String, List<Double>>>> g : groups.entrySet()) {
            for (Map.Entry<Row, Map<String, List<Double>>> r : g.getValue().entrySet()) {
                for (Map.Entry<String, List<Double>> i : r.getValue().entrySet()) {
                    List<Double> v = i.getValue();
                    sb.append(String.join(",", g.getKey(), i.getKey(), r.getKey().test(),
                            String.valueOf(r.getKey().size()), String.valueOf(v.size()),
                            String.valueOf(Report.median(v)),
                            String.valueOf(v.stream().mapToDouble(Double::doubleValue).min().orElse(0)),
                            String.valueOf(v.stream().mapToDouble(Double::doubleValue).max().orElse(0)),
                            String.valueOf(Report.noisy(v)))).append('\n');
                }
            }
        }
        return sb.toString();
    }

    String markdown(Map<String, String> meta) {
        StringBuilder sb = new StringBuilder("# jrma across two hosts beside Open MPI and MPICH\n\n");
        sb.append("Generated by `").append(meta.getOrDefault("command", "bench/multihost/run"))
                .append("`; do not edit by hand. Raw data in [results/](results/): every value (`raw.csv`), the "
                        + "medians with their spread (`medians.csv`), the failed jobs (`failures.csv`), every job's "
                        + "command line and output (`runs.log`).\n\n");
        sb.append("| | |\n| --- | --- |\n");
        for (Map.Entry<String, String> e : meta.entrySet()) {
            String k = e.getKey();
            if (!k.equals("command") && !k.startsWith("impl.") && !k.startsWith("ratios.")) {
                sb.append("| ").append(k).append(" | ").append(e.getValue().replace("|", "/")).append(" |\n");
            }
        }
        sb.append("\nEvery figure is the median of the repetitions of this one run, in which the implementations took "
                + "turns (each configuration ran every implementation before the next, starting one further along at "
                + "every repetition). `~` marks a figure whose repetitions spread more than "
                + (int) (Report.NOISY * 100) + "% of their median: read those as rough. `n/a`: not measured, or every "
                + "repetition failed (see Failures). A ratio column `a / b` divides a's median by b's: for latency "
                + "and start-up below 1 means a is faster, for bandwidth (MB/s, 10^6 bytes/s) above 1 does.\n");
        for (String g : ORDER) {
            String t = table(g, meta);
            if (t.isEmpty()) {
                continue;
            }
            sb.append("\n## ").append(GROUPS.get(g)).append("\n\n");
            for (String i : implsOf.get(g)) {
                sb.append("- `").append(i).append("`: ").append(meta.getOrDefault("impl." + i, "")).append('\n');
            }
            sb.append('\n').append(t);
        }
        sb.append("\n## Failures\n\n");
        if (failures.isEmpty()) {
            sb.append("None: every job of the run ended with code 0 and printed its rows.\n");
        } else {
            sb.append("| group | impl | test | size | rep | what happened |\n| --- | --- | --- | --- | --- | --- |\n");
            for (String[] f : failures) {
                List<String> cells = new ArrayList<>(List.of(f));
                while (cells.size() < 6) {
                    cells.add("");
                }
                cells.replaceAll(c -> c.replace("|", "/").trim());
                sb.append("| ").append(String.join(" | ", cells)).append(" |\n");
            }
        }
        return sb.toString();
    }

    /** Tests: the values of one cell. */
    List<Double> valuesOf(String group, String impl, String test, long size) {
        Map<Row, Map<String, List<Double>>> rows = groups.get(group);
        Map<String, List<Double>> row = rows == null ? null : rows.get(new Row(test, size));
        return row == null ? null : row.get(impl);
    }
}

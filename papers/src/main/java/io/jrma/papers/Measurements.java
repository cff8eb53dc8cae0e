package io.jrma.papers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The raw measurements of one claim's run, {@code series,x,metric,rep,value} per line of a CSV file (one line per
 * repetition), grouped by series, x and metric, with the median and spread of the repetitions. Series and x keep
 * the order in which they first appear. Built once by the report's thread; read-only afterwards.
 */
public final class Measurements {
    /** A median whose repetitions spread more than this fraction of it is marked noisy. */
    static final double NOISY_SPREAD = 0.25;

    private final Set<String> series = new LinkedHashSet<>();
    private final Set<String> xs = new LinkedHashSet<>();
    private final Set<String> metrics = new LinkedHashSet<>();
    private final Map<String, List<Double>> values = new LinkedHashMap<>();

    /** Reads a raw CSV file (a header line starting with {@code series} is skipped). */
    public static Measurements read(Path csv) throws IOException {
        Measurements m = new Measurements();
        for (String line : Files.readAllLines(csv)) {
            if (line.isBlank() || line.startsWith("series,")) {
                continue;
            }
            String[] f = line.split(",");
            if (f.length != 5) {
                throw new IllegalArgumentException(csv + ": not series,x,metric,rep,value: " + line);
            }
            m.add(f[0], f[1], f[2], Double.parseDouble(f[4]));
        }
        return m;
    }

    /** Adds one repetition's value. */
    public void add(String s, String x, String metric, double value) {
        series.add(s);
        xs.add(x);
        metrics.add(metric);
        values.computeIfAbsent(key(s, x, metric), k -> new ArrayList<>()).add(value);
    }

    private static String key(String s, String x, String metric) {
        return s + '\u0000' + x + '\u0000' + metric;
    }

    public List<String> series() {
        return List.copyOf(series);
    }

    public List<String> xs() {
        return List.copyOf(xs);
    }

    public Set<String> metrics() {
        return Set.copyOf(metrics);
    }

    /** The x values of a metric that a series has, in order. */
    public List<String> xs(String s, String metric) {
        return xs.stream().filter(x -> values.containsKey(key(s, x, metric))).toList();
    }

    /** Median of the repetitions, NaN when there are none. */
    public double median(String s, String x, String metric) {
        List<Double> v = values.get(key(s, x, metric));
        if (v == null || v.isEmpty()) {
            return Double.NaN;
        }
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    /** Number of repetitions measured. */
    public int reps(String s, String x, String metric) {
        List<Double> v = values.get(key(s, x, metric));
        return v == null ? 0 : v.size();
    }

    /** (max - min) / median of the repetitions; 0 with fewer than two. */
    public double spread(String s, String x, String metric) {
        List<Double> v = values.get(key(s, x, metric));
        if (v == null || v.size() < 2) {
            return 0;
        }
        double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        double med = median(s, x, metric);
        double range = a[a.length - 1] - a[0];
        return med == 0 ? (range == 0 ? 0 : Double.POSITIVE_INFINITY) : range / Math.abs(med);
    }

    /** Whether the repetitions spread more than {@link #NOISY_SPREAD} of their median. */
    public boolean noisy(String s, String x, String metric) {
        return spread(s, x, metric) > NOISY_SPREAD;
    }
}

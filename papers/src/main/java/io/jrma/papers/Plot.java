package io.jrma.papers;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * One metric of a claim's measurements drawn as a PNG with Java2D (headless): a line per series over a log2 axis
 * when every x is a number (message sizes, operation counts), else groups of bars, one group per x. The y axis is
 * logarithmic when the values span more than {@link #LOG_Y_RATIO}. Noisy medians are drawn hollow.
 */
public final class Plot {
    static final int WIDTH = 960;
    static final int HEIGHT = 560;
    static final int LEFT = 90;
    static final int RIGHT = 230;
    static final int TOP = 50;
    static final int BOTTOM = 70;
    static final double LOG_Y_RATIO = 50;
    static final int MARK = 7;
    private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
        new Color(0xbcbd22), new Color(0x17becf)};

    private Plot() {
    }

    /** Draws {@code metric} of {@code m} into {@code png}. */
    public static void draw(Measurements m, String metric, String title, String xLabel, String yLabel, Path png)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage img = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, HEIGHT);
        List<String> series = m.series().stream().filter(s -> !m.xs(s, metric).isEmpty()).toList();
        List<String> xs = m.xs().stream().filter(x -> series.stream().anyMatch(s -> m.reps(s, x, metric) > 0)).toList();
        boolean numeric = xs.size() > 1 && xs.stream().allMatch(x -> x.matches("[0-9]+") && Long.parseLong(x) > 0);
        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (String s : series) {
            for (String x : xs) {
                double v = m.median(s, x, metric);
                if (!Double.isNaN(v)) {
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
        }
        if (hi <= 0) {
            hi = 1;
        }
        boolean logY = lo > 0 && hi / lo > LOG_Y_RATIO;
        Axis y = logY ? new Axis(Math.log10(lo) - 0.1, Math.log10(hi) + 0.1, true)
                : new Axis(0, hi * 1.1, false);
        int pw = WIDTH - LEFT - RIGHT;
        int ph = HEIGHT - TOP - BOTTOM;
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.setColor(Color.BLACK);
        g.drawString(title, LEFT, TOP - 20);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        // y grid and ticks
        for (double t : y.ticks()) {
            int py = TOP + ph - (int) Math.round(ph * y.frac(t));
            g.setColor(new Color(0xe0e0e0));
            g.drawLine(LEFT, py, LEFT + pw, py);
            g.setColor(Color.BLACK);
            String lab = fmt(y.log ? Math.pow(10, t) : t);
            g.drawString(lab, LEFT - 8 - g.getFontMetrics().stringWidth(lab), py + 4);
        }
        g.drawRect(LEFT, TOP, pw, ph);
        FontMetrics fm = g.getFontMetrics();
        g.drawString(xLabel, LEFT + pw / 2 - fm.stringWidth(xLabel) / 2, HEIGHT - 20);
        Graphics2D gy = (Graphics2D) g.create();
        gy.rotate(-Math.PI / 2);
        gy.drawString(yLabel + (logY ? " (log scale)" : ""), -(TOP + ph / 2 + fm.stringWidth(yLabel) / 2), 20);
        gy.dispose();
        int n = xs.size();
        for (int i = 0; i < n; i++) { // x labels
            String lab = numeric ? size(Long.parseLong(xs.get(i))) : xs.get(i);
            int px = LEFT + (int) Math.round(pw * (i + 0.5) / n);
            g.drawString(lab, px - fm.stringWidth(lab) / 2, TOP + ph + 18);
        }
        for (int si = 0; si < series.size(); si++) {
            String s = series.get(si);
            Color c = PALETTE[si % PALETTE.length];
            g.setColor(c);
            int prevX = -1;
            int prevY = -1;
            for (int i = 0; i < n; i++) {
                double v = m.median(s, xs.get(i), metric);
                if (Double.isNaN(v) || (logY && v <= 0)) {
                    prevX = -1;
                    continue;
                }
                int py = TOP + ph - (int) Math.round(ph * y.frac(logY ? Math.log10(v) : v));
                boolean hollow = m.noisy(s, xs.get(i), metric);
                if (numeric) {
                    int px = LEFT + (int) Math.round(pw * (i + 0.5) / n);
                    g.setStroke(new BasicStroke(2f));
                    if (prevX >= 0) {
                        g.drawLine(prevX, prevY, px, py);
                    }
                    mark(g, px, py, hollow);
                    prevX = px;
                    prevY = py;
                } else {
                    double groupW = (double) pw / n * 0.8;
                    double barW = groupW / series.size();
                    int px = LEFT + (int) Math.round(pw * (double) i / n + pw / (double) n * 0.1 + barW * si);
                    int base = TOP + ph - (logY ? 0 : (int) Math.round(ph * y.frac(0)));
                    int top = Math.min(py, base);
                    int h = Math.abs(base - py);
                    if (hollow) {
                        g.setStroke(new BasicStroke(2f));
                        g.drawRect(px, top, Math.max(1, (int) barW - 2), h);
                    } else {
                        g.fillRect(px, top, Math.max(1, (int) barW - 2), h);
                    }
                }
            }
            int ly = TOP + 10 + si * 20; // legend
            g.fillRect(LEFT + pw + 15, ly - 9, 12, 12);
            g.setColor(Color.BLACK);
            g.drawString(s, LEFT + pw + 32, ly + 2);
        }
        g.setColor(Color.DARK_GRAY);
        int noteY = Math.min(TOP + ph - 20, TOP + 30 + series.size() * 20);
        g.drawString("hollow: noisy (repetitions", LEFT + pw + 15, noteY);
        g.drawString("spread > " + Math.round(Measurements.NOISY_SPREAD * 100) + "% of the median)", LEFT + pw + 15,
                noteY + 16);
        g.dispose();
        ImageIO.write(img, "png", png.toFile());
    }

    private static void mark(Graphics2D g, int px, int py, boolean hollow) {
        if (hollow) {
            g.drawOval(px - MARK / 2, py - MARK / 2, MARK, MARK);
        } else {
            g.fillOval(px - MARK / 2, py - MARK / 2, MARK, MARK);
        }
    }

    /** 8, 512, 4K, 1M. */
    static String size(long b) {
        if (b >= 1 << 20 && b % (1 << 20) == 0) {
            return (b >> 20) + "M";
        }
        if (b >= 1 << 10 && b % (1 << 10) == 0) {
            return (b >> 10) + "K";
        }
        return Long.toString(b);
    }

    static String fmt(double v) {
        if (v == 0) {
            return "0";
        }
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    /** A value axis from {@code min} to {@code max} (log10 units when {@code log}). */
    private record Axis(double min, double max, boolean log) {
        double frac(double v) {
            return (v - min) / (max - min);
        }

        double[] ticks() {
            if (log) {
                int a = (int) Math.ceil(min);
                int b = (int) Math.floor(max);
                double[] t = new double[Math.max(0, b - a + 1)];
                for (int i = 0; i < t.length; i++) {
                    t[i] = a + i;
                }
                return t;
            }
            double step = Math.pow(10, Math.floor(Math.log10((max - min) / 5)));
            if ((max - min) / step > 10) {
                step *= 2;
            }
            if ((max - min) / step > 10) {
                step *= 2.5;
            }
            int k = (int) Math.floor((max - min) / step) + 1;
            double[] t = new double[k];
            for (int i = 0; i < k; i++) {
                t[i] = min + i * step;
            }
            return t;
        }
    }
}

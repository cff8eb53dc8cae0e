package io.jrma;

import io.jrma.core.config.JobLayout;
import io.jrma.core.config.Param;
import io.jrma.core.config.Params;
import io.jrma.core.os.Affinity;
import io.jrma.core.os.CrossMemory;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * {@code jrma-info}, in the spirit of {@code ompi_info}: the jrma version, the JDK, the JVM flags jrma needs
 * ({@link JvmFlags}), every transport component with the priority it answers for a job layout or the reason it
 * declines, every run-time parameter with its default, the value in force (job parameter given here, system
 * property, environment, default) and where it came from, and every window counter with its description.
 *
 * <p>Usage: {@code jrma-info [-n RANKS] [--jvms J] [--param NAME=VALUE]...}; without a layout it shows a 2-rank job
 * over 2 JVMs of this host. Settings from {@code -Dname=value} and the environment ({@code JRMA_TRANSPORTS=^shm})
 * count as they would for a job started now.
 */
public final class JrmaInfo {
    /** The layout shown when none is given: the smallest job whose JVMs need transports. */
    private static final int DEFAULT_RANKS = 2;
    private static final int DEFAULT_JVMS = 2;

    private JrmaInfo() {
    }

    /** The jrma version from the jar's Maven descriptor, or {@code unknown} when run from classes. */
    public static String version() {
        try (InputStream in = JrmaInfo.class.getResourceAsStream("/META-INF/maven/io.jrma/rma-core/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("version");
                if (v != null) {
                    return v;
                }
            }
        } catch (IOException e) {
            // fall through
        }
        String v = JrmaInfo.class.getPackage().getImplementationVersion();
        return v != null ? v : "unknown (not run from the rma-core jar)";
    }

    /** Where the value in force of {@code p} comes from: job parameter, system property, environment or default. */
    static String source(Param p, Map<String, String> job) {
        if (job.containsKey(p.name())) {
            return "job parameter";
        }
        if (System.getProperty(p.name()) != null) {
            return "system property";
        }
        if (System.getenv(p.envName()) != null) {
            return "environment " + p.envName();
        }
        return "default";
    }

    /** Writes the report for a 2-rank job over 2 JVMs with no job parameters. */
    public static void print(PrintStream out) {
        print(out, new JobLayout(DEFAULT_RANKS, DEFAULT_JVMS, Map.of()));
    }

    /** Writes the report for a job of {@code layout}. */
    public static void print(PrintStream out, JobLayout layout) {
        out.println("jrma " + version());
        out.println("  java:      " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor")
                + ", feature " + Runtime.version().feature() + ")");
        out.println("  java.home: " + System.getProperty("java.home"));
        out.println("  os:        " + System.getProperty("os.name") + " " + System.getProperty("os.arch")
                + ", " + Affinity.cores() + " CPUs " + Arrays.toString(Affinity.cpus()));
        out.println("  jvm flags: " + JvmFlags.current());
        out.println("  syscalls:  " + CrossMemory.binding()
                + " (kernel copies between JVMs; java.lang.foreign or jdk.incubator.foreign: the JDK's linker)");
        out.println();
        Jrma.engine().printTransports(out, layout);
        out.println();
        out.println("Run-time parameters (set per job with Jrma.job(n).param(name, value) or jrmarun --param, or");
        out.println("-Dname=value, or the environment variable NAME_IN_CAPITALS_WITH_UNDERSCORES; first match wins):");
        for (Param p : allParams()) {
            out.println();
            out.println("  " + p.name() + "   (scope " + p.scope() + ", env " + p.envName() + ")");
            out.println("      default:   " + p.defaultValue());
            out.println("      in force:  " + p.get(layout.params()) + "   [" + source(p, layout.params()) + "]");
            out.println("      " + plain(p.description()));
        }
        out.println();
        out.println(
                "Window counters (Win.counters(), mpi.Win's jrma extension; summed per JVM in the job's counters):");
        for (WinCounters.Counter c : WinCounters.Counter.values()) {
            out.println("  " + c.name() + ": " + plain(c.description()));
        }
    }

    /** A description as terminal text: the descriptions are written in Markdown, whose code marks go. */
    static String plain(String markdown) {
        return markdown.replace("`", "");
    }

    /**
     * The table of every run-time parameter as docs/parameters.md shows it (name, default, scope, description), made
     * from the same definitions jrma-info prints; {@code jrma-info --markdown parameters} writes it.
     */
    public static String parametersTable() {
        StringBuilder b = new StringBuilder("| name | default | scope | meaning |\n|---|---|---|---|\n");
        for (Param p : allParams()) {
            b.append("| `").append(p.name()).append("` | `").append(p.defaultValue()).append("` | ").append(p.scope())
                    .append(" | ").append(cell(p.description())).append(" |\n");
        }
        return b.toString();
    }

    /** The table of every window counter as docs/counters.md shows it; {@code jrma-info --markdown counters}. */
    public static String countersTable() {
        StringBuilder b = new StringBuilder("| counter | description (`Counter.description()`) |\n|---|---|\n");
        for (WinCounters.Counter c : WinCounters.Counter.values()) {
            b.append("| `").append(c.name()).append("` | ").append(cell(c.description())).append(" |\n");
        }
        return b.toString();
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }

    /** Every run-time parameter: the core's, then each component's. */
    public static List<Param> allParams() {
        List<Param> all = new ArrayList<>(Params.ALL);
        for (Param q : Jrma.engine().componentParams()) {
            if (!all.contains(q)) {
                all.add(q);
            }
        }
        return all;
    }

    /**
     * Runs {@code jrma-info}; returns the exit code (2 for a usage error).
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        int ranks = -1;
        int jvms = DEFAULT_JVMS;
        Map<String, String> params = new LinkedHashMap<>();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "-n", "-np" -> ranks = Integer.parseInt(value(args, ++i));
                    case "--jvms" -> jvms = Integer.parseInt(value(args, ++i));
                    case "--param" -> {
                        String kv = value(args, ++i);
                        int eq = kv.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException("--param takes NAME=VALUE, got " + kv);
                        }
                        params.put(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                    case "--markdown" -> {
                        String what = value(args, ++i);
                        switch (what) {
                            case "parameters" -> out.print(parametersTable());
                            case "counters" -> out.print(countersTable());
                            default -> throw new IllegalArgumentException(
                                    "--markdown takes parameters or counters, got "
                                    + what);
                        }
                        return 0;
                    }
                    case "-h", "--help" -> {
                        out.println(USAGE);
                        return 0;
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (jvms < 1 || (ranks != -1 && ranks < 1)) {
                throw new IllegalArgumentException("-n and --jvms take a positive number");
            }
        } catch (IllegalArgumentException e) {
            err.println("jrma-info: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        int n = ranks == -1 ? Math.max(DEFAULT_RANKS, jvms) : ranks;
        print(out, new JobLayout(n, Math.min(n, jvms), params));
        return 0;
    }

    private static final String USAGE = "usage: jrma-info [-n RANKS] [--jvms J] [--param NAME=VALUE]...\n"
            + "       jrma-info --markdown parameters|counters   (the tables of docs/parameters.md and "
            + "docs/counters.md)";

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }
}

package io.jrma.papers;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Win;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * What one IO agent per address space buys (papers/lockless-io-agent): the sockets and resident memory of a job's
 * JVMs once every pair of ranks has communicated, and how long an origin's epoch takes while its target computes
 * without entering the library. Run under bin/jrmarun; rank 0 prints {@code series,x,metric,rep,value} lines.
 *
 * <pre>
 *   bin/jrmarun -n 4 --jvms 4 -cp papers/target/classes io.jrma.papers.AgentProbe --measure resources --series jvms
 *   bin/jrmarun -n 2 --jvms 2 --param jrma.progress=caller -cp ... io.jrma.papers.AgentProbe --measure progress
 * </pre>
 *
 * {@code --measure resources}: every rank puts to every other rank (so every connection a transport opens lazily is
 * open), then each rank reports its JVM's pid, open sockets (/proc/self/fd links to {@code socket:}) and resident
 * set (VmRSS in /proc/self/status); rank 0 sums them over the distinct JVMs: metrics {@code sockets} and
 * {@code rss_mb}, x = the number of ranks. {@code --measure progress}: rank 1 computes for {@code --compute-ms}
 * without calling the library while rank 0 times lock, 8-byte put, unlock to it, {@link #PROGRESS_ROUNDS} times;
 * metric {@code epoch_ms} (the median), x = {@code target computing}.
 */
public final class AgentProbe implements Serializable {
    private static final long serialVersionUID = 1L;
    static final int PROGRESS_ROUNDS = 5;
    /** Longs per rank in the stats window: pid, sockets, resident kB. */
    static final int STATS = 3;
    private static final long KB_PER_MB = 1024;

    private String measure = "resources";
    private String series = "jrma";
    private int rep = 1;
    private long computeMs = 200;

    public static void main(String[] args) throws Exception {
        AgentProbe p = new AgentProbe();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--measure" -> p.measure = args[++i];
                case "--series" -> p.series = args[++i];
                case "--rep" -> p.rep = Integer.parseInt(args[++i]);
                case "--compute-ms" -> p.computeMs = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Jrma.runOrJoin(2, p::run);
    }

    private void run(Comm world) throws IOException {
        switch (measure) {
            case "resources" -> resources(world);
            case "progress" -> progress(world);
            default -> throw new IllegalArgumentException("--measure resources|progress, not " + measure);
        }
    }

    private void resources(Comm world) throws IOException {
        int n = world.size();
        int me = world.rank();
        Win w = Win.allocate(world, 8L * Math.max(n, STATS * n), 8, null);
        long[] one = {me};
        w.fence(0);
        for (int r = 0; r < n; r++) {
            if (r != me) {
                w.put(one, 1, Datatype.LONG, r, me);
            }
        }
        w.fence(0);
        world.barrier();
        long[] mine = {ProcessHandle.current().pid(), sockets(), residentKb()};
        w.fence(0);
        w.put(mine, STATS, Datatype.LONG, 0, (long) STATS * me);
        w.fence(0);
        if (me == 0) {
            Set<Long> seen = new HashSet<>();
            long sockets = 0;
            long rssKb = 0;
            for (int r = 0; r < n; r++) {
                long pid = w.buffer().getLong(8 * STATS * r);
                if (seen.add(pid)) {
                    sockets += w.buffer().getLong(8 * (STATS * r + 1));
                    rssKb += w.buffer().getLong(8 * (STATS * r + 2));
                }
            }
            emit(Integer.toString(n), "sockets", sockets);
            emit(Integer.toString(n), "jvms", seen.size());
            emit(Integer.toString(n), "rss_mb", (double) rssKb / KB_PER_MB);
        }
        world.barrier();
        w.free();
    }

    private void progress(Comm world) {
        if (world.size() != 2) {
            throw new IllegalArgumentException("--measure progress runs on 2 ranks");
        }
        Win w = Win.allocate(world, 64, 8, null);
        long[] one = {1};
        double[] ms = new double[PROGRESS_ROUNDS];
        long sink = 0;
        for (int round = -1; round < PROGRESS_ROUNDS; round++) { // round -1: connections and JIT, not timed
            world.barrier();
            if (world.rank() == 1) {
                long end = System.nanoTime() + computeMs * 1_000_000L;
                while (System.nanoTime() < end) { // computing, never inside the library
                    sink += Long.numberOfTrailingZeros(sink + end);
                }
            } else {
                long t0 = System.nanoTime();
                w.lock(LockType.EXCLUSIVE, 1, 0);
                w.put(one, 1, Datatype.LONG, 1, 0);
                w.unlock(1);
                if (round >= 0) {
                    ms[round] = (System.nanoTime() - t0) / 1e6;
                }
            }
        }
        world.barrier();
        if (world.rank() == 0) {
            Arrays.sort(ms);
            emit("target computing " + computeMs + " ms", "epoch_ms", ms[PROGRESS_ROUNDS / 2]);
        } else if (sink == 42) {
            System.err.print(""); // keeps the computation from being optimized away
        }
        world.barrier();
        w.free();
    }

    /** Open sockets of this process. */
    static long sockets() throws IOException {
        long n = 0;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    if (Files.readSymbolicLink(fd).toString().startsWith("socket:")) {
                        n++;
                    }
                } catch (IOException closedMeanwhile) {
                    // a descriptor closed while listing: not open any more
                }
            }
        }
        return n;
    }

    /** VmRSS of this process, kB. */
    static long residentKb() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

    private void emit(String x, String metric, double v) {
        System.out.printf(Locale.ROOT, "%s,%s,%s,%d,%.6g%n", series, x, metric, rep, v);
        System.out.flush();
    }
}

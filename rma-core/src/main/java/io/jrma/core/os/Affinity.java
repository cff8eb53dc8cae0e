package io.jrma.core.os;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The CPUs of this host that the job may use, and binding of a rank's thread, or of a whole JVM that runs one rank,
 * to some of them ({@code jrma.bind}, {@code jrma.bind.cpus}: jrmarun's {@code --bind-to}), through Linux
 * {@code sched_setaffinity}/{@code sched_getaffinity} called by JNA. A bound rank keeps its caches and, between JVMs
 * over TCP, its socket's packets on
 * one CPU (an unbound rank thread migrates, as Open MPI's processes do not under {@code --bind-to core}).
 *
 * <p>{@link #cpus()} is read once, from the process's allowed CPU list (the main thread's, in
 * {@code /proc/self/status}), so it stays right after a rank thread is bound: the JVM's
 * {@code availableProcessors()} answers for the calling thread, 1 once it is bound. Everything that sizes waits
 * by the number of cores uses {@link #cores()}.
 *
 * <p>Stateless apart from that list; any thread.
 */
public final class Affinity {
    private static final int MASK_BYTES = 128; // 1024 CPUs
    private static final LibC LIBC = Libc.load(LibC.class, null);
    private static volatile int[] cpus;

    interface LibC extends Library {
        int sched_setaffinity(int pid, long size, Memory mask);

        int sched_getaffinity(int pid, long size, Memory mask);
    }

    private Affinity() {
    }

    /** Whether threads can be bound here (Linux, JNA). */
    public static boolean available() {
        return LIBC != null;
    }

    /** The CPUs this process may run on, ascending. */
    public static int[] cpus() {
        int[] c = cpus;
        if (c == null) {
            c = readAllowed();
            cpus = c;
        }
        return c.clone();
    }

    /** How many CPUs this process may run on (not the calling thread's binding). */
    public static int cores() {
        int[] c = cpus;
        return c != null ? c.length : cpus().length;
    }

    private static int[] readAllowed() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    int[] parsed = parseList(line.substring(line.indexOf(':') + 1).trim());
                    if (parsed.length > 0) {
                        return parsed;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or an unreadable /proc: fall back below
        }
        int n = Math.max(1, Runtime.getRuntime().availableProcessors());
        int[] all = new int[n];
        for (int i = 0; i < n; i++) {
            all[i] = i;
        }
        return all;
    }

    /** Parses a Linux CPU list such as {@code 0-3,8,10-11}. */
    public static int[] parseList(String list) {
        List<Integer> out = new ArrayList<>();
        for (String part : list.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            int dash = p.indexOf('-');
            int lo = Integer.parseInt(dash < 0 ? p : p.substring(0, dash));
            int hi = dash < 0 ? lo : Integer.parseInt(p.substring(dash + 1));
            for (int c = lo; c <= hi; c++) {
                out.add(c);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Binds the calling thread to {@code cpu}.
     *
     * @return null on success, else why not (no JNA/Linux, or the kernel's refusal)
     */
    public static String bindCurrentThread(int cpu) {
        return bindCurrentThread(new int[] {cpu});
    }

    /**
     * Binds the calling thread to {@code cpus} (OS CPU numbers).
     *
     * @return null on success, else why not (no JNA/Linux, a CPU out of range, or the kernel's refusal)
     */
    public static String bindCurrentThread(int[] cpus) {
        return bindTask(0, cpus);
    }

    /**
     * Binds every thread of this process to {@code cpus}, as {@code taskset} binds a process before it starts: the
     * JVM's own threads (compiler, GC) too, and the threads they start later inherit it, so
     * {@code availableProcessors()} answers the bound count. Threads started while this runs may escape; the list
     * of threads is walked twice for them.
     *
     * @return null on success, else why not
     */
    public static String bindProcess(int[] cpus) {
        cpus(); // the host's list is read before the main thread's own changes
        if (LIBC == null) {
            return "binding needs Linux and JNA";
        }
        for (int pass = 0; pass < 2; pass++) {
            try (var tasks = Files.list(Path.of("/proc/self/task"))) {
                for (Path t : (Iterable<Path>) tasks::iterator) {
                    String why = bindTask(Integer.parseInt(t.getFileName().toString()), cpus);
                    if (why != null && Files.exists(t)) { // a thread that ended meanwhile is no failure
                        return why;
                    }
                }
            } catch (IOException | RuntimeException e) {
                return "cannot list this process's threads: " + e.getMessage();
            }
        }
        return null;
    }

    private static String bindTask(int tid, int[] cpus) {
        if (LIBC == null) {
            return "thread binding needs Linux and JNA";
        }
        Memory mask = new Memory(MASK_BYTES);
        mask.clear();
        for (int cpu : cpus) {
            if (cpu < 0 || cpu >= MASK_BYTES * 8) {
                return "CPU " + cpu + " is out of range";
            }
            mask.setByte(cpu / 8, (byte) (mask.getByte(cpu / 8) | (1 << (cpu % 8))));
        }
        int rc = LIBC.sched_setaffinity(tid, MASK_BYTES, mask);
        return rc == 0 ? null : "sched_setaffinity(CPUs " + Topology.formatList(cpus) + ") failed (errno "
                + Native.getLastError() + ")";
    }

    /** The CPUs the calling thread may run on now, or an empty array if that cannot be read. */
    public static int[] currentThread() {
        if (LIBC == null) {
            return new int[0];
        }
        Memory mask = new Memory(MASK_BYTES);
        mask.clear();
        if (LIBC.sched_getaffinity(0, MASK_BYTES, mask) != 0) {
            return new int[0];
        }
        List<Integer> out = new ArrayList<>();
        for (int c = 0; c < MASK_BYTES * 8; c++) {
            if ((mask.getByte(c / 8) & (1 << (c % 8))) != 0) {
                out.add(c);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The CPU world rank {@code rank} is bound to under {@code jrma.bind=core}: ranks fill the CPUs in order. */
    public static int cpuOfRank(int rank) {
        int[] c = cpus();
        return c[Math.floorMod(rank, c.length)];
    }
}

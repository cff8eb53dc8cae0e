package io.jrma.core.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The processing units (hardware threads) this process may use, and the cores, sockets and NUMA nodes that hold
 * them, read from Linux's {@code /sys/devices/system/cpu/cpuN/topology} and {@code /sys/devices/system/node} (the
 * facts hwloc reads too). Units are numbered logically, as hwloc and Open MPI number them: socket by socket, core
 * by core, thread by thread; the OS's CPU numbers may interleave sockets, the logical ones never do, so a map made
 * by logical index means the same place on every host of one kind.
 *
 * <p>Cores and sockets are named by their logical index among this host's allowed ones (Open MPI's
 * {@code socket 0[core 1[hwt 0]]}), and a core's threads by their position in the core.
 *
 * <p>Immutable; any thread. {@link #here()} is read once per JVM, before any rank is bound.
 */
public final class Topology {
    /** Where the kernel describes the CPUs. */
    private static final Path CPU_DIR = Path.of("/sys/devices/system/cpu");
    /** Where the kernel describes the NUMA nodes. */
    private static final Path NODE_DIR = Path.of("/sys/devices/system/node");

    /** Kinds of object a rank may be mapped to or bound to. */
    public enum Kind { HWTHREAD, CORE, SOCKET, NUMA, NODE }

    /**
     * One processing unit: its OS CPU number and the logical indices of its core, socket and NUMA node on this host,
     * and its position among its core's threads.
     */
    public record Pu(int cpu, int core, int socket, int numa, int thread) {
    }

    private static volatile Topology here;

    private final List<Pu> pus;

    /** A topology of these units, in logical order (socket, core, thread). */
    public Topology(List<Pu> pus) {
        if (pus.isEmpty()) {
            throw new IllegalArgumentException("a topology needs at least one processing unit");
        }
        this.pus = List.copyOf(pus);
    }

    /**
     * A uniform host for tests and for describing other hosts: {@code sockets} sockets (one NUMA node each) of
     * {@code cores} cores of {@code threads} threads, CPUs numbered in logical order.
     */
    public static Topology uniform(int sockets, int cores, int threads) {
        List<Pu> l = new ArrayList<>();
        for (int s = 0; s < sockets; s++) {
            for (int c = 0; c < cores; c++) {
                for (int t = 0; t < threads; t++) {
                    l.add(new Pu(l.size(), s * cores + c, s, s, t));
                }
            }
        }
        return new Topology(l);
    }

    /** This host's topology, limited to the CPUs this process may use ({@link Affinity#cpus()}); read once. */
    public static Topology here() {
        Topology t = here;
        if (t == null) {
            t = read(Affinity.cpus());
            here = t;
        }
        return t;
    }

    /** Reads the topology of {@code cpus} from /sys; what /sys does not say counts as one socket, node, core. */
    static Topology read(int[] cpus) {
        Map<Integer, Integer> numaOfCpu = new HashMap<>();
        try (var nodes = Files.list(NODE_DIR)) {
            for (Path n : (Iterable<Path>) nodes::iterator) {
                String name = n.getFileName().toString();
                if (name.matches("node\\d+")) {
                    int node = Integer.parseInt(name.substring("node".length()));
                    for (int c : Affinity.parseList(Files.readString(n.resolve("cpulist")).trim())) {
                        numaOfCpu.put(c, node);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // no NUMA description: one node
        }
        record Raw(int cpu, int pkg, int core, int numa) {
        }
        List<Raw> raw = new ArrayList<>();
        for (int cpu : cpus) {
            Path t = CPU_DIR.resolve("cpu" + cpu).resolve("topology");
            raw.add(new Raw(cpu, readInt(t.resolve("physical_package_id")), readInt(t.resolve("core_id")),
                    numaOfCpu.getOrDefault(cpu, 0)));
        }
        raw.sort(Comparator.comparingInt(Raw::pkg).thenComparingInt(Raw::core).thenComparingInt(Raw::cpu));
        Map<Integer, Integer> socketIndex = new LinkedHashMap<>();
        Map<Long, Integer> coreIndex = new LinkedHashMap<>();
        Map<Integer, Integer> numaIndex = new TreeMap<>();
        raw.forEach(r -> numaIndex.put(r.numa(), 0));
        int k = 0;
        for (Map.Entry<Integer, Integer> e : numaIndex.entrySet()) {
            e.setValue(k++);
        }
        List<Pu> l = new ArrayList<>();
        Map<Long, Integer> threadsSeen = new HashMap<>();
        for (Raw r : raw) {
            int s = socketIndex.computeIfAbsent(r.pkg(), x -> socketIndex.size());
            long key = ((long) r.pkg() << 32) | (r.core() & 0xffffffffL);
            int c = coreIndex.computeIfAbsent(key, x -> coreIndex.size());
            int t = threadsSeen.merge(key, 1, Integer::sum) - 1;
            l.add(new Pu(r.cpu(), c, s, numaIndex.get(r.numa()), t));
        }
        return new Topology(l);
    }

    private static int readInt(Path p) {
        try {
            return Integer.parseInt(Files.readString(p).trim());
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** How many processing units. */
    public int size() {
        return pus.size();
    }

    /** The unit of logical index {@code i}. */
    public Pu pu(int i) {
        return pus.get(i);
    }

    /** How many objects of {@code kind} (a node is the whole host). */
    public int count(Kind kind) {
        return objects(kind).size();
    }

    /** The objects of {@code kind} in logical order, each as the logical indices of its units, ascending. */
    public List<int[]> objects(Kind kind) {
        TreeMap<Integer, List<Integer>> by = new TreeMap<>();
        for (int i = 0; i < pus.size(); i++) {
            by.computeIfAbsent(indexOf(pus.get(i), kind, i), x -> new ArrayList<>()).add(i);
        }
        List<int[]> out = new ArrayList<>();
        by.values().forEach(v -> out.add(v.stream().mapToInt(Integer::intValue).toArray()));
        return out;
    }

    /** The logical index of the object of {@code kind} that holds unit {@code i}. */
    public int objectOf(int i, Kind kind) {
        return indexOf(pus.get(i), kind, i);
    }

    private static int indexOf(Pu p, Kind kind, int logical) {
        return switch (kind) {
            case HWTHREAD -> logical;
            case CORE -> p.core();
            case SOCKET -> p.socket();
            case NUMA -> p.numa();
            case NODE -> 0;
        };
    }

    /** The OS CPU numbers of logical units {@code logical}; throws if this host has fewer units. */
    public int[] osCpus(int[] logical) {
        int[] out = new int[logical.length];
        for (int k = 0; k < logical.length; k++) {
            if (logical[k] >= pus.size()) {
                throw new IllegalArgumentException("processing unit " + logical[k] + " does not exist here (this host"
                        + " has " + pus.size() + ")");
            }
            out[k] = pus.get(logical[k]).cpu();
        }
        return out;
    }

    /** The logical units of OS CPUs {@code cpus} (those this process may use). */
    public int[] logicalOf(int[] cpus) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < pus.size(); i++) {
            for (int c : cpus) {
                if (pus.get(i).cpu() == c) {
                    out.add(i);
                }
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Open MPI's words for a binding to logical units {@code logical}, core by core:
     * {@code socket 0[core 0[hwt 0-1]], socket 0[core 1[hwt 0]]}.
     */
    public String describe(int[] logical) {
        TreeMap<Integer, List<Integer>> threadsOfCore = new TreeMap<>();
        for (int i : logical) {
            threadsOfCore.computeIfAbsent(pus.get(i).core(), x -> new ArrayList<>()).add(pus.get(i).thread());
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Integer, List<Integer>> e : threadsOfCore.entrySet()) {
            int socket = socketOfCore(e.getKey());
            sb.append(sb.length() == 0 ? "" : ", ").append("socket ").append(socket).append("[core ")
                    .append(e.getKey()).append("[hwt ").append(formatList(e.getValue().stream()
                            .mapToInt(Integer::intValue).sorted().toArray())).append("]]");
        }
        return sb.toString();
    }

    private int socketOfCore(int core) {
        for (Pu p : pus) {
            if (p.core() == core) {
                return p.socket();
            }
        }
        return 0;
    }

    /**
     * Open MPI's picture of a binding: one bracket per socket, cores separated by {@code /}, a {@code B} for each
     * bound thread and a {@code .} for each other: {@code [BB/..][../..]}.
     */
    public String bitmap(int[] logical) {
        boolean[] bound = new boolean[pus.size()];
        for (int i : logical) {
            bound[i] = true;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < pus.size(); i++) {
            Pu p = pus.get(i);
            boolean newSocket = i == 0 || pus.get(i - 1).socket() != p.socket();
            boolean newCore = i > 0 && pus.get(i - 1).core() != p.core();
            if (newSocket) {
                sb.append(i == 0 ? "[" : "][");
            } else if (newCore) {
                sb.append('/');
            }
            sb.append(bound[i] ? 'B' : '.');
        }
        return sb.append(']').toString();
    }

    /** A Linux CPU list for {@code values} (ascending): {@code 0-3,8}. */
    public static String formatList(int[] values) {
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < values.length; k++) {
            int lo = values[k];
            while (k + 1 < values.length && values[k + 1] == values[k] + 1) {
                k++;
            }
            sb.append(sb.length() == 0 ? "" : ",").append(lo);
            if (values[k] != lo) {
                sb.append('-').append(values[k]);
            }
        }
        return sb.toString();
    }
}

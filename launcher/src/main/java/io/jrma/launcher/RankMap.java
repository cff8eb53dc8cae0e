package io.jrma.launcher;

import io.jrma.core.os.Topology;
import io.jrma.core.os.Topology.Kind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where each rank of a job runs and what it is bound to, as Open MPI's {@code mpirun} decides it (the part of its
 * LAMA mapper users reach for): {@code --map-by} places ranks on hosts and, on a host, on objects of its topology;
 * {@code --rank-by} numbers the placements; {@code --bind-to} widens each placement to the object it is bound to.
 *
 * <p>Mapping. {@code slot} (the default) fills each host up to its slots, then the next; {@code node} deals ranks
 * round-robin over the hosts, one slot at a time; {@code core}/{@code hwthread} fill a host as {@code slot} does,
 * placing its ranks on consecutive cores (threads); {@code socket}/{@code numa} fill a host as {@code slot} does,
 * dealing its ranks round-robin over its sockets (NUMA nodes); {@code ppr:N:RESOURCE} puts N ranks on every
 * RESOURCE of a host (and the job has, unless {@code -n} says fewer, N times that many per host). {@code :PE=n}
 * (or {@code --cpus-per-rank n}) gives every rank n consecutive cores of its object.
 *
 * <p>Ranking. By default the ranks follow the mapping ({@code node} for {@code --map-by node}, {@code socket} for
 * {@code socket}, {@code slot} for {@code ppr}); {@code slot} numbers a host's placements in the order they were
 * made, host after host; {@code node} takes one placement of each host in turn; {@code core} numbers a host's
 * placements by their first core; {@code socket} takes one placement of each socket of a host in turn.
 *
 * <p>Binding. A rank's cores are the next free ones of its object; {@code core} (or {@code hwthread}) binds it to
 * them, {@code socket}/{@code numa} to the whole sockets (NUMA nodes) that hold them. More ranks on an object than
 * it has cores is an error, as Open MPI's, unless oversubscribing (then the cores are dealt again from the first).
 *
 * <p>Every host is taken to have the launcher's topology (jrmarun asks other hosts nothing before it starts its JVMs
 * there); units are named by logical index, so hosts of one kind agree, and each JVM resolves them on its own host
 * ({@code jrma.bind.cpus}). Immutable once computed; any thread.
 */
final class RankMap {
    /** The mapping policies, for messages. */
    static final String MAP_POLICIES = "slot|node|hwthread|core|socket|numa|ppr:N:RESOURCE, optionally with :PE=n";
    /** The ranking policies, for messages. */
    static final String RANK_POLICIES = "slot|node|hwthread|core|socket|numa";
    /** The binding policies, for messages. */
    static final String BIND_POLICIES = "none|hwthread|core|socket|numa";
    /** Open MPI's --display-map rule line. */
    private static final String RULE = " =============================================================";

    /** A map that cannot be made, or a policy that does not exist: one line that says which and why. */
    static final class MappingException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        MappingException(String message) {
            super(message);
        }
    }

    /** What {@code --map-by}, {@code --rank-by}, {@code --bind-to} and {@code --cpus-per-rank} ask for. */
    static final class Policy {
        /** slot, node, hwthread, core, socket, numa or ppr. */
        String mapBy = "slot";
        /** ranks per resource ({@code ppr:N:RESOURCE}); 0 unless mapping by ppr. */
        int ppr;
        Kind pprKind;
        /** cores (or threads) per rank. */
        int pe = 1;
        /** null: the ranking follows the mapping. */
        String rankBy;
        /** none, hwthread, core, socket or numa; null: not given (then none, or core with PE > 1). */
        String bindTo;
        boolean oversubscribe;

        /** Parses {@code --map-by VALUE}: {@code POLICY[:PE=n]} or {@code ppr:N:RESOURCE[:PE=n]}. */
        void mapBy(String v) {
            String[] parts = v.toLowerCase(Locale.ROOT).split(":");
            int next = 1;
            String policy = parts[0];
            switch (policy) {
                case "slot", "node", "hwthread", "core", "socket", "numa" -> mapBy = policy;
                case "package" -> mapBy = "socket";
                case "ppr" -> {
                    if (parts.length < 3) {
                        throw new MappingException("--map-by " + v + ": ppr needs ppr:N:RESOURCE (e.g."
                                + " ppr:2:socket)");
                    }
                    mapBy = "ppr";
                    ppr = count("--map-by " + v, parts[1]);
                    pprKind = kind("--map-by " + v + ": the ppr resource", parts[2], true);
                    next = 3;
                }
                default -> throw new MappingException("--map-by " + v + ": unknown mapping policy '" + policy
                        + "' (" + MAP_POLICIES + ")");
            }
            for (int k = next; k < parts.length; k++) {
                if (parts[k].startsWith("pe=")) {
                    pe = count("--map-by " + v + ": PE", parts[k].substring("pe=".length()));
                } else if (!parts[k].equals("oversubscribe") && !parts[k].equals("nooversubscribe")) {
                    throw new MappingException("--map-by " + v + ": unknown modifier '" + parts[k]
                            + "' (PE=n, OVERSUBSCRIBE)");
                }
                oversubscribe |= parts[k].equals("oversubscribe");
            }
        }

        void rankBy(String v) {
            String p = v.toLowerCase(Locale.ROOT).split(":")[0];
            if (!Arrays.asList(RANK_POLICIES.split("\\|")).contains(p) && !p.equals("package")) {
                throw new MappingException("--rank-by " + v + ": unknown ranking policy (" + RANK_POLICIES
                        + ")");
            }
            rankBy = p.equals("package") ? "socket" : p;
        }

        void bindTo(String v) {
            String p = v.toLowerCase(Locale.ROOT).split(":")[0];
            switch (p) {
                case "none", "hwthread", "core", "socket", "numa" -> bindTo = p;
                case "cpu" -> bindTo = "hwthread";
                case "package" -> bindTo = "socket";
                default -> throw new MappingException("--bind-to " + v + ": unknown binding policy ("
                        + BIND_POLICIES + ")");
            }
            if (v.toLowerCase(Locale.ROOT).contains(":overload-allowed")) {
                oversubscribe = true;
            }
        }

        /** The binding in force: as given, else core when a rank has several cores, else none. */
        String binding() {
            return bindTo != null ? bindTo : pe > 1 ? "core" : "none";
        }

        /** The ranking in force: as given, else the one that follows the mapping. */
        String ranking() {
            if (rankBy != null) {
                return rankBy;
            }
            return switch (mapBy) {
                case "node", "socket", "numa", "core", "hwthread" -> mapBy;
                default -> "slot";
            };
        }
    }

    /** One rank: its host (index in the host list) and the logical units it is bound to (empty: not bound). */
    record Placement(int rank, int host, int[] bound, int firstUnit) {
    }

    private final List<HostList.Host> hosts;
    private final Topology topo;
    private final Policy policy;
    private final Placement[] byRank;

    private RankMap(List<HostList.Host> hosts, Topology topo, Policy policy, Placement[] byRank) {
        this.hosts = hosts;
        this.topo = topo;
        this.policy = policy;
        this.byRank = byRank;
    }

    /**
     * Maps {@code n} ranks ({@code n < 1}: one per slot, or as {@code ppr} says) over {@code hosts}, each of topology
     * {@code topo}; {@code npernode > 0} puts that many on each host ({@code -N}).
     *
     * @throws IllegalArgumentException for a map that cannot be made, in one line
     */
    static RankMap compute(HostList hosts, Topology topo, int n, int npernode, Policy p) {
        int nh = hosts.hosts().size();
        int[] count = counts(hosts, topo, n, npernode, p);
        String binding = p.binding();
        boolean byThread = p.mapBy.equals("hwthread") || p.mapBy.equals("ppr") && p.pprKind == Kind.HWTHREAD;
        List<List<Placement>> perHost = new ArrayList<>();
        for (int h = 0; h < nh; h++) {
            perHost.add(place(hosts.hosts().get(h), h, topo, count[h], p, byThread, binding));
        }
        List<Placement> order = rank(perHost, topo, p.ranking());
        Placement[] byRank = new Placement[order.size()];
        for (int r = 0; r < byRank.length; r++) {
            Placement q = order.get(r);
            byRank[r] = new Placement(r, q.host(), q.bound(), q.firstUnit());
        }
        return new RankMap(hosts.hosts(), topo, p, byRank);
    }

    /** How many ranks each host takes. */
    private static int[] counts(HostList hosts, Topology topo, int n, int npernode, Policy p) {
        int nh = hosts.hosts().size();
        if (p.mapBy.equals("ppr")) {
            int objects = topo.count(p.pprKind);
            long perHostL = (long) p.ppr * objects;
            int perHost = (int) Math.min(Integer.MAX_VALUE, perHostL);
            int want = n > 0 ? n : (int) Math.min(Integer.MAX_VALUE, perHostL * nh);
            if (want > perHostL * nh) {
                throw new MappingException("--map-by ppr:" + p.ppr + ":" + name(p.pprKind) + " places at most "
                        + perHost + " ranks on a host (" + p.ppr + " on each of its " + objects + " "
                        + name(p.pprKind) + "(s)): " + want + " ranks do not fit on " + nh + " host(s)");
            }
            int[] count = new int[nh];
            for (int h = 0, left = want; h < nh; h++) {
                count[h] = Math.min(perHost, left);
                left -= count[h];
                HostList.Host host = hosts.hosts().get(h);
                if (count[h] > host.slots() && !p.oversubscribe) {
                    throw new MappingException("there are not enough slots for " + want + " ranks: --map-by ppr:"
                            + p.ppr + ":" + name(p.pprKind) + " puts " + count[h] + " on " + host.name()
                            + ", which has " + host.slots() + " slot(s) (give more slots, or allow it with"
                            + " --oversubscribe)");
                }
            }
            return count;
        }
        if (p.mapBy.equals("node") && npernode < 1) {
            int want = n > 0 ? n : hosts.totalSlots();
            int[] count = new int[nh];
            int left = want;
            boolean beyondSlots = false;
            while (left > 0) {
                boolean placed = false;
                for (int h = 0; h < nh && left > 0; h++) {
                    HostList.Host host = hosts.hosts().get(h);
                    if (count[h] < (beyondSlots ? host.maxSlots() : host.slots())) {
                        count[h]++;
                        left--;
                        placed = true;
                    }
                }
                if (!placed) {
                    if (beyondSlots || !p.oversubscribe) {
                        throw new MappingException("there are not enough slots for " + want + " ranks: the"
                                + " hosts have " + hosts.totalSlots() + " slots in all" + (beyondSlots
                                ? " and every host is at its max_slots" : " (give more slots with --host NAME:N or"
                                + " slots=N in the hostfile, or allow it with --oversubscribe)"));
                    }
                    beyondSlots = true;
                }
            }
            return count;
        }
        int[] hostOfRank = hosts.map(n, Math.max(0, npernode), p.oversubscribe);
        int[] count = new int[nh];
        for (int h : hostOfRank) {
            count[h]++;
        }
        return count;
    }

    /** The placements of {@code count} ranks on one host, in the order the mapping makes them. */
    private static List<Placement> place(HostList.Host host, int h, Topology topo, int count, Policy p,
            boolean byThread, String binding) {
        Kind target = switch (p.mapBy) {
            case "socket" -> Kind.SOCKET;
            case "numa" -> Kind.NUMA;
            case "ppr" -> p.pprKind;
            default -> Kind.NODE;
        };
        List<int[]> objects = topo.objects(target);
        Kind granule = byThread ? Kind.HWTHREAD : Kind.CORE;
        Map<Integer, Integer> cursor = new HashMap<>();
        List<Placement> out = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            int object = switch (p.mapBy) {
                case "socket", "numa" -> k % objects.size();
                case "ppr" -> k / p.ppr;
                default -> 0;
            };
            List<int[]> granules = granulesOf(topo, objects.get(object), granule);
            if (p.pe > granules.size()) {
                throw new MappingException("PE=" + p.pe + " asks for " + p.pe + " " + name(granule)
                        + "s per rank, but a " + name(target) + " of " + host.name() + " has " + granules.size());
            }
            int at = cursor.getOrDefault(object, 0);
            if (at + p.pe > granules.size()) {
                if (!binding.equals("none") && !p.oversubscribe) {
                    throw new MappingException("binding more ranks than cpus: --bind-to " + binding + " puts "
                            + "more ranks" + (p.pe > 1 ? " of " + p.pe + " " + name(granule) + "s" : "") + " on "
                            + (target == Kind.NODE ? "" : name(target) + " " + object + " of ") + host.name()
                            + " than it has " + name(granule) + "s (" + granules.size() + "); allow it with"
                            + " --oversubscribe, or give --bind-to none");
                }
                at = 0; // oversubscribed, or unbound: the cores are dealt again from the first
            }
            cursor.put(object, at + p.pe);
            TreeSet<Integer> chosen = new TreeSet<>();
            for (int g = at; g < at + p.pe; g++) {
                for (int u : granules.get(g)) {
                    chosen.add(u);
                }
            }
            out.add(new Placement(-1, h, widen(topo, chosen, binding, granule), chosen.first()));
        }
        return out;
    }

    /** The cores (or threads) of an object, each as its units. */
    private static List<int[]> granulesOf(Topology topo, int[] units, Kind granule) {
        Map<Integer, List<Integer>> by = new LinkedHashMap<>();
        for (int u : units) {
            by.computeIfAbsent(topo.objectOf(u, granule), x -> new ArrayList<>()).add(u);
        }
        List<int[]> out = new ArrayList<>();
        by.values().forEach(v -> out.add(v.stream().mapToInt(Integer::intValue).toArray()));
        return out;
    }

    /**
     * The units a rank placed on {@code chosen} (whole {@code granule}s) is bound to under {@code binding}: the objects
     * that hold them, or for {@code hwthread} over whole cores, the first thread of each core.
     */
    private static int[] widen(Topology topo, TreeSet<Integer> chosen, String binding, Kind granule) {
        if (binding.equals("hwthread") && granule == Kind.CORE) {
            TreeMap<Integer, Integer> firstOfCore = new TreeMap<>();
            chosen.forEach(u -> firstOfCore.putIfAbsent(topo.objectOf(u, Kind.CORE), u));
            return firstOfCore.values().stream().mapToInt(Integer::intValue).sorted().toArray();
        }
        Kind to = switch (binding) {
            case "none" -> null;
            case "hwthread" -> Kind.HWTHREAD;
            case "core" -> Kind.CORE;
            case "socket" -> Kind.SOCKET;
            default -> Kind.NUMA;
        };
        if (to == null) {
            return new int[0];
        }
        TreeSet<Integer> objs = new TreeSet<>();
        chosen.forEach(u -> objs.add(topo.objectOf(u, to)));
        TreeSet<Integer> out = new TreeSet<>();
        for (int u = 0; u < topo.size(); u++) {
            if (objs.contains(topo.objectOf(u, to))) {
                out.add(u);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The placements of all hosts in rank order under {@code ranking}. */
    private static List<Placement> rank(List<List<Placement>> perHost, Topology topo, String ranking) {
        List<Placement> out = new ArrayList<>();
        switch (ranking) {
            case "node" -> {
                for (int k = 0, added = -1; added != 0; k++) {
                    added = 0;
                    for (List<Placement> l : perHost) {
                        if (k < l.size()) {
                            out.add(l.get(k));
                            added++;
                        }
                    }
                }
            }
            case "core", "hwthread" -> perHost.forEach(l -> l.stream()
                    .sorted((a, b) -> Integer.compare(a.firstUnit(), b.firstUnit())).forEach(out::add));
            case "socket", "numa" -> {
                Kind kind = ranking.equals("socket") ? Kind.SOCKET : Kind.NUMA;
                for (List<Placement> l : perHost) {
                    Map<Integer, List<Placement>> byObject = new TreeMap<>();
                    l.forEach(q -> byObject.computeIfAbsent(topo.objectOf(q.firstUnit(), kind),
                            x -> new ArrayList<>()).add(q));
                    for (int k = 0, added = -1; added != 0; k++) {
                        added = 0;
                        for (List<Placement> g : byObject.values()) {
                            if (k < g.size()) {
                                out.add(g.get(k));
                                added++;
                            }
                        }
                    }
                }
            }
            default -> perHost.forEach(out::addAll);
        }
        return out;
    }

    /** How many ranks. */
    int size() {
        return byRank.length;
    }

    /** The host index of each rank. */
    int[] hostOfRank() {
        return Arrays.stream(byRank).mapToInt(Placement::host).toArray();
    }

    /** The logical units rank {@code r} is bound to; empty when it is not bound. */
    int[] bound(int r) {
        return byRank[r].bound().clone();
    }

    /** Whether some rank is bound. */
    boolean binds() {
        return Arrays.stream(byRank).anyMatch(q -> q.bound().length > 0);
    }

    /** The {@code jrma.bind.cpus} value of this map: each rank's logical units, {@code ;} between ranks. */
    String bindParam() {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < byRank.length; r++) {
            sb.append(r == 0 ? "" : ";").append(Topology.formatList(byRank[r].bound()));
        }
        return sb.toString();
    }

    /**
     * The job map as Open MPI's {@code --display-map} prints it: each host with its slots and ranks, each rank with
     * its JVM ({@code jvmOfRank}) and binding.
     */
    String display(int[] jvmOfRank) {
        StringBuilder sb = new StringBuilder();
        long slots = 0;
        for (HostList.Host h : hosts) {
            slots += h.slots();
        }
        sb.append(" Data for JOB [jrma] offset 0 Total slots allocated ").append(slots).append("\n\n");
        sb.append(" ========================   JOB MAP   ========================\n");
        for (int h = 0; h < hosts.size(); h++) {
            HostList.Host host = hosts.get(h);
            List<Placement> here = new ArrayList<>();
            for (Placement q : byRank) {
                if (q.host() == h) {
                    here.add(q);
                }
            }
            if (here.isEmpty()) {
                continue;
            }
            sb.append("\n Data for node: ").append(host.name()).append("\tNum slots: ").append(host.slots())
                    .append("\tMax slots: ").append(host.maxSlots() == HostList.NO_MAX ? 0 : host.maxSlots())
                    .append("\tNum procs: ").append(here.size()).append('\n');
            for (Placement q : here) {
                sb.append(" \tProcess rank: ").append(q.rank()).append(" JVM: ").append(jvmOfRank[q.rank()])
                        .append(" Bound: ").append(q.bound().length == 0 ? "N/A"
                                : topo.describe(q.bound()) + ":" + topo.bitmap(q.bound())).append('\n');
            }
        }
        sb.append('\n').append(RULE).append('\n');
        return sb.toString();
    }

    /** The policy this map was made with. */
    Policy policy() {
        return policy;
    }

    private static Kind kind(String what, String v, boolean allowNode) {
        return switch (v) {
            case "hwthread" -> Kind.HWTHREAD;
            case "core" -> Kind.CORE;
            case "socket", "package" -> Kind.SOCKET;
            case "numa" -> Kind.NUMA;
            case "node" -> {
                if (!allowNode) {
                    throw new MappingException(what + " cannot be node");
                }
                yield Kind.NODE;
            }
            default -> throw new MappingException(what + " '" + v + "' is not one of"
                    + " hwthread|core|socket|numa|node");
        };
    }

    private static String name(Kind k) {
        return k.name().toLowerCase(Locale.ROOT);
    }

    private static int count(String what, String v) {
        try {
            int x = Integer.parseInt(v.trim());
            if (x < 1) {
                throw new NumberFormatException();
            }
            return x;
        } catch (NumberFormatException e) {
            throw new MappingException(what + " needs a positive integer, got '" + v + "'");
        }
    }
}

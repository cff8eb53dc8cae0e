package io.jrma.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hosts a job may run on and how many ranks each takes, as Open MPI's {@code mpirun} reads them: {@code --host
 * a,b:4,c} (a host named twice counts twice; {@code :N} gives N slots, 1 without) and {@code --hostfile FILE} (one
 * host a line: {@code node [slots=N] [max_slots=M]}, {@code #} starts a comment, blank lines are skipped). Then the
 * by-slot map: ranks fill the hosts in order, each up to its slots, consecutive ranks on one host; more ranks than
 * slots is an error unless oversubscribing, which spreads the rest evenly over the hosts (first hosts first), never
 * beyond a host's {@code max_slots}.
 *
 * <p>Where Open MPI counts a host's cores for a hostfile line without {@code slots=}, this counts 1: jrmarun does not
 * ask a host anything before it starts the job's JVMs there.
 *
 * <p>Immutable; any thread.
 */
final class HostList {
    /** What a host line or {@code --host} word gives when it says nothing about slots. */
    static final int DEFAULT_SLOTS = 1;
    /** No {@code max_slots}: oversubscribing may place any number of ranks on the host. */
    static final int NO_MAX = Integer.MAX_VALUE;

    /** One host: its name (as the launch agent takes it, {@code user@node} too), slots and max_slots. */
    record Host(String name, int slots, int maxSlots) {
    }

    private final List<Host> hosts;

    private HostList(List<Host> hosts) {
        this.hosts = List.copyOf(hosts);
    }

    /** These hosts, in this order. */
    static HostList of(List<Host> hosts) {
        return new HostList(hosts);
    }

    List<Host> hosts() {
        return hosts;
    }

    int totalSlots() {
        long s = 0;
        for (Host h : hosts) {
            s += h.slots();
        }
        return (int) Math.min(Integer.MAX_VALUE, s);
    }

    /** {@code a,b:4,c}, also given several times ({@code -H a -H b}): each word adds its slots to its host. */
    static HostList ofHostArgs(List<String> args) {
        Map<String, int[]> slots = new LinkedHashMap<>();
        for (String arg : args) {
            for (String word : arg.split(",")) {
                String w = word.trim();
                if (w.isEmpty()) {
                    throw new IllegalArgumentException("--host " + arg + ": an empty host name");
                }
                int colon = w.lastIndexOf(':');
                String name = w;
                int n = DEFAULT_SLOTS;
                if (colon >= 0 && w.indexOf(':') == colon) { // one colon: host:N (an IPv6 address has several)
                    name = w.substring(0, colon);
                    n = count("--host " + w, w.substring(colon + 1), 1);
                }
                if (name.isEmpty()) {
                    throw new IllegalArgumentException("--host " + arg + ": an empty host name");
                }
                slots.computeIfAbsent(name, k -> new int[1])[0] += n;
            }
        }
        List<Host> l = new ArrayList<>();
        slots.forEach((name, s) -> l.add(new Host(name, s[0], NO_MAX)));
        return new HostList(l);
    }

    /** Reads an Open MPI hostfile. */
    static HostList ofHostfile(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the hostfile " + file + ": " + e.getMessage());
        }
        return ofHostfileLines(file.toString(), lines);
    }

    /** Parses the lines of a hostfile named {@code name} (for messages). */
    static HostList ofHostfileLines(String name, List<String> lines) {
        Map<String, Host> byName = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String where = name + ":" + (i + 1);
            String line = lines.get(i);
            int hash = line.indexOf('#');
            if (hash >= 0) {
                line = line.substring(0, hash);
            }
            String[] words = line.trim().split("\\s+");
            if (words.length == 0 || words[0].isEmpty()) {
                continue;
            }
            int slots = -1;
            int max = NO_MAX;
            for (int k = 1; k < words.length; k++) {
                String w = words[k];
                int eq = w.indexOf('=');
                String key = eq < 0 ? w : w.substring(0, eq);
                if (eq < 0) {
                    throw new IllegalArgumentException(where + ": '" + w + "' is not KEY=VALUE (slots=N, max_slots=N)");
                }
                String value = w.substring(eq + 1);
                switch (key) {
                    case "slots", "count", "cpu" -> slots = count(where + ": " + key, value, 1);
                    case "max_slots", "max-slots" -> max = count(where + ": " + key, value, 1);
                    default -> throw new IllegalArgumentException(where + ": unknown keyword '" + key
                            + "' (slots=N, max_slots=N)");
                }
            }
            if (slots < 0) {
                slots = Math.min(DEFAULT_SLOTS, max);
            }
            if (slots > max) {
                throw new IllegalArgumentException(where + ": slots=" + slots + " exceeds max_slots=" + max);
            }
            Host before = byName.get(words[0]);
            if (before != null) { // a host named on several lines: their slots add up, as mpirun counts them
                slots += before.slots();
                max = before.maxSlots() == NO_MAX || max == NO_MAX ? NO_MAX : before.maxSlots() + max;
            }
            byName.put(words[0], new Host(words[0], slots, max));
        }
        if (byName.isEmpty()) {
            throw new IllegalArgumentException("the hostfile " + name + " names no host");
        }
        return new HostList(new ArrayList<>(byName.values()));
    }

    /**
     * The by-slot map of {@code nranks} ranks (or, when {@code nranks < 1}, of one rank per slot, or
     * {@code npernode} per host): the index in {@link #hosts()} of each rank's host.
     *
     * @param npernode ranks per host ({@code -N}), or 0 for the by-slot map
     */
    int[] map(int nranks, int npernode, boolean oversubscribe) {
        int nh = hosts.size();
        int[] count = new int[nh];
        if (npernode > 0) {
            int n = nranks > 0 ? nranks : (int) Math.min(Integer.MAX_VALUE, (long) npernode * nh);
            if (n > (long) npernode * nh) {
                throw new IllegalArgumentException(n + " ranks do not fit " + npernode + " per host on " + nh
                        + " host(s) (-N " + npernode + ")");
            }
            for (int h = 0, left = n; h < nh; h++) {
                count[h] = Math.min(npernode, left);
                left -= count[h];
                Host host = hosts.get(h);
                int limit = oversubscribe ? host.maxSlots() : host.slots();
                if (count[h] > limit) {
                    throw notEnoughSlots(n, host.name() + " has " + limit + (oversubscribe ? " max_slots" : " slots")
                            + " and -N " + npernode + " puts " + count[h] + " ranks there");
                }
            }
        } else {
            int n = nranks > 0 ? nranks : totalSlots();
            int left = n;
            for (int h = 0; h < nh && left > 0; h++) {
                count[h] = Math.min(hosts.get(h).slots(), left);
                left -= count[h];
            }
            if (left > 0 && !oversubscribe) {
                throw notEnoughSlots(n, "the hosts have " + totalSlots() + " slots in all");
            }
            while (left > 0) { // oversubscribed: the rest spread evenly, first hosts first, up to max_slots
                int extra = Math.max(1, left / nh);
                boolean placed = false;
                for (int h = 0; h < nh && left > 0; h++) {
                    int room = hosts.get(h).maxSlots() - count[h];
                    int k = Math.min(Math.min(extra, left), room);
                    if (k > 0) {
                        count[h] += k;
                        left -= k;
                        placed = true;
                    }
                }
                if (!placed) {
                    throw notEnoughSlots(n, "every host is at its max_slots");
                }
            }
        }
        int total = 0;
        for (int c : count) {
            total += c;
        }
        int[] hostOfRank = new int[total];
        for (int h = 0, r = 0; h < nh; h++) {
            for (int k = 0; k < count[h]; k++) {
                hostOfRank[r++] = h;
            }
        }
        return hostOfRank;
    }

    /**
     * The JVM of each rank, given each rank's host: one JVM per host by default; {@code perJvm > 0}: each host's ranks
     * in JVMs of {@code perJvm} consecutive ranks (of that host); {@code jvms > 0}: that many JVMs in all, shared out
     * over the hosts in proportion to their ranks (at least one each, at most one per rank). JVMs are numbered host by
     * host, hosts in the order of their first rank; a JVM never spans hosts. A host's ranks need not be consecutive
     * ({@code --map-by node}, {@code --rank-by node}).
     */
    static int[] jvmMap(int[] hostOfRank, int jvms, int perJvm) {
        int n = hostOfRank.length;
        Map<Integer, List<Integer>> ranksOfHost = new LinkedHashMap<>();
        for (int r = 0; r < n; r++) {
            ranksOfHost.computeIfAbsent(hostOfRank[r], k -> new ArrayList<>()).add(r);
        }
        List<int[]> runs = new ArrayList<>(); // {index in groups, count} of each host's ranks
        List<List<Integer>> groups = new ArrayList<>(ranksOfHost.values());
        for (int g = 0; g < groups.size(); g++) {
            runs.add(new int[] {g, groups.get(g).size()});
        }
        int[] perHost = new int[runs.size()];
        if (perJvm > 0) {
            for (int h = 0; h < perHost.length; h++) {
                perHost[h] = (runs.get(h)[1] + perJvm - 1) / perJvm;
            }
        } else if (jvms > 0) {
            if (jvms < runs.size() || jvms > n) {
                throw new IllegalArgumentException("--jvms " + jvms + " does not fit " + n + " ranks on " + runs.size()
                        + " host(s): give between " + runs.size() + " (one per host) and " + n + " (one per rank)");
            }
            int given = 0;
            for (int h = 0; h < perHost.length; h++) {
                perHost[h] = Math.max(1, (int) ((long) jvms * runs.get(h)[1] / n));
                given += perHost[h];
            }
            while (given < jvms) { // to the host whose JVMs hold the most ranks each
                int best = -1;
                for (int h = 0; h < perHost.length; h++) {
                    if (perHost[h] < runs.get(h)[1] && (best < 0
                            || (long) runs.get(h)[1] * perHost[best] > (long) runs.get(best)[1] * perHost[h])) {
                        best = h;
                    }
                }
                perHost[best]++;
                given++;
            }
            while (given > jvms) { // from the host whose JVMs hold the fewest ranks each
                int best = -1;
                for (int h = 0; h < perHost.length; h++) {
                    if (perHost[h] > 1 && (best < 0
                            || (long) runs.get(h)[1] * perHost[best] < (long) runs.get(best)[1] * perHost[h])) {
                        best = h;
                    }
                }
                perHost[best]--;
                given--;
            }
        } else {
            Arrays.fill(perHost, 1);
        }
        int[] jvmOfRank = new int[n];
        int base = 0;
        for (int h = 0; h < perHost.length; h++) {
            List<Integer> ranks = groups.get(h);
            int count = ranks.size();
            int[] block = JobLauncher.blockMap(count, perHost[h]);
            if (perJvm > 0) {
                for (int k = 0; k < count; k++) {
                    block[k] = k / perJvm;
                }
            }
            for (int k = 0; k < count; k++) {
                jvmOfRank[ranks.get(k)] = base + block[k];
            }
            base += perHost[h];
        }
        return jvmOfRank;
    }

    private static IllegalArgumentException notEnoughSlots(int n, String why) {
        return new IllegalArgumentException("there are not enough slots for " + n + " ranks: " + why
                + " (give more slots with --host NAME:N or slots=N in the hostfile, or allow it with --oversubscribe)");
    }

    private static int count(String what, String v, int min) {
        try {
            int x = Integer.parseInt(v.trim());
            if (x < min) {
                throw new NumberFormatException();
            }
            return x;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " needs a positive integer, got '" + v + "'");
        }
    }
}

package io.jrma.launcher;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Where a job's ranks and JVMs live, as its {@link JobLauncher.Options} give it: the JVM of each rank, the host of
 * each JVM, and whether a JVM runs one rank on its main thread. Pure functions of the options, for the launcher's
 * start-up, its messages and its teardown; any thread may call them.
 */
final class JobLayout {
    private final JobLauncher.Options o;

    /** The layout of {@code o}, whose {@code jvmOfRank} is already set. */
    JobLayout(JobLauncher.Options o) {
        this.o = o;
    }

    /** Whether some JVM of the job runs on another host. */
    boolean acrossHosts() {
        return o.hostOfJvm != null && Arrays.stream(o.hostOfJvm).anyMatch(h -> h != null);
    }

    /** The host JVM {@code j} runs on, or null for this host. */
    String hostOf(int j) {
        return o.hostOfJvm == null ? null : o.hostOfJvm[j];
    }

    /** The ranks of JVM {@code jvm}, in order. */
    List<Integer> ranksOf(int jvm) {
        List<Integer> l = new ArrayList<>();
        for (int r = 0; r < o.nranks; r++) {
            if (o.jvmOfRank[r] == jvm) {
                l.add(r);
            }
        }
        return l;
    }

    /** The ranks of every JVM on {@code host}. */
    List<Integer> ranksOn(String host) {
        List<Integer> l = new ArrayList<>();
        for (int r = 0; r < o.nranks; r++) {
            if (host.equals(hostOf(o.jvmOfRank[r]))) {
                l.add(r);
            }
        }
        return l;
    }

    /**
     * The rank JVM {@code j} runs on its main thread, as the program's {@code main} ({@link MainRankBootstrap}), or
     * -1 when it is a {@link JvmHost} (several ranks as threads, or a shipped rank body).
     */
    int mainRank(int j) {
        if (o.body != null || o.mainClass == null || !o.rankOnMainThread) {
            return -1;
        }
        List<Integer> ranks = ranksOf(j);
        return ranks.size() == 1 ? ranks.get(0) : -1;
    }

    /** The tag of JVM {@code j}'s output lines ({@code [1,RANK]}) when jrmarun tags a JVM of one rank; else null. */
    String outputTag(int j) {
        int mainRank = mainRank(j);
        return o.tagOutput && mainRank >= 0 ? "[1," + mainRank + "]" : null;
    }
}

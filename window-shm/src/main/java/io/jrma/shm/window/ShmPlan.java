package io.jrma.shm.window;

import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import io.jrma.core.os.HostId;
import io.jrma.shm.ShmSegment;
import java.nio.file.Path;

/**
 * Where the ranks of a communicator live, learnt once per window creation, and what follows for the window's
 * memory: when ranks of other JVMs on this host use the window, allocate-flavor memory goes into a shared
 * segment so they reach it by load/store (DESIGN.md: same host, other JVM, memory in shared memory → direct).
 *
 * <p>The steps that exchange data are collective and taken by every rank of the communicator the same number
 * of times, whatever each rank decides, so ranks of different hosts never disagree on the sequence: in a job
 * of one JVM they cost nothing.
 *
 * <p>Immutable; used by the creating thread.
 */
public final class ShmPlan {
    /** Whether the job spans JVMs (then the agreements below are all-gathers). */
    private final boolean collective;
    private final String[] hosts;
    private final int[] jvms;
    private final int me;
    /** Whether the communicator has ranks in more than one JVM. */
    public final boolean spansJvms;
    /** Whether shared segments are allowed (jrma.shm.windows). */
    public final boolean shmAllowed;
    /** Whether this rank puts an allocate window's memory in a shared segment. */
    public final boolean segments;
    /** The directory of the window's segments. */
    public final Path dir;

    private ShmPlan(CommCore comm, boolean shmWindows, String shmDir, String[] hosts) {
        Job job = comm.job();
        this.collective = job.jvmCount() > 1;
        this.hosts = hosts;
        this.me = comm.rank();
        int n = comm.size();
        this.jvms = new int[n];
        boolean spans = false;
        boolean otherJvmHere = false;
        for (int r = 0; r < n; r++) {
            jvms[r] = job.jvmOf(comm.worldRank(r));
            spans |= jvms[r] != job.jvmIndex();
        }
        for (int r = 0; r < n && hosts != null; r++) {
            otherJvmHere |= jvms[r] != jvms[me] && HostId.sameHost(hosts[r], hosts[me]);
        }
        this.spansJvms = spans;
        this.shmAllowed = shmWindows;
        this.segments = shmAllowed && otherJvmHere;
        this.dir = shmDir == null ? null : ShmSegment.directory(shmDir);
    }

    /**
     * Learns the hosts of the communicator's ranks (an all-gather when the job spans JVMs).
     *
     * @param shmWindows whether shared segments are allowed (jrma.shm.windows)
     * @param shmDir the segments' directory as configured (jrma.shm.dir)
     */
    public static ShmPlan of(CommCore comm, boolean shmWindows, String shmDir) {
        if (comm.job().jvmCount() <= 1) {
            return new ShmPlan(comm, shmWindows, shmDir, null);
        }
        Object[] got = comm.allgather(HostId.current());
        String[] hosts = new String[got.length];
        for (int i = 0; i < got.length; i++) {
            hosts[i] = (String) got[i];
        }
        return new ShmPlan(comm, shmWindows, shmDir, hosts);
    }

    /** A plan without shared segments and without communication (create and dynamic windows). */
    public static ShmPlan none(CommCore comm) {
        return new ShmPlan(comm, false, null, null);
    }

    /** The host of rank {@code r} of the communicator (known when the job spans JVMs). */
    public String host(int r) {
        return hosts != null ? hosts[r] : HostId.current();
    }

    /** This rank's host. */
    public String myHost() {
        return hosts != null ? hosts[me] : HostId.current();
    }

    /** The first rank on another host than this rank, or -1. */
    public int firstOffHost() {
        for (int r = 0; hosts != null && r < hosts.length; r++) {
            if (jvms[r] != jvms[me] && !HostId.sameHost(hosts[r], hosts[me])) {
                return r;
            }
        }
        return -1;
    }

    /**
     * Tells every rank whether some rank failed a local step: returns the first rank's error message, or
     * null when none failed. An all-gather when the job spans JVMs; otherwise only this rank's own error.
     */
    public String agree(CommCore comm, String error) {
        if (!collective) {
            return error;
        }
        for (Object e : comm.allgather(error)) {
            if (e != null) {
                return (String) e;
            }
        }
        return null;
    }

    /** {@link #agree} for a rank that did not fail. */
    public void agreeNoError(CommCore comm) {
        agree(comm, null);
    }
}

package io.jrma.core.runtime;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.Group;
import io.jrma.Jrma;
import io.jrma.RmaException;
import io.jrma.core.config.Params;
import io.jrma.core.os.HostId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A communicator of a job's ranks. Each member holds its own instance. When every member is a thread of this
 * JVM, the members share one {@link CollectiveState}; otherwise control-plane all-gathers go through the job's
 * {@link ControlPlane}, numbered by a per-member call counter (members call collectives in the same order).
 *
 * <p>Owned by one rank (see {@link Comm}).
 */
public final class LocalComm implements CommCore {
    private final Job job;
    private final int[] worldRanks;
    private final int rank;
    private final int contextId;
    private final CollectiveState coll;
    private final Group group;
    private volatile String name;
    private final boolean spansJvms;
    private long ctrlSeq;
    private boolean freed;
    private final Map<String, Integer> groupCalls = new HashMap<>();

    public LocalComm(Job job, int[] worldRanks, int rank, int contextId, CollectiveState coll, String name) {
        this.job = job;
        this.worldRanks = worldRanks;
        this.rank = rank;
        this.contextId = contextId;
        this.coll = coll;
        this.group = new Group(worldRanks, worldRanks[rank]);
        this.name = name;
        boolean remote = false;
        for (int w : worldRanks) {
            remote |= !job.isLocal(w);
        }
        this.spansJvms = remote;
    }

    /** The world communicator of {@code rank}; all ranks pass the same {@code coll}. */
    public static LocalComm world(Job job, int rank, CollectiveState coll) {
        int[] w = new int[job.size()];
        Arrays.setAll(w, i -> i);
        return new LocalComm(job, w, rank, 0, coll, "WORLD");
    }

    @Override
    public Job job() {
        return job;
    }

    @Override
    public int[] worldRanks() {
        return worldRanks.clone();
    }

    @Override
    public int contextId() {
        return contextId;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return worldRanks.length;
    }

    @Override
    public Group group() {
        return group;
    }

    @Override
    public int worldRank(int r) {
        if (r < 0 || r >= worldRanks.length) {
            throw new RmaException(ErrorClass.ERR_RANK, "rank " + r + " is not in communicator " + name
                    + " of size " + worldRanks.length);
        }
        return worldRanks[r];
    }

    @Override
    public Object[] allgather(Object mine) {
        checkUsable();
        job.checkAborted();
        long seq = ++ctrlSeq;
        return spansJvms ? job.controlPlane().allgather(contextId, seq, worldRanks, rank, mine)
                : coll.allgather(job, rank, mine);
    }

    @Override
    public void barrier() {
        allgather(null);
    }

    @Override
    public Comm split(int color, int key) {
        if (color < 0 && color != Group.UNDEFINED) {
            throw new RmaException(ErrorClass.ERR_ARG, "split color must be >= 0 or UNDEFINED, got " + color);
        }
        Object[] all = allgather(new int[] {color, key, rank, job.newObjectId()});
        if (color == Group.UNDEFINED) {
            allgather(null);
            return null;
        }
        List<int[]> members = new ArrayList<>();
        for (Object o : all) {
            int[] t = (int[]) o;
            if (t[0] == color) {
                members.add(t);
            }
        }
        members.sort((a, b) -> a[1] != b[1] ? Integer.compare(a[1], b[1]) : Integer.compare(a[2], b[2]));
        int[] w = new int[members.size()];
        int myRank = -1;
        for (int i = 0; i < w.length; i++) {
            w[i] = worldRanks[members.get(i)[2]];
            if (members.get(i)[2] == rank) {
                myRank = i;
            }
        }
        return derived(members.get(0)[3], w, myRank, name + ".split(" + color + ")");
    }

    @Override
    public Comm splitShared(int key) {
        // the ranks of one host, or of one JVM when windows may not share memory between JVMs (or the host is
        // unknown); the colour is the first comm rank of the same place, so every member computes the same one
        boolean acrossJvms = "true".equals(job.param(Params.SHM_WINDOWS));
        String host = HostId.current();
        String place = acrossJvms && !host.isEmpty() ? host : host + "#" + job.jvmIndex();
        Object[] all = allgather(place);
        int colour = 0;
        while (!place.equals(all[colour])) {
            colour++;
        }
        return split(colour, key);
    }

    @Override
    public Comm create(Group g) {
        for (int i = 0; i < g.size(); i++) {
            if (group.indexOfWorld(g.worldRank(i)) == Group.UNDEFINED) {
                throw new RmaException(ErrorClass.ERR_GROUP, "Comm.create: world rank " + g.worldRank(i)
                        + " is not a member of " + name);
            }
        }
        Object[] proposals = allgather(job.newObjectId());
        int myRank = g.indexOfWorld(worldRanks[rank]);
        if (myRank == Group.UNDEFINED) {
            allgather(null);
            return null;
        }
        int ctx = g.size() == 0 ? 0 : (Integer) proposals[group.indexOfWorld(g.worldRank(0))];
        return derived(ctx, g.worldRanks(), myRank, name + ".create");
    }

    @Override
    public Comm dup() {
        Object[] proposals = allgather(job.newObjectId());
        return derived((Integer) proposals[0], worldRanks, rank, name + ".dup");
    }

    /**
     * A communicator of the members of {@code g}, a subgroup of this communicator's group, made by those members
     * alone (MPI_Comm_create_group): only they call it, the other ranks of this communicator take no part.
     * Returns null to a caller outside {@code g}.
     *
     * <p>The members agree on the new context id through a control-plane all-gather of their own. It is named
     * by this communicator's context id and a negative sequence number (the communicator's own collectives use
     * positive ones) hashed from the group's world ranks, {@code tag} and how many times this member has made
     * that group with that tag before: members of one group count the same calls, so they meet, and calls that
     * may run at the same time differ in group or, as MPI requires for overlapping groups, in tag.
     *
     * @throws RmaException ERR_GROUP if {@code g} has a rank outside this communicator
     */
    public Comm createGroup(Group g, int tag) {
        checkUsable();
        job.checkAborted();
        for (int i = 0; i < g.size(); i++) {
            if (group.indexOfWorld(g.worldRank(i)) == Group.UNDEFINED) {
                throw new RmaException(ErrorClass.ERR_GROUP, "Comm.createGroup: world rank " + g.worldRank(i)
                        + " is not a member of " + name);
            }
        }
        int myRank = g.indexOfWorld(worldRanks[rank]);
        if (myRank == Group.UNDEFINED) {
            return null;
        }
        int[] w = g.worldRanks();
        String callKey = tag + ":" + Arrays.toString(w);
        int occurrence;
        synchronized (groupCalls) {
            occurrence = groupCalls.merge(callKey, 1, Integer::sum);
        }
        long h = 0xcbf29ce484222325L;
        for (int x : w) {
            h = (h ^ x) * 0x100000001b3L;
        }
        h = (h ^ tag) * 0x100000001b3L;
        h = (h ^ occurrence) * 0x100000001b3L;
        long seq = h | Long.MIN_VALUE;
        Object[] proposals = job.controlPlane().allgather(contextId, seq, w, myRank, job.newObjectId());
        int ctx = (Integer) proposals[0];
        String key = "comm:" + ctx;
        CollectiveState state = (CollectiveState) job.shared().computeIfAbsent(key, k -> new CollectiveState(w.length));
        LocalComm c = new LocalComm(job, w, myRank, ctx, state, name + ".createGroup");
        c.allgather(null); // every member has looked the state up: it can be forgotten
        job.shared().remove(key, state);
        return c;
    }

    /**
     * Builds the new communicator with context id {@code ctx} (a job-unique id proposed by one member and agreed
     * through the all-gather that preceded). Members in this JVM find their shared state under that id.
     */
    private Comm derived(int ctx, int[] w, int myRank, String newName) {
        String key = "comm:" + ctx;
        CollectiveState state = (CollectiveState) job.shared().computeIfAbsent(key, k -> new CollectiveState(w.length));
        allgather(null); // every member has looked the state up: it can be forgotten
        job.shared().remove(key, state);
        return new LocalComm(job, w, myRank, ctx, state, newName);
    }

    @Override
    public void free() {
        barrier();
        freed = true;
    }

    private void checkUsable() {
        if (freed) {
            throw new RmaException(ErrorClass.ERR_COMM, "communicator " + name + " was freed");
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void setName(String name) {
        this.name = name;
    }

    @Override
    public void abort(int code) {
        Jrma.AbortException e = new Jrma.AbortException(worldRanks[rank], code,
                "rank " + worldRanks[rank] + " called abort(" + code + ") on " + name);
        // the other ranks fail with ERR_PROC_ABORTED (secondary failures); this rank's own exception carries the code
        job.abort(ErrorClass.ERR_PROC_ABORTED,
                e.getMessage().substring(ErrorClass.ERR_PROC_ABORTED.name().length() + 2), e);
        throw e;
    }

    @Override
    public String toString() {
        return "Comm[" + name + ", rank " + rank + " of " + worldRanks.length + "]";
    }
}

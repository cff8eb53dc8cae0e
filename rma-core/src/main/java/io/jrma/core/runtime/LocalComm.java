package io.jrma.core.runtime;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.Group;
import io.jrma.RmaException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A communicator whose members are threads of this JVM. Each member holds its own instance; the members
 * share one {@link CollectiveState}.
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
    private long collectiveSeq;
    private boolean freed;

    public LocalComm(Job job, int[] worldRanks, int rank, int contextId, CollectiveState coll, String name) {
        this.job = job;
        this.worldRanks = worldRanks;
        this.rank = rank;
        this.contextId = contextId;
        this.coll = coll;
        this.group = new Group(worldRanks, worldRanks[rank]);
        this.name = name;
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
        return coll.allgather(job, rank, mine);
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
        long seq = ++collectiveSeq;
        Object[] all = allgather(new int[] {color, key, rank});
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
        return derived(seq, "split" + color, w, myRank, name + ".split(" + color + ")");
    }

    @Override
    public Comm create(Group g) {
        long seq = ++collectiveSeq;
        for (int i = 0; i < g.size(); i++) {
            if (group.indexOfWorld(g.worldRank(i)) == Group.UNDEFINED) {
                throw new RmaException(ErrorClass.ERR_GROUP, "Comm.create: world rank " + g.worldRank(i)
                        + " is not a member of " + name);
            }
        }
        allgather(null);
        int myRank = g.indexOfWorld(worldRanks[rank]);
        if (myRank == Group.UNDEFINED) {
            allgather(null);
            return null;
        }
        return derived(seq, "create", g.worldRanks(), myRank, name + ".create");
    }

    @Override
    public Comm dup() {
        long seq = ++collectiveSeq;
        allgather(null);
        return derived(seq, "dup", worldRanks, rank, name + ".dup");
    }

    /** Builds the new communicator; its shared state is found by a key all members compute alike. */
    private Comm derived(long seq, String kind, int[] w, int myRank, String newName) {
        String key = "comm:" + contextId + ":" + seq + ":" + kind + ":" + w[0];
        CollectiveState state = (CollectiveState) job.shared().computeIfAbsent(key, k -> new CollectiveState(w.length));
        int ctx = (Integer) job.shared().computeIfAbsent(key + ":ctx", k -> job.newObjectId());
        allgather(null); // everyone has looked the state up: it can be forgotten
        if (rank == 0) {
            job.shared().keySet().removeIf(k -> k.startsWith("comm:" + contextId + ":" + seq + ":"));
        }
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
        job.abort(ErrorClass.ERR_OTHER, "rank " + worldRanks[rank] + " called abort(" + code + ") on " + name, null);
        throw job.abortReason();
    }

    @Override
    public String toString() {
        return "Comm[" + name + ", rank " + rank + " of " + worldRanks.length + "]";
    }
}

package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.msg.Messenger;
import io.jrma.msg.MsgRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * The topology of a communicator (Cartesian, graph or distributed graph) as the neighborhood collectives see
 * it: this rank's in-neighbors ({@link #sources}) and out-neighbors ({@link #dests}) in MPI's order, and a
 * messenger of its own (on a private duplicate of the communicator) so neighbor messages never meet the
 * program's own. A message to out-neighbor k carries tag {@code sendTags[k]}; in-neighbor l's message is the one
 * with tag {@code recvTags[l]}. In a Cartesian topology the tag is the direction, so what a rank sends to its
 * neighbor below in dimension d arrives in that neighbor's slot for "above in d" even when both neighbors are
 * the same rank (a periodic dimension of 2); in a graph it counts repeated edges to the same rank.
 *
 * <p>Owned by its communicator's rank.
 */
final class Topo {
    final int kind;
    final int[] sources;
    final int[] dests;
    private final int[] sendTags;
    private final int[] recvTags;
    private final io.jrma.Comm privateComm;
    private final Messenger nm;

    /** Sets up the neighbor messenger: collective over {@code c}. */
    Topo(io.jrma.Comm c, int kind, int[] sources, int[] dests, int[] sendTags, int[] recvTags) {
        this.kind = kind;
        this.sources = sources;
        this.dests = dests;
        this.sendTags = sendTags;
        this.recvTags = recvTags;
        this.privateComm = c.dup();
        this.nm = Messenger.create(privateComm);
    }

    /** Tags that count earlier occurrences of the same rank in the list (graph topologies). */
    static int[] occurrences(int[] ranks) {
        int[] tags = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            for (int j = 0; j < i; j++) {
                if (ranks[j] == ranks[i]) {
                    tags[i]++;
                }
            }
        }
        return tags;
    }

    void free() {
        nm.free();
        privateComm.free();
    }

    private static long blockOffset(int[] counts, int[] displs, int k) {
        if (displs != null) {
            return displs[k];
        }
        return (long) k * counts[0];
    }

    private static int blockCount(int[] counts, int k) {
        return counts.length == 1 ? counts[0] : counts[k];
    }

    private static void checkLen(int[] a, int n, String what) {
        if (a != null && a.length != 1 && a.length < n) {
            throw new RmaException(ErrorClass.ERR_ARG, what + " needs " + n + " entries, has " + a.length);
        }
    }

    /** Sends the same block to every out-neighbor; in-neighbor l's block lands at slot l (or {@code displs[l]}). */
    void allGather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcounts, int[] displs,
                   Datatype recvtype) {
        checkLen(recvcounts, sources.length, "recvcounts");
        checkLen(displs, sources.length, "displs");
        Bufs.Msg s = Comm.b(sendbuf, sendtype);
        Bufs.Msg r = Comm.b(recvbuf, recvtype);
        List<MsgRequest> reqs = new ArrayList<>();
        for (int l = 0; l < sources.length; l++) {
            if (sources[l] != MPI.PROC_NULL) {
                reqs.add(nm.irecv(r.obj, r.off + blockOffset(recvcounts, displs, l), blockCount(recvcounts, l),
                        Datatype.jt(recvtype), sources[l], recvTags[l]));
            }
        }
        for (int k = 0; k < dests.length; k++) {
            if (dests[k] != MPI.PROC_NULL) {
                reqs.add(nm.isend(s.obj, s.off, sendcount, Datatype.jt(sendtype), dests[k], sendTags[k]));
            }
        }
        MsgRequest.waitAll(reqs.toArray(new MsgRequest[0]));
        r.done();
    }

    /** Sends block k to out-neighbor k; in-neighbor l's block lands at slot l. */
    void allToAll(Object sendbuf, int[] sendcounts, int[] sdispls, Datatype sendtype, Object recvbuf, int[] recvcounts,
                  int[] rdispls, Datatype recvtype) {
        checkLen(sendcounts, dests.length, "sendcounts");
        checkLen(sdispls, dests.length, "sdispls");
        checkLen(recvcounts, sources.length, "recvcounts");
        checkLen(rdispls, sources.length, "rdispls");
        Bufs.Msg s = Comm.b(sendbuf, sendtype);
        Bufs.Msg r = Comm.b(recvbuf, recvtype);
        List<MsgRequest> reqs = new ArrayList<>();
        for (int l = 0; l < sources.length; l++) {
            if (sources[l] != MPI.PROC_NULL) {
                reqs.add(nm.irecv(r.obj, r.off + blockOffset(recvcounts, rdispls, l), blockCount(recvcounts, l),
                        Datatype.jt(recvtype), sources[l], recvTags[l]));
            }
        }
        for (int k = 0; k < dests.length; k++) {
            if (dests[k] != MPI.PROC_NULL) {
                reqs.add(nm.isend(s.obj, s.off + blockOffset(sendcounts, sdispls, k), blockCount(sendcounts, k),
                        Datatype.jt(sendtype), dests[k], sendTags[k]));
            }
        }
        MsgRequest.waitAll(reqs.toArray(new MsgRequest[0]));
        r.done();
    }
}

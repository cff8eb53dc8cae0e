package io.jrma.soak;

import static io.jrma.soak.SoakRank.CHECKS;
import static io.jrma.soak.SoakRank.COLLS;
import static io.jrma.soak.SoakRank.MSGS;

import io.jrma.Datatype;
import io.jrma.Op;
import io.jrma.msg.Collectives;
import io.jrma.msg.Messenger;
import io.jrma.msg.MsgRequest;
import io.jrma.msg.Status;
import io.jrma.soak.Plan.Msg;
import java.util.ArrayList;
import java.util.List;

/**
 * The two-sided traffic between a soak round's epochs: the plan's point-to-point messages (blocking, nonblocking,
 * synchronous, some from any source) with their content and status checked, then a broadcast, a scan and an
 * allreduce. Run by the rank's thread of one {@link SoakRound}.
 */
final class SoakMessages {
    private final SoakRank rank;
    private final Plan plan;
    private final Messenger msg;
    private final Collectives coll;
    private final int me;
    private final int n;
    private final int round;

    SoakMessages(SoakRank rank, Plan plan) {
        this.rank = rank;
        this.plan = plan;
        msg = rank.msg;
        coll = rank.coll;
        me = rank.me;
        n = rank.n;
        round = rank.round;
    }

    private void inc(int i) {
        rank.inc(i);
    }

    private void add(int i, long v) {
        rank.add(i, v);
    }

    private void fail(String what) {
        rank.fail(what);
    }

    private static long word(long seed, int round, int msg, int i) {
        return Model.mix(seed ^ ((long) round << 40) ^ ((long) msg << 24) ^ i);
    }

    /** Sends and receives the round's messages, checks them, then the round's collectives. */
    void run() {
        long s = plan.seed;
        List<MsgRequest> recvs = new ArrayList<>();
        List<long[]> bufs = new ArrayList<>();
        List<Msg> in = new ArrayList<>();
        for (Msg m : plan.msgs) {
            if (m.dst == me) {
                long[] b = new long[m.longs];
                recvs.add(msg.irecv(b, 0, m.longs, Datatype.LONG, m.anySource ? Messenger.ANY_SOURCE : m.src, m.tag));
                bufs.add(b);
                in.add(m);
            }
        }
        List<MsgRequest> sends = new ArrayList<>();
        for (Msg m : plan.msgs) {
            if (m.src != me) {
                continue;
            }
            long[] b = new long[m.longs];
            for (int i = 0; i < m.longs; i++) {
                b[i] = word(s, round, m.index, i);
            }
            inc(MSGS);
            switch (m.how) {
                case 0: msg.send(b, 0, m.longs, Datatype.LONG, m.dst, m.tag); break;
                case 1: sends.add(msg.isend(b, 0, m.longs, Datatype.LONG, m.dst, m.tag)); break;
                case 2: msg.ssend(b, 0, m.longs, Datatype.LONG, m.dst, m.tag); break;
                default: sends.add(msg.issend(b, 0, m.longs, Datatype.LONG, m.dst, m.tag)); break;
            }
        }
        for (int k = 0; k < recvs.size(); k++) {
            Status st = recvs.get(k).waitFor();
            Msg m = in.get(k);
            inc(CHECKS);
            if (st.source() != m.src || st.tag() != m.tag || st.count() != m.longs) {
                fail("message " + m.index + " from rank " + m.src + " tag " + m.tag + ": status says source "
                        + st.source() + " tag " + st.tag() + " count " + st.count() + ", expected " + m.longs);
            }
            long[] b = bufs.get(k);
            for (int i = 0; i < m.longs; i++) {
                if (b[i] != word(s, round, m.index, i)) {
                    fail("message " + m.index + " from rank " + m.src + " (" + m.longs + " longs): element " + i
                            + " is " + b[i] + ", expected " + word(s, round, m.index, i));
                }
            }
        }
        MsgRequest.waitAll(sends.toArray(new MsgRequest[0]));
        // collectives: a broadcast from a round-chosen root, a scan, and an allreduce of what the plan says was done
        int root = (int) Math.floorMod(s + round, (long) n);
        long[] bc = new long[5];
        if (me == root) {
            for (int i = 0; i < bc.length; i++) {
                bc[i] = word(s, round, -1, i);
            }
        }
        coll.bcast(bc, 0, bc.length, Datatype.LONG, root);
        long[] scan = new long[1];
        coll.scan(new long[] {me + 1}, 0, scan, 0, 1, Datatype.LONG, Op.SUM);
        long[] ops = new long[1];
        coll.allreduce(new long[] {plan.ops.get(me).size()}, 0, ops, 0, 1, Datatype.LONG, Op.SUM);
        add(COLLS, 3);
        for (int i = 0; i < bc.length; i++) {
            inc(CHECKS);
            if (bc[i] != word(s, round, -1, i)) {
                fail("bcast from rank " + root + ": element " + i + " is " + bc[i]);
            }
        }
        add(CHECKS, 2);
        if (scan[0] != (long) (me + 1) * (me + 2) / 2) {
            fail("scan of rank+1 gives " + scan[0]);
        }
        if (ops[0] != plan.total) {
            fail("allreduce of the round's operation counts gives " + ops[0] + ", the plan has " + plan.total);
        }
    }
}

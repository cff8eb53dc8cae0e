package io.jrma.soak;

import static io.jrma.soak.Operands.basic;
import static io.jrma.soak.Operands.originSide;
import static io.jrma.soak.Operands.targetType;
import static io.jrma.soak.SoakRank.RMA;
import static io.jrma.soak.SoakRank.SYNC;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Flavor;
import io.jrma.Group;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Request;
import io.jrma.Win;
import io.jrma.soak.Operands.Target;
import io.jrma.soak.Plan.Mode;
import io.jrma.soak.Plan.RmaOp;
import io.jrma.soak.Plan.What;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.TreeSet;

/**
 * One round of a soak window: the round's {@link Plan}, its operations issued under the plan's synchronization mode
 * (fence, post-start-complete-wait, lock_all, one lock per target), the model advanced by what the round must have
 * done, then the {@link RoundChecks} and the {@link SoakMessages} between the epochs. Made and run by the rank's
 * thread ({@link SoakRank}); in a threaded lock_all round a second thread of the rank issues half the operations.
 */
final class SoakRound {
    private final SoakRank rank;
    private final Win win;
    private final Flavor flavor;
    private final int dispUnit;
    private final long[] bases;
    private final ByteBuffer mine;
    private final Model model;
    private final Comm comm;
    private final int me;
    private final int n;
    private final int round;
    private final int windowNo;
    private final Plan plan;
    private final RoundChecks checks;

    SoakRound(SoakRank rank, Win win, Flavor flavor, int dispUnit, long[] bases, ByteBuffer mine, Model model) {
        this.rank = rank;
        this.win = win;
        this.flavor = flavor;
        this.dispUnit = dispUnit;
        this.bases = bases;
        this.mine = mine;
        this.model = model;
        comm = rank.comm;
        me = rank.me;
        n = rank.n;
        round = rank.round;
        windowNo = rank.windowNo;
        SoakRank.Config cfg = rank.cfg;
        plan = new Plan(n, cfg.seed() ^ Model.mix(windowNo), round, model, cfg.maxOps(), cfg.maxMsgs(),
                cfg.bigMessages());
        checks = new RoundChecks(rank, plan);
    }

    private void inc(int i) {
        rank.inc(i);
    }

    /** A result buffer of an operation and what the checks need of it. */
    static final class Pending {
        final RmaOp op;
        final Object result; // the array or ByteBuffer the results land in
        Request request;
        boolean checked;

        Pending(RmaOp op, Object result) {
            this.op = op;
            this.result = result;
        }
    }

    /** Runs the round: its epochs, then the checks and the two-sided traffic; throws a SoakFailure on a mismatch. */
    void run() {
        rank.where = "window " + windowNo + " (" + flavor + ", disp_unit " + dispUnit + ") round " + round
                + " mode " + plan.mode;
        // the model's outcome of the round, except CAS winners and who drew which ticket
        long[][] before = new long[n][];
        for (int t = 0; t < n; t++) {
            before[t] = model.mem[t].clone();
        }
        applyDeterministic(plan, model);
        List<RmaOp> my = plan.ops.get(me);
        List<Pending> pending = new ArrayList<>();
        Target tgt = new Target(dispUnit, bases, flavor);
        switch (plan.mode) {
            case FENCE: {
                win.fence(plan.openNoPrecede ? Win.MODE_NOPRECEDE : 0);
                inc(SYNC);
                int i = 0;
                for (RmaOp op : my) {
                    if (i++ == plan.middleFenceAt) {
                        waitLate(pending);
                        win.fence(0);
                        inc(SYNC);
                    }
                    pending.add(issue(win, op, tgt));
                }
                if (plan.middleFenceAt >= my.size()) {
                    waitLate(pending);
                    win.fence(0);
                    inc(SYNC);
                }
                waitLate(pending);
                win.fence(Win.MODE_NOSUCCEED);
                inc(SYNC);
                break;
            }
            case PSCW: {
                TreeSet<Integer> origins = new TreeSet<>();
                TreeSet<Integer> targets = new TreeSet<>();
                for (List<RmaOp> l : plan.ops) {
                    for (RmaOp op : l) {
                        if (op.target == me) {
                            origins.add(op.origin);
                        }
                        if (op.origin == me) {
                            targets.add(op.target);
                        }
                    }
                }
                Group g = comm.group();
                if (!origins.isEmpty()) {
                    win.post(g.incl(origins.stream().mapToInt(Integer::intValue).toArray()), 0);
                    inc(SYNC);
                }
                if (!targets.isEmpty()) {
                    win.start(g.incl(targets.stream().mapToInt(Integer::intValue).toArray()), 0);
                    inc(SYNC);
                    for (RmaOp op : my) {
                        pending.add(issue(win, op, tgt));
                    }
                    waitLate(pending);
                    win.complete();
                    inc(SYNC);
                }
                if (!origins.isEmpty()) {
                    if ((round & 1) == 0) {
                        win.waitFor();
                    } else {
                        while (!win.test()) {
                            Thread.onSpinWait();
                        }
                    }
                    inc(SYNC);
                }
                break;
            }
            case LOCK_ALL: {
                win.lockAll(0);
                inc(SYNC);
                if (plan.threaded) {
                    // two threads of this rank issue and flush at once, each the ops to its targets (even, odd)
                    List<Pending> even = Collections.synchronizedList(new ArrayList<>());
                    List<Pending> odd = new ArrayList<>();
                    Throwable[] failed = new Throwable[1];
                    Thread helper = new Thread(() -> {
                        try {
                            issueAll(win, my, 1, odd, tgt, before, model);
                        } catch (Throwable e) {
                            failed[0] = e;
                        }
                    }, "soak-rank-" + me + "-helper");
                    helper.start();
                    issueAll(win, my, 0, even, tgt, before, model);
                    try {
                        helper.join();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                    if (failed[0] instanceof RuntimeException re) {
                        throw re;
                    } else if (failed[0] instanceof Error er) {
                        throw er;
                    }
                    pending.addAll(even);
                    pending.addAll(odd);
                } else {
                    issueAll(win, my, -1, pending, tgt, before, model);
                }
                win.unlockAll();
                inc(SYNC);
                break;
            }
            default: { // one lock at a time, per target, in the order the plan first names them
                LinkedHashSet<Integer> order = new LinkedHashSet<>();
                for (RmaOp op : my) {
                    order.add(op.target);
                }
                for (int t : order) {
                    LockType type = plan.mode == Mode.LOCK_EXCLUSIVE ? LockType.EXCLUSIVE
                            : plan.mode == Mode.LOCK_SHARED ? LockType.SHARED
                            : ((t + round) & 1) == 0 ? LockType.EXCLUSIVE : LockType.SHARED;
                    win.lock(type, t, 0);
                    inc(SYNC);
                    List<Pending> mineToT = new ArrayList<>();
                    for (RmaOp op : my) {
                        if (op.target == t) {
                            Pending p = issue(win, op, tgt);
                            pending.add(p);
                            mineToT.add(p);
                            after(win, op, mineToT, before, model);
                        }
                    }
                    waitLate(mineToT);
                    win.unlock(t);
                    inc(SYNC);
                }
                break;
            }
        }
        // every epoch is closed: every local result is in
        for (Pending p : pending) {
            if (!p.checked) {
                checks.checkLocal(p, before, model);
            }
        }
        comm.barrier();
        checks.checkTicketsAndCas( pending, before, model);
        win.sync();
        checks.checkMemory(win, flavor, mine, model);
        new SoakMessages(rank, plan).run();
        comm.barrier();
    }

    /**
     * Issues the ops to targets of the given parity (-1: all), each followed by its synchronization; waits for
     * requests.
     */
    private void issueAll(Win win, List<RmaOp> my, int parity, List<Pending> into, Target tgt,
            long[][] before, Model model) {
        for (RmaOp op : my) {
            if (parity < 0 || (op.target & 1) == parity) {
                into.add(issue(win, op, tgt));
                after(win, op, into, before, model);
            }
        }
        waitLate(into);
    }

    /** The passive-mode synchronization the plan puts after an op (flushes check the results they complete). */
    private void after(Win win, RmaOp op, List<Pending> pending, long[][] before, Model model) {
        switch (op.after) {
            case Plan.AFTER_FLUSH:
                win.flush(op.target);
                completeTo(pending, op.target, before, model);
                break;
            case Plan.AFTER_FLUSH_LOCAL:
                win.flushLocal(op.target);
                completeTo(pending, op.target, before, model);
                break;
            case Plan.AFTER_FLUSH_ALL:
                win.flushAll();
                completeTo(pending, ALL_TARGETS, before, model);
                break;
            case Plan.AFTER_FLUSH_LOCAL_ALL:
                win.flushLocalAll();
                completeTo(pending, ALL_TARGETS, before, model);
                break;
            case Plan.AFTER_SYNC:
                win.sync();
                break;
            default:
                return;
        }
        inc(SYNC);
    }

    private static final int ALL_TARGETS = Integer.MIN_VALUE;

    /**
     * After a flush: the results of the ops to {@code target} (PROC_NULL: those on it; or ALL_TARGETS) issued so far
     * are in.
     */
    private void completeTo(List<Pending> pending, int target, long[][] before, Model model) {
        for (Pending p : pending) {
            if (!p.checked && (target == ALL_TARGETS || p.op.target == target)) {
                if (p.request != null) {
                    p.request.waitFor();
                    p.request = null;
                }
                checks.checkLocal(p, before, model);
            }
        }
    }

    private void waitLate(List<Pending> pending) {
        for (Pending p : pending) {
            if (p.request != null) {
                p.request.waitFor();
                p.request = null;
            }
        }
    }

    private Pending issue(Win win, RmaOp op, Target tgt) {
        inc(RMA);
        rank.lastOp = op.toString();
        long disp = tgt.disp(op.target, op.cell);
        Object[] ts = targetType(op);
        long tc = (Long) ts[0];
        Datatype tt = (Datatype) ts[1];
        switch (op.what) {
            case PUT: case ACC_REPLACE: case ACC: {
                Object[] os = originSide(op, op.values);
                if (op.what == What.PUT) {
                    win.put(os[0], (Long) os[1], (Datatype) os[2], op.target, disp, tc, tt);
                } else {
                    win.accumulate(os[0], (Long) os[1], (Datatype) os[2], op.target, disp, tc, tt, op.op);
                }
                return done(op, null);
            }
            case RPUT: case RACC_REPLACE: case RACC: {
                Object[] os = originSide(op, op.values);
                Pending p = new Pending(op, null);
                p.request = op.what == What.RPUT
                        ? win.rput(os[0], (Long) os[1], (Datatype) os[2], op.target, disp, tc, tt)
                        : win.raccumulate(os[0], (Long) os[1], (Datatype) os[2], op.target, disp, tc, tt, op.op);
                return early(p);
            }
            case GET: case RGET: case GET_FLUSHED: {
                Object[] rs = originSide(op, null);
                Pending p = new Pending(op, rs[0]);
                if (op.what != What.RGET) {
                    win.get(rs[0], (Long) rs[1], (Datatype) rs[2], op.target, disp, tc, tt);
                } else {
                    p.request = win.rget(rs[0], (Long) rs[1], (Datatype) rs[2], op.target, disp, tc, tt);
                }
                return early(p);
            }
            case GACC_REPLACE: case GACC_NOOP_READ: case GACC: case RGACC: case TICKET_GACC: case TICKET_RGACC: {
                Object[] os = op.values == null ? new Object[] {null, 0L, basic(op.kind)} : originSide(op, op.values);
                Object[] rs = originSide(op, null);
                Pending p = new Pending(op, rs[0]);
                if (op.what == What.RGACC || op.what == What.TICKET_RGACC) {
                    p.request = win.rgetAccumulate(os[0], (Long) os[1], (Datatype) os[2], rs[0], (Long) rs[1],
                            (Datatype) rs[2], op.target, disp, tc, tt, op.op);
                } else {
                    win.getAccumulate(os[0], (Long) os[1], (Datatype) os[2], rs[0], (Long) rs[1], (Datatype) rs[2],
                            op.target, disp, tc, tt, op.op);
                }
                return early(p);
            }
            case FOP: case FOP_NOOP: case TICKET_FOP: case CAS_READ: {
                Object[] os = originSide(op, op.values == null ? new long[] {0} : op.values);
                Object[] rs = originSide(op, null);
                win.fetchAndOp(os[0], rs[0], basic(op.kind), op.target, disp, op.op);
                return early(new Pending(op, rs[0]));
            }
            case TICKET_FADD: {
                long[] res = {win.fetchAndAddLong(op.target, disp, 1)};
                Pending p = new Pending(op, res);
                return p;
            }
            case CAS_LONG: {
                long[] res = {win.compareAndSwapLong(op.target, disp, op.compare, op.values[0])};
                return new Pending(op, res);
            }
            case CAS: {
                Object[] os = originSide(op, op.values);
                Object[] cs = originSide(op, new long[] {op.compare});
                Object[] rs = originSide(op, null);
                win.compareAndSwap(os[0], cs[0], rs[0], basic(op.kind), op.target, disp);
                return new Pending(op, rs[0]);
            }
            default:
                throw new IllegalStateException(op.toString());
        }
    }

    private Pending done(RmaOp op, Object result) {
        Pending p = new Pending(op, result);
        p.checked = true; // nothing comes back: checked through the target's memory
        return p;
    }

    /** Request-based ops waited at once unless the plan says late. */
    private Pending early(Pending p) {
        if (p.request != null && !p.op.waitLate) {
            p.request.waitFor();
            p.request = null;
        }
        if (p.result == null && p.request == null) {
            p.checked = true;
        }
        return p;
    }

    /** Applies the round's puts and accumulates to the model (their outcome does not depend on the order). */
    private void applyDeterministic(Plan plan, Model model) {
        for (List<RmaOp> l : plan.ops) {
            for (RmaOp op : l) {
                if (op.target < 0) {
                    continue; // PROC_NULL: no effect
                }
                switch (op.what) {
                    case PUT: case RPUT: case ACC_REPLACE: case RACC_REPLACE: case GACC_REPLACE:
                    case ACC: case RACC: case GACC: case RGACC: case FOP:
                        for (int i = 0; i < op.count; i++) {
                            int c = op.cellOf(i);
                            long cur = model.elem(op.target, c, op.kind);
                            Op o = op.op == null ? Op.REPLACE : op.op;
                            if ("lost-update".equals(rank.cfg.breakModel()) && op.what == What.ACC && i == 0
                                    && op.op == Op.SUM && op.index % 7 == 3) {
                                continue; // a deliberately broken model: must be caught
                            }
                            model.setElem(op.target, c, op.kind, Model.apply(o, op.kind, cur, op.values[i]));
                        }
                        break;
                    default:
                        break;
                }
            }
        }
    }
}

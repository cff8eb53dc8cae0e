package io.jrma.soak;

import static io.jrma.soak.Operands.read;
import static io.jrma.soak.SoakRank.CELLS;
import static io.jrma.soak.SoakRank.CHECKS;
import static io.jrma.soak.SoakRank.COLLS;

import io.jrma.Datatype;
import io.jrma.Flavor;
import io.jrma.Op;
import io.jrma.SharedMemory;
import io.jrma.Win;
import io.jrma.msg.Collectives;
import io.jrma.soak.Plan.Kind;
import io.jrma.soak.Plan.RmaOp;
import io.jrma.soak.Plan.What;
import io.jrma.soak.SoakRound.Pending;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The checks of one soak round against the {@link Model}: what came back to this origin (gets, fetches, bounds on
 * fetched accumulate cells), the tickets and compare-and-swap winners gathered from every rank (the model takes
 * the winners), and the window memory cell by cell. Used by the rank's threads of one {@link SoakRound}; a mismatch
 * throws a {@link SoakRank.SoakFailure}.
 */
final class RoundChecks {
    private final SoakRank rank;
    private final Plan plan;
    private final Collectives coll;
    private final int me;
    private final int n;
    private final int round;

    RoundChecks(SoakRank rank, Plan plan) {
        this.rank = rank;
        this.plan = plan;
        coll = rank.coll;
        me = rank.me;
        n = rank.n;
        round = rank.round;
    }

    private void inc(int i) {
        rank.inc(i);
    }

    private void fail(String what) {
        rank.fail(what);
    }

    /** Checks what came back to this origin for one op (gets, fetches), where the model knows it already. */
    void checkLocal(Pending p, long[][] before, Model model) {
        p.checked = true;
        RmaOp op = p.op;
        if (op.target < 0) { // PROC_NULL: the result buffer is untouched (zero)
            if (p.result != null) {
                for (int i = 0; i < op.count; i++) {
                    inc(CHECKS);
                    if (read(op, p.result, i) != 0) {
                        fail(op + ": a no-op on PROC_NULL wrote " + read(op, p.result, i) + " into element " + i
                                + " of the result buffer");
                    }
                }
            }
            return;
        }
        switch (op.what) {
            case GET: case RGET: case GACC_NOOP_READ: case GACC_REPLACE:
                for (int i = 0; i < op.count; i++) {
                    long want = op.kind == Kind.INT ? (int) before[op.target][op.cellOf(i)]
                            : before[op.target][op.cellOf(i)];
                    long got = read(op, p.result, i);
                    inc(CHECKS);
                    if (got != want) {
                        fail(op + ": element " + i + " (cell " + op.cellOf(i) + ") is " + Model.show(op.kind, got)
                                + ", the model has " + Model.show(op.kind, want));
                    }
                }
                break;
            case GET_FLUSHED: { // a flush completed this origin's write of the cell: the round's end value
                long want = model.elem(op.target, op.cell, op.kind);
                long got = read(op, p.result, 0);
                inc(CHECKS);
                if (got != want) {
                    fail(op + ": reads back " + Model.show(op.kind, got) + " after a flush completed this origin's"
                            + " write of " + Model.show(op.kind, want));
                }
                break;
            }
            case GACC: case RGACC: case FOP: case FOP_NOOP:
                for (int i = 0; i < op.count; i++) {
                    int c = op.cellOf(i);
                    long start = op.kind == Kind.INT ? (int) before[op.target][c] : before[op.target][c];
                    long end = model.elem(op.target, c, op.kind);
                    long got = read(op, p.result, i);
                    Op cellOp = plan.blockOp[op.kind.ordinal()][(c - Plan.accBase(n, op.kind)) / Plan.BLOCK];
                    bound(op, i, start, end, got, cellOp, op.op == Op.NO_OP ? 0 : op.values[i]);
                }
                break;
            default:
                break; // tickets and CAS: checked against every rank's results
        }
    }

    /**
     * Bounds on a fetched value of an accumulate cell: the value at some point of the round, so between the
     * start and the end for the monotonic ops (SUM of non-negative values: before this op's own contribution).
     */
    private void bound(RmaOp op, int i, long start, long end, long got, Op cellOp, long own) {
        if (cellOp == null) {
            return;
        }
        boolean ok;
        if (op.kind == Kind.DOUBLE) {
            double s = Double.longBitsToDouble(start);
            double e = Double.longBitsToDouble(end);
            double g = Double.longBitsToDouble(got);
            switch (cellOp.code()) {
                case SUM: ok = s <= g && g <= e - Double.longBitsToDouble(own); break;
                case MAX: ok = s <= g && g <= e; break;
                case MIN: ok = e <= g && g <= s; break;
                default: return;
            }
        } else {
            switch (cellOp.code()) {
                case SUM: {
                    if (end < start) {
                        return; // the non-negative contributions wrapped past the maximum: no order to check
                    }
                    ok = start <= got && got <= end - own;
                    break;
                }
                case MAX: ok = start <= got && got <= end; break;
                case MIN: ok = end <= got && got <= start; break;
                case BOR: ok = (start & ~got) == 0 && (got & ~end) == 0; break;
                case BAND: ok = (got & ~start) == 0 && (end & ~got) == 0; break;
                default: return;
            }
        }
        inc(CHECKS);
        if (!ok) {
            fail(op + ": element " + i + " fetched " + Model.show(op.kind, got) + ", outside what " + cellOp.name()
                    + " allows between the round's start " + Model.show(op.kind, start) + " and end "
                    + Model.show(op.kind, end) + (own != 0 ? " less its own " + Model.show(op.kind, own) : ""));
        }
    }

    /**
     * Tickets: every rank's tickets from each counter, gathered, must be the counter's start value and the
     * following ones, each exactly once. CAS: of the attempts on a cell exactly one saw the start value, every
     * other saw the winner's value; NO_OP reads saw one of the two. The model takes the winners.
     */
    void checkTicketsAndCas(List<Pending> pending, long[][] before, Model model) {
        long[] counts = new long[n];
        long[] displs = new long[n];
        int total = 0;
        for (int o = 0; o < n; o++) {
            displs[o] = total;
            for (RmaOp op : plan.ops.get(o)) {
                if (isTicket(op) || isCas(op)) {
                    counts[o]++;
                }
            }
            total += (int) counts[o];
        }
        long[] mineOut = new long[(int) counts[me]];
        int k = 0;
        Map<Integer, Pending> byIndex = new HashMap<>();
        for (Pending p : pending) {
            byIndex.put(p.op.index, p);
        }
        for (RmaOp op : plan.ops.get(me)) { // in plan order: the order every rank reads the gathered values in
            Pending p = byIndex.get(op.index);
            if (isTicket(p.op) || isCas(p.op)) {
                mineOut[k++] = p.result instanceof long[] a
                        && (p.op.what == What.TICKET_FADD || p.op.what == What.CAS_LONG)
                        ? a[0] : read(p.op, p.result, 0);
            }
        }
        long[] all = new long[Math.max(total, 1)];
        coll.allgatherv(mineOut, 0, mineOut.length, Datatype.LONG, all, 0, counts, displs, Datatype.LONG);
        inc(COLLS);
        // per (target, cell): the values seen
        int base = Plan.ticketBase(n);
        int cellsTc = Plan.TK + Plan.CS;
        List<List<long[]>> seen = new ArrayList<>(); // [target*cellsTc+c] -> (value, what ordinal, origin, index)
        for (int i = 0; i < n * cellsTc; i++) {
            seen.add(new ArrayList<>());
        }
        for (int o = 0; o < n; o++) {
            int j = 0;
            for (RmaOp op : plan.ops.get(o)) {
                if (isTicket(op) || isCas(op)) {
                    long v = all[(int) displs[o] + j++];
                    seen.get(op.target * cellsTc + op.cell - base).add(new long[] {v, op.what.ordinal(), o, op.index});
                }
            }
        }
        for (int t = 0; t < n; t++) {
            for (int c = 0; c < cellsTc; c++) {
                List<long[]> s = seen.get(t * cellsTc + c);
                int cell = base + c;
                Kind kind = c < Plan.TK / 2 || (c >= Plan.TK && c < Plan.TK + Plan.CS / 2) ? Kind.LONG : Kind.INT;
                long start = model.elem(t, cell, kind);
                if (c < Plan.TK) {
                    long[] tickets = s.stream().mapToLong(x -> x[0]).sorted().toArray();
                    for (int i = 0; i < tickets.length; i++) {
                        long want = kind == Kind.INT ? (int) (start + i) : start + i;
                        inc(CHECKS);
                        if (tickets[i] != want) {
                            fail("tickets of counter cell " + cell + " at rank " + t + " (" + kind + ", start " + start
                                    + ", " + tickets.length + " drawn): sorted ticket " + i + " is " + tickets[i]
                                    + ", expected " + want + "; all: " + Arrays.toString(tickets));
                        }
                    }
                    model.setElem(t, cell, kind, start + tickets.length);
                } else {
                    long winner = start;
                    int winners = 0;
                    for (long[] x : s) {
                        if (x[1] != What.CAS_READ.ordinal() && x[0] == start) {
                            winners++;
                            winner = Plan.casCode(round, (int) x[3], (int) x[2]);
                        }
                    }
                    long attempts = s.stream().filter(x -> x[1] != What.CAS_READ.ordinal()).count();
                    inc(CHECKS);
                    if (attempts > 0 && winners != 1) {
                        fail(winners + " of " + attempts + " CAS attempts on cell " + cell + " at rank " + t
                                + " saw the start value " + start + ": " + describe(s));
                    }
                    for (long[] x : s) {
                        inc(CHECKS);
                        boolean isRead = x[1] == What.CAS_READ.ordinal();
                        if (isRead ? x[0] != start && x[0] != winner : x[0] != start && x[0] != winner) {
                            fail("CAS cell " + cell + " at rank " + t + ": op#" + x[3] + " of rank " + x[2] + " saw "
                                    + x[0] + ", neither the start " + start + " nor the winner " + winner
                                    + ": " + describe(s));
                        }
                    }
                    model.setElem(t, cell, kind, winner);
                }
            }
        }
    }

    private static String describe(List<long[]> s) {
        StringBuilder sb = new StringBuilder();
        for (long[] x : s) {
            sb.append(" [rank ").append(x[2]).append(" op#").append(x[3]).append(' ')
                    .append(What.values()[(int) x[1]]).append(" saw ").append(x[0]).append(']');
        }
        return sb.toString();
    }

    private static boolean isTicket(RmaOp op) {
        return op.what.name().startsWith("TICKET") && op.target >= 0;
    }

    private static boolean isCas(RmaOp op) {
        return (op.what == What.CAS || op.what == What.CAS_LONG || op.what == What.CAS_READ) && op.target >= 0;
    }

    /**
     * This rank's window memory, cell by cell, against the model; on shared windows every peer's reachable memory too.
     */
    void checkMemory(Win win, Flavor flavor, ByteBuffer mine, Model model) {
        compare(mine, me, model, "own memory");
        if (flavor == Flavor.SHARED || flavor == Flavor.ALLOCATE) {
            for (int t = 0; t < n; t++) {
                if (t == me) {
                    continue;
                }
                SharedMemory sm = win.sharedQuery(t);
                if (sm.size() > 0 && sm.buffer() != null) {
                    compare(sm.buffer().order(ByteOrder.LITTLE_ENDIAN), t, model,
                            "memory of rank " + t + " through shared_query");
                } else if (flavor == Flavor.SHARED) {
                    fail("shared_query(" + t + ") of an allocate_shared window gives no memory: " + sm);
                }
            }
        }
    }

    private void compare(ByteBuffer b, int t, Model model, String what) {
        for (int c = 0; c < model.cells; c++) {
            long got = b.getLong(8 * c);
            inc(CELLS);
            if (got != model.mem[t][c]) {
                fail(what + ": cell " + c + " (" + region(c) + ") holds 0x" + Long.toHexString(got)
                        + ", the model has 0x"
                        + Long.toHexString(model.mem[t][c]));
            }
        }
    }

    private String region(int c) {
        if (c < n * Plan.P) {
            return "put cell of origin " + c / Plan.P;
        }
        if (c < Plan.ticketBase(n)) {
            Kind k = Kind.values()[(c - n * Plan.P) / Plan.A];
            return "accumulate cell, " + k;
        }
        return c < Plan.casBase(n) ? "ticket counter" : c < Plan.bulkBase(n) ? "CAS cell" : "bulk cell";
    }
}

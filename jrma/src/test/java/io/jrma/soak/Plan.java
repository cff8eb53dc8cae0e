package io.jrma.soak;

import io.jrma.Op;
import io.jrma.Win;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One round of the soak, drawn from the round's seed the same way on every rank: the window's synchronization
 * mode and every rank's RMA operations (so each rank knows what all others do and can compute the round's outcome
 * sequentially), plus the point-to-point messages that follow it.
 *
 * <p>The operations are conflict-free or commutative by construction, so every interleaving MPI allows leads to
 * one outcome: a put cell is written by at most one operation of one origin per round and is then not read; gets
 * read only cells nobody writes in the round; each block of accumulate cells has one op per round (plus NO_OP
 * reads: MPI's default accumulate_ops same_op_no_op); ticket cells see only fetching +1s; CAS cells see only CAS
 * attempts from the value the model holds and NO_OP reads.
 */
final class Plan {
    // ------------------------------------------------------------ window layout, in 8-byte cells
    /** Put cells per origin at each target. */
    static final int P = 24;
    /** Accumulate cells per element kind; blocks of {@link #BLOCK} cells share the round's op. */
    static final int A = 32;
    static final int BLOCK = 8;
    /** Ticket counters: the first half LONG, the second INT. */
    static final int TK = 4;
    /** CAS cells: the first half LONG, the second INT. */
    static final int CS = 6;

    /**
     * Bulk cells: per round and target one origin writes a range of up to all of them (36 KiB: past the 4 KiB
     * kernel-copy and the 32 KiB zero-copy thresholds) and others read ranges beside it.
     */
    static final int BULK = 4608;

    static int cells(int n) {
        return bulkBase(n) + BULK;
    }

    static int bulkBase(int n) {
        return n * P + 3 * A + TK + CS;
    }

    static int accBase(int n, Kind k) {
        return n * P + k.ordinal() * A;
    }

    static int ticketBase(int n) {
        return n * P + 3 * A;
    }

    static int casBase(int n) {
        return ticketBase(n) + TK;
    }

    /** The element kinds; INT uses the low 4 bytes of a cell (little-endian), the others the whole cell. */
    enum Kind {
        LONG(8), INT(4), DOUBLE(8);

        final int bytes;

        Kind(int bytes) {
            this.bytes = bytes;
        }
    }

    enum Mode { FENCE, PSCW, LOCK_EXCLUSIVE, LOCK_SHARED, LOCK_MIXED, LOCK_ALL }

    /** What an operation is; the region it acts on follows from it. */
    enum What {
        // put region, own cells: written once per round
        PUT, RPUT, ACC_REPLACE, RACC_REPLACE, GACC_REPLACE,
        // put region, cells nobody writes this round
        GET, RGET, GACC_NOOP_READ,
        // put region, passive modes: a cell this origin wrote earlier in the epoch, read back after a flush
        GET_FLUSHED,
        // accumulate region, with the block's op
        ACC, RACC, GACC, RGACC, FOP, FOP_NOOP,
        // tickets
        TICKET_FOP, TICKET_GACC, TICKET_RGACC, TICKET_FADD,
        // CAS cells
        CAS, CAS_LONG, CAS_READ
    }

    /** One RMA operation of one origin. */
    static final class RmaOp {
        final int index;
        final int origin;
        final int target;
        final What what;
        final Kind kind;
        /** First target cell, number of elements, cell stride at the target, element stride at the origin. */
        final int cell;
        final int count;
        final int tStride;
        final int oStride;
        final Op op;
        /** Origin values, as raw element bits (INT: the int; DOUBLE: the double's bits). */
        final long[] values;
        /** CAS: the compare value (the cell's value at the round's start). */
        final long compare;
        /** Whether the origin buffer is a direct ByteBuffer instead of a Java array. */
        final boolean byteBuffer;
        /** Request-based: when the request is waited for (0: at once; else before the epoch closes). */
        final boolean waitLate;
        /** Passive modes: the synchronization call issued after this op (see {@link Executor}). */
        final int after;

        RmaOp(int index, int origin, int target, What what, Kind kind, int cell, int count, int tStride, int oStride,
              Op op, long[] values, long compare, boolean byteBuffer, boolean waitLate, int after) {
            this.index = index;
            this.origin = origin;
            this.target = target;
            this.what = what;
            this.kind = kind;
            this.cell = cell;
            this.count = count;
            this.tStride = tStride;
            this.oStride = oStride;
            this.op = op;
            this.values = values;
            this.compare = compare;
            this.byteBuffer = byteBuffer;
            this.waitLate = waitLate;
            this.after = after;
        }

        int cellOf(int i) {
            return cell + i * tStride;
        }

        @Override
        public String toString() {
            return "op#" + index + " " + what + " " + kind + (op != null ? " " + op.name() : "") + " rank " + origin
                    + " -> " + target + " cell " + cell + " count " + count + " stride " + tStride
                    + (oStride > 1 ? " origin stride " + oStride : "") + (byteBuffer ? " (ByteBuffer)" : "");
        }
    }

    /** A point-to-point message of the round. */
    static final class Msg {
        final int index;
        final int src;
        final int dst;
        final int tag;
        final int longs;
        /** 0 send, 1 isend, 2 ssend, 3 issend. */
        final int how;
        final boolean anySource;

        Msg(int index, int src, int dst, int tag, int longs, int how, boolean anySource) {
            this.index = index;
            this.src = src;
            this.dst = dst;
            this.tag = tag;
            this.longs = longs;
            this.how = how;
            this.anySource = anySource;
        }
    }

    // after-op synchronization codes (passive modes)
    static final int AFTER_NONE = 0;
    static final int AFTER_FLUSH = 1;
    static final int AFTER_FLUSH_LOCAL = 2;
    static final int AFTER_FLUSH_ALL = 3;
    static final int AFTER_FLUSH_LOCAL_ALL = 4;
    static final int AFTER_SYNC = 5;

    final int n;
    final long seed;
    final Mode mode;
    /** Fence rounds: a middle fence(0) after this many of each origin's ops (-1: none). */
    final int middleFenceAt;
    final boolean openNoPrecede;
    /** lock_all rounds: two threads of each rank issue at once (the ops to even and to odd targets). */
    final boolean threaded;
    /** Per rank, its ops in issue order. */
    final List<List<RmaOp>> ops = new ArrayList<>();
    /** The accumulate op of each block of each kind. */
    final Op[][] blockOp = new Op[3][A / BLOCK];
    final List<Msg> msgs = new ArrayList<>();
    int total;

    private static final Op[] INT_OPS = {Op.SUM, Op.MAX, Op.MIN, Op.BOR, Op.BAND, Op.BXOR, Op.PROD};
    private static final Op[] DOUBLE_OPS = {Op.SUM, Op.MAX, Op.MIN};

    Plan(int n, long seed, int round, Model model, int maxOps, int maxMsgs, boolean bigMessages) {
        this.n = n;
        this.seed = seed;
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + round);
        mode = Mode.values()[r.nextInt(Mode.values().length)];
        openNoPrecede = r.nextBoolean();
        threaded = mode == Mode.LOCK_ALL && r.nextInt(3) == 0;
        for (Kind k : Kind.values()) {
            for (int b = 0; b < A / BLOCK; b++) {
                Op[] choice = k == Kind.DOUBLE ? DOUBLE_OPS : INT_OPS;
                blockOp[k.ordinal()][b] = choice[r.nextInt(choice.length)];
            }
        }
        int[][] putState = new int[n][n * P]; // 0 untouched, 1 written, 2 read
        unflushed = new BitSet[n][n];
        flushed = new BitSet[n][n];
        for (int o = 0; o < n; o++) {
            for (int t = 0; t < n; t++) {
                unflushed[o][t] = new BitSet();
                flushed[o][t] = new BitSet();
            }
        }
        boolean[][][] casTried = new boolean[n][CS][n];
        int[] counts = new int[n];
        for (int o = 0; o < n; o++) {
            ops.add(new ArrayList<>());
            counts[o] = 1 + r.nextInt(maxOps);
        }
        boolean passive = mode.ordinal() >= Mode.LOCK_EXCLUSIVE.ordinal();
        // interleave the origins' draws so that no origin gets first pick of the cells every round
        int idx = 0;
        for (int step = 0; step < maxOps; step++) {
            for (int o = 0; o < n; o++) {
                if (step >= counts[o]) {
                    continue;
                }
                RmaOp op = null;
                for (int attempt = 0; attempt < 8 && op == null; attempt++) {
                    op = draw(r, round, idx, o, putState, casTried, model, passive);
                }
                if (op != null) {
                    ops.get(o).add(op);
                    idx++;
                    if (passive) {
                        trackFlushes(op);
                    }
                }
            }
        }
        // bulk: per target, maybe one writer of a range and readers of ranges beside it, placed among the ops
        for (int t = 0; t < n; t++) {
            if (r.nextInt(3) == 0) {
                continue;
            }
            int len = 1 + r.nextInt(BULK);
            int a = r.nextInt(BULK - len + 1);
            int w = r.nextInt(n);
            What[] ws = {What.PUT, What.PUT, What.RPUT, What.ACC};
            What what = ws[r.nextInt(ws.length)];
            Op op = what == What.ACC ? (r.nextBoolean() ? Op.SUM : Op.REPLACE) : null;
            long[] v = new long[len];
            for (int i = 0; i < len; i++) {
                v[i] = op == Op.SUM ? r.nextInt(1000) : r.nextLong();
            }
            insert(r, w, new RmaOp(idx++, w, t, what, Kind.LONG, bulkBase(n) + a, len, 1, 1, op, v, 0,
                    r.nextBoolean(), r.nextBoolean(), passive ? afterCode(r) : AFTER_NONE));
            for (int k = r.nextInt(3); k > 0; k--) {
                int lo = r.nextBoolean() ? 0 : a + len; // beside the written range
                int hi = lo == 0 ? a : BULK;
                if (hi - lo < 1) {
                    continue;
                }
                int rl = 1 + r.nextInt(hi - lo);
                int b = lo + r.nextInt(hi - lo - rl + 1);
                int o = r.nextInt(n);
                insert(r, o, new RmaOp(idx++, o, t, r.nextBoolean() ? What.GET : What.RGET, Kind.LONG, bulkBase(n) + b,
                        rl, 1, 1, null, null, 0, r.nextBoolean(), r.nextBoolean(), passive
                        ? afterCode(r) : AFTER_NONE));
            }
        }
        total = idx;
        middleFenceAt = mode == Mode.FENCE && r.nextInt(3) == 0 ? r.nextInt(maxOps) : -1;
        int m = r.nextInt(maxMsgs + 1);
        for (int i = 0; i < m; i++) {
            int src = r.nextInt(n);
            int dst = r.nextInt(n);
            int longs;
            int size = r.nextInt(20);
            if (bigMessages && size == 0) {
                longs = 8_000 + r.nextInt(12_000); // rendezvous
            } else if (size < 3) {
                longs = 100 + r.nextInt(3_000); // through the area
            } else {
                longs = 1 + r.nextInt(24); // inside the envelope
            }
            msgs.add(new Msg(i, src, dst, 100 + i, longs, r.nextInt(4), r.nextInt(4) == 0));
        }
    }

    private void insert(SplittableRandom r, int origin, RmaOp op) {
        List<RmaOp> l = ops.get(origin);
        l.add(r.nextInt(l.size() + 1), op);
    }

    /** Per origin and target: put cells written in this round's epoch, not yet / already completed by a flush. */
    private BitSet[][] unflushed;
    private BitSet[][] flushed;

    /**
     * Which of an origin's writes a flush completes at the target: flush(t) those to t; flush_all those to every
     * target under lock_all, but with one lock at a time only those of the epoch it is in (the op's target).
     */
    private void trackFlushes(RmaOp op) {
        if (op.target < 0) {
            return; // PROC_NULL
        }
        switch (op.what) {
            case PUT: case RPUT: case ACC_REPLACE: case RACC_REPLACE: case GACC_REPLACE:
                for (int i = 0; i < op.count; i++) {
                    unflushed[op.origin][op.target].set(op.cellOf(i));
                }
                break;
            default:
                break;
        }
        // (with two threads issuing, a flush_all of one need not come between the other's write and read)
        if (op.after == AFTER_FLUSH || (op.after == AFTER_FLUSH_ALL && (mode != Mode.LOCK_ALL || threaded))) {
            flushed[op.origin][op.target].or(unflushed[op.origin][op.target]);
            unflushed[op.origin][op.target].clear();
        } else if (op.after == AFTER_FLUSH_ALL) {
            for (int t = 0; t < n; t++) {
                flushed[op.origin][t].or(unflushed[op.origin][t]);
                unflushed[op.origin][t].clear();
            }
        }
    }

    private RmaOp draw(SplittableRandom r, int round, int idx, int o, int[][] putState,
            boolean[][][] casTried, Model model,
                       boolean passive) {
        int t = r.nextInt(n);
        int region = r.nextInt(100);
        Kind kind = Kind.values()[r.nextInt(3)];
        boolean bb = r.nextInt(4) == 0;
        boolean late = r.nextBoolean();
        int after = passive ? afterCode(r) : AFTER_NONE;
        if ((mode == Mode.FENCE || mode == Mode.LOCK_ALL) && r.nextInt(40) == 0) {
            // an op on PROC_NULL: a no-op inside the epoch (where every rank has one whatever it targets)
            What[] ws = {What.PUT, What.RPUT, What.GET, What.RGET, What.ACC, What.RACC, What.GACC, What.RGACC,
                What.FOP, What.CAS};
            What w = ws[r.nextInt(ws.length)];
            int count = w == What.FOP || w == What.CAS ? 1 : 1 + r.nextInt(3);
            long[] v = new long[count];
            for (int i = 0; i < count; i++) {
                v[i] = r.nextLong();
            }
            Op op = w == What.ACC || w == What.RACC || w == What.GACC || w == What.RGACC
                    || w == What.FOP ? Op.SUM : null;
            return new RmaOp(idx, o, Win.PROC_NULL, w, Kind.LONG, 0, count, 1, 1, op, v, 0, bb, late, after);
        }
        if (region < 25) { // write own put cells
            What[] ws = {What.PUT, What.PUT, What.RPUT, What.ACC_REPLACE, What.RACC_REPLACE, What.GACC_REPLACE};
            What w = ws[r.nextInt(ws.length)];
            int count = w == What.GACC_REPLACE && r.nextBoolean() ? 1 : 1 + r.nextInt(4);
            int stride = 1 + r.nextInt(3);
            int span = (count - 1) * stride + 1;
            if (span > P) {
                return null;
            }
            int cell = o * P + r.nextInt(P - span + 1);
            for (int i = 0; i < count; i++) {
                if (putState[t][cell + i * stride] != 0) {
                    return null;
                }
            }
            long[] v = new long[count];
            for (int i = 0; i < count; i++) {
                putState[t][cell + i * stride] = 1;
                v[i] = valueOf(kind, r.nextLong());
            }
            int oStride = r.nextInt(4) == 0 ? 2 : 1;
            return new RmaOp(idx, o, t, w, kind, cell, count, stride, oStride,
                    w == What.PUT || w == What.RPUT ? null : Op.REPLACE, v, 0, bb, late, after);
        }
        if (region < 45 && passive && region >= 38 && !flushed[o][t].isEmpty()) { // read back a flushed write
            BitSet f = flushed[o][t];
            int pick = r.nextInt(f.cardinality());
            int cell = f.nextSetBit(0);
            for (int i = 0; i < pick; i++) {
                cell = f.nextSetBit(cell + 1);
            }
            return new RmaOp(idx, o, t, What.GET_FLUSHED, kind, cell, 1, 1, 1, null, null, 0, bb, late, after);
        }
        if (region < 45) { // read put cells nobody writes this round
            What[] ws = {What.GET, What.GET, What.RGET, What.GACC_NOOP_READ};
            What w = ws[r.nextInt(ws.length)];
            int count = 1 + r.nextInt(4);
            int stride = 1 + r.nextInt(3);
            int span = (count - 1) * stride + 1;
            int cell = r.nextInt(n * P - span + 1);
            for (int i = 0; i < count; i++) {
                if (putState[t][cell + i * stride] == 1) {
                    return null;
                }
            }
            for (int i = 0; i < count; i++) {
                putState[t][cell + i * stride] = 2;
            }
            int oStride = r.nextInt(4) == 0 ? 2 : 1;
            return new RmaOp(idx, o, t, w, kind, cell, count, stride, oStride,
                    w == What.GACC_NOOP_READ ? Op.NO_OP : null, null, 0, bb, late, after);
        }
        if (region < 75) { // accumulate cells
            What[] ws = {What.ACC, What.ACC, What.RACC, What.GACC, What.RGACC, What.FOP, What.FOP, What.FOP_NOOP};
            What w = ws[r.nextInt(ws.length)];
            int b = r.nextInt(A / BLOCK);
            Op op = w == What.FOP_NOOP ? Op.NO_OP : blockOp[kind.ordinal()][b];
            int count = w == What.FOP || w == What.FOP_NOOP ? 1 : 1 + r.nextInt(4);
            int stride = 1 + r.nextInt(2);
            int span = (count - 1) * stride + 1;
            if (span > BLOCK) {
                return null;
            }
            int cell = accBase(n, kind) + b * BLOCK + r.nextInt(BLOCK - span + 1);
            long[] v = new long[count];
            for (int i = 0; i < count; i++) {
                v[i] = contribution(r, kind, op);
            }
            return new RmaOp(idx, o, t, w, kind, cell, count, stride, 1, op, v, 0, bb, late, after);
        }
        if (region < 88) { // tickets
            int c = r.nextInt(TK);
            Kind k = c < TK / 2 ? Kind.LONG : Kind.INT;
            What[] ws = k == Kind.LONG ? new What[] {What.TICKET_FOP, What.TICKET_GACC,
                    What.TICKET_RGACC, What.TICKET_FADD}
                    : new What[] {What.TICKET_FOP, What.TICKET_GACC, What.TICKET_RGACC};
            What w = ws[r.nextInt(ws.length)];
            return new RmaOp(idx, o, t, w, k, ticketBase(n) + c, 1, 1, 1, Op.SUM, new long[] {1}, 0, bb, late, after);
        }
        // CAS cells
        int c = r.nextInt(CS);
        Kind k = c < CS / 2 ? Kind.LONG : Kind.INT;
        int cell = casBase(n) + c;
        if (r.nextInt(4) == 0) {
            return new RmaOp(idx, o, t, What.CAS_READ, k, cell, 1, 1, 1, Op.NO_OP, null, 0, bb, late, after);
        }
        if (casTried[t][c][o]) {
            return null;
        }
        casTried[t][c][o] = true;
        What w = k == Kind.LONG && r.nextBoolean() ? What.CAS_LONG : What.CAS;
        long old = model.elem(t, cell, k);
        return new RmaOp(idx, o, t, w, k, cell, 1, 1, 1, null, new long[] {casCode(round, idx, o)},
                old, bb, false, after);
    }

    /**
     * A CAS value no other attempt of the window uses (never 0, fits an int): the round, the op's index in the
     * round and the origin. Without the round, an attempt could swap in the value a cell already held from an
     * earlier round, and a second attempt would then see the start value too.
     */
    static long casCode(int round, int idx, int origin) {
        return ((long) (round % 500 + 1) << 20) | ((long) idx << 8) | origin;
    }

    private static int afterCode(SplittableRandom r) {
        int x = r.nextInt(12);
        return x < 6 ? AFTER_NONE : x - 5;
    }

    /** Raw element bits of a put value of kind k. */
    static long valueOf(Kind k, long random) {
        switch (k) {
            case INT: return (int) random;
            case DOUBLE: return Double.doubleToRawLongBits((random >> 11) * 0x1.0p-20);
            default: return random;
        }
    }

    /** An accumulate contribution that keeps every fold exact and every bound check meaningful. */
    static long contribution(SplittableRandom r, Kind k, Op op) {
        if (op == Op.NO_OP) {
            return 0;
        }
        long v;
        switch (op.code()) {
            case SUM: v = r.nextInt(k == Kind.INT ? 100 : 1000); break; // non-negative: fetches grow
            case MAX: case MIN: v = r.nextInt(2_000_001) - 1_000_000; break;
            case PROD: v = new long[] {-3, -1, 1, 3, 5}[r.nextInt(5)]; break;
            case BAND: v = r.nextLong() | r.nextLong() | r.nextLong(); break;
            default: v = r.nextLong() & r.nextLong(); break; // BOR, BXOR
        }
        if (k == Kind.DOUBLE) {
            return Double.doubleToRawLongBits(v);
        }
        return k == Kind.INT ? (int) v : v;
    }
}

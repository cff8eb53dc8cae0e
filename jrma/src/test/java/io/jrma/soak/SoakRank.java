package io.jrma.soak;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Flavor;
import io.jrma.Group;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Request;
import io.jrma.SharedMemory;
import io.jrma.Win;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import io.jrma.msg.Collectives;
import io.jrma.msg.Messenger;
import io.jrma.msg.MsgRequest;
import io.jrma.msg.Status;
import io.jrma.soak.Plan.Kind;
import io.jrma.soak.Plan.Mode;
import io.jrma.soak.Plan.Msg;
import io.jrma.soak.Plan.RmaOp;
import io.jrma.soak.Plan.What;
import java.io.IOException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Collectors;

/**
 * The program every rank of a soak job runs: windows of random flavors, each for a few rounds of random RMA
 * operations under a random synchronization mode, every result and the memory of every window checked against the
 * sequential {@link Model} after each round, then point-to-point messages and collectives between the epochs.
 * The job ends when rank 0 says so (a round count or a deadline); rank 0 then writes the job's counts to a file.
 */
final class SoakRank implements Jrma.RankMain {
    private static final long serialVersionUID = 1L;

    /** What a job runs: serializable, it travels to the ranks' JVMs. */
    record Config(String layout, int jvms, String between, long seed, int rounds, long deadlineMillis, int maxOps,
                  int maxMsgs, boolean bigMessages, String resultFile, String breakModel, String tuning)
            implements Serializable {
    }

    /** Counter indices (summed over ranks at the end of the job). */
    static final String[] COUNTERS = {"rounds", "windows", "rma_ops", "sync_calls", "messages", "collectives",
        "checks", "cells_checked"};
    static final int ROUNDS = 0, WINDOWS = 1, RMA = 2, SYNC = 3, MSGS = 4, COLLS = 5, CHECKS = 6, CELLS = 7;

    private final Config cfg;
    /** A round that takes this long is reported (not a failure: the host may be busy). */
    static final long SLOW_ROUND_MS = 1_000;

    SoakRank(Config cfg) {
        this.cfg = cfg;
    }

    /** A check that failed: names seed, window, round and rank. */
    static final class SoakFailure extends AssertionError {
        private static final long serialVersionUID = 1L;

        SoakFailure(String m) {
            super(m);
        }
    }

    // ------------------------------------------------------------------ per-rank state
    private transient Comm world;
    private transient Messenger worldMsg;
    private transient Collectives worldColl;
    /** Where ranks of different JVMs cannot share memory (jrma.shm.windows=false): the ranks of this JVM. */
    private transient Comm jvmComm;
    private transient Messenger jvmMsg;
    /** The current window's communicator, its messenger, size and this rank's rank in it. */
    private transient Comm comm;
    private transient Collectives coll;
    private transient Messenger msg;
    private transient int me;
    private transient int n;
    private transient AtomicLongArray count; // threads of a rank add to it
    private transient int windowNo;
    private transient int round;
    private transient String where;
    private transient Plan curPlan;

    @Override
    public void run(Comm w) throws Exception {
        SoakRank self = new SoakRank(cfg); // one object per rank: ranks of one JVM share the deserialized body
        self.body(w);
    }

    private void body(Comm w) throws IOException {
        world = w;
        count = new AtomicLongArray(COUNTERS.length);
        worldMsg = Messenger.create(world);
        worldColl = worldMsg.collectives();
        useWorld();
        Thread watchdog = watchdog(Thread.currentThread());
        try {
            rounds();
        } finally {
            watchdog.interrupt();
        }
    }

    /** The last operation issued, for the stall report. */
    private transient volatile String lastOp = "";

    /**
     * A rank that makes no progress for {@link #STALL_MS} reports once where it is (window, round, mode, last
     * operation) and the stacks of this JVM's threads in the library, then the job's timeout ends it.
     */
    private Thread watchdog(Thread rank) {
        Thread t = new Thread(() -> {
            long seen = -1;
            long since = System.currentTimeMillis();
            try {
                while (true) {
                    Thread.sleep(2_000);
                    long now = 0;
                    for (int i = 0; i < COUNTERS.length; i++) {
                        now += count.get(i);
                    }
                    if (now != seen) {
                        seen = now;
                        since = System.currentTimeMillis();
                    } else if (System.currentTimeMillis() - since > STALL_MS) {
                        StringBuilder sb = new StringBuilder("soak stall: seed " + cfg.seed + ", layout " + cfg.layout
                                + ", world rank " + world.rank() + " made no progress for " + STALL_MS / 1000 + " s in "
                                + where + "; last op " + lastOp + "\n");
                        for (var e : Thread.getAllStackTraces().entrySet()) {
                            String st = Arrays.stream(e.getValue()).map(f -> "    at " + f + "\n")
                                    .collect(Collectors.joining());
                            if (e.getKey() == rank || st.contains("io.jrma")) {
                                sb.append("  thread ").append(e.getKey().getName()).append(e.getKey() == rank
                                        ? " (the rank)" : "")
                                        .append(":\n").append(st);
                            }
                        }
                        System.out.print(sb);
                        System.out.flush();
                        return;
                    }
                }
            } catch (InterruptedException e) {
                // the rank is done
            }
        }, "soak-watchdog-" + world.rank());
        t.setDaemon(true);
        t.start();
        return t;
    }

    static final long STALL_MS = 45_000;

    private void rounds() throws IOException {
        checkLayout();
        SplittableRandom jobRandom = new SplittableRandom(cfg.seed);
        boolean more = true;
        while (more) {
            long windowSeed = jobRandom.nextLong();
            int rounds = 1 + jobRandom.nextInt(5);
            Flavor flavor = Flavor.values()[jobRandom.nextInt(Flavor.values().length)];
            more = oneWindow(flavor, windowSeed, rounds);
            windowNo++;
        }
        long[] sum = new long[COUNTERS.length];
        long[] mine = new long[COUNTERS.length];
        for (int i = 0; i < mine.length; i++) {
            mine[i] = count.get(i);
        }
        worldColl.allreduce(mine, 0, sum, 0, COUNTERS.length, Datatype.LONG, Op.SUM);
        if (me == 0 && cfg.resultFile != null) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < COUNTERS.length; i++) {
                sb.append(COUNTERS[i]).append('=').append(sum[i]).append('\n');
            }
            Files.writeString(Path.of(cfg.resultFile), sb.toString());
        }
        if (jvmMsg != null) {
            jvmMsg.free();
            jvmComm.free();
        }
        worldMsg.free();
    }

    private void inc(int i) {
        count.incrementAndGet(i);
    }

    private void add(int i, long v) {
        count.addAndGet(i, v);
    }

    private void useWorld() {
        use(world, worldMsg);
    }

    private void use(Comm c, Messenger m) {
        comm = c;
        msg = m;
        coll = m.collectives();
        me = c.rank();
        n = c.size();
    }

    /** The job really runs where the layout says: that many JVMs, peers in other JVMs over that transport. */
    private void checkLayout() {
        where = "layout check";
        long[] pids = new long[n];
        coll.allgather(new long[] {ProcessHandle.current().pid()}, 0, 1, Datatype.LONG, pids, 0, 1, Datatype.LONG);
        inc(COLLS);
        long distinct = Arrays.stream(pids).distinct().count();
        if (distinct != Math.min(cfg.jvms, n)) {
            fail(distinct + " distinct JVMs among the ranks, the layout asks for " + cfg.jvms);
        }
        Job job = ((CommCore) world).job();
        for (int r = 0; r < n; r++) {
            // between: the transport to peers in other JVMs, or several (comma-separated) where hosts differ
            String want = job.isLocal(r) ? "local" : cfg.between;
            if (!Arrays.asList(want.split(",")).contains(job.transportFor(r).name())) {
                fail("rank " + r + " is reached through " + job.transportFor(r).name()
                        + ", the layout asks for " + want);
            }
        }
        if (distinct > 1 && "false".equals(Jrma.parameter(world, "jrma.shm.windows"))) {
            // allocate_shared needs ranks that share memory: here only those of one JVM
            long[] jvmsPids = Arrays.stream(pids).distinct().sorted().toArray();
            jvmComm = world.split(Arrays.binarySearch(jvmsPids, ProcessHandle.current().pid()), world.rank());
            jvmMsg = Messenger.create(jvmComm);
        }
    }

    /** Whether rank 0 wants another round: its decision, broadcast (one of the job's collectives). */
    private boolean another() {
        long[] flag = {0};
        if (me == 0) {
            boolean byCount = cfg.rounds > 0 && count.get(ROUNDS) < cfg.rounds;
            boolean byTime = cfg.deadlineMillis > 0 && System.currentTimeMillis() < cfg.deadlineMillis;
            flag[0] = byCount || byTime ? 1 : 0;
        }
        worldColl.bcast(flag, 0, 1, Datatype.LONG, 0);
        inc(COLLS);
        return flag[0] == 1;
    }

    // ------------------------------------------------------------------ one window, several rounds

    private boolean oneWindow(Flavor flavor, long windowSeed, int rounds) {
        if (flavor == Flavor.SHARED && jvmComm != null) {
            use(jvmComm, jvmMsg);
        }
        try {
            return oneWindowOn(flavor, windowSeed, rounds);
        } finally {
            useWorld();
        }
    }

    private boolean oneWindowOn(Flavor flavor, long windowSeed, int rounds) {
        SplittableRandom r = new SplittableRandom(windowSeed);
        Model model = new Model(n, windowSeed);
        int bytes = 8 * model.cells;
        int dispUnit = flavor == Flavor.DYNAMIC ? 1 : new int[] {1, 4, 8}[r.nextInt(3)];
        Info info = new Info();
        switch (r.nextInt(4)) {
            case 0: info.set("jrma_issue", "eager"); break;
            case 1: info.set("jrma_issue", "flush_local"); break;
            default: break;
        }
        if (r.nextInt(3) == 0) {
            info.set("jrma_max_pending_ops", String.valueOf(1 + r.nextInt(16)));
        }
        if (r.nextInt(3) == 0) {
            info.set("jrma_lock_coalesce", String.valueOf(r.nextBoolean()));
        }
        if (r.nextInt(4) == 0) {
            info.set("accumulate_ordering", "none");
        }
        boolean noncontig = r.nextBoolean();
        if (flavor == Flavor.SHARED && noncontig) {
            info.set("alloc_shared_noncontig", "true");
        }
        where = "window " + windowNo + " (" + flavor + ", disp_unit " + dispUnit + ", info " + info.keys() + ")";
        Win win;
        ByteBuffer mine;
        long[] bases = new long[n];
        ByteBuffer attached = null;
        switch (flavor) {
            case CREATE: {
                mine = r.nextBoolean() ? Jrma.allocateMemory(bytes) : ByteBuffer.allocateDirect(bytes);
                mine.order(ByteOrder.LITTLE_ENDIAN);
                fill(mine, model);
                win = Win.create(comm, mine, dispUnit, info);
                break;
            }
            case ALLOCATE:
                win = Win.allocate(comm, bytes, dispUnit, info);
                mine = win.buffer();
                fill(mine, model);
                break;
            case SHARED:
                win = Win.allocateShared(comm, bytes, dispUnit, info);
                mine = win.buffer();
                fill(mine, model);
                break;
            default: {
                win = Win.createDynamic(comm, info);
                attached = (r.nextBoolean() ? Jrma.allocateMemory(bytes) : ByteBuffer.allocateDirect(bytes))
                        .order(ByteOrder.LITTLE_ENDIAN);
                fill(attached, model);
                win.attach(attached);
                mine = attached;
                long[] addr = {Win.address(attached)};
                coll.allgather(addr, 0, 1, Datatype.LONG, bases, 0, 1, Datatype.LONG);
                inc(COLLS);
                break;
            }
        }
        add(WINDOWS, world.rank() == 0 ? 1 : 0);
        win.sync();
        comm.barrier();
        boolean more = true;
        try {
            for (int i = 0; i < rounds && more; i++) {
                more = another();
                if (!more) {
                    break;
                }
                long t0 = System.nanoTime();
                oneRound(win, flavor, dispUnit, bases, mine, model);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                if (ms >= SLOW_ROUND_MS && me == 0) {
                    System.out.println("soak slow round: " + ms + " ms, seed " + cfg.seed + ", layout " + cfg.layout
                            + ", " + where + ", " + n + " ranks");
                }
                round++;
                add(ROUNDS, world.rank() == 0 ? 1 : 0);
            }
        } finally {
            where = "window " + windowNo + " free";
        }
        if (attached != null) {
            win.detach(attached);
        }
        win.free();
        return more;
    }

    private void fill(ByteBuffer b, Model model) {
        for (int c = 0; c < model.cells; c++) {
            b.putLong(8 * c, model.mem[me][c]);
        }
    }

    // ------------------------------------------------------------------ one round

    /** A result buffer of an operation and what the checks need of it. */
    private static final class Pending {
        final RmaOp op;
        final Object result; // the array or ByteBuffer the results land in
        Request request;
        boolean checked;

        Pending(RmaOp op, Object result) {
            this.op = op;
            this.result = result;
        }
    }

    private void oneRound(Win win, Flavor flavor, int dispUnit, long[] bases, ByteBuffer mine, Model model) {
        Plan plan = new Plan(n, cfg.seed ^ Model.mix(windowNo), round, model, cfg.maxOps, cfg.maxMsgs, cfg.bigMessages);
        curPlan = plan;
        where = "window " + windowNo + " (" + flavor + ", disp_unit " + dispUnit + ") round " + round
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
                checkLocal(p, before, model);
            }
        }
        comm.barrier();
        checkTicketsAndCas(plan, pending, before, model);
        win.sync();
        checkMemory(win, flavor, mine, model);
        twoSided(plan);
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
                checkLocal(p, before, model);
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

    // ------------------------------------------------------------------ issuing

    /** Where a cell lies at a target: displacement in the target's units (dynamic: absolute address). */
    private record Target(int dispUnit, long[] bases, Flavor flavor) {
        long disp(int t, int cell) {
            if (t < 0) {
                return 0; // PROC_NULL
            }
            long byteOff = 8L * cell;
            return flavor == Flavor.DYNAMIC ? bases[t] + byteOff : byteOff / dispUnit;
        }
    }

    static Datatype basic(Kind k) {
        switch (k) {
            case INT: return Datatype.INT;
            case DOUBLE: return Datatype.DOUBLE;
            default: return Datatype.LONG;
        }
    }

    /** The target side of an op: count and type covering its cells. */
    private static Object[] targetType(RmaOp op) {
        Datatype b = basic(op.kind);
        int elemStride = op.tStride * (8 / op.kind.bytes);
        if (op.count == 1) {
            return new Object[] {1L, b};
        }
        if (elemStride == 1) {
            return new Object[] {(long) op.count, b};
        }
        return new Object[] {1L, Datatype.vector(op.count, 1, elemStride, b).commit()};
    }

    /** The origin side: a buffer holding {@code values} (or room for results) every oStride elements. */
    private static Object[] originSide(RmaOp op, long[] values) {
        Datatype b = basic(op.kind);
        int len = (op.count - 1) * op.oStride + 1;
        Object buf;
        if (op.byteBuffer) {
            ByteBuffer bb = ByteBuffer.allocateDirect(len * op.kind.bytes).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; values != null && i < op.count; i++) {
                int at = i * op.oStride * op.kind.bytes;
                if (op.kind == Kind.INT) {
                    bb.putInt(at, (int) values[i]);
                } else {
                    bb.putLong(at, values[i]);
                }
            }
            buf = bb;
        } else {
            switch (op.kind) {
                case INT: {
                    int[] a = new int[len];
                    for (int i = 0; values != null && i < op.count; i++) {
                        a[i * op.oStride] = (int) values[i];
                    }
                    buf = a;
                    break;
                }
                case DOUBLE: {
                    double[] a = new double[len];
                    for (int i = 0; values != null && i < op.count; i++) {
                        a[i * op.oStride] = Double.longBitsToDouble(values[i]);
                    }
                    buf = a;
                    break;
                }
                default: {
                    long[] a = new long[len];
                    for (int i = 0; values != null && i < op.count; i++) {
                        a[i * op.oStride] = values[i];
                    }
                    buf = a;
                    break;
                }
            }
        }
        if (op.oStride == 1) {
            return new Object[] {buf, (long) op.count, b};
        }
        return new Object[] {buf, 1L, Datatype.vector(op.count, 1, op.oStride, b).commit()};
    }

    /** Element i of an origin-side buffer, as raw bits. */
    private static long read(RmaOp op, Object buf, int i) {
        int at = i * op.oStride;
        if (buf instanceof ByteBuffer bb) {
            return op.kind == Kind.INT ? bb.getInt(at * 4) : bb.getLong(at * 8);
        }
        if (buf instanceof int[] a) {
            return a[at];
        }
        if (buf instanceof double[] a) {
            return Double.doubleToRawLongBits(a[at]);
        }
        return ((long[]) buf)[at];
    }

    private Pending issue(Win win, RmaOp op, Target tgt) {
        inc(RMA);
        lastOp = op.toString();
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

    // ------------------------------------------------------------------ the model

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
                            if ("lost-update".equals(cfg.breakModel) && op.what == What.ACC && i == 0
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

    private void fail(String what) {
        throw new SoakFailure("soak check failed: seed " + cfg.seed + ", layout " + cfg.layout + ", " + where
                + ", rank " + me + (comm != world ? " (world rank " + world.rank() + ")" : "") + ": " + what
                + " (reproduce: -Djrma.soak.seed=" + cfg.seed + " -Djrma.soak.layouts="
                + cfg.layout + " -Djrma.soak.ranks=" + world.size() + " -Djrma.soak.rounds=" + (round + 1)
                + (cfg.tuning.isEmpty() ? "" : " -Djrma.soak.params=" + cfg.tuning) + ")");
    }

    /** Checks what came back to this origin for one op (gets, fetches), where the model knows it already. */
    private void checkLocal(Pending p, long[][] before, Model model) {
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
                    Op cellOp = curPlan.blockOp[op.kind.ordinal()][(c - Plan.accBase(n, op.kind)) / Plan.BLOCK];
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
    private void checkTicketsAndCas(Plan plan, List<Pending> pending, long[][] before, Model model) {
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
    private void checkMemory(Win win, Flavor flavor, ByteBuffer mine, Model model) {
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

    // ------------------------------------------------------------------ two-sided between epochs

    private static long word(long seed, int round, int msg, int i) {
        return Model.mix(seed ^ ((long) round << 40) ^ ((long) msg << 24) ^ i);
    }

    private void twoSided(Plan plan) {
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

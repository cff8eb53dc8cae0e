package io.jrma.soak;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Flavor;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.Op;
import io.jrma.Win;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import io.jrma.msg.Collectives;
import io.jrma.msg.Messenger;
import java.io.IOException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Collectors;

/**
 * The program every rank of a soak job runs: windows of random flavors, each for a few rounds of random RMA
 * operations under a random synchronization mode, every result and the memory of every window checked against the
 * sequential {@link Model} after each round, then point-to-point messages and collectives between the epochs.
 * The job ends when rank 0 says so (a round count or a deadline); rank 0 then writes the job's counts to a file.
 * This class owns the job and the per-rank state (communicators, counters, the current window); a
 * {@link SoakRound} runs each round, {@link RoundChecks} and {@link SoakMessages} check it.
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

    final Config cfg;
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
    transient Comm comm;
    transient Collectives coll;
    transient Messenger msg;
    transient int me;
    transient int n;
    private transient AtomicLongArray count; // threads of a rank add to it
    transient int windowNo;
    transient int round;
    transient String where;

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
    transient volatile String lastOp = "";

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
            Soak.WindowDraw w = Soak.nextWindow(jobRandom);
            more = oneWindow(w.flavor(), w.seed(), w.rounds());
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

    void inc(int i) {
        count.incrementAndGet(i);
    }

    void add(int i, long v) {
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
                new SoakRound(this, win, flavor, dispUnit, bases, mine, model).run();
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

    void fail(String what) {
        throw new SoakFailure("soak check failed: seed " + cfg.seed + ", layout " + cfg.layout + ", " + where
                + ", rank " + me + (comm != world ? " (world rank " + world.rank() + ")" : "") + ": " + what
                + " (reproduce: -Djrma.soak.seed=" + cfg.seed + " -Djrma.soak.layouts="
                + cfg.layout + " -Djrma.soak.ranks=" + world.size() + " -Djrma.soak.rounds=" + (round + 1)
                + (cfg.tuning.isEmpty() ? "" : " -Djrma.soak.params=" + cfg.tuning) + ")");
    }
}

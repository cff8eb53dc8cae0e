package io.jrma.examples;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Flavor;
import io.jrma.Group;
import io.jrma.Jrma;
import io.jrma.JrmaInfo;
import io.jrma.JvmFlags;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Request;
import io.jrma.SharedMemory;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tour of jrma: 4 ranks (threads of this JVM) exercise every window flavor under every synchronization
 * mode, once on the direct path and once with {@code jrma.path=packet}, and check the results. Prints one
 * line per check ({@code ok  ...} or {@code FAIL ...}), the counters of one window per path, and a latency
 * table (rank 0 to rank 1, 8 bytes). Exits with status 1 if any check failed.
 *
 * <p>Options: {@code --no-latency} skips the latency table; {@code --quick} measures it with shorter runs.
 */
public final class Demo {
    static final int NRANKS = 4;
    static final String[] PATHS = {"auto", "packet"};
    static final Datatype LONG = Datatype.LONG;

    private Demo() {
    }

    public static void main(String[] args) {
        List<String> opts = Arrays.asList(args);
        boolean latency = !opts.contains("--no-latency");
        boolean quick = opts.contains("--quick");
        System.out.println("jrma " + JrmaInfo.version() + " demo: " + NRANKS + " ranks as threads of one JVM, java "
                + System.getProperty("java.version"));
        System.out.println("jvm flags: " + JvmFlags.current());

        int failures = 0;
        int total = 0;
        for (String path : PATHS) {
            Checks c = new Checks(path);
            System.out.println();
            System.out.println("== jrma.path=" + path + (path.equals("auto") ? " (direct: load/store and CPU atomics)"
                    : " (packet: active messages applied by the target's progress agent)"));
            try {
                Jrma.job(NRANKS).param("jrma.path", path).timeout(Duration.ofSeconds(60)).run(world -> tour(world, c));
            } catch (RuntimeException e) {
                c.check("job ran to completion", 0, false, e.toString());
                e.printStackTrace();
            }
            failures += c.print();
            total += c.size();
            if (c.counters != null) {
                System.out.println("   counters of the allocate window at rank 0: " + c.counters);
            }
        }

        if (latency) {
            System.out.println();
            failures += latencyTable(quick);
        }

        System.out.println();
        if (failures == 0) {
            System.out.println("all " + total + " checks passed");
        } else {
            System.out.println(failures + " of " + total + " checks FAILED");
            System.exit(1);
        }
    }

    // ------------------------------------------------------------------ the tour (runs on every rank)

    /** Slots (longs) of the allocate window {@code w}. */
    static final int FENCE_PUT = 0;          // NRANKS slots
    static final int FENCE_ACC = 8;
    static final int ADDRESS = 10;           // NRANKS slots: addresses of the dynamic windows' regions
    static final int LOCK_ACC = 20;
    static final int LOCK_RMW = 21;
    static final int ALL_PUT = 24;
    static final int ALL_RPUT = 25;
    static final int TICKET = 30;
    static final int ELECTION = 31;
    static final int GACC_MAX = 32;
    static final int WIN_LONGS = 40;
    static final int TICKETS_PER_RANK = 25;
    static final int RMW_PER_RANK = 5;

    static void tour(Comm world, Checks c) {
        int me = world.rank();
        int n = world.size();
        int right = (me + 1) % n;
        int left = (me + n - 1) % n;

        // ---------------- allocate + fence
        Win w = Win.allocate(world, 8L * WIN_LONGS, 8, null);
        c.check("allocate window: flavor ALLOCATE, size and disp_unit as asked", me,
                w.flavor() == Flavor.ALLOCATE && w.size() == 8L * WIN_LONGS && w.dispUnit() == 8,
                w.flavor() + " " + w.size() + " " + w.dispUnit());
        String expectPath = c.path.equals("packet") ? "packet" : "direct";
        w.fence(Win.MODE_NOPRECEDE);
        for (int t = 0; t < n; t++) {
            w.put(new long[] {1000 + me}, 1, LONG, t, FENCE_PUT + me);
        }
        w.fence(0);
        long[] got = new long[n];
        w.get(got, n, LONG, right, FENCE_PUT);
        w.fence(0);
        boolean ok = true;
        for (int r = 0; r < n; r++) {
            ok &= got[r] == 1000 + r;
        }
        c.check("fence put/get on allocate window", me, ok, Arrays.toString(got));

        for (int t = 0; t < n; t++) {
            w.accumulate(new long[] {me + 1}, 1, LONG, t, FENCE_ACC, Op.SUM);
        }
        w.fence(Win.MODE_NOSUCCEED);
        long acc = w.buffer().getLong(8 * FENCE_ACC);
        c.check("fence accumulate(SUM) on allocate window", me, acc == (long) n * (n + 1) / 2, "got " + acc);
        c.check("info jrma_path reports the path (" + expectPath + ")", me,
                expectPath.equals(w.info().get("jrma_path")), "jrma_path=" + w.info().get("jrma_path"));

        // ---------------- create over a direct ByteBuffer + PSCW
        ByteBuffer mem = ByteBuffer.allocateDirect(8 * 4).order(ByteOrder.LITTLE_ENDIAN);
        Win wc = Win.create(world, mem, 8, null);
        Group g = world.group();
        Group fromLeft = g.incl(left);
        Group toRight = g.incl(right);
        wc.post(fromLeft, 0);
        wc.start(toRight, 0);
        wc.put(new long[] {2000 + me}, 1, LONG, right, 0);
        wc.accumulate(new long[] {me + 1}, 1, LONG, right, 1, Op.SUM);
        wc.accumulate(new long[] {me + 1}, 1, LONG, right, 1, Op.SUM);
        wc.complete();
        wc.waitFor();
        c.check("PSCW put on create window (user's direct ByteBuffer)", me,
                wc.flavor() == Flavor.CREATE && mem.getLong(0) == 2000 + left, "buffer holds " + mem.getLong(0));
        c.check("PSCW accumulate(SUM) on create window", me, mem.getLong(8) == 2L * (left + 1),
                "buffer holds " + mem.getLong(8));
        long[] back = new long[1];
        wc.post(fromLeft, Win.MODE_NOPUT);
        wc.start(toRight, 0);
        wc.get(back, 1, LONG, right, 0);
        wc.complete();
        wc.waitFor();
        c.check("PSCW get on create window", me, back[0] == 2000 + me, "got " + back[0]);
        wc.free();

        // ---------------- allocate_shared + shared_query (+ lock_all, flush, sync)
        // One page per rank. (Known issue: a contiguous allocate_shared whose total size is not a multiple of
        // 4096 bytes can fail with IndexOutOfBoundsException in WindowMemory.allocate's page alignment.)
        long seg = 4096;
        Win ws = Win.allocateShared(world, seg, 8, null);
        ws.lockAll(Win.MODE_NOCHECK);
        ws.buffer().putLong(0, 3000 + me);                  // a plain local store
        ws.sync();
        world.barrier();
        ws.sync();
        SharedMemory nb = ws.sharedQuery(right);
        long seen = nb.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        c.check("allocate_shared: load the neighbour's segment via shared_query", me, seen == 3000 + right,
                "got " + seen);
        boolean contiguous = true;
        long base0 = ws.sharedQuery(0).address();
        for (int r = 0; r < n; r++) {
            contiguous &= ws.sharedQuery(r).address() == base0 + seg * r && ws.sharedQuery(r).size() == seg;
        }
        c.check("allocate_shared: segments are contiguous (default)", me, contiguous, "");
        // store into the neighbour's segment
        nb.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN).putLong(8, 3100 + me);
        ws.put(new long[] {3200 + me}, 1, LONG, right, 2);                  // and an RMA put
        ws.flush(right);
        ws.sync();
        world.barrier();
        ws.sync();
        c.check("allocate_shared: store into the neighbour's segment", me,
                ws.buffer().getLong(8) == 3100 + left, "got " + ws.buffer().getLong(8));
        c.check("lock_all put+flush on allocate_shared window, seen by a load", me,
                ws.buffer().getLong(16) == 3200 + left, "got " + ws.buffer().getLong(16));
        ws.unlockAll();
        ws.free();

        // ---------------- create_dynamic + attach; addresses exchanged through w with a fence
        Win wd = Win.createDynamic(world, null);
        ByteBuffer region = ByteBuffer.allocateDirect(64).order(ByteOrder.LITTLE_ENDIAN);
        wd.attach(region);
        w.fence(Win.MODE_NOPRECEDE);
        for (int t = 0; t < n; t++) {
            w.put(new long[] {Win.address(region)}, 1, LONG, t, ADDRESS + me);
        }
        w.fence(Win.MODE_NOSUCCEED);
        long rightAddr = w.buffer().getLong(8 * (ADDRESS + right));
        wd.lock(LockType.EXCLUSIVE, right, 0);
        wd.put(new long[] {4000 + me}, 1, LONG, right, rightAddr);
        wd.accumulate(new long[] {7}, 1, LONG, right, rightAddr + 8, Op.SUM);
        wd.unlock(right);
        world.barrier();
        c.check("lock/unlock put+accumulate on dynamic window (attached ByteBuffer)", me,
                wd.flavor() == Flavor.DYNAMIC && region.getLong(0) == 4000 + left && region.getLong(8) == 7,
                "region holds " + region.getLong(0) + ", " + region.getLong(8));
        long[] dget = new long[1];
        wd.lock(LockType.SHARED, right, 0);
        wd.get(dget, 1, LONG, right, rightAddr);
        wd.unlock(right);
        c.check("lock/unlock get on dynamic window", me, dget[0] == 4000 + me, "got " + dget[0]);
        world.barrier();
        wd.detach(region);
        wd.free();

        // ---------------- lock/unlock on w
        w.lock(LockType.EXCLUSIVE, 0, 0);
        w.accumulate(new long[] {me + 1}, 1, LONG, 0, LOCK_ACC, Op.SUM);
        w.unlock(0);
        for (int i = 0; i < RMW_PER_RANK; i++) {        // get + put under an exclusive lock: no lost updates
            long[] v = new long[1];
            w.lock(LockType.EXCLUSIVE, 0, 0);
            w.get(v, 1, LONG, 0, LOCK_RMW);
            w.flush(0);
            w.put(new long[] {v[0] + 1}, 1, LONG, 0, LOCK_RMW);
            w.unlock(0);
        }
        world.barrier();
        long[] two = new long[2];
        w.lock(LockType.SHARED, 0, 0);
        w.get(two, 2, LONG, 0, LOCK_ACC);
        w.unlock(0);
        c.check("lock/unlock accumulate(SUM) on allocate window", me,
                two[0] == (long) n * (n + 1) / 2, "got " + two[0]);
        c.check("lock(EXCLUSIVE) makes get+put increments atomic", me, two[1] == (long) n * RMW_PER_RANK,
                "got " + two[1] + ", want " + n * RMW_PER_RANK);

        // ---------------- lock_all + flush on w
        w.lockAll(0);
        w.put(new long[] {5000 + me}, 1, LONG, right, ALL_PUT);
        w.flush(right);
        long[] v = new long[1];
        w.get(v, 1, LONG, right, ALL_PUT);
        w.flush(right);
        c.check("lock_all put+flush, get+flush on allocate window", me, v[0] == 5000 + me, "got " + v[0]);
        Request rp = w.rput(new long[] {6000 + me}, 1, LONG, right, ALL_RPUT, 1, LONG);
        rp.waitFor();
        w.flush(right);
        long[] rv = new long[1];
        w.rget(rv, 1, LONG, right, ALL_RPUT, 1, LONG).waitFor();
        c.check("lock_all rput/rget requests", me, rv[0] == 6000 + me, "got " + rv[0]);

        long[] one = {1};
        long[] ticket = new long[1];
        for (int i = 0; i < TICKETS_PER_RANK; i++) {
            w.fetchAndOp(one, ticket, LONG, 0, TICKET, Op.SUM);
            w.flush(0);
            c.tickets.add(ticket[0]);
        }
        long[] mine = new long[1];
        long[] zero = {0};
        w.compareAndSwap(new long[] {me + 1}, zero, mine, LONG, 0, ELECTION);
        w.flush(0);
        if (mine[0] == 0) {
            c.winners.incrementAndGet();
        }
        long[] old = new long[1];
        w.getAccumulate(new long[] {10 * me}, 1, LONG, old, 1, LONG, 0, GACC_MAX, 1, LONG, Op.MAX);
        w.flushAll();
        w.unlockAll();
        world.barrier();
        w.lockAll(0);
        long[] fin = new long[3];
        w.get(fin, 3, LONG, 0, TICKET);
        w.unlockAll();
        int total = n * TICKETS_PER_RANK;
        if (me == 0) {
            boolean distinct = c.tickets.size() == total;
            for (long t = 0; t < total; t++) {
                distinct &= c.tickets.contains(t);
            }
            c.check("fetch_and_op ticket counter: " + total + " tickets, all distinct", me,
                    distinct && fin[0] == total, c.tickets.size() + " distinct tickets, counter " + fin[0]);
            c.check("compare_and_swap election: exactly one winner", me,
                    c.winners.get() == 1 && fin[1] >= 1 && fin[1] <= n, c.winners.get() + " winners, slot " + fin[1]);
        }
        c.check("get_accumulate(MAX) under lock_all", me, fin[2] == 10L * (n - 1), "got " + fin[2]);

        world.barrier();
        if (me == 0) {
            c.counters = w.counters().toString();
        }
        w.free();
    }

    /** Check results of one path, filled by all ranks. */
    static final class Checks {
        private final Map<String, String> failures = new LinkedHashMap<>();   // name -> null (ok) or detail
        final Set<Long> tickets = ConcurrentHashMap.newKeySet();
        final AtomicInteger winners = new AtomicInteger();
        volatile String counters;

        /** Records one rank's verdict; a check fails if any rank says so. */
        synchronized void check(String name, int rank, boolean ok, String detail) {
            if (!failures.containsKey(name)) {
                failures.put(name, null);
            }
            if (!ok) {
                String prev = failures.get(name);
                failures.put(name, (prev == null ? "" : prev + "; ") + "rank " + rank + ": " + detail);
            }
        }

        final String path;

        Checks(String path) {
            this.path = path;
        }

        synchronized int size() {
            return failures.size();
        }

        /** Prints one line per check; returns the number of failures. */
        synchronized int print() {
            int f = 0;
            for (Map.Entry<String, String> e : failures.entrySet()) {
                if (e.getValue() == null) {
                    System.out.println("ok  " + e.getKey());
                } else {
                    System.out.println("FAIL " + e.getKey() + ": " + e.getValue());
                    f++;
                }
            }
            return f;
        }
    }

    // ------------------------------------------------------------------ latency

    static final String[] OPS = {"put+flush", "get+flush", "accumulate(SUM)+flush", "fetch_and_op+flush",
        "compare_and_swap+flush", "lock/put/unlock"};

    /** Measures and prints the latency table; returns 1 if a measurement job failed. */
    static int latencyTable(boolean quick) {
        long warmNs = quick ? 50_000_000L : 200_000_000L;
        long repNs = quick ? 20_000_000L : 50_000_000L;
        int reps = quick ? 5 : 7;
        Map<String, double[]> results = new LinkedHashMap<>();
        int failed = 0;
        for (String path : PATHS) {
            double[] med = new double[OPS.length];
            Arrays.fill(med, Double.NaN);
            try {
                Jrma.job(2).param("jrma.path", path).timeout(Duration.ofSeconds(120)).run(world -> {
                    Win w = Win.allocate(world, 64, 8, null);
                    if (world.rank() == 0) {
                        measure(w, med, warmNs, repNs, reps);
                    }
                    world.barrier();
                    w.free();
                });
            } catch (RuntimeException e) {
                System.out.println("FAIL latency run on path " + path + ": " + e);
                failed = 1;
            }
            results.put(path, med);
        }
        System.out.printf("latency rank 0 -> rank 1, 8 bytes (long), median of %d runs of %d ms, ns/op%n",
                reps, repNs / 1_000_000);
        System.out.printf("   %-26s %10s %10s%n", "operation", "direct", "packet");
        for (int i = 0; i < OPS.length; i++) {
            System.out.printf("   %-26s %10.0f %10.0f%n", OPS[i], results.get("auto")[i], results.get("packet")[i]);
        }
        return failed;
    }

    static void measure(Win w, double[] med, long warmNs, long repNs, int reps) {
        long[] src = {1};
        long[] dst = new long[1];
        long[] cmp = {0};
        long[] res = new long[1];
        List<Runnable> bodies = new ArrayList<>();
        bodies.add(() -> { w.put(src, 1, LONG, 1, 0); w.flush(1); });
        bodies.add(() -> { w.get(dst, 1, LONG, 1, 0); w.flush(1); });
        bodies.add(() -> { w.accumulate(src, 1, LONG, 1, 1, Op.SUM); w.flush(1); });
        bodies.add(() -> { w.fetchAndOp(src, res, LONG, 1, 2, Op.SUM); w.flush(1); });
        bodies.add(() -> { w.compareAndSwap(src, cmp, res, LONG, 1, 3); w.flush(1); });
        w.lockAll(0);
        for (int i = 0; i < 5; i++) {
            med[i] = medianNsPerOp(bodies.get(i), warmNs, repNs, reps);
        }
        w.unlockAll();
        med[5] = medianNsPerOp(() -> {
            w.lock(LockType.EXCLUSIVE, 1, 0);
            w.put(src, 1, LONG, 1, 4);
            w.unlock(1);
        }, warmNs, repNs, reps);
    }

    /** Runs {@code body} for {@code warmNs}, then {@code reps} runs of about {@code repNs}; the median ns/op. */
    static double medianNsPerOp(Runnable body, long warmNs, long repNs, int reps) {
        runFor(body, warmNs);
        double[] perOp = new double[reps];
        for (int r = 0; r < reps; r++) {
            perOp[r] = runFor(body, repNs);
        }
        Arrays.sort(perOp);
        return perOp[reps / 2];
    }

    /** Runs {@code body} in batches of 64 until {@code ns} have passed; returns ns per call. */
    static double runFor(Runnable body, long ns) {
        long start = System.nanoTime();
        long end = start + ns;
        long calls = 0;
        long now;
        do {
            for (int i = 0; i < 64; i++) {
                body.run();
            }
            calls += 64;
            now = System.nanoTime();
        } while (now < end);
        return (double) (now - start) / calls;
    }
}

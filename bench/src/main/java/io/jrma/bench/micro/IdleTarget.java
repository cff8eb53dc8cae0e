package io.jrma.bench.micro;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Op;
import io.jrma.Win;
import io.jrma.WinCounters;
import io.jrma.WinCounters.Counter;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How long one small operation takes when the origin issues it after computing for a while, with the target
 * waiting in the library all along (in a barrier): the latency a sparse pattern sees (a shared counter bumped now
 * and then, a lock taken once in a while), which OSU's back-to-back loops never show.
 *
 * <p>On memory private to the target's JVM ({@code --memory private}: a dynamic window over {@code allocateDirect})
 * an atomic needs the target's CPU (its request slot, else a packet), so the figure includes waking the target's
 * thread if it stopped polling; on memory from {@link Jrma#allocateMemory} ({@code --memory shared}) the origin's
 * CPU atomic does it alone. Run with two ranks in two JVMs of one host:
 *
 * <pre>
 * bin/jrmarun -n 2 --jvms 2 --bind-to core -cp bench/target/classes io.jrma.bench.micro.IdleTarget \
 *     [--idle-ms 0,0.1,1,10,100] [--samples 9] [--op fop|cas|get|put] [--memory private|shared] [--warmup 20000]
 * </pre>
 *
 * One line per idle time: the median and largest of the samples (operation + flush, µs), and how the samples went
 * (request slots, kernel copies, packets, direct operations: counter deltas over them).
 */
public final class IdleTarget {
    /** Bytes of the memory attached to the dynamic window (one page). */
    private static final int ATTACHED_BYTES = 4096;

    private double[] idleMs = {0, 0.1, 1, 10, 100};
    private int samples = 9;
    private String op = "fop";
    private String memory = "private";
    private int warmup = 20_000;
    private PrintStream out = System.out;
    /** Per idle time: the sample medians (µs), for tests. */
    final List<Double> medians = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        IdleTarget b = parse(args);
        Jrma.runOrJoin(2, b::run);
    }

    static IdleTarget parse(String[] args) {
        IdleTarget b = new IdleTarget();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("IdleTarget: " + a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--idle-ms":
                    b.idleMs = Arrays.stream(v.split(",")).mapToDouble(Double::parseDouble).toArray();
                    break;
                case "--samples": b.samples = Integer.parseInt(v); break;
                case "--warmup": b.warmup = Integer.parseInt(v); break;
                case "--op":
                    if (!List.of("fop", "cas", "get", "put").contains(v)) {
                        throw new IllegalArgumentException("IdleTarget: --op fop|cas|get|put, not " + v);
                    }
                    b.op = v;
                    break;
                case "--memory":
                    if (!v.equals("private") && !v.equals("shared")) {
                        throw new IllegalArgumentException("IdleTarget: --memory private|shared, not " + v);
                    }
                    b.memory = v;
                    break;
                default:
                    throw new IllegalArgumentException("IdleTarget: unknown option " + a
                            + " (--idle-ms LIST, --samples N, --op fop|cas|get|put, --memory private|shared, --warmup "
                            + "N)");
            }
        }
        if (b.samples < 1 || b.warmup < 0 || Arrays.stream(b.idleMs).anyMatch(x -> x < 0)) {
            throw new IllegalArgumentException("IdleTarget: samples >= 1, warmup >= 0, idle times >= 0");
        }
        return b;
    }

    IdleTarget out(PrintStream p) {
        this.out = p;
        return this;
    }

    void run(Comm world) {
        if (world.size() != 2) {
            throw new IllegalArgumentException("IdleTarget runs on 2 ranks, not " + world.size());
        }
        int me = world.rank();
        Win w = Win.createDynamic(world, null);
        ByteBuffer mem = memory.equals("shared") ? Jrma.allocateMemory(ATTACHED_BYTES)
                : ByteBuffer.allocateDirect(ATTACHED_BYTES).order(ByteOrder.nativeOrder());
        w.attach(mem);
        long target;
        try (Win x = Win.allocate(world, 16, 8, null)) { // exchange the attached addresses
            x.fence(0);
            x.put(new long[] {Win.address(mem)}, 1, Datatype.LONG, 1 - me, me);
            x.fence(0);
            target = x.buffer().order(ByteOrder.nativeOrder()).getLong(8 * (1 - me));
        }
        world.barrier();
        if (me == 0) {
            measure(w, target);
        }
        world.barrier(); // the target waits here, in the library, the whole time
        w.detach(mem);
        w.free();
    }

    private void measure(Win w, long target) {
        ByteBuffer src = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        ByteBuffer res = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        src.putLong(0, 1);
        w.lock(LockType.SHARED, 1, 0);
        for (int i = 0; i < warmup; i++) {
            once(w, target, src, res);
        }
        out.printf(Locale.ROOT, "# IdleTarget: %s + flush on %s memory of the other rank, after the origin computed"
                + " for a while (the target waiting in a barrier); %d samples each%n", op, memory, samples);
        out.printf(Locale.ROOT, "# %-9s %10s %10s %6s %6s %7s %6s%n", "idle_ms", "median_us",
                "max_us", "slot", "kernel",
                "packets", "direct");
        WinCounters c = w.counters();
        for (double idle : idleMs) {
            long[] t = new long[samples];
            long s0 = c.get(Counter.SLOT_OPS);
            long k0 = c.get(Counter.CROSS_MEMORY_OPS);
            long p0 = c.get(Counter.PACKETS_SENT);
            long d0 = c.get(Counter.DIRECT_OPS);
            for (int k = 0; k < samples; k++) {
                compute((long) (idle * 1e6));
                long t0 = System.nanoTime();
                once(w, target, src, res);
                t[k] = System.nanoTime() - t0;
            }
            Arrays.sort(t);
            double median = t[samples / 2] / 1e3;
            medians.add(median);
            out.printf(Locale.ROOT, "%-11s %10.1f %10.1f %6d %6d %7d %6d%n", idle, median, t[samples - 1] / 1e3,
                    c.get(Counter.SLOT_OPS) - s0, c.get(Counter.CROSS_MEMORY_OPS) - k0,
                    c.get(Counter.PACKETS_SENT) - p0, c.get(Counter.DIRECT_OPS) - d0);
        }
        w.unlock(1);
    }

    private void once(Win w, long target, ByteBuffer src, ByteBuffer res) {
        switch (op) {
            case "fop": w.fetchAndOp(src, res, Datatype.LONG, 1, target, Op.SUM); break;
            case "cas": w.compareAndSwap(src, res, res, Datatype.LONG, 1, target + 8); break;
            case "get": w.get(res, 1, Datatype.LONG, 1, target + 16, 1, Datatype.LONG); break;
            default: w.put(src, 1, Datatype.LONG, 1, target + 24, 1, Datatype.LONG); break;
        }
        w.flush(1);
    }

    /** The origin computing (outside the library) for {@code ns}. */
    private static volatile long sink;

    private static void compute(long ns) {
        long end = System.nanoTime() + ns;
        long x = 0;
        while (System.nanoTime() < end) {
            x += 31 * x + 7;
        }
        sink = x;
    }
}

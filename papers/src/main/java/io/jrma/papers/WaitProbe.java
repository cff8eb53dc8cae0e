package io.jrma.papers;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.Op;
import io.jrma.Win;
import io.jrma.msg.Messenger;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How ranks wait: N thread ranks of this JVM (more than the cores, for the Lockless claim) run a ping-pong between
 * rank pairs, fences on a window and allreduces of one double, with one waiting policy, and report the time per
 * operation and the CPU the JVM burnt meanwhile (from /proc/self/stat: user + system time of every thread), as cores
 * kept busy ({@code cpu}: CPU time over wall time) and as CPU µs per operation ({@code cpu_us}: on a machine shared
 * with other jobs the JVM gets only its share of the cores, so this one is the fairer comparison). Rank 0 prints
 * {@code series,x,metric,rep,value} lines, x being the phase and the ranks ({@code pingpong 4r}).
 *
 * <pre>
 *   java $(flags) -cp "papers/target/classes:papers/target/lib/*" io.jrma.papers.WaitProbe --variant spin --ranks 4
 * </pre>
 *
 * Variants: {@code spin} (waits never yield nor sleep: jrma.wait.spins and the messenger's spins at their maximum,
 * no yields, collectives spin for {@link #SPIN_FOREVER_NS}), {@code spin-sleep} (spin {@link #BRIEF_SPINS} rounds,
 * then park: Lockless MPI's policy), {@code auto} (jrma's defaults, which for more ranks than cores skip the spin,
 * yield up to 5000 times, then park). Options: {@code --ranks N}, {@code --iters I} (per phase), {@code --rep R},
 * {@code --clk-tck HZ} (the kernel's clock ticks per second, getconf CLK_TCK).
 */
public final class WaitProbe {
    /** Spins before sleeping in the spin-then-sleep variant (jrma's own default when ranks fit the cores). */
    static final int BRIEF_SPINS = 2000;
    /** A collective's spin that never ends in practice (about 17 minutes). */
    static final long SPIN_FOREVER_NS = 1L << 40;
    static final int TAG = 7;
    /** /proc/self/stat fields (1-based) of user and system time, in clock ticks. */
    static final int UTIME_FIELD = 14;
    static final int STIME_FIELD = 15;

    private String variant = "auto";
    private int ranks = 4;
    private int iters = 2000;
    private int rep = 1;
    private long clkTck = 100;
    private PrintStream out = System.out;

    public static void main(String[] args) {
        WaitProbe p = new WaitProbe();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--variant" -> p.variant = args[++i];
                case "--ranks" -> p.ranks = Integer.parseInt(args[++i]);
                case "--iters" -> p.iters = Integer.parseInt(args[++i]);
                case "--rep" -> p.rep = Integer.parseInt(args[++i]);
                case "--clk-tck" -> p.clkTck = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        p.run();
    }

    /** The job parameters and messenger settings of a variant. */
    record Policy(Map<String, String> params, Info msgInfo) {
    }

    static Policy policy(String variant) {
        Map<String, String> params = new LinkedHashMap<>();
        Info info = new Info();
        switch (variant) {
            case "spin" -> {
                params.put("jrma.wait.spins", Long.toString(Integer.MAX_VALUE));
                params.put("jrma.wait.yields", "0");
                params.put("jrma.coll.spinNs", Long.toString(SPIN_FOREVER_NS));
                info.set("jrma_msg_wait_spins", Integer.toString(Integer.MAX_VALUE));
                info.set("jrma_msg_wait_yields", "0");
            }
            case "spin-sleep" -> {
                params.put("jrma.wait.spins", Integer.toString(BRIEF_SPINS));
                params.put("jrma.wait.yields", "0");
                params.put("jrma.coll.spinNs", "0");
                info.set("jrma_msg_wait_spins", Integer.toString(BRIEF_SPINS));
                info.set("jrma_msg_wait_yields", "0");
            }
            case "auto" -> { }
            default -> throw new IllegalArgumentException("--variant spin|spin-sleep|auto, not " + variant);
        }
        return new Policy(params, info);
    }

    void run() {
        if (ranks % 2 != 0) {
            throw new IllegalArgumentException("--ranks must be even (the ping-pong pairs ranks)");
        }
        Policy pol = policy(variant);
        Jrma.Builder b = Jrma.job(ranks).timeout(Duration.ofMinutes(10));
        pol.params().forEach(b::param);
        b.run(world -> rank(world, pol.msgInfo()));
    }

    private void rank(Comm world, Info msgInfo) throws IOException {
        int me = world.rank();
        Messenger m = Messenger.create(world, msgInfo);
        Win w = Win.allocate(world, 8, 8, null);
        double[] one = {1};
        double[] sum = new double[1];
        byte[] ping = new byte[8];
        int peer = me ^ 1;
        int warm = Math.max(1, iters / 10);
        try {
            for (String phase : new String[] {"pingpong", "fence", "allreduce"}) {
                for (int pass = 0; pass < 2; pass++) { // a silent pass for the JIT, then the measured one
                    int n = pass == 0 ? warm : iters;
                    world.barrier();
                    long cpu0 = me == 0 ? cpuTicks() : 0;
                    long t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        switch (phase) {
                            case "pingpong" -> {
                                if (me % 2 == 0) {
                                    m.send(ping, 0, 8, Datatype.BYTE, peer, TAG);
                                    m.recv(ping, 0, 8, Datatype.BYTE, peer, TAG);
                                } else {
                                    m.recv(ping, 0, 8, Datatype.BYTE, peer, TAG);
                                    m.send(ping, 0, 8, Datatype.BYTE, peer, TAG);
                                }
                            }
                            case "fence" -> w.fence(0);
                            default -> m.collectives().allreduce(one, 0, sum, 0, 1, Datatype.DOUBLE, Op.SUM);
                        }
                    }
                    world.barrier();
                    long ns = System.nanoTime() - t0;
                    if (me == 0 && pass == 1) {
                        double cpuSecs = (double) (cpuTicks() - cpu0) / clkTck;
                        double us = ns / 1e3 / n / (phase.equals("pingpong") ? 2 : 1);
                        String x = phase + " " + ranks + "r";
                        out.printf(Locale.ROOT, "%s,%s,us,%d,%.6g%n", variant, x, rep, us);
                        out.printf(Locale.ROOT, "%s,%s,cpu,%d,%.6g%n", variant, x, rep, cpuSecs / (ns / 1e9));
                        out.printf(Locale.ROOT, "%s,%s,cpu_us,%d,%.6g%n", variant, x, rep, cpuSecs * 1e6 / n);
                        out.flush();
                    }
                }
            }
        } finally {
            world.barrier();
            w.free();
            m.free();
        }
    }

    /** User + system clock ticks of this process, every thread (/proc/self/stat). */
    static long cpuTicks() throws IOException {
        String s = Files.readString(Path.of("/proc/self/stat"));
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" "); // fields from 3 on (the name may hold spaces)
        return Long.parseLong(f[UTIME_FIELD - 3]) + Long.parseLong(f[STIME_FIELD - 3]);
    }
}

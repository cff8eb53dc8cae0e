package io.jrma.bench;

import io.jrma.Comm;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.Win;
import java.util.Locale;

/**
 * The passive-target progress figure (issue 31): rank 1 computes for {@code SECONDS} without calling the library (a
 * plain Java loop), while rank 0 repeats lock(exclusive, 1) / fetch_and_op(SUM, 8 bytes) / unlock(1) on an allocate
 * window for as long as rank 1 computes; rank 0 prints the epochs it completed and the mean time of one. The same
 * measurement in C for MPI libraries: bench/ucx/progress/passive_progress.c.
 *
 * <p>Usage: {@code bin/jrmarun -n 2 --jvms 2 ... -cp bench/target/classes io.jrma.bench.PassiveProgress [SECONDS]}.
 */
public final class PassiveProgress {
    private static final long NS_PER_S = 1_000_000_000L;
    /** A linear congruential step (the target's computation). */
    private static final long LCG_A = 6364136223846793005L;
    private static final long LCG_C = 1442695040888963407L;

    private PassiveProgress() {
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2.0;
        Jrma.runOrJoin(2, world -> run(world, (long) (seconds * NS_PER_S)));
    }

    private static void run(Comm world, long computeNs) {
        Win w = Win.allocate(world, Long.BYTES, Long.BYTES, null);
        // warm-up: a few epochs while the target waits in the library (the barrier)
        if (world.rank() == 0) {
            for (int i = 0; i < 1000; i++) {
                w.lock(LockType.EXCLUSIVE, 1, 0);
                w.fetchAndAddLong(1, 0, 1);
                w.unlock(1);
            }
        }
        world.barrier();
        long epochs = 0;
        long elapsed = 0;
        if (world.rank() == 1) {
            long end = System.nanoTime() + computeNs;
            long x = 1;
            while (System.nanoTime() < end) { // computes: no call into jrma
                for (int k = 0; k < 1000; k++) {
                    x = x * LCG_A + LCG_C;
                }
            }
            world.barrier();
            System.out.println("# target computed: " + (x == 0 ? "0" : "done"));
        } else {
            long t0 = System.nanoTime();
            long end = t0 + computeNs;
            long now = t0;
            while (now < end) {
                w.lock(LockType.EXCLUSIVE, 1, 0);
                w.fetchAndAddLong(1, 0, 1);
                w.unlock(1);
                epochs++;
                now = System.nanoTime();
            }
            elapsed = now - t0;
            world.barrier();
        }
        world.barrier();
        if (world.rank() == 0) {
            System.out.printf(Locale.ROOT, "passive_progress jrma epochs %d in %.3f s: %.3f us per lock/fetch_and_op"
                    + "/unlock while the target computed (info %s, lanes %s)%n", epochs, elapsed / 1e9,
                    elapsed / 1e3 / Math.max(1, epochs), w.info().get("jrma_path"), w.info().get("jrma_peer_lanes"));
        }
        w.free();
    }
}

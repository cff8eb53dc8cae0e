package io.jrma.soak;

import io.jrma.Jrma;

/**
 * The soak as a program for {@code jrmarun} (each rank runs this {@code main}), for layouts the test's own job starter
 * cannot make, such as ranks on several hosts: {@code jrmarun --host a:2,b:2 --jvms 4 --param jrma.shm.windows=false
 * io.jrma.soak.SoakProgram LABEL JVMS BETWEEN SEED ROUNDS RESULT_FILE} — BETWEEN the transports that may reach a
 * peer in another JVM ({@code shm,tcp}: shared memory on its host, TCP to the others). Rank 0 writes the job's counts
 * to RESULT_FILE; a failed check ends the job with its message (seed, round, rank).
 */
public final class SoakProgram {
    private static final int ARGS = 6;

    private SoakProgram() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != ARGS) {
            throw new IllegalArgumentException("SoakProgram LABEL JVMS BETWEEN SEED ROUNDS RESULT_FILE");
        }
        SoakRank.Config cfg = new SoakRank.Config(args[0], Integer.parseInt(args[1]), args[2], Long.parseLong(args[3]),
                Integer.parseInt(args[4]), 0, Soak.MAX_OPS, Soak.MAX_MSGS, true, args[5], null, "");
        Jrma.runOrJoin(Integer.parseInt(args[1]), new SoakRank(cfg));
    }
}

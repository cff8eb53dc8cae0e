package io.jrma.training;

import mpi.MPI;
import mpi.MPIException;

/**
 * The program {@code bin/jrmarun} trains its class-data sharing archive with, and on JDK 25 and later its
 * ahead-of-time cache (run as two thread ranks by {@code io.jrma.launcher.CdsTraining}, with {@code
 * jrma.mpi.warmup=on}): {@code MPI.Init}'s own warm-up runs what users' loops do through the {@code mpi} package —
 * ping-pongs, windows of non-blocking sends, collectives, 8-byte RMA with flush, lock and fence epochs — so that the
 * JVMs of later jobs start with these classes linked and the JIT's profiles of their methods (JEP 515).
 *
 * <p>Its package is none that thread ranks share (see the launcher's RankClassLoader), so that each rank loads it,
 * and the {@code mpi} package it uses, as a program of its own: {@code MPI}'s statics are per rank.
 */
public final class WarmUpTraining {
    private WarmUpTraining() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        if (MPI.COMM_WORLD.getSize() != 2) {
            throw new IllegalStateException("the training runs on 2 ranks");
        }
        MPI.Finalize();
    }
}

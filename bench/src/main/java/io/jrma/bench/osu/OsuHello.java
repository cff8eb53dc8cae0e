package io.jrma.bench.osu;

import mpi.MPI;
import mpi.MPIException;

/**
 * OSU's start-up test on the {@code mpi} package: {@code MPI.Init}, one line from rank 0, {@code MPI.Finalize}. It
 * does nothing else, so that timing a job of it measures the launcher and the library's start and end, beside its C
 * twin {@code bench/c/osu_hello.c} (bench/multihost/run times both under jrmarun, mpirun and mpiexec).
 *
 * <pre>
 *   bin/jrmarun --host a:2,b:2 -cp bench/target/classes io.jrma.bench.osu.OsuHello
 *   mpirun -np 4 java $(bin/jrma-flags) -cp "$(bin/jrma-flags --classpath):bench/target/classes" \
 *       io.jrma.bench.osu.OsuHello
 * </pre>
 */
public final class OsuHello {
    private OsuHello() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int size = MPI.COMM_WORLD.getSize();
        if (MPI.COMM_WORLD.getRank() == 0) {
            System.out.println("# OSU MPI Hello World Test (jrma mpi package)");
            System.out.println("This is a test with " + size + " processes");
        }
        MPI.Finalize();
    }
}

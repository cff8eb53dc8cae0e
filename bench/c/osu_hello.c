/*
 * osu_hello: the start-up test of the OSU suite, written for jrma's comparisons (bench/multihost/run): MPI_Init,
 * one line from rank 0, MPI_Finalize. What it measures is the launcher and the library's start and end, so the
 * program does nothing else. Its Java twin is io.jrma.bench.osu.OsuHello.
 *   mpirun -np 4 ./osu_hello
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (me == 0) {
        printf("# OSU MPI Hello World Test (C twin)\nThis is a test with %d processes\n", np);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}

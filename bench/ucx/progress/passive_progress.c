/* The passive-target progress figure (issue 31) for MPI libraries: rank 1 computes for SECONDS without calling MPI,
 * while rank 0 repeats MPI_Win_lock(exclusive, 1) / MPI_Fetch_and_op(SUM, 8 bytes) / MPI_Win_unlock(1) on an
 * allocate window for as long as rank 1 computes; rank 0 prints the epochs and the mean time of one.
 * jrma's twin: bench/src/main/java/io/jrma/bench/PassiveProgress.java. Usage: passive_progress [SECONDS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int64_t *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    int64_t one = 1, old;
    if (rank == 0) {
        for (int i = 0; i < 1000; i++) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, 0, MPI_SUM, win);
            MPI_Win_unlock(1, win);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    long epochs = 0;
    double elapsed = 0;
    if (rank == 1) {
        double end = MPI_Wtime() + seconds;
        volatile uint64_t x = 1;
        while (MPI_Wtime() < end) { /* computes: MPI_Wtime is a clock read, no progress */
            for (int k = 0; k < 1000; k++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            }
        }
    } else {
        double t0 = MPI_Wtime(), now = t0;
        while (now < t0 + seconds) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, 0, MPI_SUM, win);
            MPI_Win_unlock(1, win);
            epochs++;
            now = MPI_Wtime();
        }
        elapsed = now - t0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("passive_progress mpi epochs %ld in %.3f s: %.3f us per lock/fetch_and_op/unlock while the target"
               " computed\n", epochs, elapsed, elapsed * 1e6 / (epochs > 0 ? epochs : 1));
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}

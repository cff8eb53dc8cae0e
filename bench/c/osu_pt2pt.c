/*
 * C twin of io.jrma.bench.osu.OsuPt2pt (jrma's own code, following that class's loops): latency (ping-pong,
 * half the round trip), bw (windows of 64 non-blocking sends, then a 4-byte acknowledgement) and allreduce
 * (SUM of floats; the average over ranks of each rank's average time).
 *   osu_pt2pt latency|bw|allreduce [-m [MIN:]MAX] [-i ITER] [-x SKIP]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE 8192
#define WINDOW 64

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) MPI_Abort(MPI_COMM_WORLD, 2);
    const char *test = argv[1];
    int ar = strcmp(test, "allreduce") == 0, bw = strcmp(test, "bw") == 0;
    long min = ar ? 4 : 1, max = ar ? 1L << 20 : 4L << 20;
    int iters = -1, skip = -1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc) {
            char *m = argv[++i], *c = strchr(m, ':');
            if (c) { min = atol(m); max = atol(c + 1); } else max = atol(m);
        } else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-x") && i + 1 < argc) skip = atoi(argv[++i]);
        else MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!ar && np != 2) MPI_Abort(MPI_COMM_WORLD, 2);
    if (me == 0) {
        printf("# OSU MPI %s Test (C twin)\n", ar ? "Allreduce Latency" : bw ? "Bandwidth" : "Latency");
        printf("%-10s%20s\n", "# Size", bw ? "Bandwidth (MB/s)" : "Avg Latency (us)");
        fflush(stdout);
    }
    char *bufs[WINDOW];
    long cap = max < 4 ? 4 : max;
    for (int j = 0; j < WINDOW; j++) { bufs[j] = malloc(cap); memset(bufs[j], 1, cap); }
    char *r = malloc(cap), ack[4];
    MPI_Request reqs[WINDOW];
    for (long size = min; size <= max; size *= 2) {
        int s = (int) size, large = size > LARGE;
        double v;
        if (ar) {
            int n = iters > 0 ? iters : large ? 100 : 1000, warm = skip >= 0 ? skip : large ? 10 : 100;
            int count = s / 4 > 0 ? s / 4 : 1;
            double total = 0, mine, sum;
            for (int i = 0; i < warm + n; i++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                MPI_Allreduce(bufs[0], r, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
                if (i >= warm) total += MPI_Wtime() - t0;
            }
            mine = total * 1e6 / n;
            MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            v = sum / np;
        } else if (bw) {
            int n = iters > 0 ? iters : large ? 20 : 100, warm = skip >= 0 ? skip : large ? 2 : 10;
            double t0 = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            for (int i = 0; i < warm + n; i++) {
                if (i == warm) t0 = MPI_Wtime();
                for (int j = 0; j < WINDOW; j++) {
                    if (me == 0) MPI_Isend(bufs[j], s, MPI_BYTE, 1, 100, MPI_COMM_WORLD, &reqs[j]);
                    else MPI_Irecv(bufs[j], s, MPI_BYTE, 0, 100, MPI_COMM_WORLD, &reqs[j]);
                }
                MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
                if (me == 0) MPI_Recv(ack, 4, MPI_BYTE, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                else MPI_Send(ack, 4, MPI_BYTE, 0, 101, MPI_COMM_WORLD);
            }
            v = size / 1e6 * n * WINDOW / (MPI_Wtime() - t0);
        } else {
            int n = iters > 0 ? iters : large ? 1000 : 10000, warm = skip >= 0 ? skip : large ? 10 : 100;
            double t0 = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            for (int i = 0; i < warm + n; i++) {
                if (i == warm) t0 = MPI_Wtime();
                if (me == 0) {
                    MPI_Send(bufs[0], s, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                    MPI_Recv(r, s, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(r, s, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(bufs[0], s, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
                }
            }
            v = (MPI_Wtime() - t0) * 1e6 / (2.0 * n);
        }
        if (me == 0) { printf("%-10ld%20.2f\n", size, v); fflush(stdout); }
    }
    for (int j = 0; j < WINDOW; j++) free(bufs[j]);
    free(r);
    MPI_Finalize();
    return 0;
}

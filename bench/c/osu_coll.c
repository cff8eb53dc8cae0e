/*
 * C twin of io.jrma.bench.osu.OsuColl (jrma's own code, following that class's loops): the OSU 7.x blocking
 * collective latency tests bcast (root 0), barrier, allgather, alltoall (bytes) and reduce_scatter (SUM of
 * floats). Each iteration times the collective alone, then an untimed barrier; the row is the average over
 * ranks of each rank's mean time. Buffers hold a pattern of rank, position and size; after each size's loop
 * every rank checks what the last collective left (outside the timing) and the run stops on a wrong element.
 *   osu_coll bcast|barrier|allgather|alltoall|reduce_scatter [-m [MIN:]MAX] [-i ITER] [-x SKIP] [-f]
 * Defaults as OSU's: sizes 1 B..1 MiB, 1000 timed and 100 skipped iterations up to 8 KiB, 100 and 10 above.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE 8192
#define ROOT 0

enum { BARRIER, BCAST, ALLGATHER, ALLTOALL, REDUCE_SCATTER };

/* the same patterns as OsuColl.value/element */
static signed char value(int r, long j, long size) { return (signed char) (r * 31 + j * 7 + size + 1); }
static signed char value2(int r, int d, long j, long size) { return (signed char) (r * 31 + d * 17 + j * 7 + size + 3); }
static float element(int r, long k) { return (float) ((k + 5 * r) % 61 + 1); }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2 || np < 2) MPI_Abort(MPI_COMM_WORLD, 2);
    const char *test = argv[1], *title;
    int kind;
    if (!strcmp(test, "bcast")) { kind = BCAST; title = "Broadcast"; }
    else if (!strcmp(test, "barrier")) { kind = BARRIER; title = "Barrier"; }
    else if (!strcmp(test, "allgather")) { kind = ALLGATHER; title = "Allgather"; }
    else if (!strcmp(test, "alltoall")) { kind = ALLTOALL; title = "All-to-All Personalized Exchange"; }
    else if (!strcmp(test, "reduce_scatter")) { kind = REDUCE_SCATTER; title = "Reduce_scatter"; }
    else { MPI_Abort(MPI_COMM_WORLD, 2); return 2; }
    long min = 1, max = 1L << 20;
    int iters = -1, skip = -1, full = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc) {
            char *m = argv[++i], *c = strchr(m, ':');
            if (c) { min = atol(m); max = atol(c + 1); } else max = atol(m);
        } else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-x") && i + 1 < argc) skip = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-f")) full = 1;
        else MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (min < 1 || max < min) MPI_Abort(MPI_COMM_WORLD, 2);
    if (me == 0) {
        printf("# OSU MPI %s Latency Test (C twin)\n", title);
        if (full) printf("%-10s%20s%20s%20s%12s\n", "# Size", "Avg Latency (us)", "Min Latency (us)", "Max Latency (us)", "Iterations");
        else printf("%-10s%20s\n", "# Size", "Avg Latency (us)");
        fflush(stdout);
    }
    long cap = kind == BARRIER ? 1 : kind == ALLTOALL ? max * np : max;
    long rcap = kind == ALLGATHER || kind == ALLTOALL ? max * np : cap;
    signed char *send = malloc(cap), *recv = kind == BCAST || kind == BARRIER ? send : malloc(rcap);
    int *counts = malloc(np * sizeof(int));
    long errors = 0, failed_at = -1;
    long first = kind == BARRIER ? 0 : min, last = kind == BARRIER ? 0 : max;
    for (long size = first; size <= last; size = size ? size * 2 : 1) {
        int large = size > LARGE;
        int n = iters > 0 ? iters : large ? 100 : 1000, warm = skip >= 0 ? skip : large ? 10 : 100;
        int s = (int) size, elements = 0;
        float *fs = (float *) send, *fr = (float *) recv;
        switch (kind) {
        case BCAST:
            for (long j = 0; j < size; j++) send[j] = me == ROOT ? value(ROOT, j, size) : (signed char) ~value(ROOT, j, size);
            break;
        case ALLGATHER:
            for (long j = 0; j < size; j++) send[j] = value(me, j, size);
            for (int r = 0; r < np; r++)
                for (long j = 0; j < size; j++) recv[r * size + j] = (signed char) ~value(r, j, size);
            break;
        case ALLTOALL:
            for (int d = 0; d < np; d++)
                for (long j = 0; j < size; j++) {
                    send[d * size + j] = value2(me, d, j, size);
                    recv[d * size + j] = (signed char) ~value2(d, me, j, size);
                }
            break;
        case REDUCE_SCATTER:
            elements = s / (int) sizeof(float);
            for (int i = 0; i < np; i++)
                counts[i] = elements < np ? (i < elements) : elements / np + (i < elements % np);
            for (int k = 0; k < elements; k++) fs[k] = element(me, k);
            for (int k = 0; k < counts[me]; k++) fr[k] = -1.0f;
            break;
        }
        if (kind == REDUCE_SCATTER && elements == 0) continue; /* smaller than one element, as OSU skips */
        MPI_Barrier(MPI_COMM_WORLD);
        double timer = 0;
        for (int i = 0; i < warm + n; i++) {
            double t0 = MPI_Wtime();
            switch (kind) {
            case BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
            case BCAST: MPI_Bcast(send, s, MPI_BYTE, ROOT, MPI_COMM_WORLD); break;
            case ALLGATHER: MPI_Allgather(send, s, MPI_BYTE, recv, s, MPI_BYTE, MPI_COMM_WORLD); break;
            case ALLTOALL: MPI_Alltoall(send, s, MPI_BYTE, recv, s, MPI_BYTE, MPI_COMM_WORLD); break;
            default: MPI_Reduce_scatter(send, recv, counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); break;
            }
            double t1 = MPI_Wtime();
            MPI_Barrier(MPI_COMM_WORLD);
            if (i >= warm) timer += t1 - t0;
        }
        long bad = 0;
        switch (kind) {
        case BCAST:
            for (long j = 0; j < size; j++) bad += recv[j] != value(ROOT, j, size);
            break;
        case ALLGATHER:
            for (int r = 0; r < np; r++)
                for (long j = 0; j < size; j++) bad += recv[r * size + j] != value(r, j, size);
            break;
        case ALLTOALL:
            for (int r = 0; r < np; r++)
                for (long j = 0; j < size; j++) bad += recv[r * size + j] != value2(r, me, j, size);
            break;
        case REDUCE_SCATTER: {
            long at = 0;
            for (int r = 0; r < me; r++) at += counts[r];
            for (int k = 0; k < counts[me]; k++) {
                float want = 0;
                for (int r = 0; r < np; r++) want += element(r, at + k);
                bad += fr[k] != want;
            }
            break;
        }
        }
        double lat = timer * 1e6 / n, lo, hi, sum;
        MPI_Reduce(&lat, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&lat, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        long all_bad = 0;
        MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (me == 0) {
            if (full) printf("%-10ld%20.2f%20.2f%20.2f%12d\n", size, sum / np, lo, hi, n);
            else printf("%-10ld%20.2f\n", size, sum / np);
            fflush(stdout);
        }
        if (all_bad) { errors = all_bad; failed_at = size; break; }
    }
    if (me == 0) {
        if (errors) printf("# DATA VALIDATION ERROR: %s left %ld wrong elements at size %ld\n", test, errors, failed_at);
        else printf("# Validation: all results correct\n");
        fflush(stdout);
    }
    if (recv != send) free(recv);
    free(send);
    free(counts);
    MPI_Finalize();
    return errors ? 1 : 0;
}

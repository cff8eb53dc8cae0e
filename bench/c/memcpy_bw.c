/*
 * The physical limit beside the bandwidth tests of bench/compare: one core copying what put_bw or get_bw moves,
 * with the C library's memcpy and no communication at all. 64 operations of SIZE bytes per window, each between
 * its own slice of a private buffer (malloc'ed and written, as the benchmarks' origin buffers are) and its own
 * slice of a shared mapping of /dev/shm (written first, as a window in a shared segment is): put copies private ->
 * shared, get shared -> private. Same options and output as osu_rma's bandwidth tests, so bench/compare and its
 * report read it like another implementation. Written for jrma.
 *
 *   memcpy_bw put|get [-m [MIN:]MAX] [-i WINDOWS] [-x SKIP] [-W OPS_PER_WINDOW]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "put") != 0 && strcmp(argv[1], "get") != 0)) {
        fprintf(stderr, "usage: memcpy_bw put|get [-m [MIN:]MAX] [-i WINDOWS] [-x SKIP] [-W OPS]\n");
        return 2;
    }
    int put = strcmp(argv[1], "put") == 0;
    long min_size = 65536, max_size = 4L << 20;
    int iters = 20, skip = 2, ops = 64;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
            char *m = argv[++i], *c = strchr(m, ':');
            if (c) { min_size = atol(m); max_size = atol(c + 1); } else { min_size = 1; max_size = atol(m); }
        } else if (strcmp(argv[i], "-i") == 0 && i + 1 < argc) iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "-x") == 0 && i + 1 < argc) skip = atoi(argv[++i]);
        else if (strcmp(argv[i], "-W") == 0 && i + 1 < argc) ops = atoi(argv[++i]);
        else { fprintf(stderr, "memcpy_bw: unknown option %s\n", argv[i]); return 2; }
    }
    if (min_size < 1 || max_size < min_size || iters < 1 || skip < 0 || ops < 1) {
        fprintf(stderr, "memcpy_bw: bad sizes or counts\n");
        return 2;
    }
    printf("# memcpy %s bandwidth, %d copies per window, one core\n", put ? "put" : "get", ops);
    printf("%-10s%20s\n", "# Size", "Bandwidth (MB/s)");
    for (long size = min_size; size <= max_size; size *= 2) {
        size_t total = (size_t) size * ops;
        char *priv = malloc(total);
        char path[64];
        snprintf(path, sizeof path, "/dev/shm/jrma-memcpy-bw-%d", (int) getpid());
        int fd = open(path, O_CREAT | O_RDWR | O_EXCL, 0600);
        if (priv == NULL || fd < 0 || ftruncate(fd, (off_t) total) != 0) {
            fprintf(stderr, "memcpy_bw: cannot allocate %zu bytes (private and in %s)\n", total, path);
            if (fd >= 0) unlink(path);
            return 1;
        }
        char *shared = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        unlink(path); /* the mapping stays; nothing is left behind however this ends */
        close(fd);
        if (shared == MAP_FAILED) {
            fprintf(stderr, "memcpy_bw: mmap of %zu bytes failed\n", total);
            return 1;
        }
        memset(priv, 1, total);
        memset(shared, 0, total);
        double t0 = 0;
        for (int w = 0; w < skip + iters; w++) {
            if (w == skip) t0 = now();
            for (int j = 0; j < ops; j++) {
                char *p = priv + (size_t) j * size, *s = shared + (size_t) j * size;
                if (put) memcpy(s, p, size); else memcpy(p, s, size);
            }
            __asm__ __volatile__("" ::: "memory"); /* the copies are not dead stores */
        }
        double t = now() - t0;
        printf("%-10ld%20.2f\n", size, size / 1e6 * ops * iters / t);
        fflush(stdout);
        munmap(shared, total);
        free(priv);
    }
    return 0;
}

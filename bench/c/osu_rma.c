/*
 * jrma's C twin of io.jrma.bench.osu.OsuRma: the OSU 7.x one-sided loops as OsuRma runs them (same options,
 * defaults, output and halving of fence/pscw latency), built against Open MPI or MPICH by bench/compare so that
 * both sides are measured in the same session. Written for jrma; it follows OsuRma, not OSU's source.
 *
 *   osu_rma TEST [-w create|create_malloc|allocate|dynamic|dynamic_alloc] [-s lock|flush|flush_local|lock_all|pscw|fence]
 *           [-m [MIN:]MAX] [-i ITER] [-x SKIP] [-W WINDOW]
 *   TEST: put_latency get_latency acc_latency get_acc_latency fop_latency cas_latency put_bw get_bw put_bibw
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define LARGE 8192

static const char *test, *window = "allocate", *sync_mode = "flush";
static long min_size = 1, max_size = 4L << 20;
static int iters = -1, skip = -1, window_ops = 64;

static int is(const char *a, const char *b) { return strcmp(a, b) == 0; }
static int ends(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}
static int atomic_test(void) { return is(test, "fop_latency") || is(test, "cas_latency"); }
static int bw_test(void) { return ends(test, "_bw") || ends(test, "_bibw"); }
static int bibw(void) { return ends(test, "bibw"); }

/* the test and synchronization resolved once (resolve()), so the timed loop compares no strings, as OSU's
   functions per test and per synchronization do not; OsuRma does the same */
enum { OP_PUT, OP_GET, OP_ACC, OP_GET_ACC, OP_FOP, OP_CAS };
enum { S_FLUSH, S_FLUSH_LOCAL, S_LOCK, S_LOCK_ALL, S_FENCE, S_PSCW };
static int op_kind, sync_kind, is_bibw;
static void resolve(void) {
    op_kind = is(test, "put_latency") || is(test, "put_bw") || is(test, "put_bibw") ? OP_PUT
            : is(test, "get_latency") || is(test, "get_bw") ? OP_GET
            : is(test, "acc_latency") ? OP_ACC : is(test, "get_acc_latency") ? OP_GET_ACC
            : is(test, "fop_latency") ? OP_FOP : OP_CAS;
    sync_kind = is(sync_mode, "flush_local") ? S_FLUSH_LOCAL : is(sync_mode, "lock") ? S_LOCK
              : is(sync_mode, "lock_all") ? S_LOCK_ALL : is(sync_mode, "fence") ? S_FENCE
              : is(sync_mode, "pscw") ? S_PSCW : S_FLUSH;
    is_bibw = bibw();
}

static const char *title(void) {
    if (is(test, "put_latency")) return "Put Latency";
    if (is(test, "get_latency")) return "Get Latency";
    if (is(test, "acc_latency")) return "Accumulate Latency";
    if (is(test, "get_acc_latency")) return "Get_accumulate Latency";
    if (is(test, "fop_latency")) return "Fetch_and_op Latency";
    if (is(test, "cas_latency")) return "Compare_and_swap Latency";
    if (is(test, "put_bw")) return "Put Bandwidth";
    if (is(test, "get_bw")) return "Get Bandwidth";
    if (is(test, "put_bibw")) return "Put Bi-directional Bandwidth";
    return NULL;
}

static const char *sync_name(void) {
    if (is(sync_mode, "lock")) return "MPI_Win_lock/unlock";
    if (is(sync_mode, "flush")) return "MPI_Win_flush";
    if (is(sync_mode, "flush_local")) return "MPI_Win_flush_local";
    if (is(sync_mode, "lock_all")) return "MPI_Win_lock_all/unlock_all";
    if (is(sync_mode, "pscw")) return "MPI_Win_post/start/complete/wait";
    if (is(sync_mode, "fence")) return "MPI_Win_fence";
    return NULL;
}

/* OSU accumulates ints with SUM; sizes below an int use bytes with REPLACE (as OsuRma does) */
static int acc_count(long size) { return size < 4 ? (int) size : (int) (size / 4); }
static MPI_Datatype acc_type(long size) { return size < 4 ? MPI_BYTE : MPI_INT; }
static MPI_Op acc_op(long size) { return size < 4 ? MPI_REPLACE : MPI_SUM; }

static void ops(MPI_Win w, int peer, long size, int nops, char *local, char *compare, char *result, MPI_Aint base) {
    for (int j = 0; j < nops; j++) {
        MPI_Aint disp = base + (MPI_Aint) j * size;
        char *src = local + (long) j * size;
        switch (op_kind) {
        case OP_PUT: MPI_Put(src, (int) size, MPI_BYTE, peer, disp, (int) size, MPI_BYTE, w); break;
        case OP_GET: MPI_Get(src, (int) size, MPI_BYTE, peer, disp, (int) size, MPI_BYTE, w); break;
        case OP_ACC:
            MPI_Accumulate(src, acc_count(size), acc_type(size), peer, disp, acc_count(size), acc_type(size), acc_op(size), w);
            break;
        case OP_GET_ACC:
            MPI_Get_accumulate(src, acc_count(size), acc_type(size), result, acc_count(size), acc_type(size), peer, disp,
                               acc_count(size), acc_type(size), acc_op(size), w);
            break;
        case OP_FOP: MPI_Fetch_and_op(src, result, MPI_INT64_T, peer, disp, MPI_SUM, w); break;
        default: MPI_Compare_and_swap(src, compare, result, MPI_INT64_T, peer, disp, w);
        }
    }
}

static void iteration(MPI_Win w, int me, int peer, int origin, MPI_Group peer_group, long size, int nops,
                      char *local, char *compare, char *result, MPI_Aint base) {
    if (sync_kind == S_FENCE) {
        MPI_Win_fence(0, w);
        ops(w, peer, size, nops, local, compare, result, base);
        MPI_Win_fence(0, w);
    } else if (sync_kind == S_PSCW) {
        if (me == 0 || is_bibw) {
            if (is_bibw) MPI_Win_post(peer_group, 0, w);
            MPI_Win_start(peer_group, 0, w);
            ops(w, peer, size, nops, local, compare, result, base);
            MPI_Win_complete(w);
            if (is_bibw) MPI_Win_wait(w);
        } else {
            MPI_Win_post(peer_group, 0, w);
            MPI_Win_wait(w);
        }
    } else {
        if (!origin || (me != 0 && !is_bibw)) return;
        if (sync_kind == S_LOCK) MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w);
        ops(w, peer, size, nops, local, compare, result, base);
        if (sync_kind == S_LOCK) MPI_Win_unlock(peer, w);
        else if (sync_kind == S_FLUSH || sync_kind == S_LOCK_ALL) MPI_Win_flush(peer, w);
        else MPI_Win_flush_local(peer, w);
    }
}

static double measure(MPI_Win w, int me, long size, int n, int warm, int nops, char *local, char *compare,
                      char *result, MPI_Aint base) {
    int peer = 1 - me;
    int active = is(sync_mode, "fence") || is(sync_mode, "pscw");
    int origin = me == 0 || bibw() || is(sync_mode, "fence");
    MPI_Group wg, peer_group;
    MPI_Win_get_group(w, &wg);
    MPI_Group_incl(wg, 1, &peer, &peer_group);
    double t0 = 0;
    if (!active && (me == 0 || bibw())) {
        if (is(sync_mode, "flush") || is(sync_mode, "flush_local")) MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w);
        else if (is(sync_mode, "lock_all")) MPI_Win_lock_all(0, w);
    }
    for (int i = 0; i < warm + n; i++) {
        if (i == warm) t0 = MPI_Wtime();
        iteration(w, me, peer, origin, peer_group, size, nops, local, compare, result, base);
    }
    double secs = MPI_Wtime() - t0;
    if (!active && (me == 0 || bibw())) {
        if (is(sync_mode, "flush") || is(sync_mode, "flush_local")) MPI_Win_unlock(peer, w);
        else if (is(sync_mode, "lock_all")) MPI_Win_unlock_all(w);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Group_free(&peer_group);
    MPI_Group_free(&wg);
    return secs;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) {
        if (me == 0) fprintf(stderr, "usage: osu_rma TEST [-w ...] [-s ...] [-m [MIN:]MAX] [-i ITER] [-x SKIP] [-W WINDOW]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    test = argv[1];
    for (int i = 2; i < argc; i++) {
        if (is(argv[i], "-w") && i + 1 < argc) window = argv[++i];
        else if (is(argv[i], "-s") && i + 1 < argc) sync_mode = argv[++i];
        else if (is(argv[i], "-m") && i + 1 < argc) {
            char *m = argv[++i], *c = strchr(m, ':');
            if (c) { min_size = atol(m); max_size = atol(c + 1); } else { min_size = 1; max_size = atol(m); }
        } else if (is(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (is(argv[i], "-x") && i + 1 < argc) skip = atoi(argv[++i]);
        else if (is(argv[i], "-W") && i + 1 < argc) window_ops = atoi(argv[++i]);
        else if (is(argv[i], "--no-jit-warmup")) { /* the Java twin's option; nothing to warm up here */ }
        else {
            if (me == 0) fprintf(stderr, "osu_rma: unknown option %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (np != 2 || title() == NULL || sync_name() == NULL) {
        if (me == 0) fprintf(stderr, "osu_rma: needs exactly 2 ranks, a known test and synchronization\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    resolve();
    if (me == 0) {
        printf("# OSU MPI_%s Test (C twin)\n", title());
        printf("# Window creation: MPI_Win_%s\n", is(window, "create") || is(window, "create_malloc") ? "create" : is(window, "dynamic") || is(window, "dynamic_alloc") ? "create_dynamic" : "allocate");
        printf("# Synchronization: %s\n", sync_name());
        printf("%-10s%20s\n", "# Size", bw_test() ? "Bandwidth (MB/s)" : "Latency (us)");
        fflush(stdout);
    }
    long lo = atomic_test() ? 8 : min_size, hi = atomic_test() ? 8 : max_size;
    for (long size = lo; size <= hi; size *= 2) {
        int n = iters > 0 ? iters : bw_test() ? (size > LARGE ? 20 : 100) : size > LARGE ? 1000 : 10000;
        int warm = skip >= 0 ? skip : bw_test() ? (size > LARGE ? 2 : 10) : size > LARGE ? 10 : 100;
        int nops = bw_test() ? window_ops : 1;
        long win_bytes = size * nops < 8 ? 8 : size * nops;
        char *local = malloc(win_bytes), *result = malloc(win_bytes + 8), *compare = calloc(1, 8);
        memset(local, 1, win_bytes);
        MPI_Win w;
        MPI_Aint base = 0;
        void *mem = NULL, *dyn = NULL;
        if (is(window, "create")) {
            MPI_Alloc_mem(win_bytes, MPI_INFO_NULL, &mem);
            MPI_Win_create(mem, win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
        } else if (is(window, "create_malloc")) { /* a create window over malloc'ed memory */
            mem = malloc(win_bytes);
            MPI_Win_create(mem, win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
        } else if (is(window, "dynamic") || is(window, "dynamic_alloc")) {
            MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w);
            /* dynamic: malloc'ed memory, as OSU attaches; dynamic_alloc: memory from MPI_Alloc_mem */
            if (is(window, "dynamic")) dyn = malloc(win_bytes);
            else MPI_Alloc_mem(win_bytes, MPI_INFO_NULL, &dyn);
            MPI_Win_attach(w, dyn, win_bytes);
            MPI_Aint mine, all[2];
            MPI_Get_address(dyn, &mine);
            MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
            base = all[1 - me];
        } else {
            MPI_Win_allocate(win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w);
        }
        /* Write the window's memory before measuring, as a program's data would be (and as jrma's windows are:
         * Java zero-fills every buffer and segment it hands out). A page never written is the kernel's shared
         * zero page when read, always in cache: Open MPI's 4 MiB get over TCP measured 5.1 GB/s from such a
         * window and 4.0 from a written one, on this project's machine. */
        memset(dyn ? dyn : mem, 0, win_bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        double t = measure(w, me, size, n, warm, nops, local, compare, result, base);
        if (me == 0) {
            double value = bw_test() ? size / 1e6 * nops * n * (bibw() ? 2 : 1) / t
                                     : t * 1e6 / n / (is(sync_mode, "fence") || is(sync_mode, "pscw") ? 2 : 1);
            printf(bw_test() ? "%-10ld%20.2f\n" : "%-10ld%20.3f\n", size, value); /* ns resolution: 8 B ops take 0.03-0.1 us */
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (dyn) MPI_Win_detach(w, dyn);
        MPI_Win_free(&w);
        if (is(window, "create")) MPI_Free_mem(mem);
        if (is(window, "create_malloc")) free(mem);
        if (is(window, "dynamic_alloc")) MPI_Free_mem(dyn); else free(dyn);
        free(local);
        free(result);
        free(compare);
    }
    MPI_Finalize();
    return 0;
}

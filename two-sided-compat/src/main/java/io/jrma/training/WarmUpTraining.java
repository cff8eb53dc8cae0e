package io.jrma.training;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.LongBuffer;
import mpi.MPI;
import mpi.MPIException;
import mpi.Win;

/**
 * The program {@code bin/jrmarun} trains its ahead-of-time cache with on JDK 25 and later (run as two thread ranks
 * by {@code io.jrma.launcher.CdsTraining}): what users' loops do through the {@code mpi} package, a few thousand times
 * each — 8-byte put, get, accumulate, fetch_and_op and compare_and_swap with flush on allocate and create windows,
 * lock/unlock and fence epochs, ping-pong of small and large messages, allreduce, bcast and barrier — so that the JVMs
 * of later jobs start with these classes linked and the JIT's profiles of their methods (JEP 515) instead of learning
 * them during the user's first iterations. It checks nothing a test would; it only has to run the paths.
 *
 * <p>Its package is none that thread ranks share (see the launcher's RankClassLoader), so that each rank loads it,
 * and the {@code mpi} package it uses, as a program of its own: {@code MPI}'s statics are per rank.
 */
public final class WarmUpTraining {
    /** Iterations of each small operation: enough for the JIT to profile (and compile) the paths. */
    private static final int SMALL_OPS = 12_000;
    /** Iterations of each large message or epoch. */
    private static final int LARGE_OPS = 500;
    private static final int WINDOW_BYTES = 1 << 16;
    private static final int LARGE_BYTES = 1 << 16;
    private static final int TAG = 1;

    private WarmUpTraining() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        int peer = 1 - rank;
        if (MPI.COMM_WORLD.getSize() != 2) {
            throw new IllegalStateException("the training runs on 2 ranks");
        }
        ByteBuffer mem = MPI.newByteBuffer(WINDOW_BYTES);
        oneSided(new Win(WINDOW_BYTES, 1, MPI.INFO_NULL, MPI.COMM_WORLD, mem, Win.FLAVOR_PRIVATE), rank, peer);
        ByteBuffer created = MPI.newByteBuffer(WINDOW_BYTES);
        oneSided(new Win(created, WINDOW_BYTES, 1, MPI.INFO_NULL, MPI.COMM_WORLD), rank, peer);
        twoSided(rank, peer);
        MPI.Finalize();
    }

    private static void oneSided(Win win, int rank, int peer) throws MPIException {
        ByteBuffer from = MPI.newByteBuffer(LARGE_BYTES);
        ByteBuffer into = MPI.newByteBuffer(LARGE_BYTES);
        LongBuffer src = MPI.newLongBuffer(1);
        LongBuffer cmp = MPI.newLongBuffer(1);
        LongBuffer res = MPI.newLongBuffer(1);
        src.put(0, 1);
        if (rank == 0) {
            win.lockAll(0);
            for (int i = 0; i < SMALL_OPS; i++) {
                win.put(from, Long.BYTES, MPI.BYTE, peer, 0, Long.BYTES, MPI.BYTE);
                win.flush(peer);
                win.get(into, Long.BYTES, MPI.BYTE, peer, Long.BYTES, Long.BYTES, MPI.BYTE);
                win.flush(peer);
                win.accumulate(from, 2, MPI.INT, peer, 2 * Long.BYTES, 2, MPI.INT, MPI.SUM);
                win.flush(peer);
                win.fetchAndOp(src, res, MPI.LONG, peer, 3, MPI.SUM);
                win.flush(peer);
                win.compareAndSwap(src, cmp, res, MPI.LONG, peer, 4);
                win.flush(peer);
            }
            for (int i = 0; i < LARGE_OPS; i++) {
                win.put(from, LARGE_BYTES, MPI.BYTE, peer, 0, LARGE_BYTES, MPI.BYTE);
                win.get(into, LARGE_BYTES, MPI.BYTE, peer, 0, LARGE_BYTES, MPI.BYTE);
                win.flush(peer);
            }
            win.unlockAll();
            for (int i = 0; i < LARGE_OPS; i++) {
                win.lock(MPI.LOCK_EXCLUSIVE, peer, 0);
                win.put(from, Long.BYTES, MPI.BYTE, peer, 0, Long.BYTES, MPI.BYTE);
                win.unlock(peer);
            }
        }
        MPI.COMM_WORLD.barrier();
        for (int i = 0; i < LARGE_OPS; i++) {
            win.fence(0);
            win.put(from, Long.BYTES, MPI.BYTE, peer, 0, Long.BYTES, MPI.BYTE);
        }
        win.fence(0);
        win.free();
    }

    private static void twoSided(int rank, int peer) throws MPIException {
        ByteBuffer small = MPI.newByteBuffer(Long.BYTES);
        ByteBuffer large = MPI.newByteBuffer(LARGE_BYTES);
        byte[] heap = new byte[Long.BYTES];
        pingPong(small, Long.BYTES, SMALL_OPS, rank, peer);
        pingPong(large, LARGE_BYTES, LARGE_OPS, rank, peer);
        for (int i = 0; i < SMALL_OPS; i++) {
            if (rank == 0) {
                MPI.COMM_WORLD.send(heap, heap.length, MPI.BYTE, peer, TAG);
                MPI.COMM_WORLD.recv(heap, heap.length, MPI.BYTE, peer, TAG);
            } else {
                MPI.COMM_WORLD.recv(heap, heap.length, MPI.BYTE, peer, TAG);
                MPI.COMM_WORLD.send(heap, heap.length, MPI.BYTE, peer, TAG);
            }
        }
        DoubleBuffer in = MPI.newDoubleBuffer(1);
        DoubleBuffer out = MPI.newDoubleBuffer(1);
        double[] sum = {1};
        for (int i = 0; i < SMALL_OPS; i++) {
            MPI.COMM_WORLD.allReduce(in, out, 1, MPI.DOUBLE, MPI.SUM);
            MPI.COMM_WORLD.allReduce(sum, 1, MPI.DOUBLE, MPI.SUM);
            sum[0] = 1;
        }
        for (int i = 0; i < LARGE_OPS; i++) {
            MPI.COMM_WORLD.bcast(large, LARGE_BYTES, MPI.BYTE, 0);
            MPI.COMM_WORLD.barrier();
        }
    }

    private static void pingPong(ByteBuffer buf, int bytes, int iterations, int rank, int peer) throws MPIException {
        for (int i = 0; i < iterations; i++) {
            if (rank == 0) {
                MPI.COMM_WORLD.send(buf, bytes, MPI.BYTE, peer, TAG);
                MPI.COMM_WORLD.recv(buf, bytes, MPI.BYTE, peer, TAG);
            } else {
                MPI.COMM_WORLD.recv(buf, bytes, MPI.BYTE, peer, TAG);
                MPI.COMM_WORLD.send(buf, bytes, MPI.BYTE, peer, TAG);
            }
        }
    }
}

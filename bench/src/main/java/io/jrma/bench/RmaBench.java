package io.jrma.bench;

import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.Op;
import io.jrma.Win;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Latency of single 8-byte operations and bandwidth of 1 MiB puts from rank 0 to rank 1 of a 2-rank job,
 * on the direct path ({@code jrma.path=auto}) and the packet path ({@code jrma.path=packet}).
 *
 * <p>Setup starts {@code Jrma.job(2)} on a background thread. Rank 1 allocates its window and waits in a
 * barrier until tear-down. Rank 0 allocates its window, opens a {@code lock_all} epoch and hands its
 * {@link Win} to this state; the JMH thread then issues every operation on rank 0's window (any thread may
 * issue on a rank's window). Tear-down lets rank 0 close the epoch, join the barrier and free the window.
 *
 * <p>Run with {@code bench/run-jmh}: the forked JVM gets the flags of {@code io.jrma.JvmFlags} from
 * {@link BenchMain}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RmaBench {
    /** Bytes of one bandwidth put. */
    public static final int MIB = 1 << 20;
    /** Puts per bandwidth operation (one flush after them): one op moves 64 MiB. */
    public static final int PUTS_PER_FLUSH = 64;
    /** Displacement (bytes; disp_unit 1) of the 8-byte operations' targets, after the 1 MiB put area. */
    static final long SMALL = MIB;
    static final long WIN_BYTES = MIB + 4096;
    static final int TARGET = 1;
    static final Datatype LONG = Datatype.LONG;

    @Param({"auto", "packet"})
    public String path;

    private Win win;
    private CountDownLatch done;
    private Thread jobThread;
    private volatile Throwable jobFailure;

    private final long[] src = {42};
    private final long[] one = {1};
    private final long[] dst = new long[1];
    private final long[] cmp = {0};
    private final long[] res = new long[1];
    private final ByteBuffer big = ByteBuffer.allocateDirect(MIB);

    @Setup
    public void setup() throws Exception {
        CompletableFuture<Win> ready = new CompletableFuture<>();
        CountDownLatch finish = new CountDownLatch(1);
        done = finish;
        jobThread = new Thread(() -> {
            try {
                Jrma.job(2).param("jrma.path", path).run(world -> {
                    Win w = Win.allocate(world, WIN_BYTES, 1, null);
                    if (world.rank() == 0) {
                        w.lockAll(0);
                        ready.complete(w);
                        finish.await();
                        w.unlockAll();
                    }
                    world.barrier();    // rank 1 sits here for the whole trial
                    w.free();
                });
            } catch (Throwable t) {
                jobFailure = t;
                ready.completeExceptionally(t);
            }
        }, "jrma-bench-job");
        jobThread.setDaemon(true);
        jobThread.start();
        win = ready.get(60, TimeUnit.SECONDS);
    }

    @TearDown
    public void teardown() throws InterruptedException {
        done.countDown();
        jobThread.join(Duration.ofSeconds(30).toMillis());
        if (jobThread.isAlive()) {
            throw new IllegalStateException("the benchmark's jrma job did not end within 30 s of tear-down");
        }
        if (jobFailure != null) {
            throw new IllegalStateException("the benchmark's jrma job failed", jobFailure);
        }
    }

    /** 8-byte put, then flush (remote completion). */
    @Benchmark
    public void putFlush() {
        win.put(src, 1, LONG, TARGET, SMALL);
        win.flush(TARGET);
    }

    /** 8-byte get, then flush (the data has arrived). */
    @Benchmark
    public long getFlush() {
        win.get(dst, 1, LONG, TARGET, SMALL + 8);
        win.flush(TARGET);
        return dst[0];
    }

    /** accumulate(SUM) of one long, then flush. */
    @Benchmark
    public void accumulateFlush() {
        win.accumulate(one, 1, LONG, TARGET, SMALL + 16, Op.SUM);
        win.flush(TARGET);
    }

    /** fetch_and_op(SUM) of one long, then flush (the result has arrived). */
    @Benchmark
    public long fetchAndOpFlush() {
        win.fetchAndOp(one, res, LONG, TARGET, SMALL + 24, Op.SUM);
        win.flush(TARGET);
        return res[0];
    }

    /** compare_and_swap of one long, then flush. */
    @Benchmark
    public long compareAndSwapFlush() {
        win.compareAndSwap(src, cmp, res, LONG, TARGET, SMALL + 32);
        win.flush(TARGET);
        return res[0];
    }

    /** Bandwidth: 64 puts of 1 MiB, then one flush; one op = 64 MiB (bytes/s = 64 MiB * 1e9 / score). */
    @Benchmark
    public void put1MiBx64Flush() {
        for (int i = 0; i < PUTS_PER_FLUSH; i++) {
            win.put(big, MIB, Datatype.BYTE, TARGET, 0);
        }
        win.flush(TARGET);
    }

    /** Rank 0's window (for tests). */
    Win win() {
        return win;
    }
}

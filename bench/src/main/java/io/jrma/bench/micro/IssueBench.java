package io.jrma.bench.micro;

import io.jrma.Datatype;
import io.jrma.Info;
import io.jrma.Win;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The cost of issuing one 8-byte put (public API, rank 0 of a 2-rank job of threads, inside a lock_all epoch)
 * without completing it: on the packet path the put is encoded into the target's queued batch (lazy issue,
 * {@code jrma_max_pending_ops} above the batch so nothing is sent); on the direct path it is the store itself.
 * Each invocation issues {@link #BATCH} puts; the flush that sends and completes them runs in a per-invocation
 * tear-down, outside the measured time (JMH's per-invocation fixtures cost a timestamp pair per invocation,
 * under 0.5 ns per put at this batch size).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IssueBench {
    /** Puts per invocation (below jrma_max_pending_ops, so lazy issue queues them all). */
    public static final int BATCH = 128;
    static final int TARGET = 1;

    @Param({"auto", "packet"})
    public String path;

    private PairJob job;
    private Win win;
    private final long[] src = {42};

    @Setup(Level.Trial)
    public void setup() throws Exception {
        job = new PairJob(path, 8L * BATCH, Info.of("jrma_max_pending_ops", String.valueOf(4 * BATCH)));
        win = job.win;
        win.lockAll(0);
    }

    @TearDown(Level.Invocation)
    public void complete() {
        win.flush(TARGET);
    }

    @TearDown(Level.Trial)
    public void teardown() throws Exception {
        win.unlockAll();
        job.close();
    }

    /** BATCH 8-byte puts to consecutive slots, not completed (score: ns per put). */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void put8Queued() {
        for (int i = 0; i < BATCH; i++) {
            win.put(src, 1, Datatype.LONG, TARGET, i);
        }
    }

    Win win() {
        return win;
    }
}

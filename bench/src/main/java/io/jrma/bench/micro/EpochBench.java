package io.jrma.bench.micro;

import io.jrma.Datatype;
import io.jrma.LockType;
import io.jrma.Win;
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
 * Whole passive-target epochs from rank 0 to rank 1 of a 2-rank job of threads (public API; the JMH thread
 * issues on rank 0's window): the in-JVM lock-mode latency OSU's {@code put_latency -s lock} measures, without
 * its short loop, so JIT warm-up and descheduling do not enter the score.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class EpochBench {
    static final int TARGET = 1;

    @Param({"auto", "packet"})
    public String path;

    private PairJob job;
    private Win win;
    private final long[] src = {42};

    @Setup
    public void setup() throws Exception {
        job = new PairJob(path, 4096, null);
        win = job.win;
    }

    @TearDown
    public void teardown() throws Exception {
        job.close();
    }

    /** lock(SHARED) + 8-byte put + unlock: OSU put_latency -s lock. */
    @Benchmark
    public void lockPutUnlockShared() {
        win.lock(LockType.SHARED, TARGET, 0);
        win.put(src, 1, Datatype.LONG, TARGET, 0);
        win.unlock(TARGET);
    }

    /** lock(EXCLUSIVE) + 8-byte put + unlock. */
    @Benchmark
    public void lockPutUnlockExclusive() {
        win.lock(LockType.EXCLUSIVE, TARGET, 0);
        win.put(src, 1, Datatype.LONG, TARGET, 0);
        win.unlock(TARGET);
    }

    /** lock(SHARED) + unlock with nothing in between (the lock is never taken: it rides on the first operation). */
    @Benchmark
    public void lockUnlockEmpty() {
        win.lock(LockType.SHARED, TARGET, 0);
        win.unlock(TARGET);
    }

    Win win() {
        return win;
    }
}

package io.jrma.bench.micro;


import io.jrma.core.dt.BasicType;
import io.jrma.core.mem.Memory;
import io.jrma.core.op.AccumulateKernel;
import io.jrma.core.op.ElementLocks;
import io.jrma.core.op.OpCode;
import java.util.Arrays;
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
 * The accumulate kernels ({@code io.jrma.core.op.AccumulateKernel}, public): SUM of {@code bytes} of longs or
 * doubles from a Java array into off-heap window memory, atomically per element as the direct path and the
 * packet path's target apply it (one CPU atomic per long, a CAS loop per double); for contrast the same
 * reduction into a heap array ({@code dstBase != null}: plain loads and stores, what MPI_Reduce_local does);
 * and MAXLOC on DOUBLE_INT pairs, which no CPU atomic covers and the element-lock table guards.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AccumulateBench {
    private static final long LONG_BASE = Memory.arrayBase(long[].class);
    private static final long DOUBLE_BASE = Memory.arrayBase(double[].class);

    /** Bytes accumulated per call: 8 (one element) or 4096 (512 elements). */
    @Param({"8", "4096"})
    public int bytes;

    private long target;
    private long[] longs;
    private double[] doubles;
    private long[] heapTarget;
    private byte[] pairs;
    private ElementLocks locks;

    @Setup
    public void setup() {
        target = Memory.allocate(8192 + 64);
        target = (target + 63) & ~63L;
        Memory.fill(target, 8192, (byte) 0);
        longs = new long[bytes / 8];
        doubles = new double[bytes / 8];
        heapTarget = new long[bytes / 8];
        Arrays.fill(longs, 1);
        Arrays.fill(doubles, 0.5);
        pairs = new byte[16 * Math.max(1, bytes / 16)];
        locks = ElementLocks.JVM;
    }

    @TearDown
    public void teardown() {
        // the aligned pointer is not the allocated one; the few KiB live until the fork exits
    }

    /** SUM of longs into off-heap memory, atomic per element. */
    @Benchmark
    public void sumLongs() {
        AccumulateKernel.accumulate(OpCode.SUM, BasicType.LONG, longs, LONG_BASE, null, target, bytes / 8, locks);
    }

    /** SUM of doubles into off-heap memory, atomic per element (compare-and-swap loop). */
    @Benchmark
    public void sumDoubles() {
        AccumulateKernel.accumulate(OpCode.SUM, BasicType.DOUBLE, doubles, DOUBLE_BASE, null, target, bytes / 8, locks);
    }

    /** The same SUM of longs into a heap array: plain loads and stores (no atomicity), for contrast. */
    @Benchmark
    public long[] sumLongsPlain() {
        AccumulateKernel.accumulate(OpCode.SUM, BasicType.LONG, longs, LONG_BASE, heapTarget,
                LONG_BASE, bytes / 8, locks);
        return heapTarget;
    }

    /** MAXLOC of DOUBLE_INT pairs (16-byte extent) into off-heap memory, each under its element lock. */
    @Benchmark
    public void maxlocDoubleInt() {
        AccumulateKernel.accumulate(OpCode.MAXLOC, BasicType.DOUBLE_INT, pairs, Memory.arrayBase(byte[].class),
                null, target, pairs.length / 16, locks);
    }

    /** fetch_and_op(SUM) of one long: the old value comes back (what the fetch_and_op fast path does). */
    @Benchmark
    public long fetchAndAddLong() {
        long[] res = heapTarget;
        AccumulateKernel.getAccumulate(OpCode.SUM, BasicType.LONG, longs, LONG_BASE, null, target, res,
                LONG_BASE, 1, locks);
        return res[0];
    }
}

package io.jrma.core.op;


import io.jrma.core.mem.Memory;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The element-lock table ({@code io.jrma.core.op.ElementLocks}; lock/unlock are package-private, so this class
 * sits in the same package name in the bench module): take and release the word guarding one element,
 * uncontended, in the JVM-wide table and in a table over shared-segment-like memory (key = offset from a base).
 * {@code hashWalk} walks 64 consecutive 16-byte elements, touching many words of the table.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ElementLocksBench {
    private long mem;
    private long table;
    private ElementLocks segment;
    private long element;

    @Setup
    public void setup() {
        mem = Memory.allocate(ElementLocks.BYTES + 8192 + 128);
        table = (mem + 63) & ~63L;
        Memory.fill(table, ElementLocks.BYTES, (byte) 0);
        long memory = table + ElementLocks.BYTES;
        segment = new ElementLocks(table, memory);
        element = memory + 1024;
    }

    @TearDown
    public void teardown() {
        Memory.free(mem);
    }

    @Benchmark
    public long jvmTable() {
        long w = ElementLocks.JVM.lock(element);
        ElementLocks.unlock(w);
        return w;
    }

    @Benchmark
    public long segmentTable() {
        long w = segment.lock(element);
        ElementLocks.unlock(w);
        return w;
    }

    @Benchmark
    @OperationsPerInvocation(64)
    public long hashWalk() {
        long sum = 0;
        for (int i = 0; i < 64; i++) {
            long w = segment.lock(element + 16L * i);
            ElementLocks.unlock(w);
            sum += w;
        }
        return sum;
    }
}

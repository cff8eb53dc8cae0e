package io.jrma.sync;


import io.jrma.core.mem.Memory;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The passive-target lock word ({@code io.jrma.sync.LockWord}, package-private in sync-epochs: this class sits in
 * the same package name in the bench module, a split package that works on the class path), uncontended: take a
 * ticket, enter, release, in shared and exclusive mode. {@code bare*} use a lock word with no waker;
 * {@code target*} use a window's {@code TargetState}, whose lock word bumps the futex wake sequence on every
 * change (what the direct path really runs).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LockWordBench {
    private long mem;
    private LockWord bare;
    private TargetState state;
    private LockWord withSignal;

    @Setup
    public void setup() {
        mem = Memory.allocate(128);
        long a = (mem + 63) & ~63L;
        Memory.fill(a, LockWord.BYTES, (byte) 0);
        bare = new LockWord(a);
        state = new TargetState(2);
        withSignal = state.lockWord;
    }

    @TearDown
    public void teardown() {
        if (!bare.isFree() || !withSignal.isFree()) {
            throw new IllegalStateException("a lock word was left taken");
        }
        Memory.free(mem);
        state.release();
    }

    private static boolean cycle(LockWord lw, boolean exclusive) {
        long ticket = lw.takeTicket();
        if (!lw.tryEnter(ticket, exclusive)) {
            throw new IllegalStateException("uncontended lock word not granted");
        }
        if (exclusive) {
            lw.releaseExclusive();
        } else {
            lw.releaseShared();
        }
        return true;
    }

    @Benchmark
    public boolean bareShared() {
        return cycle(bare, false);
    }

    @Benchmark
    public boolean bareExclusive() {
        return cycle(bare, true);
    }

    @Benchmark
    public boolean targetShared() {
        return cycle(withSignal, false);
    }

    @Benchmark
    public boolean targetExclusive() {
        return cycle(withSignal, true);
    }
}

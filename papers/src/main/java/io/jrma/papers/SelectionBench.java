package io.jrma.papers;

import io.jrma.Datatype;
import io.jrma.Win;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The Open MPI components claim's JMH benchmark: 8-byte put+flush and get+flush from rank 0 to rank 1 of a
 * {@link WiredPair} (two JVMs of one host simulated in the benchmark's JVM, packet path), over the shared-memory
 * rings or TCP ({@code lane}), with the transports opened through the component SPI ({@code spi}), constructed by
 * hand ({@code hand}), or through the SPI after the same JVM drove the engine's call sites through three transport
 * classes ({@code spi-mixed}, {@link SelectionProbe#mixTransports}: a megamorphic call site). Whether the class path
 * holds the ucx and disni components is decided by the JVM's class path, set by papers/openmpi-components-no-cost/run.
 *
 * <p>Run with io.jrma.bench.BenchMain (it gives the forked JVM jrma's flags), for example
 * {@code java -cp "papers/target/classes:papers/target/lib/*" io.jrma.bench.BenchMain -f 1 -p lane=tcp SelectionBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SelectionBench {
    /** The wiring that first mixes transport classes at the engine's call sites. */
    public static final String MIXED = "spi-mixed";

    @Param({"shm", "tcp"})
    public String lane;

    @Param({"spi", "hand", MIXED})
    public String wiring;

    private WiredPair pair;
    private Win win;
    private final long[] src = {42};
    private final long[] dst = new long[1];

    @Setup(Level.Trial)
    public void setup() throws Exception {
        boolean mixed = wiring.equals(MIXED);
        if (mixed) {
            SelectionProbe.mixTransports(SelectionProbe.MIX_ROUNDS, SelectionProbe.MIX_OPS);
        }
        pair = WiredPair.start(mixed ? WiredPair.Wiring.SPI : WiredPair.wiring(wiring), WiredPair.lane(lane), Map.of());
        if (!pair.via().equals(lane)) {
            pair.close();
            throw new IllegalStateException("rank 1 is reached through " + pair.via() + ", not " + lane);
        }
        win = pair.win();
    }

    @TearDown(Level.Trial)
    public void teardown() throws InterruptedException {
        pair.close();
    }

    /** 8-byte put, then flush (remote completion). */
    @Benchmark
    public void putFlush() {
        win.put(src, 1, Datatype.LONG, 1, SelectionProbe.PUT_DISP);
        win.flush(1);
    }

    /** 8-byte get, then flush (the data has arrived). */
    @Benchmark
    public long getFlush() {
        win.get(dst, 1, Datatype.LONG, 1, SelectionProbe.GET_DISP);
        win.flush(1);
        return dst[0];
    }
}

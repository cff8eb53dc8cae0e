package io.jrma.bench.micro;

import io.jrma.Datatype;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import java.util.concurrent.TimeUnit;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The wire codec of rma-core ({@code io.jrma.core.wire.PacketHeader}, {@code Batch}, and
 * {@code io.jrma.core.dt.TypeLayout}'s encoder for non-contiguous target layouts), as the packet path's origin
 * uses it at issue time: a 52-byte header plus an 8-byte payload written into an off-heap buffer, a batch of 64
 * such packets, reading a header back as the target does, and encoding/decoding a vector layout.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBench {
    static final int PACKETS = 64;
    static final int PUT8 = PacketHeader.HEADER_LENGTH + 8;

    private UnsafeBuffer buf;
    private Batch batch;
    private TypeLayout vector;
    private UnsafeBuffer layoutBuf;
    private long value = 42;
    private int window = 7;

    @Setup
    public void setup() {
        buf = new UnsafeBuffer(BufferUtil.allocateDirectAligned(PUT8 * PACKETS + 4096, 64));
        batch = new Batch(buf);
        vector = Datatype.vector(16, 2, 4, Datatype.LONG).commit().layout();
        layoutBuf = new UnsafeBuffer(BufferUtil.allocateDirectAligned(vector.encodedLength() + 64, 64));
        vector.encode(layoutBuf, 0);
        for (int i = 0; i < PACKETS; i++) {
            put8(i * PUT8, i);
        }
    }

    private void put8(int at, int i) {
        PacketHeader.write(buf, at, PUT8, PacketType.PUT, PacketType.F_CONTIG, window, 0, 1, 0, 8L * i,
                6, 0, 0, 8, 0);
        buf.putLong(at + PacketHeader.HEADER_LENGTH, value);
    }

    /** One PUT packet: header and 8-byte payload (score: ns per packet). */
    @Benchmark
    public void encodePut8() {
        put8(0, 1);
    }

    /** 64 PUT packets appended to a batch, as lazy issue queues them (score: ns per packet). */
    @Benchmark
    @OperationsPerInvocation(PACKETS)
    public int encodeBatch64() {
        batch.clear();
        for (int i = 0; i < PACKETS; i++) {
            int at = i * PUT8;
            put8(at, i);
            batch.add(at);
        }
        return batch.count();
    }

    /** The header fields the target reads before applying a packet (score: ns per packet). */
    @Benchmark
    @OperationsPerInvocation(PACKETS)
    public void decodeHeaders(Blackhole bh) {
        for (int i = 0; i < PACKETS; i++) {
            int at = i * PUT8;
            bh.consume(PacketHeader.length(buf, at) + PacketHeader.type(buf, at) + PacketHeader.flags(buf, at)
                    + PacketHeader.windowId(buf, at) + PacketHeader.dst(buf, at) + PacketHeader.seq(buf, at));
            bh.consume(PacketHeader.targetOffset(buf, at) + PacketHeader.targetCount(buf, at));
        }
    }

    /** A vector(16, 2, 4, LONG) target layout written into a packet. */
    @Benchmark
    public void encodeVectorLayout() {
        vector.encode(layoutBuf, 0);
    }

    /** The same layout read back and validated, as the target does. */
    @Benchmark
    public TypeLayout decodeVectorLayout() {
        return TypeLayout.decode(layoutBuf, 0, layoutBuf.capacity());
    }
}

package io.jrma.sync;

import io.jrma.Datatype;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.mem.Memory;
import java.nio.ByteBuffer;
import org.agrona.BufferUtil;

/**
 * The staging buffer of the lanes that move bytes by address (kernel copies, RDMA): an origin that is on the heap or
 * scattered goes through it, {@link #STAGE} bytes at a time; a scattered origin only up to {@link #STAGE} bytes.
 */
final class Staging {
    /** Bytes staged at a time. */
    static final int STAGE = 256 << 10;
    /** The first buffer's size; it doubles up to {@value #STAGE} as larger operations need. */
    private static final int STAGE_FIRST = 256;
    private static final ThreadLocal<ByteBuffer> BUFFER = new ThreadLocal<>();

    private Staging() {
    }

    /**
     * This thread's staging buffer's address, at least {@code bytes} long up to {@value #STAGE} (grown on demand, so
     * small operations keep a small one; freed with the thread's last reference to it).
     */
    static long buffer(long bytes) {
        ByteBuffer b = BUFFER.get();
        long need = Math.min(STAGE, bytes);
        if (b == null || b.capacity() < need) {
            long grown = b == null ? STAGE_FIRST : Math.min(STAGE, 2L * b.capacity());
            b = ByteBuffer.allocateDirect((int) Math.max(need, grown));
            BUFFER.set(b);
        }
        return BufferUtil.address(b);
    }

    /** Copies bytes {@code at..at+n} of a put's origin ({@code origin}: its first data byte) into {@code stage}. */
    static void pack(OpArgs a, boolean contiguous, long origin, long at, long stage, long n) {
        if (contiguous) {
            Memory.copy(a.origin.base, origin + at, null, stage, n);
        } else {
            TypeLayout.copy(a.origin.base, a.origin.offset, a.originCount, a.originLayout, null, stage, n,
                    Datatype.BYTE.layout());
        }
    }

    /** Copies {@code n} bytes got into {@code stage} to bytes {@code at..at+n} of a get's origin. */
    static void unpack(OpArgs a, boolean contiguous, long origin, long at, long stage, long n) {
        if (contiguous) {
            Memory.copy(null, stage, a.origin.base, origin + at, n);
        } else {
            TypeLayout.copy(null, stage, n, Datatype.BYTE.layout(), a.origin.base, a.origin.offset, a.originCount,
                    a.originLayout);
        }
    }
}

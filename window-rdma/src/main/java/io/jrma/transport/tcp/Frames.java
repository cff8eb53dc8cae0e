package io.jrma.transport.tcp;

import static io.jrma.transport.tcp.FrameDescriptor.HEADER_LENGTH;

import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The frames a {@link TcpConnection} writes ({@link OutFrame}): a batch cut at packet boundaries into frames of at
 * most {@code jrma.tcp.frameBytes}, each a gathering write of a header and slices of the batch's own (off-heap) buffer
 * and of the window memory its packets' payloads are in, so packets go out as they were encoded, with no copy in user
 * space; and the small frames of one header and a short body (control, abort, wake, goodbye, credit).
 *
 * <p>Stateless; any thread.
 */
final class Frames {
    private Frames() {
    }

    /** Queues the {@code n} packets of {@code batch} on {@code c}; its last frame carries the batch. */
    static void enqueueBatch(TcpConnection c, Batch batch, int n, int frameBytes) {
        ByteBuffer base = batch.buffer().byteBuffer();
        long adj = batch.buffer().wrapAdjustment();
        if (base == null) {
            base = copyOut(batch);
            adj = 0;
        }
        List<ByteBuffer> parts = new ArrayList<>(4);
        int frameLen = 0;
        int runStart = -1;
        int runEnd = -1;
        for (int i = 0; i < n; i++) {
            int at = batch.offsetAt(i);
            int len = PacketHeader.length(batch.buffer(), at);
            ByteBuffer ext = batch.externalAt(i);
            int inline = ext == null ? len : len - ext.remaining();
            if (frameLen > 0 && (long) frameLen + len > frameBytes) {
                if (runStart >= 0) {
                    parts.add(slice(base, adj, runStart, runEnd));
                }
                c.enqueue(frame(c, parts, frameLen, null));
                parts = new ArrayList<>(4);
                frameLen = 0;
                runStart = -1;
            }
            if (runStart >= 0 && at == runEnd) {
                runEnd += inline;
            } else {
                if (runStart >= 0) {
                    parts.add(slice(base, adj, runStart, runEnd));
                }
                runStart = at;
                runEnd = at + inline;
            }
            if (ext != null) { // the payload is gathered from where it is (window memory): no copy in user space
                parts.add(slice(base, adj, runStart, runEnd));
                parts.add(ext.duplicate());
                runStart = -1;
            }
            frameLen += len;
        }
        if (runStart >= 0) {
            parts.add(slice(base, adj, runStart, runEnd));
        }
        c.enqueue(frame(c, parts, frameLen, batch));
    }

    /** A frame of {@code type} with a short body, taking no credit. */
    static OutFrame small(int type, byte[] body) {
        ByteBuffer f = FrameDescriptor.small(type, body);
        return new OutFrame(new ByteBuffer[] {f}, f.remaining(), 0, null);
    }

    /** A CREDIT frame: its header gets whatever credit is owed when it goes out. */
    static OutFrame credit() {
        return new OutFrame(new ByteBuffer[] {FrameDescriptor.small(FrameDescriptor.CREDIT, new byte[0])},
                HEADER_LENGTH, 0, null, true);
    }

    private static ByteBuffer slice(ByteBuffer base, long adj, int from, int to) {
        return base.duplicate().limit((int) (adj + to)).position((int) (adj + from));
    }

    private static OutFrame frame(TcpConnection c, List<ByteBuffer> parts, int len, Batch last) {
        ByteBuffer[] bufs = new ByteBuffer[parts.size() + 1];
        bufs[0] = FrameDescriptor.header(c.header(), FrameDescriptor.BATCH, len);
        for (int i = 0; i < parts.size(); i++) {
            bufs[i + 1] = parts.get(i);
        }
        return new OutFrame(bufs, HEADER_LENGTH + (long) len, len, last);
    }

    /** A batch whose buffer is not a ByteBuffer (never the engine's own): one copy into a direct buffer. */
    private static ByteBuffer copyOut(Batch b) {
        int end = 0;
        for (int i = 0; i < b.count(); i++) {
            int at = b.offsetAt(i);
            ByteBuffer ext = b.externalAt(i);
            end = Math.max(end, at + PacketHeader.length(b.buffer(), at) - (ext == null ? 0 : ext.remaining()));
        }
        ByteBuffer d = ByteBuffer.allocateDirect(end);
        b.buffer().getBytes(0, d, end);
        d.clear();
        return d;
    }
}

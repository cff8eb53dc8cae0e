package io.jrma.sync;

import static io.jrma.core.wire.PacketType.F_CONTIG;
import static io.jrma.core.wire.PacketType.F_DYNAMIC;

import io.jrma.Datatype;
import io.jrma.Flavor;
import io.jrma.WinCounters.Counter;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.mem.Memory;
import io.jrma.core.op.OpCode;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import java.nio.ByteBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * How an origin builds its packets ({@link PacketOrigin}): an operation is encoded once, at issue, as a wire-ready
 * packet (header, target layout, payload) appended to its target's open batch; a control packet (SYNC, FENCE,
 * POST, COMPLETE) is a bare header; a large contiguous put or get from a direct buffer is sent from, or read into,
 * the user's bytes where the transport carries payloads by reference. Static methods on the issuing thread's
 * path, so they cost no more than the private methods they were.
 *
 * <p>Threads: callers hold the target queue's monitor.
 */
final class PacketEncoding {
    private PacketEncoding() {
    }

    /**
     * The origin bytes of a large contiguous put or get whose origin buffer is a direct ByteBuffer, as a view of
     * exactly those bytes, when the transport to the target carries payloads by reference (TCP, the shared-memory
     * rings); else null (the bytes are copied). A put's view is sent from where it is (gathered into the socket,
     * copied into the ring): the buffer is the user's
     * until local completion in MPI's rules, so the only cost is that flush_local, complete and the request-less
     * local completion points wait until the batch is consumed ({@link TargetQueue#external}). A get's view is
     * where its reply may be read to ({@link PendingOp#into}).
     */
    static ByteBuffer largeDirect(WindowImpl w, TargetQueue q, OpArgs a) {
        ByteBuffer bb = a.origin.direct;
        if (bb == null || a.bytes < PacketTarget.EXTERNAL_MIN || !a.originLayout.isContiguous()
                || !w.job.transportFor(q.dst()).carriesExternal()) {
            return null;
        }
        long from = a.origin.offset + a.originLayout.trueLb() - Buffers.address(bb);
        if (from < 0 || from + a.bytes > bb.capacity()) {
            return null; // (argument checking has refused this already)
        }
        return bb.duplicate().clear().limit((int) (from + a.bytes)).position((int) from);
    }

    static void encode(WindowImpl w, TargetQueue q, OpArgs a, int seq, ByteBuffer ext) {
        Batch b = q.open();
        MutableDirectBuffer buf = b.buffer();
        int at = q.writePos;
        boolean contig = a.targetLayout.isContiguous();
        int layoutLen = contig ? 0 : a.targetLayout.encodedLength();
        long payload;
        switch (a.kind) {
            case OpArgs.GET: payload = 0; break;
            case OpArgs.CAS: payload = 2L * a.elem.size(); break;
            case OpArgs.GET_ACC: case OpArgs.FOP: payload = a.op == OpCode.NO_OP ? 0 : a.bytes; break;
            default: payload = a.bytes; break;
        }
        int length = Math.toIntExact(PacketHeader.HEADER_LENGTH + layoutLen + payload);
        int inline = ext == null ? length : PacketHeader.HEADER_LENGTH + layoutLen;
        buf.checkLimit(at + inline);
        int type;
        switch (a.kind) {
            case OpArgs.PUT: type = PacketType.PUT; break;
            case OpArgs.GET: type = PacketType.GET; break;
            case OpArgs.ACC: type = PacketType.ACC; break;
            case OpArgs.CAS: type = PacketType.CAS; break;
            default: type = PacketType.GET_ACC; break;
        }
        int flags = (contig ? F_CONTIG : 0) | (w.flavor == Flavor.DYNAMIC ? F_DYNAMIC : 0);
        long off = contig ? a.targetOffset + a.targetLayout.trueLb() : a.targetOffset;
        long count = contig ? a.bytes : a.targetCount;
        PacketHeader.write(buf, at, length, type, flags, w.windowId, w.worldRanks[w.rank], q.dst(), seq, off,
                a.elem == null ? 0 : a.elem.id(), a.op == null ? 0 : a.op.id(), 0, count, layoutLen);
        if (!contig) {
            a.targetLayout.encode(buf, at + PacketHeader.HEADER_LENGTH);
        }
        long p = buf.addressOffset() + at + PacketHeader.HEADER_LENGTH + layoutLen;
        if (a.kind == OpArgs.CAS) {
            int es = a.elem.size();
            Memory.copy(a.compare.base, a.compare.offset, null, p, es);
            Memory.copy(a.origin.base, a.origin.offset, null, p + es, es);
        } else if (ext != null) {
            b.addExternal(at, ext);
            q.external = b;
            q.writePos = at + inline;
            w.counters.add(Counter.BYTES_PUT, a.bytes);
            w.counters.increment(Counter.PAYLOADS_IN_PLACE);
            return;
        } else if (payload > 0) {
            TypeLayout.copy(a.origin.base, a.origin.offset, a.originCount, a.originLayout, null, p, payload,
                    Datatype.BYTE.layout());
        }
        b.add(at);
        q.writePos = at + length;
        w.counters.add(a.kind == OpArgs.GET ? Counter.BYTES_GOT : Counter.BYTES_PUT, a.bytes);
    }

    /** Appends a packet with no operation (SYNC, FENCE, POST, COMPLETE). Caller holds q's monitor. */
    static void appendControl(WindowImpl w, TargetQueue q, int type, int aux) {
        Batch b = q.open();
        int at = q.writePos;
        b.buffer().checkLimit(at + PacketHeader.HEADER_LENGTH);
        PacketHeader.write(b.buffer(), at, PacketHeader.HEADER_LENGTH, type, 0, w.windowId, w.worldRanks[w.rank],
                q.dst(), 0, 0, 0, 0, aux, 0, 0);
        b.add(at);
        q.writePos = at + PacketHeader.HEADER_LENGTH;
    }
}

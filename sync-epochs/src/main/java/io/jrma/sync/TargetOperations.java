package io.jrma.sync;

import static io.jrma.core.wire.PacketType.F_CONTIG;
import static io.jrma.core.wire.PacketType.F_DYNAMIC;
import static io.jrma.core.wire.PacketType.F_UNLOCK;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Flavor;
import io.jrma.RmaException;
import io.jrma.core.dt.BasicType;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.mem.BulkCopy;
import io.jrma.core.op.AccumulateKernel;
import io.jrma.core.op.OpCode;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import java.nio.ByteBuffer;
import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;

/**
 * The operations a target applies on the packet path ({@link PacketTarget}): a PUT, GET, ACC, GET_ACC or CAS packet
 * has every field (layout, count, range, flavor's addressing, element type, op) checked against this rank's window
 * before it touches memory, then is applied to window memory; data replies are written into the reply batch
 * ({@link TargetReplies}). An invalid packet throws an {@link RmaException}, which the caller answers with an ERROR
 * reply.
 *
 * <p>Threads: the progress agent only.
 */
final class TargetOperations {
    private final WindowImpl w;
    private final TargetReplies replies;

    TargetOperations(WindowImpl w, TargetReplies replies) {
        this.w = w;
        this.replies = replies;
    }

    /**
     * Applies an operation packet from {@code origin} whose payload the transport wrote into the window already
     * ({@code placed}, see {@link PacketTarget#placement}) or that follows its header; returns true if it wrote a
     * data reply. Throws RmaException on invalid input.
     */
    boolean operation(MutableDirectBuffer buf, int at, int length, int type, int origin, ByteBuffer placed) {
        int flags = PacketHeader.flags(buf, at);
        int layoutLen = PacketHeader.layoutLength(buf, at);
        long count = PacketHeader.targetCount(buf, at);
        long off = PacketHeader.targetOffset(buf, at);
        if (layoutLen < 0 || layoutLen > length - PacketHeader.HEADER_LENGTH || count < 0) {
            throw new RmaException(ErrorClass.ERR_COUNT,
                    "layout length " + layoutLen + " / count " + count + " invalid for a packet of "
                    + length + " bytes");
        }
        boolean contig = (flags & F_CONTIG) != 0;
        TypeLayout layout = contig ? null : TypeLayout.decode(buf, at + PacketHeader.HEADER_LENGTH, layoutLen);
        long bytes;
        long lo;
        long hi;
        try {
            bytes = contig ? count : Math.multiplyExact(count, layout.size());
            lo = contig ? off : Math.addExact(off, layout.dataLow(count));
            hi = contig ? Math.addExact(off, count) : Math.addExact(off, layout.dataHigh(count));
        } catch (ArithmeticException e) {
            throw new RmaException(ErrorClass.ERR_RMA_RANGE,
                    "target range overflows (offset " + off + ", count " + count + ")");
        }
        boolean dynamic = (flags & F_DYNAMIC) != 0;
        if (dynamic != (w.flavor == Flavor.DYNAMIC)) {
            throw new RmaException(ErrorClass.ERR_RMA_FLAVOR, "packet addressing (" + (dynamic ? "absolute" : "offset")
                    + ") does not match window flavor " + w.flavor);
        }
        if (bytes > 0) {
            if (dynamic ? !w.regions.contains(lo, hi) : (lo < 0 || hi > w.memory.length)) {
                throw new RmaException(ErrorClass.ERR_RMA_RANGE,
                        PacketType.name(type) + " from rank " + origin + ": target bytes ["
                        + (dynamic ? "0x" + Long.toHexString(lo) + ", 0x" + Long.toHexString(hi)
                        : lo + ", " + hi) + ") are outside "
                        + (dynamic ? "the attached memory (" + w.regions.describe() + ")"
                        : "the window of " + w.memory.length + " bytes"));
            }
        }
        long base = (dynamic ? 0 : w.memory.address) + off;
        int payloadLen = length - PacketHeader.HEADER_LENGTH - layoutLen;
        long payload = buf.addressOffset() + at + PacketHeader.HEADER_LENGTH + layoutLen;
        BasicType elem = null;
        OpCode op = null;
        if (type == PacketType.ACC || type == PacketType.GET_ACC || type == PacketType.CAS) {
            elem = BasicType.ofId(PacketHeader.elemType(buf, at));
            if (elem == null) {
                throw new RmaException(ErrorClass.ERR_TYPE,
                        "unknown element type id " + PacketHeader.elemType(buf, at));
            }
            if (bytes % elem.size() != 0 || (layout != null && layout.elementType() != elem)) {
                throw new RmaException(ErrorClass.ERR_TYPE, "target layout is not made of " + elem);
            }
            if (type != PacketType.CAS) {
                op = OpCode.ofId(PacketHeader.op(buf, at));
                if (op == null || !AccumulateKernel.isValid(op, elem)) {
                    throw new RmaException(ErrorClass.ERR_OP,
                            "op id " + PacketHeader.op(buf, at) + " is not valid for " + elem);
                }
            }
        }
        int seq = PacketHeader.seq(buf, at);
        TypeLayout packed = Datatype.BYTE.layout();
        switch (type) {
            case PacketType.PUT:
                expect(payloadLen, bytes);
                if (placed != null) { // the transport wrote it there: check it is exactly these bytes
                    if (!contig || placed.remaining() != bytes
                    || BufferUtil.address(placed) + placed.position() != base) {
                        throw new RmaException(ErrorClass.ERR_INTERN, "payload placed at the wrong window bytes");
                    }
                } else if (contig) {
                    BulkCopy.copy(payload, base, bytes);
                } else {
                    TypeLayout.copy(null, payload, bytes, packed, null, base, count, layout);
                }
                return false;
            case PacketType.GET: {
                expect(payloadLen, 0);
                ByteBuffer from = contig && bytes >= PacketTarget.EXTERNAL_MIN && (flags & F_UNLOCK) == 0
                        && w.job.transportFor(w.worldRanks[origin]).carriesExternal()
                        ? windowBytes(dynamic, off, bytes) : null;
                if (from != null) {
                    // sent from the window; an unlock in this packet would release it before the reply left: copy then
                    replies.replyHeader(origin, PacketType.GET_RESP, seq, 0, bytes, from);
                    return true;
                }
                long dst = replies.replyHeader(origin, PacketType.GET_RESP, seq, 0, bytes);
                if (contig) {
                    BulkCopy.copy(base, dst, bytes);
                } else {
                    TypeLayout.copy(null, base, count, layout, null, dst, bytes, packed);
                }
                return true;
            }
            case PacketType.ACC: {
                expect(payloadLen, bytes);
                int es = elem.size();
                OpCode o = op;
                BasicType e = elem;
                if (contig) {
                    AccumulateKernel.accumulate(op, elem, null, payload, null, base, bytes / es, w.target.elementLocks);
                } else {
                    TypeLayout.zip(packed.cursor(bytes), layout.cursor(count),
                            (p, t, len) -> AccumulateKernel.accumulate(o, e, null, payload + p, null, base + t,
                            len / es, w.target.elementLocks));
                }
                return false;
            }
            case PacketType.GET_ACC: {
                expect(payloadLen, op == OpCode.NO_OP ? 0 : bytes);
                long dst = replies.replyHeader(origin, PacketType.GET_ACC_RESP, seq, 0, bytes);
                int es = elem.size();
                OpCode o = op;
                BasicType e = elem;
                if (contig) {
                    AccumulateKernel.getAccumulate(op, elem, null, payload, null, base, null, dst, bytes / es,
                            w.target.elementLocks);
                } else {
                    TypeLayout.zip(packed.cursor(bytes), layout.cursor(count),
                            (p, t, len) -> AccumulateKernel.getAccumulate(o, e, null, payload + p, null, base + t, null,
                            dst + p, len / es, w.target.elementLocks));
                }
                return true;
            }
            default: { // CAS
                int es = elem.size();
                expect(payloadLen, 2L * es);
                if (bytes != es) {
                    throw new RmaException(ErrorClass.ERR_COUNT,
                            "compare_and_swap on " + bytes + " bytes, expected one " + elem);
                }
                long dst = replies.replyHeader(origin, PacketType.CAS_RESP, seq, 0, es);
                AccumulateKernel.compareAndSwap(elem, null, payload, null, payload + es, null, base, null, dst,
                        w.target.elementLocks);
                return true;
            }
        }
    }

    private static void expect(long payloadLen, long want) {
        if (payloadLen != want) {
            throw new RmaException(ErrorClass.ERR_COUNT, "payload of " + payloadLen + " bytes, expected " + want);
        }
    }

    /**
     * Window bytes [off, off + count) as a ByteBuffer view (for a dynamic window, {@code off} is an address inside
     * a region attached as a ByteBuffer), or null when they are not all in the window or have no such view.
     */
    ByteBuffer windowBytes(boolean dynamic, long off, long count) {
        if (count <= 0 || off < 0 || off > Long.MAX_VALUE - count) {
            return null;
        }
        if (dynamic) {
            return w.regions.view(off, off + count);
        }
        if (w.memory.buffer == null || off > w.memory.length - count || off + count > Integer.MAX_VALUE) {
            return null;
        }
        return w.memory.buffer.duplicate().clear().limit((int) (off + count)).position((int) off);
    }
}

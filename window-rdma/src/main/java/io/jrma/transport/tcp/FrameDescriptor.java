package io.jrma.transport.tcp;

import io.jrma.core.wire.PacketHeader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Layout of a frame on a TCP connection between two JVMs of a job (little-endian). Every frame starts with
 * a 16-byte header; the body follows.
 *
 * <pre>
 *   0               1               2               3
 *   0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7
 *  +---------------------------------------------------------------+
 *  |             body length in bytes (after this header)          |  0
 *  +---------------+---------------+-------------------------------+
 *  |     type      |    version    |          reserved (0)         |  4
 *  +---------------+---------------+-------------------------------+
 *  |   credit (long): flow-control credit returned with this frame,  |  8
 *  |   in bytes (any type; 0 if none)                              |
 *  +---------------------------------------------------------------+
 *  |  body: BATCH: wire packets back to back, in delivery order;   | 16
 *  |        CTRL: a control-plane message; ABORT: UTF-8 reason     |
 * </pre>
 *
 * Only BATCH bodies consume flow-control credit: the receiver returns it once the window engine has consumed
 * the packets, in the credit field of whatever frame it writes next (a reply batch, usually), or in a CREDIT
 * frame of its own when much credit is owed or has been owed for a while (nothing else going out). Version 2
 * made the field a credit on every frame (version 1 carried it on CREDIT frames only).
 */
public final class FrameDescriptor {
    public static final int HEADER_LENGTH = 16;
    public static final int LENGTH_OFFSET = 0;
    public static final int TYPE_OFFSET = 4;
    public static final int VERSION_OFFSET = 5;
    public static final int CREDIT_OFFSET = 8;
    public static final int VERSION = 2;

    /** Packets of one batch (or a part of one, split at packet boundaries). */
    public static final int BATCH = 1;
    /** A control-plane message ({@link io.jrma.core.runtime.ControlPlane}). */
    public static final int CTRL = 2;
    /** Nothing but flow-control credit returned to the sender (when no other frame carries it soon). */
    public static final int CREDIT = 3;
    /** The sending JVM aborts the job; body: the reason. */
    public static final int ABORT = 4;
    /** The sending JVM closes the connection normally. */
    public static final int BYE = 5;
    /**
     * Nothing but a wake-up: the sender put packets in a shared-memory ring while the receiver's progress
     * thread slept in its selector ({@link io.jrma.transport.shm.ShmRingTransport}).
     */
    public static final int WAKE = 6;

    /** Largest body accepted: one 1 GiB packet plus headers. */
    public static final int MAX_BODY = PacketHeader.MAX_PACKET_LENGTH + 4096;

    private FrameDescriptor() {
    }

    /**
     * Writes a header for a frame of {@code type} with a body of {@code length} bytes and no credit into
     * {@code h} (16 bytes from its position 0, little-endian) and makes it ready to be written.
     */
    public static ByteBuffer header(ByteBuffer h, int type, int length) {
        h.clear();
        h.putInt(LENGTH_OFFSET, length).put(TYPE_OFFSET, (byte) type).put(VERSION_OFFSET, (byte) VERSION)
                .putShort(VERSION_OFFSET + 1, (short) 0).putLong(CREDIT_OFFSET, 0);
        return h.limit(HEADER_LENGTH);
    }

    /** A whole small frame (header and body, no credit) in one heap buffer. */
    public static ByteBuffer small(int type, byte[] body) {
        ByteBuffer f = ByteBuffer.allocate(HEADER_LENGTH + body.length).order(ByteOrder.LITTLE_ENDIAN);
        f.putInt(body.length).put((byte) type).put((byte) VERSION).putShort((short) 0).putLong(0).put(body);
        f.flip();
        return f;
    }

    /**
     * Whether frames of {@code type} never carry a body (CREDIT, BYE, WAKE): one that claims a length is corrupt,
     * and its receiver must not wait for (or make room for) the bytes it claims.
     */
    public static boolean isEmptyType(int type) {
        return type == CREDIT || type == BYE || type == WAKE;
    }

    public static String typeName(int type) {
        switch (type) {
            case BATCH: return "BATCH";
            case CTRL: return "CTRL";
            case CREDIT: return "CREDIT";
            case ABORT: return "ABORT";
            case BYE: return "BYE";
            case WAKE: return "WAKE";
            default: return "type " + type;
        }
    }
}

package io.jrma.core.wire;

/**
 * Packet types and flag bits. Requests travel origin → target; each reply type answers one request type.
 * Values are part of the wire format.
 */
public final class PacketType {
    public static final int PUT = 1;
    public static final int GET = 2;
    public static final int ACC = 3;
    /** get_accumulate and fetch_and_op. */
    public static final int GET_ACC = 4;
    public static final int CAS = 5;
    /** Carries only flags (lock, unlock, flush) when there is no operation to carry them. */
    public static final int SYNC = 6;
    /** Fence marker; aux = fence epoch. */
    public static final int FENCE = 7;
    /** PSCW: the target exposes its window to the receiver. */
    public static final int POST = 8;
    /** PSCW: the origin finished its access epoch to the receiver. */
    public static final int COMPLETE = 9;

    /** Reply: aux = sequence number of the flush this acknowledges. */
    public static final int ACK = 16;
    public static final int GET_RESP = 17;
    public static final int GET_ACC_RESP = 18;
    public static final int CAS_RESP = 19;
    /** Reply: the request was rejected; aux = MPI error class, payload = UTF-8 message. */
    public static final int ERROR = 20;

    public static final int F_LOCK_SHARED = 1;
    public static final int F_LOCK_EXCLUSIVE = 2;
    public static final int F_UNLOCK = 4;
    /** The sender needs a reply acknowledging remote completion of this and all earlier packets. */
    public static final int F_ACK_REQUIRED = 8;
    /** On a reply: it also acknowledges remote completion (aux = flush sequence). */
    public static final int F_PIGGYBACK_ACK = 16;
    /** The target layout is contiguous: no encoded layout follows the header. */
    public static final int F_CONTIG = 32;
    /** The target offset is an absolute address (dynamic window). */
    public static final int F_DYNAMIC = 64;
    /**
     * With {@link #F_ACK_REQUIRED}: the transport can acknowledge through memory ({@link RingAck}), so a target
     * that applies this packet, and everything before it from the sender, while the record carrying it is read
     * may send no ACK packet. A target that cannot (the packet waits for a lock, a reply is owed) acks as usual.
     */
    public static final int F_ACK_BY_RING = 128;

    private PacketType() {
    }

    public static String name(int type) {
        switch (type) {
            case PUT: return "PUT";
            case GET: return "GET";
            case ACC: return "ACC";
            case GET_ACC: return "GET_ACC";
            case CAS: return "CAS";
            case SYNC: return "SYNC";
            case FENCE: return "FENCE";
            case POST: return "POST";
            case COMPLETE: return "COMPLETE";
            case ACK: return "ACK";
            case GET_RESP: return "GET_RESP";
            case GET_ACC_RESP: return "GET_ACC_RESP";
            case CAS_RESP: return "CAS_RESP";
            case ERROR: return "ERROR";
            default: return "UNKNOWN(" + type + ")";
        }
    }

    /** Whether this is a reply type (they travel target to origin, in batches of their own). */
    public static boolean isReply(int type) {
        return type >= ACK && type <= ERROR;
    }

    /** Whether a request of this type gets a reply carrying data (so it can carry a flush ack too). */
    public static boolean hasDataReply(int type) {
        return type == GET || type == GET_ACC || type == CAS;
    }
}

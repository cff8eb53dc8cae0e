package io.jrma.sync;

import io.jrma.Datatype;
import io.jrma.core.dt.BasicType;
import io.jrma.core.dt.TypeLayout;
import io.jrma.core.op.OpCode;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import java.util.Random;
import org.agrona.MutableDirectBuffer;

/**
 * Bad request packets for the fuzz campaigns: each input is one packet (or a piece of garbage where a packet
 * should be) written into a buffer, and every input is certainly invalid, so that a target must reject every one
 * of them and may apply none. An input starts as random bytes or as a valid request (put, get, accumulate,
 * get_accumulate, compare_and_swap; contiguous or with a derived-datatype layout; small or large enough for the
 * transports to place its payload), is bit-flipped, truncated, oversized or given boundary values, and then gets
 * one defect that no combination of the other changes can repair: a wrong version, window, source or
 * destination, a packet length that disagrees with the bytes that carry it, an unknown request type, a target
 * range outside the window, or a payload longer than the operation takes.
 *
 * <p>Lock and unlock flags are always cleared (a lock taken by a bad packet is a lock, not damage), and the
 * type is never made a reply type: replies go to the origin side, which {@link #reply} fuzzes on its own.
 *
 * <p>Not thread-safe; one per fuzzing thread.
 */
final class FuzzInputs {
    /** Kinds of input, for the printed histogram. */
    enum Kind { RANDOM, FLIPPED, TRUNCATED, OVERSIZED, BOUNDARY, LAYOUT, LARGE }

    /** Defects, for the printed histogram. */
    enum Defect { VERSION, WINDOW, SOURCE, DESTINATION, LENGTH, TYPE, RANGE, PAYLOAD, GARBAGE }

    /** Inputs from this size on may have their payload placed by a transport (a large PUT). */
    static final int LARGE = 40 << 10;

    private static final long[] BOUNDARIES = {0, 1, -1, 7, 8, Long.MAX_VALUE, Long.MIN_VALUE, Integer.MAX_VALUE,
        Integer.MIN_VALUE, 1L << 32, 1L << 40, -8};
    private static final int[] OPS = {PacketType.PUT, PacketType.GET, PacketType.ACC,
            PacketType.GET_ACC, PacketType.CAS};
    private static final int LOCK_FLAGS = PacketType.F_LOCK_SHARED | PacketType.F_LOCK_EXCLUSIVE | PacketType.F_UNLOCK;

    private final Random rnd;
    private final int windowId;
    private final int src;
    private final int dst;
    private final long windowBytes;
    private final int worldSize;
    final long[] kinds = new long[Kind.values().length];
    final long[] defects = new long[Defect.values().length];
    /** The kind and defect of the last input (for a failure message). */
    Kind lastKind;
    Defect lastDefect;

    FuzzInputs(long seed, int windowId, int src, int dst, long windowBytes, int worldSize) {
        this.rnd = new Random(seed);
        this.windowId = windowId;
        this.src = src;
        this.dst = dst;
        this.windowBytes = windowBytes;
        this.worldSize = worldSize;
    }

    Random random() {
        return rnd;
    }

    /**
     * Writes one bad input at {@code at} of {@code buf} (which must hold {@link #LARGE} + 4 KiB from there) and
     * returns its length in bytes: what the transport carries as one packet's bytes.
     */
    int next(MutableDirectBuffer buf, int at) {
        int pick = rnd.nextInt(1000);
        Kind kind = pick < 100 ? Kind.RANDOM : pick < 550 ? Kind.FLIPPED : pick < 650 ? Kind.TRUNCATED
                : pick < 750 ? Kind.OVERSIZED : pick < 880 ? Kind.BOUNDARY : pick < 998 ? Kind.LAYOUT : Kind.LARGE;
        lastKind = kind;
        kinds[kind.ordinal()]++;
        if (kind == Kind.RANDOM) {
            int len = rnd.nextInt(2 * PacketHeader.HEADER_LENGTH + 64);
            for (int i = 0; i < len; i++) {
                buf.putByte(at + i, (byte) rnd.nextInt());
            }
            if (len >= PacketHeader.DST_OFFSET + 4) {
                buf.putInt(at + PacketHeader.DST_OFFSET, dst + 1 + rnd.nextInt(1000)); // garbage addressed elsewhere
                defect(Defect.GARBAGE);
            } else {
                defect(Defect.LENGTH);
            }
            return len;
        }
        int len = valid(buf, at, kind);
        switch (kind) {
            case FLIPPED -> {
                int flips = 1 + rnd.nextInt(8);
                for (int i = 0; i < flips; i++) {
                    int bit = PacketHeader.VERSION_OFFSET * 8 + rnd.nextInt((len - PacketHeader.VERSION_OFFSET) * 8);
                    int b = at + bit / 8;
                    buf.putByte(b, (byte) (buf.getByte(b) ^ (1 << (bit & 7))));
                }
            }
            case OVERSIZED -> {
                switch (rnd.nextInt(4)) {
                    case 0 -> buf.putLong(at + PacketHeader.TARGET_COUNT_OFFSET, (1L << 30) + rnd.nextInt(1 << 30));
                    case 1 -> buf.putLong(at + PacketHeader.TARGET_COUNT_OFFSET, Long.MAX_VALUE - rnd.nextInt(16));
                    case 2 -> buf.putInt(at + PacketHeader.LAYOUT_LENGTH_OFFSET, rnd.nextInt(Integer.MAX_VALUE));
                    default -> buf.putLong(at + PacketHeader.TARGET_OFFSET_OFFSET, windowBytes + rnd.nextInt(1 << 20));
                }
            }
            case BOUNDARY -> {
                long v = BOUNDARIES[rnd.nextInt(BOUNDARIES.length)];
                switch (rnd.nextInt(5)) {
                    case 0 -> buf.putLong(at + PacketHeader.TARGET_OFFSET_OFFSET, v);
                    case 1 -> buf.putLong(at + PacketHeader.TARGET_COUNT_OFFSET, v);
                    case 2 -> buf.putInt(at + PacketHeader.LAYOUT_LENGTH_OFFSET, (int) v);
                    case 3 -> buf.putByte(at + PacketHeader.ELEM_TYPE_OFFSET, (byte) v);
                    default -> buf.putByte(at + PacketHeader.OP_OFFSET, (byte) v);
                }
            }
            default -> {
                // TRUNCATED, LAYOUT, LARGE: their defect below does the damage
            }
        }
        PacketHeader.clearFlags(buf, at, LOCK_FLAGS);
        if (PacketType.isReply(PacketHeader.type(buf, at))) {
            buf.putByte(at + PacketHeader.TYPE_OFFSET, (byte) OPS[rnd.nextInt(OPS.length)]);
        }
        return kind == Kind.TRUNCATED ? truncate(buf, at, len) : breakIt(buf, at, len, kind);
    }

    /** A truncated packet: its header claims more bytes than are carried (or the header itself is cut). */
    private int truncate(MutableDirectBuffer buf, int at, int len) {
        defect(Defect.LENGTH);
        if (rnd.nextBoolean() || len <= PacketHeader.HEADER_LENGTH) {
            return rnd.nextInt(PacketHeader.HEADER_LENGTH); // not even a header
        }
        return PacketHeader.HEADER_LENGTH + rnd.nextInt(len - PacketHeader.HEADER_LENGTH);
    }

    /**
     * Gives the packet of {@code len} bytes one defect nothing else repairs; returns its length. Extra payload is
     * a sure defect only while the header is as {@link #valid} wrote it (a flipped count could match it again).
     */
    private int breakIt(MutableDirectBuffer buf, int at, int len, Kind kind) {
        int type = PacketHeader.type(buf, at);
        boolean op = type >= PacketType.PUT && type <= PacketType.CAS;
        boolean intact = kind == Kind.LAYOUT || kind == Kind.LARGE;
        int d = rnd.nextInt(op ? intact ? 9 : 7 : 6);
        switch (d) {
            case 0 -> {
                buf.putByte(at + PacketHeader.VERSION_OFFSET, (byte) (PacketHeader.VERSION + 1 + rnd.nextInt(200)));
                defect(Defect.VERSION);
            }
            case 1 -> {
                buf.putInt(at + PacketHeader.WINDOW_OFFSET, windowId + 1 + rnd.nextInt(1 << 20));
                defect(Defect.WINDOW);
            }
            case 2 -> {
                buf.putInt(at + PacketHeader.SRC_OFFSET, rnd.nextBoolean() ? dst : worldSize + rnd.nextInt(1 << 20));
                defect(Defect.SOURCE);
            }
            case 3 -> {
                buf.putInt(at + PacketHeader.DST_OFFSET, rnd.nextBoolean() ? src : -1 - rnd.nextInt(1 << 20));
                defect(Defect.DESTINATION);
            }
            case 4 -> {
                // the length field disagrees with the bytes carried: shorter than a header, or longer than them
                buf.putInt(at + PacketHeader.LENGTH_OFFSET, rnd.nextBoolean() ? rnd.nextInt(PacketHeader.HEADER_LENGTH)
                        : len + 1 + rnd.nextInt(1 << 20));
                defect(Defect.LENGTH);
                return len;
            }
            case 5 -> {
                int t;
                do {
                    t = rnd.nextInt(256) - 128;
                } while ((t >= PacketType.PUT && t <= PacketType.COMPLETE) || PacketType.isReply(t));
                buf.putByte(at + PacketHeader.TYPE_OFFSET, (byte) t);
                defect(Defect.TYPE);
            }
            case 6 -> {
                // a contiguous range starting outside the window, of at least one byte
                PacketHeader.addFlags(buf, at, PacketType.F_CONTIG);
                buf.putLong(at + PacketHeader.TARGET_COUNT_OFFSET, 1 + rnd.nextInt(64));
                long off = rnd.nextBoolean() ? windowBytes + rnd.nextInt(1 << 16) : -1 - rnd.nextInt(1 << 16);
                buf.putLong(at + PacketHeader.TARGET_OFFSET_OFFSET, rnd.nextInt(8) == 0
                        ? Long.MAX_VALUE - rnd.nextInt(8) : off);
                defect(Defect.RANGE);
            }
            default -> {
                // more payload than any operation of this type takes
                int extra = 1 + rnd.nextInt(16);
                for (int i = 0; i < extra; i++) {
                    buf.putByte(at + len + i, (byte) rnd.nextInt());
                }
                len += extra;
                defect(Defect.PAYLOAD);
            }
        }
        buf.putInt(at + PacketHeader.LENGTH_OFFSET, len); // (flips never leave the length field wrong by accident)
        return len;
    }

    private void defect(Defect d) {
        lastDefect = d;
        defects[d.ordinal()]++;
    }

    /** Writes a valid request of this kind at {@code at}; returns its length. */
    private int valid(MutableDirectBuffer buf, int at, Kind kind) {
        int type = kind == Kind.LARGE ? PacketType.PUT : OPS[rnd.nextInt(OPS.length)];
        BasicType elem = type == PacketType.PUT || type == PacketType.GET ? BasicType.BYTE
                : rnd.nextBoolean() ? BasicType.LONG : BasicType.INT;
        int es = elem.size();
        int op = type == PacketType.ACC || type == PacketType.GET_ACC ? OpCode.SUM.id() : 0;
        int flags = PacketType.F_ACK_REQUIRED | (rnd.nextInt(4) == 0 ? PacketType.F_ACK_BY_RING : 0);
        int layoutLen = 0;
        long count;
        long bytes;
        if (kind == Kind.LAYOUT && type != PacketType.CAS) {
            Datatype d = Datatype.vector(1 + rnd.nextInt(4), 1 + rnd.nextInt(3), 4, es == 8 ? Datatype.LONG
                    : es == 4 ? Datatype.INT : Datatype.BYTE);
            TypeLayout l = d.layout();
            layoutLen = l.encodedLength();
            l.encode(buf, at + PacketHeader.HEADER_LENGTH);
            count = 1;
            bytes = l.size();
        } else {
            flags |= PacketType.F_CONTIG;
            count = type == PacketType.CAS ? es : kind == Kind.LARGE ? LARGE - PacketHeader.HEADER_LENGTH
                    : es * (1 + rnd.nextInt(8));
            bytes = count;
        }
        long payload = switch (type) {
            case PacketType.GET -> 0;
            case PacketType.CAS -> 2L * es;
            default -> bytes;
        };
        long off = bytes >= windowBytes ? 0 : (rnd.nextInt((int) (windowBytes - bytes) + 1) / es) * es;
        int len = (int) (PacketHeader.HEADER_LENGTH + layoutLen + payload);
        PacketHeader.write(buf, at, len, type, flags, windowId, src, dst, rnd.nextInt(), off, elem.id(), op,
                rnd.nextInt(), count, layoutLen);
        int p = at + PacketHeader.HEADER_LENGTH + layoutLen;
        for (int i = 0; i < payload; i++) {
            buf.putByte(p + i, (byte) rnd.nextInt());
        }
        return len;
    }

    /**
     * A reply nobody asked for (ACK, GET_RESP, GET_ACC_RESP, CAS_RESP, ERROR), from {@code src} to {@code dst},
     * with a random sequence number, ack token and payload; returns its length.
     */
    int reply(MutableDirectBuffer buf, int at) {
        int type = PacketType.ACK + rnd.nextInt(PacketType.ERROR - PacketType.ACK + 1);
        int payload = rnd.nextInt(64);
        int len = PacketHeader.HEADER_LENGTH + payload;
        PacketHeader.write(buf, at, len, type, rnd.nextBoolean() ? PacketType.F_PIGGYBACK_ACK : 0, windowId, src, dst,
                rnd.nextInt(), rnd.nextInt(80), 0, 0, rnd.nextInt(), 0, 0);
        for (int i = 0; i < payload; i++) {
            buf.putByte(at + PacketHeader.HEADER_LENGTH + i, (byte) rnd.nextInt());
        }
        return len;
    }

    /** The histogram of kinds and defects, for the test's output. */
    String histogram() {
        StringBuilder sb = new StringBuilder("kinds");
        for (Kind k : Kind.values()) {
            sb.append(' ').append(k).append('=').append(kinds[k.ordinal()]);
        }
        sb.append("; defects");
        for (Defect d : Defect.values()) {
            sb.append(' ').append(d).append('=').append(defects[d.ordinal()]);
        }
        return sb.toString();
    }
}

package io.jrma.transport.tcp;

import static io.jrma.transport.tcp.FrameDescriptor.HEADER_LENGTH;

import io.jrma.ErrorClass;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The receiving side of one {@link TcpConnection}: bytes are read into a staging buffer and cut into frames
 * ({@link FrameDescriptor}, every header checked); small frames are copied out into pooled off-heap receive buffers
 * ({@link ReceivePool}), large frames are read straight into a buffer of their own, and a large frame holding one
 * packet the window engine lets us place has its payload read straight to its destination. Each batch frame becomes a
 * {@link Batch} handed to the progress agent; its buffer is recycled, and its bytes owed back as credit, once the
 * engine has consumed it ({@link #recycleConsumed}).
 *
 * <p>Threads: whoever holds the connection's {@link TcpConnection#reading} (the progress agent; a writer that failed;
 * the closing thread).
 */
final class FrameReader {
    private static final int STAGING = 256 << 10;

    private record Delivered(Batch batch, ByteBuffer buffer, int length) {
    }

    private final TcpConnection conn;
    private final TcpTransport owner;
    private final SocketChannel ch;
    /** The most credit one frame header may return (see the constructor). */
    private final long maxCredit;
    private final ReceivePool pool;
    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING).order(ByteOrder.LITTLE_ENDIAN);
    private ByteBuffer big;
    /**
     * The last frame was larger than the staging buffer: the next read into staging takes only
     * {@link #BIG_FRAME_PEEK} bytes, so that a large frame's body goes straight into its own buffer instead of
     * through staging (a stream of 1 MiB puts copied a quarter of every body once more).
     */
    private boolean lastFrameBig;
    private static final int BIG_FRAME_PEEK = 4096;
    private int bigType;
    private long bigAux;
    private int bigLen;
    /** The large frame being read is a packet whose payload goes straight to its destination: its header. */
    private ByteBuffer placedHeader;
    /** That payload's destination, whole (position to limit). */
    private ByteBuffer placedPayload;
    /** A placeable frame was held back once, so that the batches before it could be consumed first. */
    private boolean placeDeferred;
    /** Stop reading for this duty cycle (a placeable frame waits for the batches before it). */
    private boolean readStop;
    /** The current read may place payloads (it runs in the progress agent's duty cycle). */
    private boolean placing;
    private final UnsafeBuffer stagingView = new UnsafeBuffer(staging);
    private final ArrayDeque<Delivered> delivered = new ArrayDeque<>();
    /** Bytes of consumed (or rejected) batches not yet owed back as credit. */
    private long toReturn;

    FrameReader(TcpConnection conn, long window) {
        this.conn = conn;
        this.owner = conn.owner;
        this.ch = conn.ch;
        this.pool = new ReceivePool(window);
        // what a peer can owe back at once: the window, or one frame larger than the window, which travels alone
        // when all credit is back (a 160 KB packet with jrma.tcp.credits=65536 returned 160,044 bytes of credit)
        this.maxCredit = Math.max(window, (long) FrameDescriptor.MAX_BODY + HEADER_LENGTH);
    }

    /**
     * Reads and dispatches what has arrived; returns frames handled. The caller holds the connection's
     * {@link TcpConnection#reading}; {@code placing}: called from the progress agent's duty cycle, so payloads may be
     * placed ({@link #place}).
     */
    int read(boolean placing) {
        if (conn.closed) {
            return 0;
        }
        this.placing = placing;
        readStop = false;
        int frames = 0;
        try {
            while (frames < 64) {
                if (big != null) {
                    int n = big.hasRemaining() ? ch.read(big) : 0; // (a placed frame may have been in staging whole)
                    if (n < 0) {
                        conn.eof();
                        return frames;
                    }
                    if (big.hasRemaining()) {
                        return frames;
                    }
                    finishBig();
                    frames++;
                    continue;
                }
                if (lastFrameBig) { // the next frame is probably large too: take little more than its header
                    staging.limit(Math.min(staging.capacity(), staging.position() + BIG_FRAME_PEEK));
                }
                int room = staging.remaining();
                int n = ch.read(staging);
                staging.limit(staging.capacity());
                if (n < 0) {
                    conn.eof();
                    return frames;
                }
                staging.flip();
                frames += parse();
                staging.compact();
                if (readStop) {
                    return frames;
                }
                if (n < room) {
                    // a short read emptied the socket: reading again now would almost always find nothing, and
                    // that empty read is a syscall on the round trip's critical path (between a request's arrival
                    // and the reply, between the reply's arrival and the end of a flush); the next call reads on
                    return frames;
                }
                if (conn.closed) {
                    return frames;
                }
            }
        } catch (IOException e) {
            owner.lost(conn, "read failed: " + e.getMessage());
        }
        return frames;
    }

    /** The large (or placed) frame being read is whole: hands it on. */
    private void finishBig() {
        ByteBuffer b = big;
        big = null;
        if (placedHeader != null) {
            b = placedHeader;
            placedHeader = null;
        } else {
            b.flip();
        }
        frame(bigType, bigAux, b, bigLen, true);
    }

    /** Parses whole frames in staging (read mode); starts a large frame's own buffer. */
    private int parse() {
        int frames = 0;
        while (staging.remaining() >= HEADER_LENGTH) {
            int at = staging.position();
            int len = staging.getInt(at + FrameDescriptor.LENGTH_OFFSET);
            int type = staging.get(at + FrameDescriptor.TYPE_OFFSET);
            int version = staging.get(at + FrameDescriptor.VERSION_OFFSET);
            long aux = staging.getLong(at + FrameDescriptor.CREDIT_OFFSET);
            if (len < 0 || len > FrameDescriptor.MAX_BODY || version != FrameDescriptor.VERSION
                    || type < FrameDescriptor.BATCH || type > FrameDescriptor.WAKE || aux < 0 || aux > maxCredit
                    || (len != 0 && FrameDescriptor.isEmptyType(type))) {
                owner.corrupt(conn, "a corrupt frame header (length " + len + ", " + FrameDescriptor.typeName(type)
                        + ", version " + version + ", credit " + aux + ")");
                staging.position(staging.limit());
                return frames;
            }
            if (type == FrameDescriptor.BATCH && placing && len >= PLACE_MIN) {
                int placed = place(at, len, aux);
                if (placed == 1 && !big.hasRemaining()) { // it was in staging whole: copied to its place once
                    finishBig();
                    frames++;
                    continue;
                }
                if (placed != 0) {
                    return frames; // placed, its payload read to its destination from now on; or it waits for bytes
                }
            }
            if (staging.remaining() >= HEADER_LENGTH + len) {
                lastFrameBig = false;
                ByteBuffer body = staging.duplicate().order(ByteOrder.LITTLE_ENDIAN);
                body.position(at + HEADER_LENGTH).limit(at + HEADER_LENGTH + len);
                staging.position(at + HEADER_LENGTH + len);
                if (type == FrameDescriptor.BATCH) {
                    ByteBuffer own = pool.acquire(len);
                    own.put(body);
                    own.flip();
                    frame(type, aux, own, len, true);
                } else {
                    frame(type, aux, body.slice().order(ByteOrder.LITTLE_ENDIAN), len, false);
                }
                frames++;
            } else if (HEADER_LENGTH + len > staging.capacity()) {
                lastFrameBig = true;
                big = type == FrameDescriptor.BATCH ? pool.acquire(len) : ByteBuffer.allocate(len);
                big.order(ByteOrder.LITTLE_ENDIAN);
                staging.position(at + HEADER_LENGTH);
                big.put(staging);
                bigType = type;
                bigAux = aux;
                bigLen = len;
                return frames;
            } else {
                return frames;
            }
        }
        return frames;
    }

    /**
     * Starts reading a batch frame of {@link #PLACE_MIN} bytes or more (at {@code at} of staging, in read mode)
     * whose single packet is one the window engine lets us write ahead of delivery ({@link TcpTransport#placement}:
     * a PUT into window memory, a GET reply into the get's origin buffer): its header goes to a buffer of its own,
     * its payload (what staging holds of it, then the socket) straight to its destination, saving a copy of every
     * byte. Asked only when every batch delivered before on this connection is consumed, so nothing the engine holds
     * from that origin can be overtaken; if some is not, the frame waits for one duty cycle (the agent dispatches
     * what was delivered), then takes the ordinary way.
     * Returns 1 when placing, -1 when it needs more bytes or waits, 0 for the ordinary way.
     */
    private int place(int at, int len, long aux) {
        int pat = at + HEADER_LENGTH;
        if (staging.remaining() < HEADER_LENGTH + PacketHeader.HEADER_LENGTH) {
            return -1;
        }
        if (len < PLACE_MIN || PacketHeader.length(stagingView, pat) != len
                || !owner.fromPeer(conn, PacketHeader.src(stagingView, pat))
                || !owner.isLocalRank(PacketHeader.dst(stagingView, pat))) {
            return 0;
        }
        for (Delivered d : delivered) {
            if (!d.batch().isConsumed()) {
                if (placeDeferred) {
                    placeDeferred = false;
                    return 0;
                }
                placeDeferred = true;
                readStop = true;
                return -1;
            }
        }
        placeDeferred = false;
        ByteBuffer dst = owner.placement(stagingView, pat);
        if (dst == null) {
            return 0;
        }
        if (dst.remaining() != len - PacketHeader.HEADER_LENGTH) {
            throw new IllegalStateException("placement of " + dst.remaining() + " bytes for a payload of "
                    + (len - PacketHeader.HEADER_LENGTH));
        }
        ByteBuffer hdr = pool.acquire(PacketHeader.HEADER_LENGTH);
        staging.position(pat);
        ByteBuffer h = staging.duplicate();
        h.limit(pat + PacketHeader.HEADER_LENGTH);
        hdr.put(h);
        hdr.flip();
        staging.position(pat + PacketHeader.HEADER_LENGTH);
        placedPayload = dst.duplicate();
        int n = Math.min(staging.remaining(), dst.remaining());
        ByteBuffer part = staging.duplicate();
        part.limit(staging.position() + n);
        dst.put(part);
        staging.position(staging.position() + n);
        placedHeader = hdr;
        big = dst;
        bigType = FrameDescriptor.BATCH;
        bigAux = aux;
        bigLen = len;
        lastFrameBig = HEADER_LENGTH + len > staging.capacity(); // (the next read peeks only after a frame this large)
        return 1;
    }

    /**
     * Frames at least this large may have their payload placed: read straight to its destination, or copied there
     * from staging once instead of into a receive buffer and then again by the window engine. (The engine offers
     * get replies from the same size, 32 KiB.)
     */
    private static final int PLACE_MIN = 32 << 10;

    private void frame(int type, long credit, ByteBuffer body, int len, boolean owned) {
        owner.framesReceived.incrementAndGet();
        owner.bytesReceived.addAndGet(HEADER_LENGTH + len);
        if (credit > 0) {
            conn.creditReturned(credit);
        }
        switch (type) {
            case FrameDescriptor.BATCH -> batch(body, len);
            case FrameDescriptor.CTRL -> owner.control(conn, body);
            case FrameDescriptor.CREDIT -> owner.creditFrames.incrementAndGet();
            case FrameDescriptor.ABORT -> {
                byte[] m = new byte[body.remaining()];
                body.get(m);
                owner.peerAborted(conn, new String(m, StandardCharsets.UTF_8));
            }
            case FrameDescriptor.WAKE -> owner.wakesReceived.incrementAndGet(); // reading it woke the selector
            default -> conn.byeReceived = true;
        }
    }

    /** Rebuilds the batch: packet offsets from their lengths; the engine validates every field. */
    private void batch(ByteBuffer body, int len) {
        ByteBuffer payload = placedPayload;
        if (payload != null) { // one packet: its header in body, its payload in the window already
            placedPayload = null;
            Batch b = new Batch(new UnsafeBuffer(body, 0, PacketHeader.HEADER_LENGTH));
            b.addExternal(0, payload);
            b.address(PacketHeader.src(b.buffer(), 0), PacketHeader.dst(b.buffer(), 0));
            delivered.add(new Delivered(b, body, len));
            if (placing) {
                // dispatched at once (in order: nothing delivered before on this stream was left unconsumed when
                // placing began), so that a large frame following it finds it consumed and is placed too
                owner.dispatchNow(b);
            } else {
                owner.deliver(b);
            }
            return;
        }
        UnsafeBuffer ub = new UnsafeBuffer(body, 0, len);
        Batch b = new Batch(ub);
        int off = 0;
        while (off + PacketHeader.HEADER_LENGTH <= len) {
            int plen = ub.getInt(off + PacketHeader.LENGTH_OFFSET);
            b.add(off);
            if (plen < PacketHeader.HEADER_LENGTH || (long) off + plen > len) {
                break; // the engine answers this one with an error reply; nothing after it can be framed
            }
            off += plen;
        }
        int src = b.count() == 0 ? -1 : PacketHeader.src(ub, 0);
        int dst = b.count() == 0 ? -1 : PacketHeader.dst(ub, 0);
        if (b.count() == 0 || !owner.fromPeer(conn, src) || !owner.isLocalRank(dst)) {
            owner.rejected(b.count() == 0 ? ErrorClass.ERR_INTERN : ErrorClass.ERR_RANK, b.count() == 0
                    ? "a batch frame of " + len + " bytes from JVM " + conn.peerJvm + " holds no whole packet header"
                    : "a batch from JVM " + conn.peerJvm + " claims source rank " + src + " and destination rank " + dst
                    + ": JVM " + conn.peerJvm + " may only speak for its own ranks, to ranks of this JVM");
            pool.release(body);
            toReturn += len;
            return;
        }
        b.address(src, dst);
        delivered.add(new Delivered(b, body, len));
        owner.deliver(b);
    }

    /** Recycles the receive buffers of consumed batches (oldest first); returns how many. */
    int recycleConsumed() {
        int work = 0;
        pool.trim();
        Delivered d;
        while ((d = delivered.peek()) != null && d.batch().isConsumed()) {
            delivered.poll();
            pool.release(d.buffer());
            toReturn += d.length();
            work++;
        }
        return work;
    }

    /** The bytes consumed since the last call: credit owed to the peer. */
    long takeConsumed() {
        long t = toReturn;
        toReturn = 0;
        return t;
    }

    /** Reads and drops what has arrived, parsing nothing; false once the input has ended (EOF). */
    boolean discard() throws IOException {
        try {
            while (true) {
                staging.clear();
                int n = ch.read(staging);
                if (n < 0) {
                    return false;
                }
                if (n == 0) {
                    return true;
                }
            }
        } finally {
            staging.clear();
        }
    }
}

package io.jrma.transport.tcp;

import static io.jrma.transport.tcp.FrameDescriptor.HEADER_LENGTH;

import io.jrma.ErrorClass;
import io.jrma.core.mem.Memory;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One TCP connection between this JVM and another JVM of the job, shared by all ranks of both.
 *
 * <p>Sending: a batch is cut into frames at packet boundaries; each frame is a gathering write of a 16-byte
 * header and slices of the sender's own (off-heap) queue buffer, so packets go out as they were encoded, with
 * no copy in user space. The batch is marked consumed (local completion) when its last byte is in the
 * kernel. Batch frames consume credit; the receiver returns it when the window engine has consumed the
 * packets, so a stopped target holds at most {@code credits} bytes of this JVM's packets. Returned credit
 * rides in the header of the next frame written the other way (the reply to a flush, typically), so a
 * round trip is two writes, not four; a CREDIT frame of its own goes only when a quarter of the window is
 * owed, or credit has been owed for {@code jrma.tcp.creditDelayNs} with nothing else going out.
 *
 * <p>Receiving: bytes are read into a staging buffer; small frames are copied out into pooled off-heap
 * receive buffers, large frames are read straight into a buffer of their own. Each batch frame becomes a
 * {@link Batch} handed to the progress agent.
 *
 * <p>Threads: any thread may {@link #enqueue} and {@link #tryWrite} (writers are serialized by a try-lock);
 * reading, credit return and the receive pool belong to the thread running the progress agent.
 */
final class TcpConnection {
    private static final int STAGING = 256 << 10;
    /** Receive buffers up to this size are power-of-two classes; above, multiples of it. */
    private static final int BIG = 256 << 10;
    /** Larger receive buffers are not pooled. */
    private static final int POOLED_MAX = (8 << 20) + BIG;
    private static final int POOL_DEPTH = 8;
    private static final int HEADER_POOL = 64;

    /** A frame waiting to be written. */
    static final class OutFrame {
        final ByteBuffer[] bufs;
        final long bytes;
        final int credit;
        final Batch batch;
        /** A CREDIT frame: nothing but the credit written into its header when it goes out. */
        final boolean creditOnly;
        int idx;

        OutFrame(ByteBuffer[] bufs, long bytes, int credit, Batch batch) {
            this(bufs, bytes, credit, batch, false);
        }

        OutFrame(ByteBuffer[] bufs, long bytes, int credit, Batch batch, boolean creditOnly) {
            this.bufs = bufs;
            this.bytes = bytes;
            this.credit = credit;
            this.batch = batch;
            this.creditOnly = creditOnly;
        }
    }

    private record Delivered(Batch batch, ByteBuffer buffer, int length) {
    }

    final TcpTransport owner;
    final int peerJvm;
    final SocketChannel ch;
    SelectionKey key;

    private final ConcurrentLinkedQueue<OutFrame> outQ = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<OutFrame> urgentQ = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean writeLock = new AtomicBoolean();
    final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicLong credits;
    private final long window;
    /** The most credit one frame header may return (see the constructor). */
    private final long maxCredit;
    private OutFrame cur;
    private volatile boolean wantWrite;
    /** Credit consumed here and not yet returned: added by the progress thread, taken by the writer. */
    private final AtomicLong owed = new AtomicLong();
    /** When {@link #owed} last became non-zero (progress thread). */
    private long owedSinceNs;
    /** A CREDIT frame is queued and not yet written. */
    private volatile boolean creditQueued;
    /** Recycled 16-byte direct buffers for batch frame headers (a direct allocation per frame cost ~1 us). */
    private final ConcurrentLinkedQueue<ByteBuffer> headers = new ConcurrentLinkedQueue<>();
    private final AtomicInteger headersPooled = new AtomicInteger();

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
    @SuppressWarnings("unchecked")
    private final ArrayDeque<ByteBuffer>[] pool = new ArrayDeque[19];
    private final HashMap<Integer, ArrayDeque<ByteBuffer>> bigPool = new HashMap<>();
    private long toReturn;
    private long pooledBytes;
    /** Some pool holds more than {@link #POOL_DEPTH} buffers (the excess is trimmed once it lies unused). */
    private boolean excess;
    /** Buffers taken from beyond a pool's depth, and that count at the last look of {@link #trimPool}. */
    private long excessTaken;
    private long excessTakenSeen;
    private long excessSeenNs;
    volatile boolean byeReceived;
    volatile boolean closed;

    TcpConnection(TcpTransport owner, int peerJvm, SocketChannel ch, long window) {
        this.owner = owner;
        this.peerJvm = peerJvm;
        this.ch = ch;
        this.window = window;
        // what a peer can owe back at once: the window, or one frame larger than the window, which travels alone
        // when all credit is back (a 160 KB packet with jrma.tcp.credits=65536 returned 160,044 bytes of credit)
        this.maxCredit = Math.max(window, (long) FrameDescriptor.MAX_BODY + HEADER_LENGTH);
        this.credits = new AtomicLong(window);
        for (int i = 0; i < pool.length; i++) {
            pool[i] = new ArrayDeque<>();
        }
    }

    // ------------------------------------------------------------------ sending

    /** A header buffer for a batch frame, recycled once the frame is written. Any thread. */
    ByteBuffer header() {
        ByteBuffer h = headers.poll();
        if (h == null) {
            return ByteBuffer.allocateDirect(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        }
        headersPooled.decrementAndGet();
        return h;
    }

    private void recycle(OutFrame f) {
        ByteBuffer h = f.bufs[0];
        if (f.credit > 0) { // batch frames: bufs[0] is a header of ours
            if (h.isDirect() && h.capacity() == HEADER_LENGTH && headersPooled.get() < HEADER_POOL) {
                headersPooled.incrementAndGet();
                headers.offer(h);
            }
        }
    }

    void enqueue(OutFrame f) {
        queuedBytes.addAndGet(f.bytes);
        outQ.offer(f);
    }

    /** Frames that overtake queued batches: credit returns and aborts (they carry no window data). */
    void enqueueUrgent(OutFrame f) {
        queuedBytes.addAndGet(f.bytes);
        urgentQ.offer(f);
    }

    /** Writes what the socket and the credit allow; returns frames written. Any thread. */
    int tryWrite() {
        int work = 0;
        while (!closed && (!outQ.isEmpty() || !urgentQ.isEmpty() || cur != null)) {
            if (!writeLock.compareAndSet(false, true)) {
                return work; // the holder re-checks the queues after it lets go
            }
            boolean stalled;
            IOException failed = null;
            try {
                int before = work;
                work += drainLocked();
                stalled = wantWrite || (cur == null && work == before);
            } catch (IOException e) {
                failed = e;
                stalled = true;
            } finally {
                writeLock.set(false); // release: publishes cur and the written state to the next writer
            }
            if (failed != null) {
                writeFailed(failed);
                return work;
            }
            if (stalled) {
                return work;
            }
        }
        return work;
    }

    private int drainLocked() throws IOException {
        int work = 0;
        while (true) {
            if (cur == null) {
                OutFrame f = urgentQ.poll();
                if (f == null) {
                    f = outQ.peek();
                    if (f == null) {
                        return work;
                    }
                    if (f.credit > 0) {
                        long c = credits.get();
                        if (f.credit > c && c < window) {
                            return work; // wait for credit (a frame larger than the window goes alone)
                        }
                        credits.addAndGet(-f.credit);
                    }
                    outQ.poll();
                }
                cur = f;
                long give = owed.getAndSet(0); // credit rides in the header of the frame about to go out
                if (give > 0) {
                    f.bufs[0].putLong(FrameDescriptor.CREDIT_OFFSET, give);
                }
                if (f.creditOnly) {
                    creditQueued = false;
                }
            }
            ch.write(cur.bufs, cur.idx, cur.bufs.length - cur.idx);
            while (cur.idx < cur.bufs.length && !cur.bufs[cur.idx].hasRemaining()) {
                cur.idx++;
            }
            if (cur.idx < cur.bufs.length) {
                setWantWrite(true);
                return work;
            }
            setWantWrite(false);
            queuedBytes.addAndGet(-cur.bytes);
            owner.bytesSent.addAndGet(cur.bytes);
            owner.framesSent.incrementAndGet();
            if (cur.batch != null) {
                cur.batch.markConsumed(); // the last frame of a batch: local completion for its sender
            }
            recycle(cur);
            cur = null;
            work++;
        }
    }

    /**
     * Notes that output waits for room in the socket. Whoever runs the progress agent writes it on its next duty
     * cycle; only a progress thread asleep in the selector must be told, so that it waits for writability too
     * ({@link #armForSleep}). Changing the key's interest and waking the selector on every partial write cost two
     * system calls and a wake-up of the progress thread per megabyte of a put stream.
     */
    private void setWantWrite(boolean want) {
        if (want != wantWrite) {
            wantWrite = want;
            if (want) {
                owner.outputWaits();
            }
        }
    }

    /** Before the progress thread sleeps in the selector: wait for writability too while output waits. */
    void armForSleep() {
        SelectionKey k = key;
        if (k != null && k.isValid() && !closed) {
            int ops = wantWrite ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ;
            if (k.interestOps() != ops) {
                k.interestOps(ops);
            }
        }
    }

    // ------------------------------------------------------------------ receiving (progress thread only)

    /**
     * A write failed (EPIPE, reset): the peer may have said goodbye and closed, its BYE still unread here (the
     * quiet connections of a job whose packets take the shared-memory rings are read rarely). So what the peer sent
     * before it went is read to its end first, and only a stream that ends without a goodbye is a lost connection:
     * a job that ended cleanly must not abort. The thread reading the connection now (the progress agent) finishes
     * its read first, however long the scheduler keeps it from running (a writer that gave up after a bounded spin
     * judged the connection lost while the goodbye lay unread); when that reader is this thread (a frame's credit let
     * a write go), it judges once its read is done ({@link #read}).
     */
    private void writeFailed(IOException e) {
        writeFailure = e;
        if (readingThread == Thread.currentThread()) {
            return; // inside readLocked: its caller settles it when the frames before are handled
        }
        while (!closed && !byeReceived) {
            if (reading.compareAndSet(false, true)) {
                readingThread = Thread.currentThread();
                try {
                    settleWriteFailure();
                } finally {
                    readingThread = null;
                    reading.set(false);
                }
                return;
            }
            Thread.yield(); // the progress agent is reading it now: a bounded read, let it finish
        }
        owner.lost(this, "write failed: " + e.getMessage()); // after its goodbye: closes, no abort
    }

    /**
     * Holding {@link #reading} after a failed write: reads the rest of the input, which ends (the write failed
     * because the connection is reset), then closes the connection, as a lost one only without a goodbye.
     */
    private void settleWriteFailure() {
        IOException e = writeFailure;
        if (e == null) {
            return;
        }
        // (lingering: input discarded)
        for (int i = 0; i < SETTLE_READS && !closed && !byeReceived && !lingering; i++) {
            readLocked(false);
        }
        owner.lost(this, "write failed: " + e.getMessage());
    }

    /** Reads after a failed write before its verdict (each takes what the socket holds; a reset socket ends soon). */
    private static final int SETTLE_READS = 1_000;

    /**
     * Held by the thread reading the connection now (the progress agent; a writer that failed; the closing thread).
     * Package-private: a test holds it to play a progress agent that the scheduler keeps from running mid-read.
     */
    final AtomicBoolean reading = new AtomicBoolean();
    /** The thread holding {@link #reading}, or null. */
    private volatile Thread readingThread;
    /** The first write that failed, judged by whoever reads next ({@link #settleWriteFailure}). */
    private volatile IOException writeFailure;

    /** Reads and dispatches what has arrived; returns frames handled. The progress agent's thread. */
    int read() {
        if (closed || lingering || !reading.compareAndSet(false, true)) {
            return 0;
        }
        readingThread = Thread.currentThread();
        try {
            int frames = readLocked(true);
            if (writeFailure != null) {
                settleWriteFailure();
            }
            return frames;
        } finally {
            readingThread = null;
            reading.set(false);
        }
    }

    /** {@code placing}: called from the progress agent's duty cycle, so payloads may be placed ({@link #place}). */
    private int readLocked(boolean placing) {
        if (closed) {
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
                        eof();
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
                    eof();
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
                if (closed) {
                    return frames;
                }
            }
        } catch (IOException e) {
            owner.lost(this, "read failed: " + e.getMessage());
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
                owner.corrupt(this, "a corrupt frame header (length " + len + ", " + FrameDescriptor.typeName(type)
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
                    ByteBuffer own = acquire(len);
                    own.put(body);
                    own.flip();
                    frame(type, aux, own, len, true);
                } else {
                    frame(type, aux, body.slice().order(ByteOrder.LITTLE_ENDIAN), len, false);
                }
                frames++;
            } else if (HEADER_LENGTH + len > staging.capacity()) {
                lastFrameBig = true;
                big = type == FrameDescriptor.BATCH ? acquire(len) : ByteBuffer.allocate(len);
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
                || !owner.fromPeer(this, PacketHeader.src(stagingView, pat))
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
        ByteBuffer hdr = acquire(PacketHeader.HEADER_LENGTH);
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
            credits.addAndGet(credit);
            if (!outQ.isEmpty()) {
                tryWrite(); // a frame may have been waiting for this credit
            }
        }
        switch (type) {
            case FrameDescriptor.BATCH -> batch(body, len);
            case FrameDescriptor.CTRL -> owner.control(this, body);
            case FrameDescriptor.CREDIT -> owner.creditFrames.incrementAndGet();
            case FrameDescriptor.ABORT -> {
                byte[] m = new byte[body.remaining()];
                body.get(m);
                owner.peerAborted(this, new String(m, StandardCharsets.UTF_8));
            }
            case FrameDescriptor.WAKE -> owner.wakesReceived.incrementAndGet(); // reading it woke the selector
            default -> byeReceived = true;
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
        if (b.count() == 0 || !owner.fromPeer(this, src) || !owner.isLocalRank(dst)) {
            owner.rejected(b.count() == 0 ? ErrorClass.ERR_INTERN : ErrorClass.ERR_RANK, b.count() == 0
                    ? "a batch frame of " + len + " bytes from JVM " + peerJvm + " holds no whole packet header"
                    : "a batch from JVM " + peerJvm + " claims source rank " + src + " and destination rank " + dst
                    + ": JVM " + peerJvm + " may only speak for its own ranks, to ranks of this JVM");
            release(body);
            toReturn += len;
            return;
        }
        b.address(src, dst);
        delivered.add(new Delivered(b, body, len));
        owner.deliver(b);
    }

    /** Recycles consumed receive buffers and returns their credit; progress thread only. */
    int reclaim() {
        int work = 0;
        trimPool();
        Delivered d;
        while ((d = delivered.peek()) != null && d.batch().isConsumed()) {
            delivered.poll();
            release(d.buffer());
            toReturn += d.length();
            work++;
        }
        if (toReturn > 0) {
            if (owed.getAndAdd(toReturn) == 0) {
                owedSinceNs = System.nanoTime();
            }
            toReturn = 0;
        }
        long o = owed.get();
        if (o > 0 && !creditQueued && !closed
                && (o >= window / 4 || System.nanoTime() - owedSinceNs > owner.creditDelayNs)) {
            creditQueued = true; // cleared when it is written, with whatever is owed by then
            enqueueUrgent(new OutFrame(new ByteBuffer[] {FrameDescriptor.small(FrameDescriptor.CREDIT, new byte[0])},
                    HEADER_LENGTH, 0, null, true));
            tryWrite();
            work++;
        }
        return work;
    }

    private static int sizeClass(int len) {
        return Math.max(12, 32 - Integer.numberOfLeadingZeros(Math.max(1, len - 1)));
    }

    /**
     * The capacity a receive buffer for {@code len} bytes gets: a power of two up to 256 KiB, a multiple of
     * 256 KiB above (a 4 MiB packet and its header took an 8 MiB buffer, zeroed and page-faulted when new).
     */
    private static int capacityFor(int len) {
        return len <= BIG ? 1 << sizeClass(len) : (int) Math.min(Integer.MAX_VALUE, ((long) len + BIG - 1) / BIG * BIG);
    }

    private ArrayDeque<ByteBuffer> poolFor(int capacity, boolean create) {
        if (capacity <= BIG) {
            return pool[sizeClass(capacity)];
        }
        if (capacity > POOLED_MAX) {
            return null;
        }
        ArrayDeque<ByteBuffer> q = bigPool.get(capacity);
        if (q == null && create) {
            q = new ArrayDeque<>();
            bigPool.put(capacity, q);
        }
        return q;
    }

    private ByteBuffer acquire(int len) {
        int cap = capacityFor(len);
        ArrayDeque<ByteBuffer> q = poolFor(cap, false);
        ByteBuffer b = q == null ? null : q.poll();
        if (b == null) {
            b = ByteBuffer.allocateDirect(cap);
        } else {
            pooledBytes -= cap;
            if (q.size() >= POOL_DEPTH) {
                excessTaken++;
            }
        }
        b.clear().limit(len);
        return b.order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Keeps a consumed receive buffer for the next frame of its size: up to {@link #POOL_DEPTH} per size, and
     * beyond that while the pool holds less than the credit window (all the bytes a peer may have in flight
     * here); to make room, buffers of other sizes go first. A stream of 64 replies of 1 MiB kept 8 and freed 56
     * per round, and allocating them again (zeroed, page-faulted) cost more than the socket reads. Buffers beyond
     * the depth go back once none of them was taken for a second ({@link #trimPool}).
     */
    private void release(ByteBuffer b) {
        if (!b.isDirect()) {
            return;
        }
        int cap = b.capacity();
        ArrayDeque<ByteBuffer> q = cap == capacityFor(cap) ? poolFor(cap, true) : null;
        if (q != null && q.size() >= POOL_DEPTH && pooledBytes + cap > window) {
            evictOtherThan(cap, pooledBytes + cap - window); // the sizes in use now take the room of earlier ones
        }
        if (q != null && (q.size() < POOL_DEPTH || pooledBytes + cap <= window)) {
            q.push(b);
            pooledBytes += cap;
            if (q.size() > POOL_DEPTH && !excess) {
                excess = true;
                excessSeenNs = System.nanoTime(); // a second from now at the earliest
            }
        } else {
            Memory.release(b); // large buffers go back to the OS now, not at some GC
        }
    }

    /** Frees pooled buffers of other capacities than {@code keep} until {@code bytes} are freed. */
    private void evictOtherThan(int keep, long bytes) {
        for (ArrayDeque<ByteBuffer> q : pool) {
            bytes = evict(q, keep, bytes);
        }
        for (ArrayDeque<ByteBuffer> q : bigPool.values()) {
            bytes = evict(q, keep, bytes);
        }
    }

    private long evict(ArrayDeque<ByteBuffer> q, int keep, long bytes) {
        while (bytes > 0 && !q.isEmpty() && q.peek().capacity() != keep) {
            bytes -= free(q.poll());
        }
        return bytes;
    }

    private int free(ByteBuffer b) {
        pooledBytes -= b.capacity();
        Memory.release(b);
        return b.capacity();
    }

    /**
     * Frees the buffers beyond {@link #POOL_DEPTH} per size once none of them was taken for a second. Costs one
     * flag test per duty cycle unless some pool holds an excess.
     */
    private void trimPool() {
        if (!excess) {
            return;
        }
        long now = System.nanoTime();
        if (excessTaken != excessTakenSeen) {
            excessTakenSeen = excessTaken;
            excessSeenNs = now;
            return;
        }
        if (now - excessSeenNs < 1_000_000_000L) {
            return;
        }
        for (ArrayDeque<ByteBuffer> q : pool) {
            while (q.size() > POOL_DEPTH) {
                free(q.poll());
            }
        }
        for (ArrayDeque<ByteBuffer> q : bigPool.values()) {
            while (q.size() > POOL_DEPTH) {
                free(q.poll());
            }
        }
        excess = false;
    }

    private void eof() {
        if (byeReceived || owner.isClosing()) {
            closed = true;
            // an ended input is always "readable": left in the selector, it woke the progress thread at once every
            // time it went to sleep, until the transport closed (a busy loop after a peer's normal end)
            SelectionKey k = key;
            if (k != null) {
                k.cancel();
            }
            return;
        }
        owner.lost(this, "the connection was closed by the other side");
    }

    // ------------------------------------------------------------------ closing (the thread closing the transport)

    /** The transport is closing: what arrives is read only to be discarded ({@link #discardInput}). */
    private volatile boolean lingering;
    /** The peer closed its side: the input ended (EOF or reset). */
    private boolean inputEnded;

    /**
     * After the goodbye has gone into the socket: no more output (FIN, after the BYE). The kernel sends what it
     * still holds of this side's frames before the FIN, as long as the connection is not reset.
     */
    void shutdownOutput() {
        try {
            ch.shutdownOutput();
        } catch (IOException ignored) {
            // reset or closed already: nothing more can leave
        }
    }

    /**
     * Reads and discards what the peer sent, without blocking; true once its side has ended (EOF or reset) or the
     * connection is closed. A socket closed while input lies unread in it is reset instead of closed (RFC 2525,
     * 2.17), and a reset throws away what the kernel had not yet sent of this side's frames: its BYE, behind a burst
     * the peer had not acknowledged yet. So the closing side reads until the peer has said goodbye and closed too.
     * After {@link #lingering} is set no frame is parsed any more: the job is over for this JVM.
     */
    boolean discardInput() {
        if (closed || inputEnded) {
            return true;
        }
        if (!reading.compareAndSet(false, true)) {
            return false; // a progress thread not yet stopped is reading: next time
        }
        try {
            lingering = true;
            while (true) {
                staging.clear();
                int n = ch.read(staging);
                if (n < 0) {
                    inputEnded = true;
                    return true;
                }
                if (n == 0) {
                    return false;
                }
            }
        } catch (IOException e) {
            inputEnded = true;
            return true;
        } finally {
            staging.clear();
            reading.set(false);
        }
    }

    void close() {
        closed = true;
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}

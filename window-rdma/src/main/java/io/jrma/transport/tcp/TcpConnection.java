package io.jrma.transport.tcp;

import static io.jrma.transport.tcp.FrameDescriptor.HEADER_LENGTH;

import io.jrma.core.wire.Batch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

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
 * <p>Receiving: the connection's {@link FrameReader} reads frames into pooled receive buffers ({@link ReceivePool})
 * and hands each batch to the progress agent as a {@link Batch}; this class returns their credit once consumed
 * ({@link #reclaim}), and settles a failed write (was it a goodbye or a lost peer?) and the orderly close.
 *
 * <p>Threads: any thread may {@link #enqueue} and {@link #tryWrite} (writers are serialized by a try-lock);
 * reading, credit return and the receive pool belong to the thread running the progress agent.
 */
final class TcpConnection {
    private static final int HEADER_POOL = 64;

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

    /** The receiving side (whoever holds {@link #reading}). */
    private final FrameReader in;
    volatile boolean byeReceived;
    volatile boolean closed;

    TcpConnection(TcpTransport owner, int peerJvm, SocketChannel ch, long window) {
        this.owner = owner;
        this.peerJvm = peerJvm;
        this.ch = ch;
        this.window = window;
        this.credits = new AtomicLong(window);
        this.in = new FrameReader(this, window);
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

    /** Credit came back in a frame's header: a frame may have been waiting for it. The reading thread. */
    void creditReturned(long credit) {
        credits.addAndGet(credit);
        if (!outQ.isEmpty()) {
            tryWrite(); // a frame may have been waiting for this credit
        }
    }

    // ------------------------------------------------------------------ reading (progress thread only)

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
            return; // inside FrameReader.read: read() settles it when the frames before are handled
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
            in.read(false);
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
            int frames = in.read(true);
            if (writeFailure != null) {
                settleWriteFailure();
            }
            return frames;
        } finally {
            readingThread = null;
            reading.set(false);
        }
    }

    /** Recycles consumed receive buffers and returns their credit; progress thread only. */
    int reclaim() {
        int work = in.recycleConsumed();
        long back = in.takeConsumed();
        if (back > 0) {
            if (owed.getAndAdd(back) == 0) {
                owedSinceNs = System.nanoTime();
            }
        }
        long o = owed.get();
        if (o > 0 && !creditQueued && !closed
                && (o >= window / 4 || System.nanoTime() - owedSinceNs > owner.creditDelayNs)) {
            creditQueued = true; // cleared when it is written, with whatever is owed by then
            enqueueUrgent(Frames.credit());
            tryWrite();
            work++;
        }
        return work;
    }

    /** The input ended (EOF): after the peer's goodbye, or while closing, normal; else a lost connection. */
    void eof() {
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
            if (in.discard()) {
                return false;
            }
            inputEnded = true;
            return true;
        } catch (IOException e) {
            inputEnded = true;
            return true;
        } finally {
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

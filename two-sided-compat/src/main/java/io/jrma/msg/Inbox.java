package io.jrma.msg;

import static io.jrma.msg.InboxLayout.ENV_A;
import static io.jrma.msg.InboxLayout.ENV_B;
import static io.jrma.msg.InboxLayout.ENV_BYTES;
import static io.jrma.msg.InboxLayout.ENV_CTX;
import static io.jrma.msg.InboxLayout.ENV_KIND;
import static io.jrma.msg.InboxLayout.ENV_PAYLOAD;
import static io.jrma.msg.InboxLayout.ENV_TAG;
import static io.jrma.msg.InboxLayout.KIND_FIN;
import static io.jrma.msg.InboxLayout.KIND_HANDOFF;
import static io.jrma.msg.InboxLayout.KIND_INLINE;
import static io.jrma.msg.InboxLayout.KIND_MEDIUM;
import static io.jrma.msg.InboxLayout.KIND_RNDV;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Op;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.core.os.CrossMemory;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The receiving side of a messenger: polls the tails senders publish in this rank's own inbox memory (local
 * loads, no communication), matches each new envelope against the posted receives or queues it as
 * unexpected, returns credits to senders, and reads rendezvous messages from the sender's exposure window
 * (then owes the sender a FIN envelope).
 *
 * <h2>Memory model</h2>
 * A sender stores {@code tail[s]} with an atomic accumulate after the envelopes and payloads it validates
 * (issued after them on a path that applies them in order, or stored after them directly). The receiver loads the tail
 * with a volatile load, then calls {@code Win.sync()} (MPI_Win_sync: public and private copies agree in the unified
 * model) before it reads any slot or payload, so it never sees a slot's contents older than its tail.
 *
 * <h2>Credits</h2>
 * Eager payloads are copied out of the inbox as soon as their envelope is seen (into the matching receive,
 * or into a private copy), so slots and area bytes free up in order. The receiver tells the sender with an
 * accumulate(REPLACE) of {slots freed, area bytes freed} into {@code credit[me]} at the sender, once a quarter
 * of either is freed since the last report; as the eager limit is at most a quarter of the area, a sender
 * whose messages were all consumed always has room for its next one.
 *
 * <p>Owned by its messenger; every method runs under the messenger's lock.
 */
final class Inbox {
    private final Messenger m;
    private final InboxLayout lay;
    /** The messenger's mapped inboxes and hand-offs (see {@link PeerInboxes}, {@link Handoffs}). */
    private final PeerInboxes peers;
    private final Handoffs handoffs;
    private final MsgConfig cfg;
    private final long[] consumed;
    private final long[] areaFreed;
    private final long[] reportedSlots;
    private final long[] reportedBytes;
    private final long[] creditWords = new long[2];
    private final List<RecvOp> activeGets = new ArrayList<>();
    /** Arrivals matched and free for the next unexpected message (at most {@link #SPARE_ARRIVALS}). */
    private final ArrayDeque<Arrival> spareArrivals = new ArrayDeque<>();
    /** Payload arrays matched and free, by size class (capacity 2^class); at most {@link #SPARE_PAYLOAD_BYTES}. */
    @SuppressWarnings("unchecked") // an array of generic queues
    private final ArrayDeque<byte[]>[] sparePayloads = new ArrayDeque[Integer.SIZE];
    private long sparePayloadBytes;
    static final int SPARE_ARRIVALS = 1024;
    static final long SPARE_PAYLOAD_BYTES = 4L << 20;
    /** Smallest payload array: 2^6 bytes. */
    private static final int MIN_PAYLOAD_CLASS = 6;

    Inbox(Messenger m) {
        this.m = m;
        this.lay = m.lay;
        this.peers = m.peers;
        this.handoffs = m.handoffs;
        this.cfg = m.cfg;
        consumed = new long[m.size];
        areaFreed = new long[m.size];
        reportedSlots = new long[m.size];
        reportedBytes = new long[m.size];
    }

    /** Handles every newly published envelope and finished rendezvous read; returns work done. */
    int poll() {
        int work = 0;
        for (int s = 0; s < m.size; s++) {
            if (s == m.me) {
                continue;
            }
            long tail = peers.loadVolatile(lay.tail(s));
            long c = consumed[s];
            if (tail == c) {
                continue;
            }
            m.inbox.sync(); // the slots and payloads published before this tail are visible from here on
            for (; c < tail; c++) {
                handle(s, c);
                work++;
            }
            consumed[s] = c;
            maybeReturnCredits(s);
        }
        if (!activeGets.isEmpty()) {
            work += pollGets();
        }
        return work;
    }

    /** Posts a receive: takes the oldest matching unexpected message, or queues the receive. */
    void post(RecvOp r) {
        Arrival a = m.matcher(r.ctx).takeUnexpected(r.source, r.tag);
        if (a == null) {
            m.matcher(r.ctx).post(r);
            return;
        }
        if (a.handoff != null) {
            handoff(r, a.source, a.tag, a.handoff);
            recycle(a);
            return;
        }
        if (a.isRendezvous()) {
            startGet(r, a.source, a.tag, a.bytes, a.address, a.token);
            recycle(a);
            return;
        }
        deliver(r, a.source, a.tag, a.bytes, a.payload, 0);
        if (a.localSync != null) {
            a.localSync.req.complete(Status.EMPTY_SEND, null);
        }
        recycle(a);
    }

    /** An arrival for an unexpected message (a spare one if any). */
    private Arrival arrival() {
        Arrival a = spareArrivals.poll();
        return a == null ? new Arrival() : a;
    }

    /** An array of at least {@code bytes} bytes for an unexpected message's payload (a spare one if any). */
    private byte[] payload(int bytes) {
        int cls = Math.max(MIN_PAYLOAD_CLASS, Integer.SIZE - Integer.numberOfLeadingZeros(Math.max(1, bytes) - 1));
        ArrayDeque<byte[]> q = cls < sparePayloads.length ? sparePayloads[cls] : null;
        byte[] b = q == null ? null : q.poll();
        if (b != null) {
            sparePayloadBytes -= b.length;
            return b;
        }
        return new byte[cls < Integer.SIZE - 1 ? 1 << cls : bytes];
    }

    /** Keeps a matched arrival and its payload array for the next unexpected messages. */
    private void recycle(Arrival a) {
        byte[] b = a.payload;
        if (b != null && Integer.bitCount(b.length) == 1 && b.length >= 1 << MIN_PAYLOAD_CLASS
                && sparePayloadBytes + b.length <= SPARE_PAYLOAD_BYTES) {
            int cls = Integer.numberOfTrailingZeros(b.length);
            if (sparePayloads[cls] == null) {
                sparePayloads[cls] = new ArrayDeque<>();
            }
            sparePayloads[cls].add(b);
            sparePayloadBytes += b.length;
        }
        a.set(0, 0, 0, null, 0, 0);
        if (spareArrivals.size() < SPARE_ARRIVALS) {
            spareArrivals.add(a);
        }
    }

    /**
     * A send to this rank itself: matched here directly, its data copied once straight into a posted receive, or
     * into a (pooled) packed copy kept as an unexpected message.
     */
    void deliverLocal(SendOp op) {
        RecvOp r = m.matcher(op.ctx).takePosted(m.me, op.tag);
        if (r != null) {
            long bytes = op.data.bytes;
            long n = copyDirect(op.data, r.data);
            complete(r, m.me, op.tag, bytes, n);
            op.req.complete(Status.EMPTY_SEND, null);
            return;
        }
        byte[] copy = payload((int) op.data.bytes);
        op.data.packInto(copy, 0);
        Arrival a = arrival().set(m.me, op.tag, op.data.bytes, copy, 0, 0);
        if (op.sync) {
            a.localSync = op;
        } else {
            op.req.complete(Status.EMPTY_SEND, null);
        }
        m.matcher(op.ctx).addUnexpected(a);
    }

    /**
     * Copies the data of {@code from} into {@code to} (at most its size) with one copy when either side's memory is
     * its packed form; returns the bytes stored.
     */
    private static long copyDirect(UserBuf from, UserBuf to) {
        long bytes = from.bytes;
        long n = Math.min(bytes, to.bytes);
        if (from.raw) {
            to.unpackFrom(from.buf, from.offset, n); // the sender's memory is its packed form
        } else if (to.raw && n == bytes) {
            from.packInto(to.buf, to.offset); // the receiver's memory is the packed form
        } else if (n > 0) {
            byte[] packed = new byte[(int) bytes]; // derived types on both sides, or a truncated derived send
            from.packInto(packed, 0);
            to.unpackFrom(packed, 0, n);
        }
        return n;
    }

    /** Receives posted whose data is still being read. */
    int pending() {
        return activeGets.size();
    }

    private void handle(int s, long msg) {
        ByteBuffer mem = m.mem;
        int at = (int) lay.slot(s, msg);
        int kind = mem.get(at + ENV_KIND);
        int ctx = mem.get(at + ENV_CTX);
        int tag = mem.getInt(at + ENV_TAG);
        long bytes = mem.getLong(at + ENV_BYTES);
        if (ctx < 0 || ctx >= Messenger.CONTEXTS || kind < KIND_INLINE || kind > KIND_HANDOFF || bytes < 0
                || (kind == KIND_INLINE && bytes > cfg.inlineLimit())) {
            throw new RmaException(ErrorClass.ERR_INTERN, "messenger rank " + m.me + ": corrupt envelope " + msg
                    + " from rank " + s + " (kind " + kind + ", context " + ctx + ", " + bytes + " bytes)");
        }
        if (kind == KIND_FIN) {
            m.outbox().onFin(s, mem.getLong(at + ENV_B));
            return;
        }
        long payloadAt = at + ENV_PAYLOAD;
        if (kind == KIND_MEDIUM) {
            long start = mem.getLong(at + ENV_A);
            payloadAt = lay.area(s, start);
            areaFreed[s] = mem.getLong(at + ENV_B);
        }
        Matcher matcher = m.matcher(ctx);
        RecvOp r = matcher.takePosted(s, tag);
        if (kind == KIND_HANDOFF) {
            SendOp op = handoffs.take(s, msg);
            if (r != null) {
                handoff(r, s, tag, op);
            } else {
                Arrival a = arrival().set(s, tag, bytes, null, 0, 0);
                a.handoff = op;
                matcher.addUnexpected(a);
            }
            return;
        }
        if (kind == KIND_RNDV) {
            long address = mem.getLong(at + ENV_A);
            long token = mem.getLong(at + ENV_B);
            if (r != null) {
                startGet(r, s, tag, bytes, address, token);
            } else {
                matcher.addUnexpected(arrival().set(s, tag, bytes, null, address, token));
            }
            return;
        }
        if (r != null) {
            deliver(r, s, tag, bytes, mem, payloadAt);
        } else {
            byte[] copy = payload((int) bytes);
            mem.get((int) payloadAt, copy, 0, (int) bytes);
            matcher.addUnexpected(arrival().set(s, tag, bytes, copy, 0, 0));
        }
    }

    /** Stores an eager message (packed at {@code src + srcOffset}) into a matched receive and completes it. */
    private void deliver(RecvOp r, int source, int tag, long bytes, Object src, long srcOffset) {
        long stored = Math.min(bytes, r.data.bytes);
        r.data.unpackFrom(src, srcOffset, stored);
        complete(r, source, tag, bytes, stored);
    }

    /**
     * Takes a message handed over by rank {@code source} of this JVM into a matched receive: one copy straight from
     * the sender's buffer, then both requests complete (the send's last, its last touch here) and the sender is woken
     * if it sleeps on its futex word.
     */
    private void handoff(RecvOp r, int source, int tag, SendOp op) {
        long bytes = op.data.bytes;
        long n = copyDirect(op.data, r.data);
        m.handoffsTaken++;
        complete(r, source, tag, bytes, n);
        handoffs.completed(source); // before the completion: a sender that sees it done may free its messenger
        op.req.complete(Status.EMPTY_SEND, null);
        peers.signal(source);
    }

    /** Starts reading a rendezvous message from the sender's exposure window into a matched receive. */
    private void startGet(RecvOp r, int source, int tag, long bytes, long address, long token) {
        r.msgSource = source;
        r.msgTag = tag;
        r.msgBytes = bytes;
        r.token = token;
        long n = Math.min(bytes, r.data.bytes);
        r.stored = n;
        if (n == 0) {
            finish(r);
            return;
        }
        UserBuf u = r.data;
        Object direct = u.plain() && n % u.type.size() == 0 ? u.origin() : null;
        int pid = peers.crossReadPid(source);
        if (pid != 0 && crossRead(r, pid, address, n, direct)) {
            finish(r);
            return;
        }
        if (direct != null) {
            long count = n / u.type.size();
            r.get = m.expose.rget(direct, count, u.type, source, address, count, u.type);
        } else {
            r.staging = m.pool.take(n);
            r.get = m.expose.rget(r.staging, n, Datatype.BYTE, source, address, n, Datatype.BYTE);
        }
        activeGets.add(r);
    }

    /**
     * Reads {@code n} bytes of rendezvous data at {@code address} of process {@code pid} into the receive (or its
     * staging buffer) with one kernel copy. False, with nothing to undo, if the kernel refused: the caller reads
     * through the exposure window instead, as every later rendezvous will.
     */
    private boolean crossRead(RecvOp r, int pid, long address, long n, Object direct) {
        ByteBuffer into = direct instanceof ByteBuffer && ((ByteBuffer) direct).isDirect() ? (ByteBuffer) direct : null;
        ByteBuffer staging = into == null ? m.pool.take(n) : null;
        if (CrossMemory.read(pid, address, Win.address(into != null ? into : staging), n)) {
            r.staging = staging; // unpacked by finish
            return true;
        }
        if (staging != null) {
            m.pool.give(staging);
        }
        peers.crossReadRefused();
        return false;
    }

    private int pollGets() {
        int work = 0;
        for (int i = 0; i < activeGets.size();) { // no iterator: runs on every progress round while reads are in flight
            RecvOp r = activeGets.get(i);
            if (r.get.test()) {
                activeGets.remove(i);
                finish(r);
                work++;
            } else {
                i++;
            }
        }
        return work;
    }

    /** The data of a rendezvous receive is in place: unstage it, tell the sender, complete. */
    private void finish(RecvOp r) {
        if (r.staging != null) {
            r.data.unpackFrom(r.staging, 0, r.stored);
            m.pool.give(r.staging);
            r.staging = null;
        }
        r.get = null;
        m.outbox().sendFin(r.msgSource, r.token);
        complete(r, r.msgSource, r.msgTag, r.msgBytes, r.stored);
    }

    private void complete(RecvOp r, int source, int tag, long bytes, long stored) {
        if (bytes <= r.data.bytes) {
            r.req.completeRecv(source, tag, stored, r.data.type, ErrorClass.SUCCESS, null); // no Status made
            return;
        }
        RmaException e = new RmaException(ErrorClass.ERR_TRUNCATE,
                "receive on rank " + m.me + ": the message from rank "
                + source + " with tag " + tag + " has " + bytes + " bytes but the buffer holds " + r.data.count + " x "
                + r.data.type + " = " + r.data.bytes + " bytes; the first " + stored + " bytes were stored");
        r.req.completeRecv(source, tag, stored, r.data.type, ErrorClass.ERR_TRUNCATE, e);
    }

    private void maybeReturnCredits(int s) {
        long slots = consumed[s] - reportedSlots[s];
        long area = areaFreed[s] - reportedBytes[s];
        if (slots < Math.max(1, cfg.slots / 4) && area < cfg.areaBytes / 4) {
            return;
        }
        ByteBuffer peer = peers.mem[s];
        if (peer != null) {
            // each word only grows and is read on its own: two release stores need no atomic pair
            peers.storeRelease(s, lay.credit(m.me), consumed[s]);
            peers.storeRelease(s, lay.credit(m.me) + 8, areaFreed[s]);
            peers.signal(s); // a sender out of credits may be asleep
        } else {
            creditWords[0] = consumed[s];
            creditWords[1] = areaFreed[s];
            m.inbox.accumulate(creditWords, 2, Datatype.LONG, s, lay.credit(m.me), Op.REPLACE);
            m.inbox.flushLocal(s); // leaves now
        }
        reportedSlots[s] = consumed[s];
        reportedBytes[s] = areaFreed[s];
    }
}

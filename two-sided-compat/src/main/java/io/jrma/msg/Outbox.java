package io.jrma.msg;

import static io.jrma.msg.InboxLayout.ENV_A;
import static io.jrma.msg.InboxLayout.ENV_B;
import static io.jrma.msg.InboxLayout.ENV_BYTES;
import static io.jrma.msg.InboxLayout.ENV_CTX;
import static io.jrma.msg.InboxLayout.ENV_FLAGS;
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
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * The sending side of a messenger: per destination, a FIFO of sends not yet published (so messages leave in
 * the order they were posted), the credits the destination has returned, and the rendezvous sends waiting for
 * their receiver's FIN.
 *
 * <h2>Publishing a batch</h2>
 * As many queued sends as the destination's ring and area allow are written in one batch:
 * <ol>
 *   <li>each envelope is put into its slot of {@code ring[me]} at the destination, an INLINE payload inside it,
 *       a MEDIUM payload into {@code area[me]} (straight from the user's buffer when its layout is the packed
 *       one, else from a packed copy); a RNDV envelope carries where the data is exposed;</li>
 *   <li>the new {@code tail[me]} is stored with an atomic accumulate(REPLACE): the tail is the flag the receiver
 *       polls, written last, so it never sees a slot before its contents.</li>
 * </ol>
 * On the packet path the inbox window queues the batch's envelopes, payloads and tail, and a flush_local sends
 * them as one frame without waiting for anything; the destination applies one origin's packets in the order
 * they were issued (one FIFO connection or ring per pair of JVMs, a batch applied front to back, puts and
 * accumulates never reordered), so the envelopes are in place before the accumulate that publishes them, and a
 * batch costs one frame and no round trip (eager issue sent a frame per envelope and tail; before that, two
 * flushes cost four frames per message); payloads are packed into the packets at issue, so the send is
 * complete when published. On the direct path, plain stores
 * and a release store of the tail.
 *
 * <h2>Protocols</h2>
 * Up to {@code slot bytes - 64} bytes: INLINE; up to the eager limit: MEDIUM; beyond, and every synchronous
 * send: RNDV. For RNDV the sender exposes the data in the messenger's dynamic window: a direct ByteBuffer of
 * a predefined type is attached as is (the receiver then copies straight from the user's buffer: one copy);
 * anything else (arrays, derived types, or a buffer that overlaps one already attached) is packed into a
 * staging buffer that stays attached. A dynamic window was chosen over an allocate window because it lets
 * the receiver read the user's own memory without a copy, and costs nothing extra for the staged case.
 * The send completes when the receiver's FIN envelope with the send's token arrives. FINs travel through
 * the same rings (the FIFO to a peer only ever waits for credits, which the peer returns whenever it makes
 * progress, never for a receive to be posted: so a queue of rendezvous sends cannot hold back a later
 * message whose receive is posted, as MPI's progress rule requires), and are batched with other envelopes.
 *
 * <p>Owned by its messenger; every method runs under the messenger's lock.
 */
final class Outbox {
    private final Messenger m;
    private final InboxLayout lay;
    /** The messenger's mapped inboxes and hand-offs (see {@link PeerInboxes}, {@link Handoffs}). */
    private final PeerInboxes peers;
    private final Handoffs handoffs;
    private final MsgConfig cfg;
    private final ArrayDeque<SendOp>[] backlog;
    private final long[] published;
    private final long[] areaPos;
    /** Per destination: rendezvous sends published and waiting for their FIN, by token. */
    private final HashMap<Long, SendOp>[] awaitingFin;
    private int awaitingCount;
    /** Sends (not FINs) queued in {@link #backlog}: counted, not searched (waits ask on every round). */
    private int queuedSends;
    /** Envelope images of one batch, one slot each (origin buffers stay untouched until the flush). */
    private final ByteBuffer envelopes;
    private final ByteBuffer[] envelopeSlices;
    private final long[] tailWord = new long[1];
    private final SendOp[] batch;
    private final List<ByteBuffer> batchStaging = new ArrayList<>();
    /** FIN ops published and free for the next FIN: a rendezvous receive allocates none. */
    private final ArrayDeque<SendOp> spareFins = new ArrayDeque<>();

    @SuppressWarnings({"unchecked", "rawtypes"}) // arrays of generic queues, one per destination
    Outbox(Messenger m) {
        this.m = m;
        this.lay = m.lay;
        this.peers = m.peers;
        this.handoffs = m.handoffs;
        this.cfg = m.cfg;
        int p = m.size;
        backlog = new ArrayDeque[p];
        published = new long[p];
        areaPos = new long[p];
        awaitingFin = new HashMap[p];
        for (int d = 0; d < p; d++) {
            backlog[d] = new ArrayDeque<>();
            awaitingFin[d] = new HashMap<>();
        }
        envelopes = ByteBuffer.allocateDirect(cfg.slots * cfg.slotBytes).order(ByteOrder.LITTLE_ENDIAN);
        envelopeSlices = new ByteBuffer[cfg.slots];
        for (int i = 0; i < cfg.slots; i++) {
            envelopeSlices[i] = envelopes.slice(i * cfg.slotBytes, cfg.slotBytes);
        }
        batch = new SendOp[cfg.slots];
    }

    /** Queues a send to another rank and publishes what the destination has room for. */
    void enqueue(SendOp op) {
        backlog[op.dest].add(op);
        if (!op.fin) {
            queuedSends++;
        }
        transmit(op.dest);
    }

    /** Owes rank {@code dest} a FIN for its rendezvous message {@code token}: queued like any envelope. */
    void sendFin(int dest, long token) {
        SendOp fin = spareFins.poll();
        enqueue(fin == null ? SendOp.fin(dest, token) : fin.refin(dest, token));
    }

    /** A FIN arrived from {@code s}: its rendezvous send {@code token} is read; complete it. */
    void onFin(int s, long token) {
        SendOp op = awaitingFin[s].remove(token);
        if (op == null) {
            throw new RmaException(ErrorClass.ERR_INTERN, "messenger rank " + m.me + ": FIN from rank " + s
                    + " for unknown rendezvous token " + token);
        }
        awaitingCount--;
        finishRendezvous(op);
    }

    /** Publishes queued sends; returns work done. */
    int poll() {
        int work = 0;
        for (int d = 0; d < backlog.length; d++) {
            if (!backlog[d].isEmpty()) {
                work += transmit(d);
            }
        }
        return work;
    }

    /** Envelopes queued and not yet published (sends and FINs). */
    int queued() {
        int n = 0;
        for (ArrayDeque<SendOp> q : backlog) {
            n += q.size();
        }
        return n;
    }

    /** Sends posted and not yet complete (queued or waiting for their receiver). */
    int pending() {
        return awaitingCount + queuedSends + handoffs.inFlight();
    }

    /** Publishes one batch of queued sends to {@code d}; returns how many. */
    private int transmit(int d) {
        ArrayDeque<SendOp> q = backlog[d];
        long slotsFreed = peers.loadVolatile(lay.credit(d));
        long areaFreed = peers.loadVolatile(lay.credit(d) + 8);
        long first = published[d];
        long pos = areaPos[d];
        int n = 0;
        // the ring has room while fewer than `slots` messages are unacknowledged by the receiver's credits
        while (!q.isEmpty() && n < cfg.slots && first + n - slotsFreed < cfg.slots) {
            long next = writeEnvelope(q.peek(), d, first + n, n, pos, areaFreed);
            if (next < 0) {
                break; // area full until the receiver returns credits
            }
            pos = next;
            SendOp op = q.poll();
            if (!op.fin) {
                queuedSends--;
            }
            batch[n++] = op;
        }
        if (n > 0) {
            publish(d, first, n, pos);
        }
        return n;
    }

    /**
     * Puts the envelope of message {@code msg} (batch index {@code n}) into its slot at {@code d}, and a medium
     * payload into the area from position {@code pos}. Returns the area position after it, or -1 (nothing
     * written) if the area lacks room.
     */
    private long writeEnvelope(SendOp op, int d, long msg, int n, long pos, long areaFreed) {
        ByteBuffer env = envelopes;
        int at = n * cfg.slotBytes;
        int putBytes = ENV_PAYLOAD;
        long bytes = op.fin ? 0 : op.data.bytes;
        int kind = op.fin ? KIND_FIN : op.sync || bytes > Math.max(cfg.eagerLimit, cfg.inlineLimit()) ? KIND_RNDV
                : bytes <= cfg.inlineLimit() ? KIND_INLINE : KIND_MEDIUM;
        if ((kind == KIND_RNDV || kind == KIND_MEDIUM && bytes >= cfg.handoffMin) && handoffs.to(d)) {
            kind = KIND_HANDOFF; // a rank of this JVM: it copies straight from the user's buffer
        }
        if (kind == KIND_HANDOFF) {
            op.handoff = true;
            handoffs.publish(d, msg, op);
            env.putLong(at + ENV_A, 0).putLong(at + ENV_B, 0);
        } else if (kind == KIND_MEDIUM) {
            long start = pos;
            long room = cfg.areaBytes - start % cfg.areaBytes;
            if (bytes > room) {
                start += room; // payloads never wrap: skip to the area's next lap
            }
            long end = start + bytes;
            if (end - areaFreed > cfg.areaBytes) {
                return -1;
            }
            putMediumPayload(op, d, lay.area(m.me, start));
            env.putLong(at + ENV_A, start).putLong(at + ENV_B, end);
            pos = end;
        } else if (kind == KIND_INLINE) {
            op.data.packInto(env, at + ENV_PAYLOAD);
            putBytes += (int) bytes;
        } else if (kind == KIND_RNDV) {
            expose(op);
            op.token = msg + 1;
            long address = op.attached != null ? Win.address(op.attached) : op.staging != null
                    ? Win.address(op.staging) : 0;
            env.putLong(at + ENV_A, address).putLong(at + ENV_B, op.token);
        } else {
            env.putLong(at + ENV_B, op.token); // FIN: the token of the sender's message
        }
        env.put(at + ENV_KIND, (byte) kind).put(at + ENV_CTX, (byte) op.ctx).putInt(at + ENV_TAG, op.tag)
                .putLong(at + ENV_BYTES, bytes).putInt(at + ENV_FLAGS, op.sync ? 1 : 0);
        ByteBuffer peer = peers.mem[d];
        if (peer != null) {
            peer.put((int) lay.slot(m.me, msg), env, at, putBytes);
        } else {
            m.inbox.put(envelopeSlices[n], putBytes, Datatype.BYTE, d, lay.slot(m.me, msg));
        }
        return pos;
    }

    /**
     * Makes a batch of {@code n} envelopes valid at {@code d}: the new tail, after them. To a rank whose inbox
     * this process maps, the envelopes and payloads were plain stores and the tail is a release store after them
     * (a receiver that reads the tail with a volatile load sees them); on the packet path the tail is a packet
     * sent after theirs, applied after them (see the class comment).
     */
    private void publish(int d, long first, int n, long pos) {
        Win win = m.inbox;
        ByteBuffer peer = peers.mem[d];
        for (int i = 0, staged = batchStaging.size(); i < staged; i++) { // no iterator: runs for every batch
            m.pool.give(batchStaging.get(i));
        }
        batchStaging.clear();
        published[d] = first + n;
        areaPos[d] = pos;
        // before the tail: once it is out, a hand-off's receiver may complete it, and a thread of this rank reuse it
        for (int i = 0; i < n; i++) {
            SendOp op = batch[i];
            if (op.fin) {
                spareFins.add(op);
                batch[i] = null;
            } else if (op.handoff) {
                batch[i] = null;
            } else if (op.token != 0) {
                awaitingFin[d].put(op.token, op);
                awaitingCount++;
                batch[i] = null;
            }
        }
        if (peer != null) {
            peers.storeRelease(d, lay.tail(m.me), first + n);
            peers.signal(d);
        } else {
            tailWord[0] = first + n;
            win.accumulate(tailWord, 1, Datatype.LONG, d, lay.tail(m.me), Op.REPLACE);
            win.flushLocal(d); // the batch leaves now, envelopes, payloads and tail together; nothing to wait for
        }
        for (int i = 0; i < n; i++) { // eager sends: complete once published
            SendOp op = batch[i];
            if (op != null) {
                batch[i] = null;
                op.req.complete(Status.EMPTY_SEND, null);
            }
        }
    }

    /** Puts a medium payload into the destination's area: from the user's buffer if it is packed already. */
    private void putMediumPayload(SendOp op, int d, long disp) {
        UserBuf u = op.data;
        ByteBuffer peer = peers.mem[d];
        if (peer != null) {
            u.packInto(peer, disp); // straight into the receiver's area: one copy
            return;
        }
        Object origin = u.plain() ? u.origin() : null;
        if (origin != null) {
            m.inbox.put(origin, u.count, u.type, d, disp, u.count, u.type);
            return;
        }
        ByteBuffer st = m.pool.take(u.bytes);
        u.packInto(st, 0);
        m.inbox.put(st, u.bytes, Datatype.BYTE, d, disp, u.bytes, Datatype.BYTE);
        batchStaging.add(st);
    }

    /** Makes a rendezvous send's data readable in the exposure window (attached as is, or staged). */
    private void expose(SendOp op) {
        UserBuf u = op.data;
        if (u.bytes == 0) {
            return;
        }
        if (cfg.zeroCopy && u.exposable()) {
            ByteBuffer slice = u.exposedSlice();
            try {
                m.expose.attach(slice);
                op.attached = slice;
                return;
            } catch (RmaException e) {
                if (e.errorClass() != ErrorClass.ERR_RMA_ATTACH) {
                    throw e;
                }
                // overlaps a region attached for another send: stage a copy instead
            }
        }
        op.staging = m.pool.take(u.bytes);
        u.packInto(op.staging, 0);
    }

    private void finishRendezvous(SendOp op) {
        if (op.attached != null) {
            m.expose.detach(op.attached);
            op.attached = null;
        }
        if (op.staging != null) {
            m.pool.give(op.staging);
            op.staging = null;
        }
        op.req.complete(Status.EMPTY_SEND, null);
    }
}

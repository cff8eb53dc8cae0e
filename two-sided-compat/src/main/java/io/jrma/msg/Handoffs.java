package io.jrma.msg;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.mem.Memory;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hand-offs between ranks of this JVM: a message from {@code jrma.msg.handoffMin} bytes on (or one that would go by
 * rendezvous) to a rank of this JVM publishes its send op in the receiver's ring instead of its data; the receiver
 * copies straight from the sender's buffer (one copy) and completes the send. Owns the JVM's registry of live
 * messengers by inbox address, which peers are ranks of this JVM, the ops this rank published per destination and
 * how many of them are not completed yet.
 *
 * <p>One per messenger. The sender's thread publishes (messenger lock held) before the tail that makes the envelope
 * visible; the receiver's thread takes the op (its own messenger's lock held) after reading that tail, and
 * completes it; the in-flight count is atomic, as both sides change it.
 */
final class Handoffs {
    /** The live messengers of this JVM by the address of their inbox memory (receivers find senders here). */
    private static final ConcurrentHashMap<Long, Messenger> BY_INBOX = new ConcurrentHashMap<>();

    private final Messenger m;
    private final PeerInboxes peers;
    private final int slots;
    /** Per peer: 1 if it is a rank of this JVM (its inbox names this process), -1 if not, 0 not known yet. */
    private final byte[] sameJvm;
    /** Per peer, found on its first hand-off to this rank: its messenger. */
    private final Messenger[] senders;
    /**
     * Per destination of this JVM (made on the first hand-off to it): the ops of the hand-offs published into its
     * ring, by slot; the destination takes each out when it reads the envelope, before returning the slot's credit.
     */
    private final SendOp[][] handedOff;
    /** Hand-offs this rank published and their receivers have not completed yet (they count as pending sends). */
    private final AtomicInteger out = new AtomicInteger();

    Handoffs(Messenger m) {
        this.m = m;
        this.peers = m.peers;
        this.slots = m.cfg.slots;
        this.sameJvm = new byte[m.size];
        this.senders = new Messenger[m.size];
        this.handedOff = new SendOp[m.size][];
    }

    /** Makes this messenger findable by the ranks of this JVM that hand messages to it. */
    void register() {
        BY_INBOX.put(peers.myAddress, m);
    }

    /** The messenger is freed: no rank finds it any more. */
    void unregister() {
        BY_INBOX.remove(peers.myAddress, m);
    }

    /**
     * Whether messages to {@code d} may be handed off by reference: {@code d} is a rank of this JVM (its inbox is
     * mapped here and its owner's process id, written when its messenger was made, is this process's).
     */
    boolean to(int d) {
        byte known = sameJvm[d];
        if (known != 0) {
            return known > 0;
        }
        if (peers.mem[d] == null) {
            sameJvm[d] = -1;
            return false;
        }
        long pid = Memory.getLongVolatile(null, peers.address[d] + m.lay.wake + 8);
        if (pid == 0) {
            return false; // its messenger is not made yet: ask again next time
        }
        sameJvm[d] = (byte) (pid == peers.myPid ? 1 : -1);
        return pid == peers.myPid;
    }

    /** Records the op of a hand-off to {@code d} in ring position {@code msg}, before the tail that publishes it. */
    void publish(int d, long msg, SendOp op) {
        SendOp[] ops = handedOff[d];
        if (ops == null) {
            ops = new SendOp[slots];
            handedOff[d] = ops;
        }
        ops[(int) (msg % slots)] = op;
        out.incrementAndGet();
    }

    /** Hand-offs published by this rank and not yet completed by their receivers. */
    int inFlight() {
        return out.get();
    }

    /** The op of the hand-off that rank {@code s} of this JVM published in ring position {@code msg} to this rank. */
    SendOp take(int s, long msg) {
        Messenger from = senders[s];
        if (from == null) {
            from = BY_INBOX.get(peers.address[s]);
            if (from == null) {
                throw new RmaException(ErrorClass.ERR_INTERN, "messenger rank " + m.me + ": hand-off " + msg
                        + " from rank " + s + ", whose messenger is not in this JVM");
            }
            senders[s] = from;
        }
        SendOp[] ops = from.handoffs.handedOff[m.me];
        int at = (int) (msg % slots);
        SendOp op = ops == null ? null : ops[at];
        if (op == null) {
            throw new RmaException(ErrorClass.ERR_INTERN, "messenger rank " + m.me + ": hand-off " + msg
                    + " from rank " + s + " has no send");
        }
        ops[at] = null;
        return op;
    }

    /**
     * This rank (the receiver) has completed a hand-off from rank {@code s}, found by {@link #take}: one fewer in
     * flight at the sender (called before the send's completion: a sender that sees it done may free its messenger).
     */
    void completed(int s) {
        senders[s].handoffs.out.decrementAndGet();
    }
}

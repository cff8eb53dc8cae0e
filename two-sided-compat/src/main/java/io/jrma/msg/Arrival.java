package io.jrma.msg;

/**
 * A message that arrived before a matching receive was posted (the unexpected queue): its envelope and
 * either a copy of its packed payload (eager) or where the sender exposes it (rendezvous).
 *
 * <p>Owned by its messenger; touched only under the messenger's lock.
 */
final class Arrival {
    final int source;
    final int tag;
    final long bytes;
    /** Eager: the packed payload; null for rendezvous. */
    final byte[] payload;
    /** Rendezvous: address in the sender's exposure window, and the token to echo in the FIN. */
    final long address;
    final long token;
    /** Neighbours in the matcher's queue of unexpected messages (an intrusive list: matching allocates nothing). */
    Arrival prev;
    Arrival next;
    /** A synchronous send to self, completed when this message is matched; else null. */
    SendOp localSync;

    private Arrival(int source, int tag, long bytes, byte[] payload, long address, long token) {
        this.source = source;
        this.tag = tag;
        this.bytes = bytes;
        this.payload = payload;
        this.address = address;
        this.token = token;
    }

    static Arrival eager(int source, int tag, byte[] payload) {
        return new Arrival(source, tag, payload.length, payload, 0, 0);
    }

    static Arrival rendezvous(int source, int tag, long bytes, long address, long token) {
        return new Arrival(source, tag, bytes, null, address, token);
    }

    boolean isRendezvous() {
        return payload == null;
    }

    boolean matches(int wantSource, int wantTag) {
        return (wantSource == Messenger.ANY_SOURCE || wantSource == source)
                && (wantTag == Messenger.ANY_TAG || wantTag == tag);
    }
}

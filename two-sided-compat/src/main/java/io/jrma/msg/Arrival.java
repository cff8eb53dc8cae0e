package io.jrma.msg;

/**
 * A message that arrived before a matching receive was posted (the unexpected queue): its envelope and
 * either a copy of its packed payload (eager) or where the sender exposes it (rendezvous).
 *
 * <p>Owned by its messenger; touched only under the messenger's lock. The inbox reuses arrivals and their payload
 * arrays once matched ({@link #set}), so that messages arriving before their receive allocate nothing.
 */
final class Arrival {
    int source;
    int tag;
    long bytes;
    /** Eager: the packed payload in its first {@link #bytes} bytes; null for rendezvous. */
    byte[] payload;
    /** Rendezvous: address in the sender's exposure window, and the token to echo in the FIN. */
    long address;
    long token;
    /** Neighbours in the matcher's queue of unexpected messages (an intrusive list: matching allocates nothing). */
    Arrival prev;
    Arrival next;
    /** A synchronous send to self, completed when this message is matched; else null. */
    SendOp localSync;
    /** A hand-off from a rank of this JVM (see {@link InboxLayout#KIND_HANDOFF}): the sender's op; else null. */
    SendOp handoff;

    Arrival() {
    }

    /** Sets this arrival's message; this. */
    Arrival set(int source, int tag, long bytes, byte[] payload, long address, long token) {
        this.source = source;
        this.tag = tag;
        this.bytes = bytes;
        this.payload = payload;
        this.address = address;
        this.token = token;
        this.localSync = null;
        this.handoff = null;
        return this;
    }

    boolean isRendezvous() {
        return payload == null && handoff == null;
    }

    boolean matches(int wantSource, int wantTag) {
        return (wantSource == Messenger.ANY_SOURCE || wantSource == source)
                && (wantTag == Messenger.ANY_TAG || wantTag == tag);
    }
}

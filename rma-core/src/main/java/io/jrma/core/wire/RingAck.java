package io.jrma.core.wire;

/**
 * An acknowledgement given through shared memory instead of an ACK packet. A shared-memory ring delivers the
 * records of one sender in order, and the receiver publishes in the ring file how far it has applied them; a
 * batch whose last packet asks for an ack with {@link PacketType#F_ACK_BY_RING} is acknowledged as soon as that
 * position passes the end of its last record, and the replies the target wrote before it (data, errors) have
 * been read here. The target sends a real ACK instead whenever it could not apply the batch while reading it
 * (a lock to wait for, a reply owed, an earlier reply to this origin still waiting for room in the ring); the
 * sender then completes by whichever comes first.
 *
 * <p>Threads: the transport calls {@link #written} once (any thread holding the ring); waiters call
 * {@link #done} (any number, any thread).
 */
public final class RingAck {
    /** What a transport that acknowledges through memory shows of the rings to and from one peer. */
    public interface Mark {
        /** Ring position (to the peer) up to which the peer has applied every record whose ack it elided. */
        long applied();

        /** Position up to which the peer has written records (its replies) to this side. */
        long repliesWritten();

        /** Position up to which this side has read and handled the peer's records. */
        long repliesRead();
    }

    /** The ack value ({@code sent} count) this batch asked for. */
    public final int want;
    private Mark mark;
    private volatile long end = -1;
    private volatile long repliesAt = -1;

    public RingAck(int want) {
        this.want = want;
    }

    /** Transport: every record of the batch is in the ring; the last ends at position {@code end}. */
    public void written(Mark m, long end) {
        this.mark = m;
        this.end = end; // volatile store publishes mark
    }

    /**
     * Whether the batch is acknowledged: the peer applied it (published position at or past its end) and every
     * record the peer wrote back before that has been handled here, so the data and error replies of earlier
     * operations to that peer are in place as an ACK packet behind them would have guaranteed.
     */
    public boolean done() {
        long r = repliesAt;
        if (r < 0) {
            long e = end;
            if (e < 0 || mark.applied() - e < 0) {
                return false;
            }
            r = mark.repliesWritten();
            repliesAt = r;
        }
        return mark.repliesRead() - r >= 0;
    }
}

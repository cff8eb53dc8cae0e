package io.jrma.msg;

/**
 * The layout of one rank's inbox window (disp_unit 1, little-endian), identical on every rank of a messenger
 * with {@code P} ranks. Each word has exactly one writer, named in the diagram; the owner only reads the
 * words others write, with volatile loads after {@code Win.sync()}.
 *
 * <pre>
 * offset                        size              written by   contents
 * tails    = 0                  P x 8             sender s     tail[s]: messages s has published in ring[s]
 * credits  = align64(8P)        P x 16            receiver d   credit[d] = {slots freed, area bytes freed} of
 *                                                              MY ring and area at d
 * wake     = align64(...)       64                both         int seq (futex word: bumped by a sender that
 *                                                              finds a sleeper), int sleepers (owner's threads
 *                                                              asleep on seq), long pid (owner's process, at
 *                                                              8: for single-copy reads of its rendezvous data),
 *                                                              long flag[r] at 16 + 8r, r < 6: barrier round r,
 *                                                              written by rank (owner - 2^r) mod P
 * rings    = align64(...)       P x S x SLOT      sender s     ring[s][i]: envelope of message i (mod S) of s
 * areas    = rings + P*S*SLOT   P x M             sender s     area[s]: payloads of s's medium messages
 * scratch  = areas + P*M        2 x 4096          owner        scratch[e mod 2]: what the owner publishes in
 *                                                              its e-th shared-memory collective, read by all
 * </pre>
 *
 * <h2>Envelope (one slot)</h2>
 * <pre>
 *  0       1       2               4               8
 * +-------+-------+---------------+---------------+
 * | kind  | ctx   | reserved      | tag (int)     |
 * +-------+-------+---------------+---------------+
 * | bytes (long): packed payload length            |  8
 * | a (long): MEDIUM area position of the payload; |  16
 * |           RNDV address in the sender's exposure|
 * | b (long): MEDIUM area position after it;       |  24
 * |           RNDV and FIN: the rendezvous token   |
 * | flags (int): 1 = synchronous send | reserved   |  32
 * | reserved up to 64                              |  36
 * | INLINE payload (slot bytes - 64)               |  64
 * +------------------------------------------------+
 * </pre>
 * A FIN envelope (no payload, no tag) tells a rendezvous sender that the receiver has read the data of its
 * message with that token. Positions in the area are monotonic byte counts; the payload is at {@code a mod M} and never
 * wraps (a sender skips to the next lap instead). Slots are reused after the receiver reports them freed; a published
 * tail (an atomic REPLACE after a flush of the envelopes and payloads) is what makes them valid.
 *
 * <p>Immutable; any thread.
 */
final class InboxLayout {
    static final int KIND_INLINE = 1;
    static final int KIND_MEDIUM = 2;
    static final int KIND_RNDV = 3;
    static final int KIND_FIN = 4;
    /**
     * A message of a rank of this JVM handed over by reference: the receiver finds the sender's op in
     * {@link Handoffs#take} and copies straight from the sender's buffer (one copy), then completes the send.
     */
    static final int KIND_HANDOFF = 5;

    static final int ENV_KIND = 0;
    static final int ENV_CTX = 1;
    static final int ENV_TAG = 4;
    static final int ENV_BYTES = 8;
    static final int ENV_A = 16;
    static final int ENV_B = 24;
    static final int ENV_FLAGS = 32;
    static final int ENV_PAYLOAD = 64;

    final int ranks;
    final int slots;
    final int slotBytes;
    final int areaBytes;
    final long credits;
    /** The futex word senders bump to wake a sleeping receiver ({@code + 4}: the number of sleepers). */
    final long wake;
    /** Rounds of the flag barrier whose words fit in the wake line: communicators of up to 2^6 ranks. */
    static final int BARRIER_ROUNDS = 6;
    private static final int BARRIER_FLAGS_AT = 16;
    final long rings;
    final long areas;
    /**
     * Two slots for what the owner publishes in collectives on shared memory ({@link #scratch}, {@link SharedColl}):
     * 4 KiB each, so that small and medium collectives (bcast, gathers, reductions of up to 4 KiB) need no message.
     */
    static final int SCRATCH_BYTES = 4096;
    final long scratch;
    final long total;

    InboxLayout(int ranks, MsgConfig c) {
        this.ranks = ranks;
        this.slots = c.slots;
        this.slotBytes = c.slotBytes;
        this.areaBytes = c.areaBytes;
        this.credits = align64(8L * ranks);
        this.wake = align64(credits + 16L * ranks);
        this.rings = wake + 64;
        this.areas = rings + (long) ranks * slots * slotBytes;
        this.scratch = areas + (long) ranks * areaBytes;
        this.total = scratch + 2L * SCRATCH_BYTES;
    }

    private static long align64(long x) {
        return (x + 63) & ~63L;
    }

    /** The barrier flag of round {@code r} ({@code r < BARRIER_ROUNDS}): written by rank (owner - 2^r) mod P. */
    long barrierFlag(int r) {
        return wake + BARRIER_FLAGS_AT + 8L * r;
    }

    /** Scratch slot {@code slot} (0 or 1): written by the owner only, read by every rank after a barrier. */
    long scratch(int slot) {
        return scratch + (long) slot * SCRATCH_BYTES;
    }

    /** tail[s]: written by sender s. */
    long tail(int s) {
        return 8L * s;
    }

    /** credit[d].slotsFreed; {@code + 8}: bytes freed. Written by receiver d. */
    long credit(int d) {
        return credits + 16L * d;
    }

    /** The slot of message number {@code msg} (0-based) of sender s. */
    long slot(int s, long msg) {
        return rings + ((long) s * slots + (msg % slots)) * slotBytes;
    }

    /** The byte of sender s's area at monotonic position {@code pos}. */
    long area(int s, long pos) {
        return areas + (long) s * areaBytes + (pos % areaBytes);
    }
}

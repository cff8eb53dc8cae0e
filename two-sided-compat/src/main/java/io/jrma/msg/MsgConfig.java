package io.jrma.msg;

import io.jrma.ErrorClass;
import io.jrma.Info;
import io.jrma.RmaException;
import io.jrma.core.os.Affinity;

/**
 * The settings of one messenger, read once from the {@link Info} given at creation. Every key has a default
 * and one sentence of description below. The sizes must be the same on every rank (they shape the window
 * layout that senders compute for their peers); the waiting keys may differ.
 *
 * <p>Immutable; any thread.
 */
final class MsgConfig {
    /** Envelope slots of the ring each sender has in each receiver's inbox (default 64). */
    static final String SLOTS = "jrma_msg_slots";
    /**
     * Bytes of one envelope slot, header included; messages up to this minus the header travel inside it (default 256).
     */
    static final String SLOT_BYTES = "jrma_msg_slot_bytes";
    /**
     * Bytes of the medium-message area each sender has in each receiver's inbox (default 2 MiB / ranks, 32..256 KiB).
     */
    static final String AREA_BYTES = "jrma_msg_area_bytes";
    /** Largest message sent eagerly (through the area); larger ones use rendezvous (default and at most area / 4). */
    static final String EAGER_LIMIT = "jrma_msg_eager_limit";
    /**
     * Smallest medium message handed to a rank of this JVM by reference (it copies straight from the sender's buffer,
     * and the send completes then) instead of through the area (two copies); larger and synchronous messages to such
     * a rank always are (default: above the eager limit only, or the job parameter {@code jrma.msg.handoffMin}).
     */
    static final String HANDOFF_MIN = "jrma_msg_handoff_min";
    /**
     * Default of {@link #HANDOFF_MIN}: none below the eager limit. A handed-off send completes only when it is
     * matched, so a smaller default would make blocking sends of medium messages wait for their receive — programs
     * that exchange them with blocking sends on both sides (unsafe in MPI, but run by Open MPI up to its 4 KiB eager
     * limit and by jrma up to the eager limit) would hang where they ran before.
     */
    static final int HANDOFF_MIN_DEFAULT = -1;
    /** Whether a rendezvous send exposes a direct ByteBuffer itself instead of a staged copy (default true). */
    static final String ZERO_COPY = "jrma_msg_zero_copy";
    /**
     * "false" sends every envelope through RMA calls (put, flush, accumulate) even to ranks whose inbox this
     * process maps; "true" (default) stores them directly there.
     */
    static final String DIRECT = "jrma_msg_direct";
    /**
     * "false" reads rendezvous data of ranks in other JVMs of the host through the exposure window (the packet
     * path); "true" (default) reads it with process_vm_readv, one kernel copy, where the kernel allows it.
     */
    static final String CROSS_READ = "jrma_msg_cross_read";
    /** Progress rounds a waiting thread spins before it yields (default 1000, or 0 when ranks outnumber cores). */
    static final String WAIT_SPINS = "jrma_msg_wait_spins";
    /** Thread.yield() rounds before a waiting thread parks (default 100, or 20 when ranks outnumber cores). */
    static final String WAIT_YIELDS = "jrma_msg_wait_yields";
    /** Longest single park (ns) of a waiting thread; parks grow from 1 µs to this (default 50000). */
    static final String WAIT_MAX_PARK_NS = "jrma_msg_wait_max_park_ns";

    /** Bytes of the envelope header at the start of every slot. */
    static final int HEADER_BYTES = InboxLayout.ENV_PAYLOAD;

    final int slots;
    final int slotBytes;
    final int areaBytes;
    final int eagerLimit;
    final boolean zeroCopy;
    final long handoffMin;
    /** Whether envelopes to ranks whose inbox this process maps are stored directly (default true). */
    final boolean directPublish;
    /** Whether rendezvous data of ranks in other processes of the host is read by one kernel copy (default true). */
    final boolean crossRead;
    final int waitSpins;
    final int waitYields;
    final long waitMaxParkNs;

    MsgConfig(Info info, int ranks) {
        this(info, ranks, HANDOFF_MIN_DEFAULT, -1);
    }

    /**
     * Settings from {@code info}; {@code handoffDefault} and {@code eagerDefault} (-1: a quarter of the area): the
     * job's defaults of {@link #HANDOFF_MIN} and {@link #EAGER_LIMIT} (parameters jrma.msg.handoffMin, eagerLimit).
     */
    MsgConfig(Info info, int ranks, long handoffDefault, long eagerDefault) {
        Info in = info == null ? new Info() : info;
        boolean oversubscribed = ranks > Affinity.cores(); // not this thread's binding
        slots = (int) get(in, SLOTS, 64, 2, 1 << 16);
        slotBytes = (int) get(in, SLOT_BYTES, 256, HEADER_BYTES + 8, 1 << 16);
        if (slotBytes % 8 != 0) {
            throw new RmaException(ErrorClass.ERR_INFO_VALUE,
                    SLOT_BYTES + " = " + slotBytes + " is not a multiple of 8");
        }
        // areas of 1 MiB (2 ranks) gave 2-3x more bandwidth for 8-64 KiB messages and halved 128-256 KiB ping-pongs
        // when eager, but every second or third run fell into a state where medium and small ping-pongs took 4x
        // as long (not understood yet); with 256 KiB it was not seen in 8 runs between JVMs, though thread ranks
        // still meet it now and then
        long area = Math.max(32 << 10, Math.min(256 << 10, (2L << 20) / ranks));
        areaBytes = (int) get(in, AREA_BYTES, area, 1 << 12, 1 << 30);
        long eager = eagerDefault < 0 ? areaBytes / 4 : Math.min(eagerDefault, areaBytes / 4);
        eagerLimit = (int) get(in, EAGER_LIMIT, eager, 0, areaBytes / 4);
        handoffMin = get(in, HANDOFF_MIN, handoffDefault < 0 ? eagerLimit + 1L : handoffDefault, 0, Long.MAX_VALUE);
        String zc = in.get(ZERO_COPY);
        if (zc != null && !zc.equals("true") && !zc.equals("false")) {
            throw new RmaException(ErrorClass.ERR_INFO_VALUE, ZERO_COPY + " = " + zc + " is not true or false");
        }
        zeroCopy = zc == null || zc.equals("true");
        String dp = in.get(DIRECT);
        if (dp != null && !dp.equals("true") && !dp.equals("false")) {
            throw new RmaException(ErrorClass.ERR_INFO_VALUE, DIRECT + " = " + dp + " is not true or false");
        }
        directPublish = dp == null || dp.equals("true");
        String cr = in.get(CROSS_READ);
        if (cr != null && !cr.equals("true") && !cr.equals("false")) {
            throw new RmaException(ErrorClass.ERR_INFO_VALUE, CROSS_READ + " = " + cr + " is not true or false");
        }
        crossRead = directPublish && (cr == null || cr.equals("true"));
        waitSpins = (int) get(in, WAIT_SPINS, oversubscribed ? 0 : 1000, 0, Integer.MAX_VALUE);
        waitYields = (int) get(in, WAIT_YIELDS, oversubscribed ? 5000 : 100, 0, Integer.MAX_VALUE);
        waitMaxParkNs = get(in, WAIT_MAX_PARK_NS, 50_000, 1_000, 1_000_000_000L);
    }

    /** Largest message that travels inside its envelope. */
    int inlineLimit() {
        return slotBytes - HEADER_BYTES;
    }

    private static long get(Info in, String key, long dflt, long min, long max) {
        String v = in.get(key);
        if (v == null) {
            return dflt;
        }
        long x;
        try {
            x = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new RmaException(ErrorClass.ERR_INFO_VALUE, key + " = \"" + v + "\" is not an integer");
        }
        if (x < min || x > max) {
            throw new RmaException(ErrorClass.ERR_INFO_VALUE, key + " = " + x + " is outside " + min + ".." + max);
        }
        return x;
    }
}

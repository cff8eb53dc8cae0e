package io.jrma.transport.shm;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.config.Param;
import io.jrma.core.config.Params;
import io.jrma.spi.Components;
import io.jrma.spi.Transports;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Run-time parameters of the transports between JVMs and of the shared-memory rings, each with one sentence. */
public final class ShmParams {
    /** The parameter that selects transports ({@link io.jrma.spi.Transports}). */
    public static final Param TRANSPORTS = Params.TRANSPORTS;
    public static final Param RING_BYTES = new Param("jrma.shm.ringBytes", String.valueOf(4 << 20), "job",
            "capacity in bytes of each shared-memory ring (one per ordered pair of JVMs on a host; a power of two"
            + " from 64 KiB to 1 GiB); a packet larger than an eighth of it travels in pieces");
    /** The directory of the ring files: the one of the window segments ({@code jrma.shm.dir}). */
    public static final Param DIR = Params.SHM_DIR;
    public static final Param HELD_BYTES = new Param("jrma.shm.heldBytes", String.valueOf(64 << 20), "job",
            "bytes of packets a JVM copies out of one ring while they wait (for a lock) before it stops reading that"
            + " ring until they are applied, so a stopped target cannot exhaust its memory");

    public static final Param RING_ACKS = new Param("jrma.shm.ringAcks", "true", "job",
            "`true`: a flush or unlock to a rank of another JVM of the host completes when the target's "
            + "published applied position in the ring passes its operations (no ACK packet; the target "
            + "sends one anyway when the operations had to wait for a lock or owe a reply); `false`: an ACK "
            + "packet every time");

    /** The smallest ring capacity {@link #RING_BYTES} may give (64 KiB). */
    static final int MIN_RING_BYTES = 64 << 10;
    /** The largest ring capacity {@link #RING_BYTES} may give (1 GiB). */
    static final int MAX_RING_BYTES = 1 << 30;

    public static final List<Param> ALL = List.of(RING_BYTES, HELD_BYTES, RING_ACKS);

    private ShmParams() {
    }

    /**
     * Whether the shared-memory rings may be used. The selection is read against every component on the class path:
     * {@code shm,tcp,ucx} names another component, which is no error.
     */
    public static boolean shmEnabled(Map<String, String> params) {
        Set<String> known = new HashSet<>();
        Components.transportProviders().forEach(p -> known.add(p.name()));
        known.add(ShmProvider.NAME);
        return Transports.parse(TRANSPORTS.get(params), known).contains(ShmProvider.NAME);
    }

    /** The ring capacity, checked. */
    public static int ringBytes(Map<String, String> params) {
        long v = RING_BYTES.getLong(params);
        if (v < MIN_RING_BYTES || v > MAX_RING_BYTES || Long.bitCount(v) != 1) {
            throw new RmaException(ErrorClass.ERR_ARG, "run-time parameter " + RING_BYTES.name() + "=" + v
                    + " is not a power of two from " + MIN_RING_BYTES + " to " + MAX_RING_BYTES);
        }
        return (int) v;
    }
}

package io.jrma.core.shmring;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.runtime.Param;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Run-time parameters of the transports between JVMs and of the shared-memory rings, each with one sentence. */
public final class ShmParams {
    /** Transport names {@link #TRANSPORTS} knows. */
    public static final List<String> KNOWN = List.of("shm", "tcp");

    public static final Param TRANSPORTS = new Param("jrma.transports", "shm,tcp", "job",
            "transports for packets between JVMs, best first: shm (rings in shared memory, JVMs of one host) and tcp"
            + " (always kept: it carries the control plane and reaches other hosts); ^shm excludes a transport");
    public static final Param RING_BYTES = new Param("jrma.shm.ringBytes", String.valueOf(4 << 20), "job",
            "capacity in bytes of each shared-memory ring (one per ordered pair of JVMs on a host; a power of two"
            + " from 64 KiB to 1 GiB); a packet larger than an eighth of it travels in pieces");
    /** The directory of the ring files: the one of the window segments ({@code jrma.shm.dir}). */
    public static final Param DIR = io.jrma.core.runtime.Params.SHM_DIR;
    public static final Param HELD_BYTES = new Param("jrma.shm.heldBytes", String.valueOf(64 << 20), "job",
            "bytes of packets a JVM copies out of one ring while they wait (for a lock) before it stops reading that"
            + " ring until they are applied, so a stopped target cannot exhaust its memory");

    public static final Param RING_ACKS = new Param("jrma.shm.ringAcks", "true", "job",
            "true: a flush (or unlock) to a rank reached through a ring waits for the target's published applied"
            + " position instead of an ACK packet, when the target applied the operations as it read them; false:"
            + " an ACK packet every time");

    public static final List<Param> ALL = List.of(TRANSPORTS, RING_BYTES, HELD_BYTES, RING_ACKS);

    private ShmParams() {
    }

    /**
     * The transports {@link #TRANSPORTS} selects, in order: a list of names ({@code shm,tcp}) or exclusions
     * ({@code ^shm}); tcp is always kept because the control plane needs it.
     */
    public static Set<String> transports(Map<String, String> params) {
        String v = TRANSPORTS.get(params).toLowerCase(Locale.ROOT).replace(" ", "");
        Set<String> out = new LinkedHashSet<>();
        boolean exclude = v.startsWith("^");
        String[] names = (exclude ? v.substring(1) : v).split(",");
        for (String n : names) {
            if (!n.isEmpty() && !KNOWN.contains(n)) {
                throw new RmaException(ErrorClass.ERR_ARG, "run-time parameter " + TRANSPORTS.name() + "=" + v
                        + " names an unknown transport '" + n + "' (known: " + String.join(",", KNOWN) + ")");
            }
        }
        if (exclude) {
            Set<String> ex = Set.of(names);
            if (ex.contains("tcp")) {
                throw new RmaException(ErrorClass.ERR_ARG, "run-time parameter " + TRANSPORTS.name() + "=" + v
                        + ": tcp cannot be excluded (it carries the control plane between JVMs)");
            }
            for (String k : KNOWN) {
                if (!ex.contains(k)) {
                    out.add(k);
                }
            }
        } else {
            for (String n : names) {
                if (!n.isEmpty()) {
                    out.add(n);
                }
            }
            out.add("tcp");
        }
        return out;
    }

    /** Whether the shared-memory rings may be used. */
    public static boolean shmEnabled(Map<String, String> params) {
        return transports(params).contains("shm");
    }

    /** The ring capacity, checked. */
    public static int ringBytes(Map<String, String> params) {
        long v = RING_BYTES.getLong(params);
        if (v < (64 << 10) || v > (1 << 30) || Long.bitCount(v) != 1) {
            throw new RmaException(ErrorClass.ERR_ARG, "run-time parameter " + RING_BYTES.name() + "=" + v
                    + " is not a power of two from 65536 to 1073741824");
        }
        return (int) v;
    }
}

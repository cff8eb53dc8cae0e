package io.jrma.core.runtime;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The control plane of communicators whose members live in several JVMs: an all-gather of small serializable
 * values (window descriptors, split colors, barrier tokens). Each member sends its value once to every other
 * JVM that holds members; every JVM collects the values of one call in a slot keyed by (context id, call
 * number), and its members wait for the slot to fill while driving progress. Members of one JVM take their
 * local contributions by reference (as in a one-JVM job); values from other JVMs arrive as copies.
 *
 * <p>Message layout (little-endian): {@code int contextId, long callSeq, int commSize, int commRank, bytes
 * value (Java serialization, classes limited by a filter)}.
 *
 * <p>Thread-safe: members call {@link #allgather} from their own threads; the transport calls
 * {@link #onMessage} from whichever thread runs its progress.
 */
public final class ControlPlane {
    /** Bytes of the header of a message: context id, call number, communicator size, member's rank. */
    static final int HEADER_LENGTH = 20;

    /**
     * Classes a value may be made of, and bounds no honest message exceeds: no array longer than the message holds
     * bytes (each element takes at least one), no deeper nesting than 20, no more than 100,000 references. A
     * corrupt length field otherwise made the decoder allocate an array of up to 2^31 elements.
     */
    private static ObjectInputFilter filter(int messageBytes) {
        return info -> {
            if (info.arrayLength() > messageBytes || info.depth() > 20 || info.references() > 100_000
                    || info.streamBytes() > messageBytes) {
                return ObjectInputFilter.Status.REJECTED;
            }
            Class<?> c = info.serialClass();
            if (c == null) {
                return ObjectInputFilter.Status.UNDECIDED;
            }
            while (c.isArray()) {
                c = c.getComponentType();
            }
            String n = c.getName();
            return c.isPrimitive() || n.startsWith("java.lang.") || n.startsWith("java.util.")
                    || n.startsWith("io.jrma.")
                    ? ObjectInputFilter.Status.ALLOWED : ObjectInputFilter.Status.REJECTED;
        };
    }

    /**
     * Most calls held for which no member of this JVM has contributed yet. An honest JVM is at most one call ahead
     * per communicator (it waits for this JVM's value before its next call), so only a broken or hostile sender
     * reaches this; beyond it, its messages are refused.
     */
    public static final int MAX_EARLY_CALLS = 4096;

    private final Job job;
    private final Map<Key, Slot> slots = new ConcurrentHashMap<>();

    /** Calls held now, waiting for values or for this JVM's members (diagnostics, tests). */
    public int pendingCalls() {
        return slots.size();
    }

    ControlPlane(Job job) {
        this.job = job;
    }

    private record Key(int ctx, long seq) {
    }

    private static final class Slot {
        final Object[] values;
        final AtomicInteger filled = new AtomicInteger();
        final AtomicInteger taken = new AtomicInteger();
        /** Which members' values are in (guarded by the slot): a second value from one member is refused. */
        private final boolean[] given;
        /** No member of this JVM has contributed yet (guarded by the slot): it counts in {@link #early}. */
        boolean early = true;

        Slot(int size) {
            values = new Object[size];
            given = new boolean[size];
        }

        /** Puts member {@code rank}'s value; false if it has one already. */
        synchronized boolean put(int rank, Object value) {
            if (given[rank]) {
                return false;
            }
            given[rank] = true;
            values[rank] = value;
            filled.incrementAndGet(); // release: publishes values[rank] to the waiters
            return true;
        }
    }

    /** Calls held that no member of this JVM has contributed to (see {@link #MAX_EARLY_CALLS}). */
    private final AtomicInteger early = new AtomicInteger();

    private Slot slot(Key key, int size) {
        return slots.computeIfAbsent(key, k -> {
            early.incrementAndGet();
            return new Slot(size);
        });
    }

    private void joined(Slot slot) {
        synchronized (slot) {
            if (slot.early) {
                slot.early = false;
                early.decrementAndGet();
            }
        }
    }

    /**
     * Contributes {@code value} as member {@code rank} of the communicator {@code ctx} with world ranks
     * {@code worldRanks}, for its {@code seq}-th control call; returns every member's value in rank order.
     */
    public Object[] allgather(int ctx, long seq, int[] worldRanks, int rank, Object value) {
        Key key = new Key(ctx, seq);
        Slot slot = slot(key, worldRanks.length);
        joined(slot);
        if (slot.values.length != worldRanks.length || !slot.put(rank, value)) {
            slots.remove(key, slot);
            throw new RmaException(ErrorClass.ERR_INTERN,
                    "control call " + seq + " of communicator " + ctx + ": a message "
                    + "from another JVM claimed " + (slot.values.length != worldRanks.length ? "a communicator of "
                    + slot.values.length + " members, it has " + worldRanks.length : "the value of member " + rank
                    + ", which lives in this JVM"));
        }
        boolean[] sentTo = new boolean[job.jvmCount()];
        byte[] msg = null;
        int localMembers = 0;
        for (int w : worldRanks) {
            int jvm = job.jvmOf(w);
            if (jvm == job.jvmIndex()) {
                localMembers++;
            } else if (!sentTo[jvm]) {
                sentTo[jvm] = true;
                if (msg == null) {
                    msg = encode(ctx, seq, worldRanks.length, rank, value);
                }
                job.sendControl(jvm, msg);
            }
        }
        job.waitPolicy().await(job, () -> slot.filled.get() >= worldRanks.length); // acquire: every value
        Object[] out = slot.values.clone();
        if (slot.taken.incrementAndGet() == localMembers) {
            slots.remove(key);
        }
        return out;
    }

    /**
     * A control message from another JVM (transport progress thread). A message that cannot be decoded, names an
     * impossible member, contradicts the call it names (another size, a value given already) or comes for more than
     * {@link #MAX_EARLY_CALLS} calls nobody here has made is refused with {@link ErrorClass#ERR_INTERN} and changes
     * nothing; the transport counts it and aborts the job (a collective may now wait for a value that never comes).
     */
    public void onMessage(ByteBuffer m) {
        m.order(ByteOrder.LITTLE_ENDIAN);
        if (m.remaining() < HEADER_LENGTH) {
            throw new RmaException(ErrorClass.ERR_INTERN, "malformed control message: " + m.remaining()
                    + " bytes, fewer than its " + HEADER_LENGTH + "-byte header");
        }
        int ctx = m.getInt();
        long seq = m.getLong();
        int size = m.getInt();
        int rank = m.getInt();
        if (size <= 0 || size > job.size() || rank < 0 || rank >= size) {
            throw new RmaException(ErrorClass.ERR_INTERN, "malformed control message: rank " + rank + " of " + size);
        }
        byte[] body = new byte[m.remaining()];
        m.get(body);
        Object value;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(body))) {
            in.setObjectInputFilter(filter(body.length));
            value = in.readObject();
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            // (corrupt serialization data also fails inside the JDK's decoder with NegativeArraySize-, NullPointer-
            // and other runtime exceptions)
            throw new RmaException(ErrorClass.ERR_INTERN, "undecodable control message for call " + seq
                    + " of communicator " + ctx + ": " + e, e);
        }
        Key key = new Key(ctx, seq);
        Slot slot = slots.get(key);
        if (slot == null) {
            if (early.get() >= MAX_EARLY_CALLS) {
                throw new RmaException(ErrorClass.ERR_INTERN, "control message for call " + seq + " of communicator "
                        + ctx + ": already " + MAX_EARLY_CALLS + " calls held that no member of this JVM has made");
            }
            slot = slot(key, size);
        }
        if (slot.values.length != size) {
            throw new RmaException(ErrorClass.ERR_INTERN, "control message for call " + seq + " of communicator " + ctx
                    + " claims " + size + " members; the call has " + slot.values.length);
        }
        if (!slot.put(rank, value)) {
            throw new RmaException(ErrorClass.ERR_INTERN, "control message for call " + seq + " of communicator " + ctx
                    + " repeats the value of member " + rank);
        }
    }

    private static byte[] encode(int ctx, long seq, int size, int rank, Object value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try {
            ByteBuffer h = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
            h.putInt(ctx).putLong(seq).putInt(size).putInt(rank);
            bytes.write(h.array());
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(value);
            }
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_ARG,
                    "a value of a collective call cannot travel to another JVM: " + e, e);
        }
        return bytes.toByteArray();
    }
}

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
    private static final ObjectInputFilter FILTER = info -> {
        Class<?> c = info.serialClass();
        if (c == null) {
            return info.depth() > 20 || info.references() > 100_000 ? ObjectInputFilter.Status.REJECTED
                    : ObjectInputFilter.Status.UNDECIDED;
        }
        while (c.isArray()) {
            c = c.getComponentType();
        }
        String n = c.getName();
        return c.isPrimitive() || n.startsWith("java.lang.") || n.startsWith("java.util.") || n.startsWith("io.jrma.")
                ? ObjectInputFilter.Status.ALLOWED : ObjectInputFilter.Status.REJECTED;
    };

    private final Job job;
    private final Map<Key, Slot> slots = new ConcurrentHashMap<>();

    ControlPlane(Job job) {
        this.job = job;
    }

    private record Key(int ctx, long seq) {
    }

    private static final class Slot {
        final Object[] values;
        final AtomicInteger filled = new AtomicInteger();
        final AtomicInteger taken = new AtomicInteger();

        Slot(int size) {
            values = new Object[size];
        }
    }

    /**
     * Contributes {@code value} as member {@code rank} of the communicator {@code ctx} with world ranks
     * {@code worldRanks}, for its {@code seq}-th control call; returns every member's value in rank order.
     */
    public Object[] allgather(int ctx, long seq, int[] worldRanks, int rank, Object value) {
        Key key = new Key(ctx, seq);
        Slot slot = slots.computeIfAbsent(key, k -> new Slot(worldRanks.length));
        slot.values[rank] = value;
        slot.filled.incrementAndGet(); // release: publishes values[rank] to the waiters
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

    /** A control message from another JVM (transport progress thread). */
    public void onMessage(ByteBuffer m) {
        m.order(ByteOrder.LITTLE_ENDIAN);
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
            in.setObjectInputFilter(FILTER);
            value = in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw new RmaException(ErrorClass.ERR_INTERN, "undecodable control message: " + e, e);
        }
        Slot slot = slots.computeIfAbsent(new Key(ctx, seq), k -> new Slot(size));
        slot.values[rank] = value;
        slot.filled.incrementAndGet(); // release: publishes values[rank]
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
            throw new RmaException(ErrorClass.ERR_ARG, "a value of a collective call cannot travel to another JVM: " + e, e);
        }
        return bytes.toByteArray();
    }
}

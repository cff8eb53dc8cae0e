package io.jrma.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.runtime.CollectiveState;
import io.jrma.core.runtime.ControlPlane;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.LocalComm;
import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Fuzz campaign against the control plane's decoder ({@link ControlPlane#onMessage}, what a transport calls
 * with the body of a control message from another JVM), in JVM 1 of a real two-JVM job over TCP: random bytes,
 * truncated and bit-flipped messages, boundary header values, serialized arrays claiming billions of elements,
 * duplicates and messages contradicting the call they name. Each must be taken or refused with an
 * {@link RmaException} of class {@link ErrorClass#ERR_INTERN} (which makes the transport count it and abort the
 * job), never with another exception or an error; memory held for calls nobody makes stays bounded; a rank whose
 * call a forged message contradicts fails with ERR_INTERN rather than an index error or a hang; and afterwards
 * the job's real collectives gather the right values across the connection.
 *
 * <p>{@code jrma.fuzz.control} messages (20,000 by default; long mode {@code -Djrma.fuzz.control=1000000}); seed
 * {@code jrma.fuzz.seed} (34), printed.
 */
class ControlPlaneFuzzTest {
    static final long COUNT = Long.getLong("jrma.fuzz.control", 20_000);
    static final long SEED = Long.getLong("jrma.fuzz.seed", 34);
    private TcpPair pair;
    private Job[] jobs;

    private void mesh() throws Exception {
        pair = TcpPair.mesh(Map.of()).start();
        jobs = pair.jobs;
    }

    @AfterEach
    void close() {
        if (pair != null) {
            pair.close();
        }
    }

    /** A control message as JVM 0 would send it: header, then the value in Java serialization. */
    static byte[] message(int ctx, long seq, int size, int rank, Object value) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        ByteBuffer h = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(ctx).putLong(seq).putInt(size).putInt(rank);
        b.write(h.array());
        try (ObjectOutputStream o = new ObjectOutputStream(b)) {
            o.writeObject(value);
        }
        return b.toByteArray();
    }

    private static Object value(Random rnd) {
        return switch (rnd.nextInt(6)) {
            case 0 -> "value " + rnd.nextInt();
            case 1 -> rnd.nextLong();
            case 2 -> new int[] {rnd.nextInt(), rnd.nextInt(), 3};
            case 3 -> new long[rnd.nextInt(8)];
            case 4 -> new ArrayList<>(List.of("a", rnd.nextInt(), List.of(1L, 2L)));
            default -> new Object[] {new byte[4], "x", null};
        };
    }

    /** Offset of the int array length of the first array in a serialized message (0x75 TC_ARRAY, class desc...). */
    private static int arrayLengthAt(byte[] m) {
        // the class descriptor of a primitive array ends with TC_ENDBLOCKDATA (0x78) TC_NULL (0x70): the length follows
        for (int i = 20; i + 6 <= m.length; i++) {
            if (m[i] == 0x78 && m[i + 1] == 0x70) {
                return i + 2;
            }
        }
        return -1;
    }

    /** Sends {@code count} fuzzed messages to {@code cp}; each must be taken or refused with ERR_INTERN. */
    private static void fuzz(ControlPlane cp, long count, Random rnd) throws Exception {
        long taken = 0;
        long refused = 0;
        cp.onMessage(ByteBuffer.wrap(message(42, 0, 2, 0, "first"))); // a call held for the duplicates below
        long t0 = System.nanoTime();
        for (long i = 0; i < count; i++) {
            int ctx = 1_000_000 + (int) i; // a call of its own: nothing here contributes to the job's real calls
            byte[] m;
            int kind = rnd.nextInt(7);
            switch (kind) {
                case 0 -> {
                    m = new byte[rnd.nextInt(100)];
                    rnd.nextBytes(m);
                }
                case 1 -> {
                    byte[] whole = message(ctx, rnd.nextInt(4), 2, 0, value(rnd));
                    m = Arrays.copyOf(whole, rnd.nextInt(whole.length));
                }
                case 2 -> {
                    m = message(ctx, rnd.nextInt(4), 2, 0, value(rnd));
                    for (int f = 1 + rnd.nextInt(4); f > 0; f--) {
                        int bit = rnd.nextInt(m.length * 8);
                        m[bit / 8] ^= (byte) (1 << (bit & 7));
                    }
                }
                case 3 -> {
                    int[] bad = {0, -1, 3, Integer.MAX_VALUE, Integer.MIN_VALUE};
                    m = rnd.nextBoolean() ? message(ctx, 0, bad[rnd.nextInt(bad.length)], 0, "v")
                            : message(ctx, 0, 2, rnd.nextBoolean() ? 2 : -1 - rnd.nextInt(9), "v");
                }
                case 4 -> {
                    // an array that claims far more elements than the message holds
                    Object[] arrays = {new byte[3], new int[3], new long[3], new double[3],
                            new Object[3], new String[3]};
                    m = message(ctx, 0, 2, 0, arrays[rnd.nextInt(arrays.length)]);
                    int at = arrayLengthAt(m);
                    int len = rnd.nextBoolean() ? Integer.MAX_VALUE - rnd.nextInt(16)
                            : (1 << 24) + rnd.nextInt(1 << 28);
                    if (at > 0) {
                        ByteBuffer.wrap(m).putInt(at, len); // (big-endian, as serialization writes it)
                    }
                }
                case 5 -> m = message(42, 0, 2, 0, "again"); // member 0's value for a call that has it already
                default -> m = message(42, 0, 1, 0, "b"); // another size for that call
            }
            try {
                cp.onMessage(ByteBuffer.wrap(m));
                taken++;
                assertTrue(kind != 5 && kind != 6 && kind != 4, "kind " + kind + " was taken");
            } catch (RmaException e) {
                assertEquals(ErrorClass.ERR_INTERN, e.errorClass(), e.getMessage());
                refused++;
            } catch (Throwable t) {
                throw new AssertionError("control message " + i + " (kind " + kind
                        + ") failed the decoder with " + t, t);
            }
        }
        System.out.printf("ControlPlaneFuzzTest: %d messages in %.1f s: %d taken (values for calls nobody makes), "
                + "%d refused with ERR_INTERN; calls held %d%n", count, (System.nanoTime() - t0) / 1e9, taken, refused,
                cp.pendingCalls());
        assertTrue(cp.pendingCalls() <= ControlPlane.MAX_EARLY_CALLS, "calls held for nobody: " + cp.pendingCalls());

    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // the long mode; the quick mode takes seconds
    void everyBadControlMessageIsRefusedWithErrInternAndTheJobStillGathers() throws Exception {
        mesh();
        System.out.println("ControlPlaneFuzzTest: seed " + SEED + ", " + COUNT + " messages (-Djrma.fuzz.seed=" + SEED
                + " -Djrma.fuzz.control=" + COUNT + " to repeat)");
        // the bulk goes to the control plane of a JVM 1 of its own: the values it takes for calls nobody makes fill
        // the room for early calls (MAX_EARLY_CALLS), after which a real job's next collective would be refused too
        fuzz(new Job(2, Map.of(), 1, new int[] {0, 1}).controlPlane(), COUNT, new Random(SEED));
        // the job's own JVM 1 gets fewer, then must still work
        ControlPlane cp = jobs[1].controlPlane();
        fuzz(cp, Math.min(COUNT, 2_000), new Random(SEED + 1));

        // a forged message naming a call a member of JVM 1 is about to make, with another size: the member fails
        // clearly
        cp.onMessage(ByteBuffer.wrap(message(7_000_000, 0, 1, 0, "forged")));
        RmaException e = assertThrows(RmaException.class,
                () -> cp.allgather(7_000_000, 0, new int[] {0, 1}, 1, "mine"));
        assertEquals(ErrorClass.ERR_INTERN, e.errorClass(), e.getMessage());

        // the job's own collectives still gather across the connection
        CompletableFuture<Object[]> r1 = CompletableFuture.supplyAsync(() -> {
            LocalComm c = LocalComm.world(jobs[1], 1, new CollectiveState(2));
            c.barrier();
            return c.allgather("from 1");
        });
        LocalComm c0 = LocalComm.world(jobs[0], 0, new CollectiveState(2));
        c0.barrier();
        assertArrayEquals(new Object[] {"from 0", "from 1"}, c0.allgather("from 0"));
        assertArrayEquals(new Object[] {"from 0", "from 1"}, r1.get(20, TimeUnit.SECONDS));
        assertFalse(jobs[0].isAborted() || jobs[1].isAborted());
    }
}

package io.jrma.msg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.jrma.Datatype;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The blocking calls allocate nothing once warm: a ping-pong of blocking sends and receives (the receive's status
 * made by a {@link Status.Maker}, as the {@code mpi} package does), and sendrecv exchanges, measured by the thread's
 * allocated bytes (com.sun.management.ThreadMXBean) over a loop after a warm-up long enough for the JIT. On the
 * direct path only (the packet path allocates its packets); with {@code -Djrma.jvms=2} between 2 JVMs.
 */
class AllocationFreeTest {
    /** Iterations before measuring (C2 compiles the loop and escape analysis removes what it can). */
    static final int WARMUP = 15_000;
    static final int MEASURED = 5_000;
    /**
     * Bytes per iteration tolerated: a few stray allocations over the loop (a waiter or op made by a thread that
     * found the spare one taken, a class loaded late) stay far below it; one object per message does not.
     */
    static final double BOUND = 2.0;
    /** Measured rounds of {@code MEASURED} iterations each; the least allocating one is judged. */
    static final int ROUNDS = 3;

    /** A status maker that makes nothing: the loop checks the source through it. */
    private static final Status.Maker<Integer> SOURCE = (source, tag, bytes) -> source; // small: cached Integers

    static long allocated() {
        return ((ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {8, 1024, 16384})
    @Timeout(240)
    void blockingPingPongAllocatesNothing(int bytes) {
        Assumptions.assumeTrue(((ThreadMXBean) ManagementFactory.getThreadMXBean())
                .isThreadAllocatedMemoryEnabled(), "thread allocation accounting is off in this JVM");
        Jobs.withMessenger("auto", 2, (world, m) -> {
            ByteBuffer out = Jobs.direct(bytes);
            ByteBuffer in = Jobs.direct(bytes);
            int me = world.rank();
            int other = 1 - me;
            loop(m, me, other, out, in, bytes, WARMUP);
            world.barrier();
            // the least of a few rounds: a one-off (a pool that grows once, a class loaded late) falls in one round,
            // an allocation per message in every round
            double perIteration = Double.MAX_VALUE;
            for (int round = 0; round < ROUNDS; round++) {
                long before = allocated();
                loop(m, me, other, out, in, bytes, MEASURED);
                perIteration = Math.min(perIteration, (allocated() - before) / (double) MEASURED);
            }
            System.out.printf("rank %d, %d bytes: %.2f bytes allocated per ping-pong + sendrecv (least of %d rounds)%n",
                    me, bytes, perIteration, ROUNDS);
            assertTrue(perIteration <= BOUND, "rank " + me + ", " + bytes + "-byte messages: " + perIteration
                    + " bytes allocated per iteration (blocking send, recv, sendrecv), at most " + BOUND);
        });
    }

    private static void loop(Messenger m, int me, int other, ByteBuffer out, ByteBuffer in, int bytes, int n) {
        for (int i = 0; i < n; i++) {
            if (me == 0) {
                m.send(out, 0, bytes, Datatype.BYTE, other, 1);
                check(m.recv(in, 0, bytes, Datatype.BYTE, other, 1, SOURCE), other);
            } else {
                check(m.recv(in, 0, bytes, Datatype.BYTE, other, 1, SOURCE), other);
                m.send(out, 0, bytes, Datatype.BYTE, other, 1);
            }
            check(m.sendrecv(out, 0, bytes, Datatype.BYTE, other, 2, in, 0, bytes, Datatype.BYTE,
                    Messenger.ANY_SOURCE, 2, SOURCE), other);
        }
    }

    private static void check(Integer source, int other) {
        if (source != other) {
            assertEquals(other, source, "source of the message");
        }
    }

}

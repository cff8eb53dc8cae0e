package io.jrma.msg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Comm;
import io.jrma.Jrma;
import io.jrma.WinCounters;
import io.jrma.testsupport.JobMatrix;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * What the messaging tests add to test-support's {@link JobMatrix}: their paths and rank counts, jobs whose ranks
 * each hold a messenger, and the check of the path the messages took.
 */
final class Jobs {
    /** JVMs the jobs spread over ({@code -Djrma.jvms=2}: the multi-JVM run of the suite). */
    static final int JVMS = JobMatrix.JVMS;
    /** The paths the jobs run on: auto and packet, only auto when the ranks spread over JVMs. */
    static final String[] PATHS = JVMS > 1 ? new String[] {"auto"} : new String[] {"auto", "packet"};

    /** Job timeout; every test method has a larger JUnit {@code @Timeout}. */
    static final Duration JOB_TIMEOUT = Duration.ofSeconds(30);
    static final JobMatrix MATRIX = new JobMatrix(PATHS, JOB_TIMEOUT);
    private static final int[] SIZES = {2, 3, 4};
    private static final int[] ONE_TO_EIGHT = {1, 2, 3, 4, 5, 6, 7, 8};

    private Jobs() {
    }

    /** Runs {@code body} on {@code n} ranks with {@code jrma.path=path}. */
    static void run(String path, int n, Jrma.RankMain body) {
        MATRIX.run(path, n, body);
    }

    /** A rank's program that uses a messenger. */
    @FunctionalInterface
    interface MessengerMain extends Serializable { // a multi-JVM run ships the body to each JVM
        void run(Comm world, Messenger m) throws Exception;
    }

    /**
     * Runs {@code body} on {@code n} ranks, each with a messenger on the world communicator, freed after the
     * body returns. Not in a finally block: a rank that fails must not enter the collective free while the
     * others wait for its messages (the job's abort then ends them fast).
     */
    static void withMessenger(String path, int n, MessengerMain body) {
        run(path, n, world -> {
            Messenger m = Messenger.create(world);
            body.run(world, m);
            m.free();
        });
    }

    /**
     * Asserts (after a ping-pong of every protocol with {@code other}) that the job's windows used the path the
     * job asked for: packets for "packet", loads and stores (and hand-offs) only for "auto" when all ranks share this
     * JVM.
     * Between JVMs it depends on what the host offers: to an inbox this process maps (shared segments) envelopes
     * and payloads are stores and rendezvous data a single kernel copy (process_vm_readv), so no packet at all;
     * without those, the messenger's window operations travel as packets.
     */
    static void assertPathUsed(Comm world, Messenger m, int other, String path) {
        WinCounters c = Jrma.jvmCounters(world);
        long packets = c.get(WinCounters.Counter.PACKETS_SENT);
        long direct = c.get(WinCounters.Counter.DIRECT_OPS);
        if (JVMS > 1) {
            boolean storesOnly = m.peers.mem[other] != null && m.peers.crossReadPid(other) != 0;
            if (storesOnly) {
                assertEquals(0, packets,
                        "inbox mapped and single-copy reads on, yet packets between JVMs: " + c);
            } else {
                assertTrue(packets > 0, "packets between JVMs: " + c);
            }
        } else if (path.equals("packet")) {
            assertTrue(packets > 0 && direct == 0, "packet path: " + c);
        } else {
            // between threads large messages are handed off: no window operation at all
            assertTrue((direct > 0 || m.handoffsTaken > 0) && packets == 0, "direct path: " + c + ", "
                    + m.handoffsTaken + " hand-offs");
        }
    }

    static Stream<String> paths() {
        return MATRIX.pathStream();
    }

    static Stream<Arguments> pathsAndSizes() {
        return MATRIX.pathsAnd(SIZES);
    }

    static Stream<Arguments> pathsAndOneToEight() {
        return MATRIX.pathsAnd(ONE_TO_EIGHT);
    }

    static ByteBuffer direct(int bytes) {
        return JobMatrix.direct(bytes);
    }
}

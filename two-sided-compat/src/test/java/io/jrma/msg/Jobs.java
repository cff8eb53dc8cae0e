package io.jrma.msg;

import io.jrma.Jrma;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Shared helpers of the messaging tests: job launching and parameter sources. */
final class Jobs {
    static final String[] PATHS = Integer.getInteger("jrma.jvms", 1) > 1 ? new String[] {"auto"} : new String[] {"auto", "packet"};
    /** JVMs the jobs spread over ({@code -Djrma.jvms=2}: the multi-JVM run of the suite). */
    static final int JVMS = Integer.getInteger("jrma.jvms", 1);

    /** Job timeout; every test method has a larger JUnit {@code @Timeout}. */
    static final Duration JOB_TIMEOUT = Duration.ofSeconds(30);

    private Jobs() {
    }

    /** Runs {@code body} on {@code n} ranks with {@code jrma.path=path}. */
    static void run(String path, int n, Jrma.RankMain body) {
        Jrma.job(n).param("jrma.path", path).timeout(JOB_TIMEOUT).run(body);
    }

    /** A rank's program that uses a messenger. */
    @FunctionalInterface
    interface MessengerMain extends java.io.Serializable { // a multi-JVM run ships the body to each JVM
        void run(io.jrma.Comm world, Messenger m) throws Exception;
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
     * job asked for: packets for "packet", loads and stores only for "auto" when all ranks share this JVM.
     * Between JVMs it depends on what the host offers: to an inbox this process maps (shared segments) envelopes
     * and payloads are stores and rendezvous data a single kernel copy (process_vm_readv), so no packet at all;
     * without those, the messenger's window operations travel as packets.
     */
    static void assertPathUsed(io.jrma.Comm world, Messenger m, int other, String path) {
        io.jrma.WinCounters c = io.jrma.Jrma.jvmCounters(world);
        long packets = c.get(io.jrma.WinCounters.Counter.PACKETS_SENT);
        long direct = c.get(io.jrma.WinCounters.Counter.DIRECT_OPS);
        if (JVMS > 1) {
            boolean storesOnly = m.peerMem[other] != null && m.crossReadPid(other) != 0;
            if (storesOnly) {
                org.junit.jupiter.api.Assertions.assertEquals(0, packets,
                        "inbox mapped and single-copy reads on, yet packets between JVMs: " + c);
            } else {
                org.junit.jupiter.api.Assertions.assertTrue(packets > 0, "packets between JVMs: " + c);
            }
        } else if (path.equals("packet")) {
            org.junit.jupiter.api.Assertions.assertTrue(packets > 0 && direct == 0, "packet path: " + c);
        } else {
            org.junit.jupiter.api.Assertions.assertTrue(direct > 0 && packets == 0, "direct path: " + c);
        }
    }

    static Stream<String> paths() {
        return Stream.of(PATHS);
    }

    /** path x the given rank counts. */
    static Stream<Arguments> pathsAnd(int... sizes) {
        List<Arguments> out = new ArrayList<>();
        for (String p : PATHS) {
            for (int n : sizes) {
                out.add(Arguments.of(p, n));
            }
        }
        return out.stream();
    }

    static Stream<Arguments> pathsAndSizes() {
        return pathsAnd(2, 3, 4);
    }

    static Stream<Arguments> pathsAndOneToEight() {
        return pathsAnd(1, 2, 3, 4, 5, 6, 7, 8);
    }

    static ByteBuffer direct(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}

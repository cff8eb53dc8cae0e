package io.jrma.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.config.JobLayout;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketType;
import io.jrma.shm.ShmFiles;
import io.jrma.spi.TransportProvider;
import io.jrma.spi.Transports;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
/**
 * The ring transport's life around the data path ({@link ShmRingMesh}): a sender held back by a full ring fails
 * when the peer aborts, a sleeping receiver is woken by the doorbell, batches speaking for another JVM's ranks are
 * rejected, no file is left behind and closed rings refuse to send, a tmpfs too small is a clear error on every
 * JVM, excluded rings or another host mean TCP, and the transport selection parameter and providers answer.
 */
class ShmRingLifecycleTest extends ShmRingMesh {
    @Test
    @Timeout(60)
    void aSenderHeldBackByAFullRingFailsWhenThePeerAborts() throws Exception {
        mesh(ring(64 << 10));
        jobs[1].onAbort(e -> tcp[1].abortPeers(e.getMessage())); // as JvmHost: an abort is told to the other JVMs
        CompletableFuture<Throwable> sender = CompletableFuture.supplyAsync(() -> {
            try {
                // JVM 1 reads nothing: the ring fills and the origin drives progress, as the engine does
                for (long i = 0; ; i++) {
                    Batch b = batch(0, 1, PacketType.PUT, i, 4000);
                    while (!shm[0].send(b)) {
                        jobs[0].agent().tryProgress();
                    }
                }
            } catch (RuntimeException e) {
                return e;
            }
        });
        long until = System.currentTimeMillis() + 10_000;
        while (shm[0].refused() == 0 && System.currentTimeMillis() < until) {
            Thread.sleep(1);
        }
        assertTrue(shm[0].refused() > 0, "the ring filled up");
        jobs[1].abort(ErrorClass.ERR_OTHER, "rank 1 failed", null);
        Throwable t = sender.get(10, TimeUnit.SECONDS);
        assertTrue(t instanceof RmaException
                && ((RmaException) t).errorClass() == ErrorClass.ERR_PROC_ABORTED, String.valueOf(t));
        assertTrue(jobs[0].isAborted());
    }

    @Test
    @Timeout(60)
    void aSleepingReceiverIsWokenByTheDoorbell() throws Exception {
        Map<String, String> p = ring(64 << 10);
        p.put("jrma.progress", "caller"); // JVM 1's only progress is the thread below
        mesh(p);
        Recorder rec = new Recorder();
        jobs[1].agent().register(WINDOW, rec);
        AtomicBoolean stop = new AtomicBoolean();
        Thread sleeper = new Thread(() -> { // an idle progress thread that sleeps 3 s in the selector at a time
            while (!stop.get()) {
                if (jobs[1].agent().tryProgress() == 0) {
                    jobs[1].agent().sleepIn(shm[1], 3_000_000_000L);
                }
            }
        }, "test-sleeper");
        sleeper.start();
        try {
            long[] ringUs = new long[5];
            long[] tcpUs = new long[5];
            for (int i = 0; i < 10; i++) {
                boolean viaRing = i < 5;
                awaitAsleep();
                long rung = shm[0].doorbells();
                long t0 = System.nanoTime();
                Batch b = batch(0, 1, PacketType.PUT, i, 8);
                // TCP, for comparison: the data wakes the selector
                assertTrue(viaRing ? shm[0].send(b) : tcp[0].send(b));
                while (rec.count() < i + 1 && System.nanoTime() - t0 < 2_500_000_000L) {
                    Thread.onSpinWait();
                }
                long us = (System.nanoTime() - t0) / 1_000;
                assertEquals(i + 1, rec.count(), "delivered");
                assertTrue(us < 1_000_000, "a receiver asleep took " + us + " us to notice input (it sleeps 3 s)");
                if (viaRing) {
                    ringUs[i] = us;
                    assertEquals(rung + 1, shm[0].doorbells(), "one doorbell for a receiver asleep");
                } else {
                    tcpUs[i - 5] = us;
                }
            }
            Arrays.sort(ringUs);
            Arrays.sort(tcpUs);
            System.out.println("receiver asleep in epoll, send to delivery: ring + doorbell median "
                    + ringUs[2] + " us (max "
                    + ringUs[4] + "), TCP median " + tcpUs[2] + " us (max " + tcpUs[4] + ")");
            long until = System.currentTimeMillis() + 5_000;
            while (tcp[1].wakesReceived() < 5 && System.currentTimeMillis() < until) {
                Thread.sleep(1);
            }
            assertEquals(5, tcp[1].wakesReceived(), "WAKE frames reached the receiver");
        } finally {
            stop.set(true);
            shm[1].wakeup();
            sleeper.join(5_000);
        }
        assertFalse(sleeper.isAlive());
        assertFalse(shm[1].anyInboundAsleep(), "a receiver out of the selector has cleared its flag");
        long rung = shm[0].doorbells();
        for (int i = 10; i < 100; i++) { // a receiver that is not asleep is never rung, however many batches come
            assertTrue(shm[0].send(batch(0, 1, PacketType.PUT, i, 8)));
        }
        assertEquals(rung, shm[0].doorbells(), "doorbells for a receiver that is not asleep");
        driveUntil(() -> rec.count() == 100, "the burst");
    }

    /** Waits until JVM 1's progress thread has flagged its ring: it is (about to be) asleep in the selector. */
    /**
     * Waits until the progress thread has been flagged asleep for 50 ms on end. Right after a delivery it may flag
     * itself asleep and return at once from the selector (the previous doorbell's WAKE frame was still unread): a
     * send in that gap rightly rings no doorbell, and the check below it then failed now and then.
     */
    private void awaitAsleep() throws InterruptedException {
        long until = System.currentTimeMillis() + 10_000;
        long since = -1;
        while (since < 0 || System.currentTimeMillis() - since < 50) {
            assertTrue(System.currentTimeMillis() < until, "the progress thread never went to sleep");
            if (!shm[1].anyInboundAsleep()) {
                since = -1;
            } else if (since < 0) {
                since = System.currentTimeMillis();
            }
            Thread.sleep(1);
        }
    }

    @Test
    @Timeout(60)
    void batchesSpeakingForAnotherJvmsRanksAreRejected() throws Exception {
        mesh(ring(64 << 10));
        Recorder rec = new Recorder();
        jobs[1].agent().register(WINDOW, rec);
        sendDriving(0, batch(1, 1, PacketType.PUT, 7, 8)); // source rank 1 lives in JVM 1: JVM 0 may not claim it
        sendDriving(0, batch(0, 1, PacketType.PUT, 8, 8));
        driveUntil(() -> rec.count() == 1, "the honest batch");
        assertEquals(List.of(8L), rec.seqs);
        assertEquals(1, shm[1].rejected());
    }

    @Test
    @Timeout(60)
    void filesAreUnlinkedOnceMappedAndClosedRingsRefuseToSend() throws Exception {
        mesh(ring(64 << 10));
        assertEquals(List.of(), ringFiles(), "ring files are unlinked right after set-up");
        shm[0].close();
        assertThrows(RmaException.class, () -> shm[0].send(batch(0, 1, PacketType.PUT, 0, 8)));
        Path stray = Path.of("/dev/shm", RingFiles.prefix(PID) + "deadbeef-0to1");
        Files.write(stray, new byte[16]);
        // what jrmarun deletes when a JVM dies: every file named after its pid, rings included
        assertEquals(List.of(stray.getFileName().toString()), ShmFiles.filesOf(Path.of("/dev/shm"), PID));
        Files.delete(stray);
    }

    @Test
    @Timeout(60)
    void aTmpfsTooSmallIsAClearErrorOnEveryJvmAndLeavesNothing() throws Exception {
        RingFiles.simulatedAvailable = 100_000;
        ExecutionException e = assertThrows(ExecutionException.class, () -> mesh(ring(1 << 20)));
        RmaException cause = (RmaException) e.getCause();
        assertEquals(ErrorClass.ERR_NO_SPACE, cause.errorClass());
        long need = RingFileDescriptor.fileLength(1 << 20);
        assertTrue(cause.getMessage().contains("has 100000 bytes available")
                && cause.getMessage().contains("need " + need),
                cause.getMessage());
        assertTrue(cause.getMessage().contains("jrma.transports=^shm"),
                "says how to do without: " + cause.getMessage());
    }

    @Test
    @Timeout(60)
    void excludedRingsOrAnotherHostMeanTcp() throws Exception {
        mesh(Map.of(ShmParams.TRANSPORTS.name(), "^shm"));
        assertNull(shm[0]);
        assertNull(shm[1]);
        assertEquals("tcp", jobs[0].transportFor(1).name());
        close();
        mesh(Map.of(), () -> "hostA/boot", () -> "hostB/boot");
        assertNull(shm[0]);
        assertNull(shm[1]);
        assertEquals("tcp", jobs[1].transportFor(0).name());
    }

    @Test
    void transportsParameter() {
        Set<String> known = new LinkedHashSet<>(List.of("shm", "tcp"));
        assertEquals(List.of("shm", "tcp"), List.copyOf(Transports.parse("shm,tcp", known)));
        assertEquals(List.of("tcp"), List.copyOf(Transports.parse("^shm", known)));
        assertEquals(List.of("tcp"), List.copyOf(Transports.parse("tcp", known)));
        assertEquals(List.of("shm", "tcp"), List.copyOf(Transports.parse("shm", known)));
        assertEquals(ErrorClass.ERR_ARG, assertThrows(RmaException.class,
                () -> Transports.parse("^tcp", known)).errorClass());
        RmaException unknown = assertThrows(RmaException.class, () -> Transports.parse("ucx,tcp", known));
        assertEquals(ErrorClass.ERR_ARG, unknown.errorClass());
        assertTrue(unknown.getMessage().contains("'ucx'") && unknown.getMessage().contains("shm,tcp"),
                unknown.getMessage());
        assertEquals(ErrorClass.ERR_ARG, assertThrows(RmaException.class,
                () -> ShmParams.ringBytes(Map.of("jrma.shm.ringBytes", "100000"))).errorClass());
    }

    /** The components on this module's test class path (shm here, tcp from window-rdma) answer their queries. */
    @Test
    void providersAreFoundAndQueried() {
        assertEquals(List.of("tcp", "shm"), names(Transports.select(new JobLayout(4, 2, Map.of()))));
        assertEquals(List.of("tcp"), names(Transports.select(new JobLayout(4, 2, Map.of("jrma.transports", "^shm")))));
        assertEquals(List.of(), names(Transports.select(new JobLayout(4, 1, Map.of()))));
        for (Transports.Choice c : Transports.evaluate(new JobLayout(2, 1, Map.of()))) {
            assertFalse(c.used(), c.describe());
            // a component the default selection leaves out (ucx) is "not selected", with the same reason after it
            assertTrue(c.describe().startsWith(c.selected() ? "declined: one JVM" : "not selected"), c.describe());
            assertTrue(c.describe().contains("one JVM"), c.describe());
        }
        Transports.Choice shmOut = Transports.evaluate(new JobLayout(4, 2, Map.of("jrma.transports", "^shm"))).stream()
                .filter(c -> c.provider().name().equals("shm")).findFirst().orElseThrow();
        assertFalse(shmOut.used());
        assertTrue(shmOut.describe().startsWith("not selected"), shmOut.describe());
    }

    private static List<String> names(List<TransportProvider> ps) {
        List<String> n = new ArrayList<>();
        ps.forEach(p -> n.add(p.name()));
        return n;
    }
}

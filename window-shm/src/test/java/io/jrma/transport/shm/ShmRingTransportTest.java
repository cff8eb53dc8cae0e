package io.jrma.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import io.jrma.core.os.HostId;
import io.jrma.core.runtime.CollectiveState;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.LocalComm;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.BatchReceiver;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import io.jrma.shm.ShmFiles;
import io.jrma.spi.JobLayout;
import io.jrma.spi.TransportProvider;
import io.jrma.spi.Transports;
import io.jrma.transport.tcp.TcpTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.agrona.ExpandableDirectByteBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two JVMs of one host, simulated by two jobs (JVM 0 and JVM 1) in this test JVM, each with its TCP IO agent,
 * set up their rings through the real control plane and files in the ring directory: batches arrive intact and
 * in order whatever their size (records of several packets, a packet in pieces, a 4 MiB packet), a full ring
 * refuses requests without taking anything but always takes replies, both directions can be full at once
 * without a deadlock, a batch the engine keeps does not hold up the ring, a sleeping receiver is woken by the
 * doorbell, no file is left behind, and a tmpfs too small is a clear error on every JVM.
 */
class ShmRingTransportTest {
    static final int WINDOW = 4343;
    private static final long PID = ProcessHandle.current().pid();
    Job[] jobs;
    TcpTransport[] tcp;
    ShmRingTransport[] shm;

    /** Connects the two jobs over TCP, then sets up the rings (both sides at once, as two JVMs would). */
    void mesh(Map<String, String> params, Supplier<String> host0, Supplier<String> host1) throws Exception {
        String jobId = Handshake.newJobId();
        String secret = Handshake.newSecret();
        jobs = new Job[] {new Job(2, params, 0, new int[] {0, 1}), new Job(2, params, 1, new int[] {0, 1})};
        tcp = new TcpTransport[] {TcpTransport.listen(jobs[0], jobId, secret),
                TcpTransport.listen(jobs[1], jobId, secret)};
        InetSocketAddress[] eps = {tcp[0].endpoint(), tcp[1].endpoint()};
        CompletableFuture<Void> a = CompletableFuture.runAsync(() -> tcp[0].connectMesh(eps));
        tcp[1].connectMesh(eps);
        a.get(20, TimeUnit.SECONDS);
        jobs[0].addRemote(tcp[0], 1);
        jobs[1].addRemote(tcp[1], 0);
        shm = new ShmRingTransport[2];
        CompletableFuture<ShmRingTransport> s0 = CompletableFuture.supplyAsync(
                () -> ShmRingSetup.attach(jobs[0], tcp[0], tcp[0]::wakeJvm, jobId, host0));
        try {
            shm[1] = ShmRingSetup.attach(jobs[1], tcp[1], tcp[1]::wakeJvm, jobId, host1);
        } finally {
            shm[0] = s0.get(20, TimeUnit.SECONDS); // close() stops and closes whatever was set up
        }
    }

    void mesh(Map<String, String> params) throws Exception {
        mesh(params, HostId::current, HostId::current);
    }

    /** As JvmHost at the end of a job: the progress threads first, then the rings, then TCP. */
    @AfterEach
    void close() throws Exception {
        RingFiles.simulatedAvailable = -1;
        if (jobs != null) {
            for (int i = 0; i < 2; i++) {
                jobs[i].stop();
                if (shm != null && shm[i] != null) {
                    shm[i].close();
                }
            }
            for (int i = 0; i < 2; i++) {
                if (tcp[i] != null) {
                    tcp[i].close(200);
                }
            }
            jobs = null;
        }
        assertEquals(List.of(), ringFiles(), "ring files left in /dev/shm");
    }

    static List<Path> ringFiles() throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/dev/shm"), RingFiles.prefix(PID) + "*")) {
            ds.forEach(out::add);
        }
        return out;
    }

    static Map<String, String> ring(int bytes) {
        Map<String, String> p = new HashMap<>();
        p.put(ShmParams.RING_BYTES.name(), String.valueOf(bytes));
        return p;
    }

    /** Receives batches for {@link #WINDOW}: keeps the sequence number and checks the payload of every packet. */
    static final class Recorder implements BatchReceiver {
        final List<Long> seqs = new ArrayList<>();
        final List<String> bad = new ArrayList<>();
        volatile int keepFirst; // how many of the next batches to keep unconsumed (as a lock wait would)
        final List<Batch> kept = new ArrayList<>();
        volatile boolean release;

        @Override
        public void onBatch(Batch b) {
            for (int i = 0; i < b.count(); i++) {
                int at = b.offsetAt(i);
                int len = PacketHeader.length(b.buffer(), at) - PacketHeader.HEADER_LENGTH;
                long seq = b.buffer().getLong(at + PacketHeader.HEADER_LENGTH);
                for (int k = 8; k < len; k += 97) {
                    if (b.buffer().getByte(at + PacketHeader.HEADER_LENGTH + k) != pattern(seq, k)) {
                        bad.add("packet " + seq + " byte " + k);
                        break;
                    }
                }
                synchronized (seqs) {
                    seqs.add(seq);
                }
            }
            if (keepFirst > 0) {
                keepFirst--;
                kept.add(b);
            } else {
                b.markConsumed();
            }
        }

        @Override
        public int poll() {
            if (release && !kept.isEmpty()) {
                for (Batch b : kept) {
                    Recorder check = new Recorder(); // the kept copy must still read intact
                    check.onBatch(b);
                    bad.addAll(check.bad);
                }
                kept.clear();
                return 1;
            }
            return 0;
        }

        int count() {
            synchronized (seqs) {
                return seqs.size();
            }
        }
    }

    static byte pattern(long seq, int k) {
        return (byte) (seq * 31 + k * 7);
    }

    /** A batch of packets of the given payload sizes (each at least 8 bytes), numbered from {@code firstSeq}. */
    static Batch batch(int src, int dst, int type, long firstSeq, int... payloads) {
        int total = 0;
        for (int p : payloads) {
            total += PacketHeader.HEADER_LENGTH + p;
        }
        ExpandableDirectByteBuffer buf = new ExpandableDirectByteBuffer(total);
        Batch b = new Batch(buf);
        int at = 0;
        for (int i = 0; i < payloads.length; i++) {
            int len = PacketHeader.HEADER_LENGTH + payloads[i];
            PacketHeader.write(buf, at, len, type, 0, WINDOW, src, dst, i, 0, 0, 0, 0, payloads[i], 0);
            long seq = firstSeq + i;
            buf.putLong(at + PacketHeader.HEADER_LENGTH, seq);
            for (int k = 8; k < payloads[i]; k++) {
                buf.putByte(at + PacketHeader.HEADER_LENGTH + k, pattern(seq, k));
            }
            b.add(at);
            at += len;
        }
        b.address(src, dst);
        return b;
    }

    /** Sends, driving both agents while the ring refuses; fails after 10 s. */
    void sendDriving(int from, Batch b) {
        long until = System.currentTimeMillis() + 10_000;
        while (!shm[from].send(b)) {
            jobs[0].agent().tryProgress();
            jobs[1].agent().tryProgress();
            assertTrue(System.currentTimeMillis() < until, "the ring refused the batch for 10 s");
        }
    }

    void driveUntil(Supplier<Boolean> done, String what) {
        long until = System.currentTimeMillis() + 20_000;
        while (!done.get()) {
            jobs[0].agent().tryProgress();
            jobs[1].agent().tryProgress();
            assertTrue(System.currentTimeMillis() < until, "timed out waiting for " + what);
        }
    }

    @Test
    @Timeout(60)
    void batchesOfEverySizeArriveIntactAndInOrder() throws Exception {
        mesh(ring(64 << 10)); // records up to 8 KiB: batches span records, large packets travel in pieces
        assertNotNull(shm[0]);
        assertEquals("shm", jobs[0].transportFor(1).name(), "rank 1 is reached through the ring");
        assertEquals("local", jobs[0].transportFor(0).name());
        Recorder rec = new Recorder();
        jobs[1].agent().register(WINDOW, rec);
        List<Batch> sent = new ArrayList<>();
        long seq = 0;
        int[][] shapes = {{8}, {100, 200, 300}, new int[300], {20_000}, {8, 9_000, 8, 8}, {4 << 20}, {1, 65_000, 7}};
        shapes[2] = new int[300];
        Arrays.fill(shapes[2], 40); // 300 small packets: several records
        for (int round = 0; round < 3; round++) {
            for (int[] shape : shapes) {
                int[] payloads = shape.clone();
                for (int i = 0; i < payloads.length; i++) {
                    payloads[i] = Math.max(8, payloads[i]);
                }
                Batch b = batch(0, 1, PacketType.PUT, seq, payloads);
                seq += payloads.length;
                sendDriving(0, b);
                sent.add(b);
            }
        }
        long total = seq;
        driveUntil(() -> rec.count() == total && sent.stream().allMatch(Batch::isConsumed), "all packets");
        assertEquals(List.of(), rec.bad, "payloads");
        for (int i = 0; i < total; i++) {
            assertEquals(i, rec.seqs.get(i).longValue(), "packet order");
        }
        assertEquals(sent.size(), shm[0].batchesSent());
        assertTrue(shm[0].bytesSent() > 3L * (4 << 20), "bytes counted: " + shm[0].bytesSent());
        assertEquals(shm[0].bytesSent(), shm[1].bytesReceived());
        assertEquals(0, shm[1].rejected());
    }

    @Test
    @Timeout(60)
    void controlMessagesBetweenJvmsOfTheHostTakeTheRingsAndLargeOnesTcp() throws Exception {
        mesh(ring(64 << 10)); // records up to 8 KiB
        for (Job j : jobs) {
            j.start();
        }
        long tcpFrames0 = tcp[0].framesReceived();
        CompletableFuture<Object[]> r1 = CompletableFuture.supplyAsync(() -> {
            LocalComm c = LocalComm.world(jobs[1], 1,
                    new CollectiveState(2));
            c.barrier();
            return c.allgather("from 1");
        });
        LocalComm c0 = LocalComm.world(jobs[0], 0,
                new CollectiveState(2));
        c0.barrier();
        Object[] all0 = c0.allgather("from 0");
        assertEquals(List.of("from 0", "from 1"), List.of(all0));
        assertEquals(List.of("from 0", "from 1"), List.of(r1.get(20, TimeUnit.SECONDS)));
        assertTrue(shm[0].controlReceived() >= 2 && shm[1].controlReceived() >= 2,
                "barrier and gather through the rings: " + shm[0] + " / " + shm[1]);
        long viaRing = shm[0].controlReceived();
        // a value larger than a ring record goes over TCP, and still arrives whole
        char[] big = new char[20_000];
        Arrays.fill(big, 'x');
        String large = new String(big);
        CompletableFuture<Object[]> r2 = CompletableFuture.supplyAsync(() -> LocalComm.world(jobs[1], 1,
                new CollectiveState(2)).allgather(large + "1"));
        Object[] big0 = LocalComm.world(jobs[0], 0, new CollectiveState(2))
                .allgather(large + "0");
        assertEquals(large + "1", big0[1]);
        assertEquals(large + "0", r2.get(20, TimeUnit.SECONDS)[0]);
        assertEquals(viaRing, shm[0].controlReceived(), "the large value did not take the ring");
        assertTrue(tcp[0].framesReceived() > tcpFrames0, "the large value took TCP");
        assertFalse(jobs[0].isAborted() || jobs[1].isAborted());
    }

    @Test
    @Timeout(60)
    void aFullRingRefusesRequestsWithoutTakingAnythingButTakesReplies() throws Exception {
        mesh(ring(64 << 10));
        Recorder rec = new Recorder();
        jobs[1].agent().register(WINDOW, rec);
        List<Batch> taken = new ArrayList<>();
        long seq = 0;
        Batch refused = null;
        for (int i = 0; i < 100 && refused == null; i++) { // nobody reads JVM 1's ring
            Batch b = batch(0, 1, PacketType.PUT, seq, 4000);
            if (shm[0].send(b)) {
                taken.add(b);
                seq++;
            } else {
                refused = b;
            }
        }
        assertNotNull(refused, "100 batches of 4 KiB fit in a ring of 64 KiB");
        assertFalse(refused.isConsumed(), "a refused batch stays the origin's");
        assertTrue(shm[0].refused() >= 1);
        Batch reply = batch(0, 1, PacketType.ACK, seq + 1, 3000); // replies never wait for the origin's retry
        assertTrue(shm[0].send(reply), "a reply is taken even when the ring is full");
        assertFalse(reply.isConsumed(), "it waits for space");
        assertFalse(shm[0].send(batch(0, 1, PacketType.PUT, 999, 8)), "a request may not overtake the waiting reply");
        driveUntil(() -> rec.count() == taken.size() && reply.isConsumed(), "the taken batches and the reply");
        sendDriving(0, refused); // the retry goes behind the reply
        driveUntil(() -> rec.count() == taken.size() + 2, "the retried batch");
        List<Long> want = new ArrayList<>();
        for (long s = 0; s < taken.size(); s++) {
            want.add(s);
        }
        want.add(seq + 1);
        want.add(seq);
        assertEquals(want, rec.seqs, "each batch once, in the order taken");
        assertEquals(List.of(), rec.bad);
    }

    @Test
    @Timeout(90)
    void bigBatchesBothWaysAtOnceDoNotDeadlock() throws Exception {
        mesh(ring(256 << 10));
        Recorder[] rec = {new Recorder(), new Recorder()};
        for (int i = 0; i < 2; i++) {
            jobs[i].agent().register(WINDOW, rec[i]);
            jobs[i].start(); // progress threads, as in a job
        }
        int rounds = 12;
        List<CompletableFuture<Void>> senders = new ArrayList<>();
        for (int from = 0; from < 2; from++) {
            int f = from;
            senders.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < rounds; i++) {
                    Batch b = batch(f, 1 - f, PacketType.PUT, 10L * i, 4 << 20, 100, 1 << 20, 8);
                    while (!shm[f].send(b)) {
                        jobs[f].agent().tryProgress();
                    }
                    while (!b.isConsumed()) { // the origin reuses its buffer only after local completion
                        jobs[f].agent().tryProgress();
                    }
                }
            }));
        }
        CompletableFuture.allOf(senders.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        long until = System.currentTimeMillis() + 30_000;
        while ((rec[0].count() < rounds * 4 || rec[1].count() < rounds * 4) && System.currentTimeMillis() < until) {
            Thread.sleep(5);
        }
        for (Recorder r : rec) {
            assertEquals(rounds * 4, r.count());
            assertEquals(List.of(), r.bad);
        }
    }

    @Test
    @Timeout(60)
    void aBatchTheEngineKeepsIsCopiedOutAndDoesNotHoldUpTheRing() throws Exception {
        mesh(ring(64 << 10));
        Recorder rec = new Recorder();
        rec.keepFirst = 2; // as batches waiting for a lock: the engine reads them later
        jobs[1].agent().register(WINDOW, rec);
        long seq = 0;
        for (int i = 0; i < 200; i++) { // 200 x 2 KiB: more than the ring holds, so the ring must move on
            sendDriving(0, batch(0, 1, PacketType.PUT, seq++, 2000));
        }
        sendDriving(0, batch(0, 1, PacketType.PUT, seq++, 200_000)); // in pieces, kept: its own buffer
        long total = seq;
        driveUntil(() -> rec.count() == total, "every batch behind the kept ones");
        assertEquals(2, rec.kept.size());
        rec.release = true;
        driveUntil(() -> rec.kept.isEmpty(), "the kept batches to be read again");
        assertEquals(List.of(), rec.bad, "kept batches read intact after the ring moved on");
    }

    @Test
    @Timeout(60)
    void aReceiverHoldingTooManyWaitingBatchesStopsReadingThatRing() throws Exception {
        Map<String, String> p = ring(64 << 10);
        p.put(ShmParams.HELD_BYTES.name(), "1000");
        mesh(p);
        Recorder rec = new Recorder();
        rec.keepFirst = 1;
        jobs[1].agent().register(WINDOW, rec);
        sendDriving(0, batch(0, 1, PacketType.PUT, 0, 2000)); // kept: 2 KiB copied out, over the limit
        sendDriving(0, batch(0, 1, PacketType.PUT, 1, 8));
        sendDriving(0, batch(0, 1, PacketType.PUT, 2, 8));
        for (int i = 0; i < 1000; i++) {
            jobs[0].agent().tryProgress();
            jobs[1].agent().tryProgress();
        }
        assertEquals(List.of(0L), rec.seqs, "nothing more is read while the kept batch holds more than the limit");
        rec.release = true;
        driveUntil(() -> rec.count() == 3, "the rest once the kept batch was applied");
        assertEquals(List.of(0L, 1L, 2L), rec.seqs);
        assertEquals(List.of(), rec.bad);
    }

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

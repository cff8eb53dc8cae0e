package io.jrma.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.runtime.CollectiveState;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.LocalComm;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.PacketType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
/**
 * The ring transport's data path between two JVMs of one host ({@link ShmRingMesh}): batches arrive intact and in
 * order whatever their size (records of several packets, a packet in pieces, a 4 MiB packet), control messages take
 * the rings and large ones TCP, a full ring refuses requests without taking anything but always takes replies, both
 * directions can be full at once without a deadlock, and a batch the engine keeps does not hold up the ring (nor do
 * too many of them stop more than that ring).
 */
class ShmRingTransportTest extends ShmRingMesh {
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
}

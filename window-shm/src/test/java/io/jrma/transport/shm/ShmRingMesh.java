package io.jrma.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.auth.Handshake;
import io.jrma.core.os.HostId;
import io.jrma.core.runtime.Job;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.BatchReceiver;
import io.jrma.core.wire.PacketHeader;
import io.jrma.transport.tcp.TcpTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.agrona.ExpandableDirectByteBuffer;
import org.junit.jupiter.api.AfterEach;
/**
 * The fixture of the ring transport's tests: two JVMs of one host, simulated by two jobs (JVM 0 and JVM 1) in this
 * test JVM, each with its TCP IO agent, set up their rings through the real control plane and files in the ring
 * directory; batches of numbered packets with a checkable payload, a receiver that records them, and loops that drive
 * both agents. After each test the progress threads, rings and TCP close and no ring file may be left in /dev/shm.
 * Used by the test's thread (the rings' agents run on the jobs' progress threads).
 */
abstract class ShmRingMesh {
    static final int WINDOW = 4343;
    static final long PID = ProcessHandle.current().pid();
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
}

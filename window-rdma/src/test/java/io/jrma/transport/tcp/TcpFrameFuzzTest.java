package io.jrma.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import io.jrma.core.runtime.Job;
import io.jrma.core.wire.PacketHeader;
import io.jrma.core.wire.PacketType;
import io.jrma.testsupport.fuzz.FuzzCampaign;
import io.jrma.testsupport.fuzz.PatternPackets;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Fuzz campaign against the TCP IO agent's framing: a fuzzer that knows the job secret (a broken or hostile
 * JVM of the job) plays JVM 0 over a real loopback socket to a real {@link TcpTransport} of JVM 1, and sends
 * sessions of frames: honest packet batches, batches of garbage or addressed to ranks the sender may not speak
 * for, credit and wake-up frames with random values, and then one frame that makes the stream unusable (a corrupt
 * header, a bit-flipped header, a truncated frame, an undecodable control message, or an abort). The agent must
 * deliver every honest batch, reject and count every other one, and end each session with an abort of the job that
 * names the cause and its MPI error class, never with an exception in its progress, a hang, or a buffer as large as
 * a corrupt length field claims.
 *
 * <p>{@code jrma.fuzz.frames} frames (20,000 by default; long mode {@code -Djrma.fuzz.frames=1000000}); seed
 * {@code jrma.fuzz.seed} (34), printed.
 */
class TcpFrameFuzzTest {
    /** Frames of the quick mode. */
    static final long DEFAULT_FRAMES = 20_000;
    private static final int WINDOW = 777;
    private static final long CREDITS = 1 << 20;

    enum End { BAD_HEADER, FLIPPED_HEADER, TRUNCATED, BAD_CONTROL, ABORT }

    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // the long mode; the quick mode takes seconds
    void everyBadFrameIsRejectedAndEndsTheSessionCleanly() throws Exception {
        FuzzCampaign<End> campaign = new FuzzCampaign<>("TcpFrameFuzzTest", "jrma.fuzz.frames", DEFAULT_FRAMES,
                "frames", End.class);
        campaign.announce();
        Random rnd = campaign.random();
        long frames = 0;
        long sessions = 0;
        long honest = 0;
        long rejected = 0;
        long t0 = System.nanoTime();
        while (frames < campaign.size()) {
            Session s = new Session(rnd);
            long a = System.nanoTime();
            long b;
            try {
                s.run();
            } finally {
                b = System.nanoTime();
                s.close();
            }
            if (System.getProperty("jrma.fuzz.timing") != null) {
                System.out.printf("session %s: setup %.1f ms, run %.1f ms, close %.1f ms%n", s.end, (s.ready - a) / 1e6,
                        (b - s.ready) / 1e6, (System.nanoTime() - b) / 1e6);
            }
            sessions++;
            frames += s.frames;
            honest += s.honest;
            rejected += s.rejected;
            campaign.ended(s.end);
        }
        campaign.report(String.format("%d frames in %d sessions: %d honest batches delivered, %d bad batches rejected",
                frames, sessions, honest, rejected), t0);
    }

    /** One connection: a job of two JVMs, of which this test plays JVM 0 with its own bytes. */
    private static final class Session {
        final Random rnd;
        final Job job = new Job(2, Map.of("jrma.tcp.credits", String.valueOf(CREDITS)), 1, new int[] {0, 1});
        final String jobId = Handshake.newJobId();
        final String secret = Handshake.newSecret();
        final PatternPackets.Receiver receiver = new PatternPackets.Receiver();
        TcpTransport tcp;
        ServerSocket listener;
        Socket peer;
        long ready;
        long frames;
        long honest;
        long rejected;
        End end;

        Session(Random rnd) {
            this.rnd = rnd;
        }

        void run() throws Exception {
            listener = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
            tcp = TcpTransport.listen(job, jobId, secret);
            CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    Socket s = listener.accept();
                    assertEquals(1, Handshake.server(s, jobId, secret, 5_000));
                    return s;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            tcp.connectMesh(new InetSocketAddress[] {(
                    InetSocketAddress) listener.getLocalSocketAddress(), tcp.endpoint()});
            peer = accepted.get(10, TimeUnit.SECONDS);
            job.addRemote(tcp, 0);
            job.agent().register(WINDOW, receiver);
            ready = System.nanoTime();
            OutputStream out = peer.getOutputStream();
            int n = 1 + rnd.nextInt(1000);
            long credits = 0;
            long wakes = 0;
            ByteBuffer buf = ByteBuffer.allocate(2 << 20).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < n; i++) {
                int kind = rnd.nextInt(10);
                if (kind < 4) { // honest: 1..4 packets from rank 0 to rank 1
                    ByteBuffer body = ByteBuffer.allocate(4 * (PacketHeader.HEADER_LENGTH + 256))
                    .order(ByteOrder.LITTLE_ENDIAN);
                    int packets = 1 + rnd.nextInt(4);
                    for (int p = 0; p < packets; p++) {
                        packet(body, rnd.nextInt(), rnd.nextInt(256), 0, 1);
                    }
                    frame(buf, FrameDescriptor.BATCH, body.flip(), 0);
                    honest++;
                } else if (kind < 7) { // garbage, or honest packets claiming a rank JVM 0 may not speak for
                    ByteBuffer body = ByteBuffer.allocate(PacketHeader.HEADER_LENGTH + 256)
                    .order(ByteOrder.LITTLE_ENDIAN);
                    if (rnd.nextBoolean()) {
                        packet(body, rnd.nextInt(), rnd.nextInt(256), rnd.nextBoolean() ? 1 : 2 + rnd.nextInt(100),
                                rnd.nextBoolean() ? 0 : -1 - rnd.nextInt(100));
                    } else {
                        byte[] g = new byte[rnd.nextInt(PacketHeader.HEADER_LENGTH)]; // shorter than one packet header
                        rnd.nextBytes(g);
                        body.put(g);
                    }
                    frame(buf, FrameDescriptor.BATCH, body.flip(), 0);
                    rejected++;
                } else if (kind < 9) {
                    frame(buf, FrameDescriptor.CREDIT, ByteBuffer.allocate(0), rnd.nextInt((int) CREDITS + 1));
                    credits++;
                } else {
                    frame(buf, FrameDescriptor.WAKE, ByteBuffer.allocate(0), 0);
                    wakes++;
                }
                frames++;
            }
            // written by another thread: this one drives JVM 1's progress, which reads them
            CompletableFuture<Void> written = CompletableFuture.runAsync(() -> {
                try {
                    out.write(buf.array(), 0, buf.position());
                    out.flush();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            long wantRejected = rejected;
            long creditFrames = credits;
            long wakeFrames = wakes;
            progressUntil(() -> receiver.batches() == honest && tcp.framesRejected() == wantRejected
                    && tcp.creditFramesReceived() == creditFrames && tcp.wakesReceived() == wakeFrames);
            written.get(10, TimeUnit.SECONDS);
            assertEquals(honest, receiver.batches(), "honest batches delivered");
            assertEquals(0, receiver.corrupt(), "honest packets delivered corrupt");
            assertEquals(wantRejected, tcp.framesRejected(), "bad batches rejected");
            assertEquals(creditFrames, tcp.creditFramesReceived(), "credit frames");
            assertEquals(wakeFrames, tcp.wakesReceived(), "wake frames");
            assertTrue(!job.isAborted(), () -> "aborted before the last frame: " + job.abortReason());
            if (rejected > 0) {
                RmaException last = tcp.lastRejection();
                assertTrue(last != null && (last.errorClass() == ErrorClass.ERR_RANK
                        || last.errorClass() == ErrorClass.ERR_INTERN), "the last rejection: " + last);
            }
            finish(out);
            frames++;
            progressUntil(job::isAborted);
            RmaException why = job.abortReason();
            assertNotNull(why, "the session ended by " + end + " but the job goes on");
            ErrorClass want = end == End.ABORT || end == End.TRUNCATED || flippedToBatch ? ErrorClass.ERR_PROC_ABORTED
                    : ErrorClass.ERR_INTERN;
            assertEquals(want, why.errorClass(), end + ": " + why.getMessage());
            if (end == End.BAD_HEADER || end == End.FLIPPED_HEADER || end == End.BAD_CONTROL) {
                assertEquals(wantRejected + 1, tcp.framesRejected(),
                        end + ": the bad frame is counted: " + why.getMessage());
                assertEquals(ErrorClass.ERR_INTERN, tcp.lastRejection().errorClass(), tcp.lastRejection().getMessage());
            }
            assertNull(job.agent().lastError(), "an exception escaped into the progress agent");
        }

        /** The flipped header became an empty BATCH frame: in step, rejected, not fatal; an ABORT follows it. */
        boolean flippedToBatch;

        /** Writes the frame that ends the session. */
        void finish(OutputStream out) throws Exception {
            end = End.values()[rnd.nextInt(End.values().length)];
            ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
            switch (end) {
                case BAD_HEADER -> {
                    int what = rnd.nextInt(6);
                    int len = what == 0 ? -1 - rnd.nextInt(Integer.MAX_VALUE) : what == 1
                            ? FrameDescriptor.MAX_BODY + 1 + rnd.nextInt(1 << 20) : rnd.nextInt(64);
                    int type = what == 2 ? (rnd.nextBoolean() ? 0 : 7 + rnd.nextInt(249)) : FrameDescriptor.CREDIT;
                    int version = what == 3 ? FrameDescriptor.VERSION + 1 + rnd.nextInt(250) : FrameDescriptor.VERSION;
                    long credit = what == 4 ? -1 - rnd.nextInt(1 << 20) : what == 5
                            ? CREDITS + 1 + rnd.nextInt(1 << 20) : 0;
                    if (what >= 2) {
                        len = 0;
                    }
                    buf.putInt(len).put((byte) type).put((byte) version).putShort((short) 0).putLong(credit);
                }
                case FLIPPED_HEADER -> {
                    // a CREDIT frame whose header suffers one bit flip in its length, type or version field
                    int bit = rnd.nextInt(48);
                    buf.putInt(0).put((byte) FrameDescriptor.CREDIT).put((byte) FrameDescriptor.VERSION)
                            .putShort((short) 0).putLong(0);
                    buf.put(bit / 8, (byte) (buf.get(bit / 8) ^ (1 << (bit & 7))));
                    if (buf.get(FrameDescriptor.TYPE_OFFSET) == FrameDescriptor.BATCH) {
                        flippedToBatch = true;
                        frame(buf, FrameDescriptor.ABORT, ByteBuffer.wrap("fuzzer aborts".getBytes()), 0);
                    }
                }
                case TRUNCATED -> {
                    ByteBuffer body = ByteBuffer.allocate(PacketHeader.HEADER_LENGTH + 256)
                            .order(ByteOrder.LITTLE_ENDIAN);
                    packet(body, 1, 200, 0, 1);
                    frame(buf, FrameDescriptor.BATCH, body.flip(), 0);
                    buf.position(rnd.nextInt(buf.position())); // and the connection closes
                }
                case BAD_CONTROL -> {
                    byte[] g = new byte[rnd.nextInt(64)];
                    rnd.nextBytes(g);
                    frame(buf, FrameDescriptor.CTRL, ByteBuffer.wrap(g), 0);
                }
                default -> frame(buf, FrameDescriptor.ABORT, ByteBuffer.wrap("fuzzer aborts".getBytes()), 0);
            }
            out.write(buf.array(), 0, buf.position());
            out.flush();
            if (end == End.TRUNCATED) {
                peer.close();
            }
        }

        void progressUntil(BooleanSupplier done) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!done.getAsBoolean() && System.nanoTime() < deadline) {
                if (job.agent().tryProgress() == 0) {
                    Thread.onSpinWait();
                }
            }
        }

        void close() throws Exception {
            job.stop();
            if (tcp != null) {
                tcp.close(100);
            }
            if (peer != null) {
                peer.close();
            }
            if (listener != null) {
                listener.close();
            }
        }
    }

    /** Appends a packet of {@code payload} bytes (byte k is seq + k) from {@code src} to {@code dst}. */
    static void packet(ByteBuffer body, int seq, int payload, int src, int dst) {
        int at = body.position();
        int len = PacketHeader.HEADER_LENGTH + payload;
        body.putInt(at + PacketHeader.LENGTH_OFFSET, len)
                .put(at + PacketHeader.VERSION_OFFSET, (byte) PacketHeader.VERSION)
                .put(at + PacketHeader.TYPE_OFFSET, (byte) PacketType.PUT)
                .putInt(at + PacketHeader.WINDOW_OFFSET, WINDOW)
                .putInt(at + PacketHeader.SRC_OFFSET, src).putInt(at + PacketHeader.DST_OFFSET, dst)
                .putInt(at + PacketHeader.SEQ_OFFSET, seq);
        PatternPackets.fill(body, at, seq, len);
        body.position(at + len);
    }

    static void frame(ByteBuffer out, int type, ByteBuffer body, long credit) {
        out.putInt(body.remaining()).put((byte) type).put((byte) FrameDescriptor.VERSION).putShort((short) 0)
                .putLong(credit).put(body);
    }
}

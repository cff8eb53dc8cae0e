package io.jrma.sync;

import io.jrma.ErrorClass;
import io.jrma.core.auth.Handshake;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.RankThreads;
import io.jrma.transport.shm.RingFileDescriptor;
import io.jrma.transport.shm.ShmRingTransport;
import io.jrma.transport.tcp.FrameDescriptor;
import io.jrma.transport.tcp.TcpTransport;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntUnaryOperator;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.junit.jupiter.api.Assumptions;

/**
 * Two JVMs of one job, simulated by two jobs (JVM 0 with rank 0, JVM 1 with rank 1) in this test JVM, connected by
 * their real TCP IO agents over loopback and, if asked, by real shared-memory rings; each runs its rank with
 * {@link RankThreads} as a launched JVM does. A fuzzer in JVM 0 writes its own bytes into JVM 0's real connection
 * to JVM 1 ({@link #injectFrames}: between two of JVM 0's frames, holding the connection's write lock) or into its
 * real ring to JVM 1 ({@link #injectRecords}: holding the ring's producer lock), so JVM 1's transport, progress
 * agent and window engine receive them exactly as they would from a broken or hostile peer.
 *
 * <p>Owned by one test; {@link #close} stops everything, also after a failure.
 */
final class FuzzRig implements AutoCloseable {
    final Job[] jobs = new Job[2];
    final TcpTransport[] tcp = new TcpTransport[2];
    final ShmRingTransport[] shm = new ShmRingTransport[2];
    private final CompletableFuture<?>[] ranks = new CompletableFuture<?>[2];

    FuzzRig(boolean rings, Map<String, String> params) throws Exception {
        try {
            connect(rings, params);
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    private void connect(boolean rings, Map<String, String> params) throws Exception {
        String jobId = Handshake.newJobId();
        String secret = Handshake.newSecret();
        for (int j = 0; j < 2; j++) {
            jobs[j] = new Job(2, params, j, new int[] {0, 1});
        }
        tcp[0] = TcpTransport.listen(jobs[0], jobId, secret);
        tcp[1] = TcpTransport.listen(jobs[1], jobId, secret);
        InetSocketAddress[] eps = {tcp[0].endpoint(), tcp[1].endpoint()};
        CompletableFuture<Void> a = CompletableFuture.runAsync(() -> tcp[0].connectMesh(eps));
        tcp[1].connectMesh(eps);
        a.get(20, TimeUnit.SECONDS);
        jobs[0].addRemote(tcp[0], 1);
        jobs[1].addRemote(tcp[1], 0);
        if (rings) {
            CompletableFuture<ShmRingTransport> s0 = CompletableFuture.supplyAsync(
                    () -> ShmRingTransport.attach(jobs[0], tcp[0], tcp[0]::wakeJvm, jobId));
            shm[1] = ShmRingTransport.attach(jobs[1], tcp[1], tcp[1]::wakeJvm, jobId);
            shm[0] = s0.get(20, TimeUnit.SECONDS);
            if (shm[0] == null || shm[1] == null) {
                String why = "no shared-memory rings between the two jobs (jrma.transports="
                        + System.getProperty("jrma.transports", "unset") + ")";
                System.out.println("SKIPPED: " + why);
                Assumptions.abort(why);
            }
            jobs[0].addRemote(shm[0], 1);
            jobs[1].addRemote(shm[1], 0);
        }
    }

    /** Starts rank {@code r} (its job's progress thread with it); {@link #await} waits for it. */
    void start(int r, RankThreads.Body body, long timeoutMs) {
        ranks[r] = CompletableFuture.runAsync(() -> {
            RankThreads.Outcome o = RankThreads.run(jobs[r], new int[] {r}, body, timeoutMs, null);
            if (o.firstFailure != null) {
                throw new IllegalStateException("rank " + r + " failed: " + o.firstFailure, o.firstFailure);
            }
            if (o.timedOut) {
                throw new IllegalStateException("rank " + r + " timed out");
            }
        });
    }

    void await(long timeoutMs) throws Exception {
        for (CompletableFuture<?> f : ranks) {
            f.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
    }

    // ------------------------------------------------------------------ injection over TCP

    private Object connection;
    private AtomicBoolean writeLock;
    private Field cur;
    private SocketChannel channel;

    private void openTcpInjection() throws ReflectiveOperationException {
        if (connection != null) {
            return;
        }
        connection = ((Object[]) field(TcpTransport.class, "byJvm").get(tcp[0]))[1];
        Class<?> c = connection.getClass();
        writeLock = (AtomicBoolean) field(c, "writeLock").get(connection);
        cur = field(c, "cur");
        channel = (SocketChannel) field(c, "ch").get(connection);
    }

    /**
     * Writes {@code frames} (whole TCP frames, header and body, position to limit) into JVM 0's connection to
     * JVM 1, between two frames of JVM 0's own: waits until no frame of JVM 0 is half written, holds its write
     * lock meanwhile.
     */
    void injectFrames(ByteBuffer frames) throws Exception {
        openTcpInjection();
        while (true) {
            if (writeLock.compareAndSet(false, true)) {
                if (cur.get(connection) == null) {
                    break;
                }
                writeLock.set(false);
            }
            Thread.onSpinWait();
        }
        try {
            while (frames.hasRemaining()) {
                if (channel.write(frames) == 0) {
                    LockSupport.parkNanos(20_000); // JVM 1's progress thread reads on
                }
            }
        } finally {
            writeLock.set(false);
        }
    }

    /** Appends a BATCH frame holding {@code len} bytes of {@code body} to {@code out}. */
    static void frame(ByteBuffer out, int type, ByteBuffer body) {
        out.order(ByteOrder.LITTLE_ENDIAN).putInt(body.remaining()).put((byte) type).put((byte) FrameDescriptor.VERSION)
                .putShort((short) 0).putLong(0).put(body);
    }

    // ------------------------------------------------------------------ injection into the ring

    private RingBuffer ring;
    private ReentrantLock ringLock;

    private void openRingInjection() throws ReflectiveOperationException {
        if (ring != null) {
            return;
        }
        Object out = ((Object[]) field(ShmRingTransport.class, "outByJvm").get(shm[0]))[1];
        RingBuffer theirs = (RingBuffer) field(out.getClass(), "ring").get(out);
        ringLock = (ReentrantLock) field(out.getClass(), "lock").get(out);
        AtomicBuffer b = theirs.buffer();
        ring = new OneToOneRingBuffer(b); // the same memory, the same producer position: one producer at a time
    }

    /** Capacity of the largest record of the ring from JVM 0 to JVM 1. */
    int maxRecord() throws ReflectiveOperationException {
        openRingInjection();
        return ring.maxMsgLength();
    }

    /**
     * Writes one record of {@code type} with {@code len} bytes of {@code src} into the ring from JVM 0 to JVM 1,
     * as JVM 0's sender would (holding its lock); waits for room. Rings JVM 1's doorbell when it sleeps.
     */
    void injectRecord(int type, DirectBuffer src, int at, int len) throws Exception {
        openRingInjection();
        while (true) {
            ringLock.lock();
            boolean ok;
            try {
                ok = ring.write(type, src, at, len);
            } finally {
                ringLock.unlock();
            }
            if (ok) {
                return;
            }
            tcp[0].wakeJvm(1);
            LockSupport.parkNanos(20_000);
        }
    }

    /**
     * Writes a record of {@code len} bytes of {@code src} into the ring from JVM 0 to JVM 1 as a broken sender would:
     * claimed and filled as usual, but with {@code lengthField} (given the honest record length, header included)
     * as the length in its record header, written where the commit would write the honest one.
     */
    void injectRawRecord(DirectBuffer src, int len, IntUnaryOperator lengthField)
            throws Exception {
        openRingInjection();
        while (true) {
            ringLock.lock();
            try {
                int index = ring.tryClaim(RingFileDescriptor.MSG_PACKETS, len);
                if (index >= 0) {
                    ring.buffer().putBytes(index, src, 0, len);
                    int header = index - RecordDescriptor.HEADER_LENGTH;
                    ring.buffer().putIntOrdered(header, lengthField.applyAsInt(
                            len + RecordDescriptor.HEADER_LENGTH));
                    return;
                }
            } finally {
                ringLock.unlock();
            }
            tcp[0].wakeJvm(1);
            LockSupport.parkNanos(20_000);
        }
    }

    /** Wakes JVM 1's progress thread (the doorbell a sender rings after writing into a sleeper's ring). */
    void doorbell() {
        tcp[0].wakeJvm(1);
    }

    private static Field field(Class<?> c, String name) throws NoSuchFieldException {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }

    @Override
    public void close() {
        for (int j = 0; j < 2; j++) {
            if (jobs[j] != null) {
                jobs[j].abort(ErrorClass.ERR_PROC_ABORTED, "test over", null); // no effect after a clean end
            }
        }
        for (CompletableFuture<?> f : ranks) {
            if (f != null) { // (a rank still running after a failure ends with the abort)
                try {
                    f.get(10, TimeUnit.SECONDS);
                } catch (Exception ignored) {
                    // reported by the test already
                }
            }
        }
        for (int j = 0; j < 2; j++) {
            if (jobs[j] != null) {
                jobs[j].stop();
            }
            if (shm[j] != null) {
                shm[j].close();
            }
        }
        for (int j = 0; j < 2; j++) {
            if (tcp[j] != null) {
                tcp[j].close(200);
            }
        }
    }
}

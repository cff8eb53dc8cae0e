package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.Win;
import io.jrma.core.auth.Handshake;
import io.jrma.core.config.Params;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzes the launcher's rendezvous, where the JVMs of a job join jrmarun (issue 34): bad clients of every kind
 * (random bytes, truncated, oversized and bit-flipped hellos, a wrong secret, another job's id, an honest client's
 * messages replayed, silent connections held open) against the real acceptor ({@link RendezvousJoins}) on a real
 * socket, interleaved with honest clients that must all be admitted, and none of them delayed by the silent ones; then
 * a real job over 2 JVMs started while a fuzzer hammers its rendezvous.
 *
 * <p>Quick mode (the default, in CI): {@value #QUICK} bad clients. Long mode: {@code -Djrma.fuzz.rendezvous=1000000};
 * {@code -Djrma.fuzz.seed=N} repeats a campaign.
 */
class RendezvousFuzzTest {
    private static final int QUICK = 3_000;
    /** Every how many bad clients an honest one joins. */
    private static final int HONEST_EVERY = 50;
    /** Connections held open without a word while the campaign runs: each holds a handshake thread. */
    private static final int SILENT_HELD = 8;
    /** The acceptor's handshake timeout in the campaign: the held connections are refused after it. */
    private static final int TIMEOUT_MS = 3_000;
    /** Bytes of a client's hello: magic, version, job id (16), client id, nonce (16). */
    private static final int HELLO = 4 + 4 + 16 + 4 + 16;
    private static final int MAGIC = 0x4a524d41;
    private static final int KINDS = 9;
    private static final int OVERSIZED = 1 << 20;
    /** Bytes of the server's challenge: magic, nonce (16), proof (32). */
    private static final int CHALLENGE = 4 + 16 + 32;
    private static final int JOB_TIMEOUT_S = 120;
    /** Silent connections held open at once: more than the rendezvous runs handshakes for. */
    private static final int SILENT_FLOOD = 2 * RendezvousJoins.MAX_HANDSHAKES + 8;
    /** Honest clients that join after the silent flood. */
    private static final int HONEST_AFTER_FLOOD = 5;

    @AfterEach
    void unhook() {
        RendezvousJoins.openedForTests = null;
    }

    @Test
    @Timeout(3_600)
    void theAcceptorRefusesEveryBadClientAndAdmitsEveryHonestOneAtOnce() throws Exception {
        int count = Integer.getInteger("jrma.fuzz.rendezvous", QUICK);
        long seed = Long.getLong("jrma.fuzz.seed", 34);
        System.out.println("rendezvous fuzz: " + count + " bad clients, seed " + seed + " (-Djrma.fuzz.seed=" + seed
                + ")");
        Random random = new Random(seed);
        String job = Handshake.newJobId();
        String secret = Handshake.newSecret();
        long t0 = System.nanoTime();
        List<Socket> held = new ArrayList<>();
        int[] perKind = new int[KINDS];
        int honest = 0;
        long slowestHonestMs = 0;
        try (RendezvousJoins rv = new RendezvousJoins(InetAddress.getLoopbackAddress(), job, secret, TIMEOUT_MS)) {
            for (int i = 0; i < SILENT_HELD; i++) {
                held.add(new Socket(InetAddress.getLoopbackAddress(), rv.port())); // says nothing, stays open
            }
            byte[] recorded = recordHonest(rv, job, secret);
            honest++;
            for (int i = 0; i < count; i++) {
                int kind = random.nextInt(KINDS);
                perKind[kind]++;
                badClient(kind, rv.port(), job, secret, recorded, random);
                if (i % HONEST_EVERY == HONEST_EVERY - 1) {
                    long h0 = System.nanoTime();
                    int id = honest++;
                    joinHonestly(rv, job, secret, id);
                    slowestHonestMs = Math.max(slowestHonestMs, (System.nanoTime() - h0) / 1_000_000);
                }
            }
            int bad = count + SILENT_HELD;
            int accepted = bad + honest;
            long until = System.currentTimeMillis() + TIMEOUT_MS * 4L + 30_000;
            while ((rv.accepted() < accepted || rv.refused() < bad) && System.currentTimeMillis() < until) {
                Thread.sleep(20); // the last handshakes end; the held ones at their timeout
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.println("rendezvous fuzz: " + count + " bad clients (per kind " + Arrays.toString(perKind)
                    + ") + " + SILENT_HELD + " silent ones refused, " + honest + " honest ones admitted"
                    + " (slowest " + slowestHonestMs + " ms), in " + ms + " ms; last refusal: " + rv.lastRefusal());
            assertEquals(accepted, rv.accepted(), "connections accepted");
            assertEquals(bad, rv.refused(), "every bad client refused exactly once, and no honest one");
            assertTrue(slowestHonestMs < TIMEOUT_MS, "an honest client waited " + slowestHonestMs
                    + " ms: queued behind a silent connection");
            assertNotNull(rv.lastRefusal());
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    /** A real job over 2 JVMs starts and runs while a fuzzer sends bad clients to its rendezvous. */
    @Test
    @Timeout(300)
    void aJobStartsAndRunsWhileStrangersHammerItsRendezvous() throws Exception {
        AtomicReference<RendezvousJoins> opened = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger sent = new AtomicInteger();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        RendezvousJoins.openedForTests = rv -> {
            if (opened.compareAndSet(null, rv)) {
                Thread f = new Thread(() -> hammer(rv, stop, sent), "rendezvous-fuzzer");
                f.setUncaughtExceptionHandler((t, e) -> failed.set(e));
                f.setDaemon(true);
                f.start();
            }
        };
        try {
            Jrma.job(4).jvms(2).param(Params.JVMS_REUSE.name(), "false").timeout(Duration.ofSeconds(JOB_TIMEOUT_S))
                    .run(world -> {
                        int me = world.rank();
                        int n = world.size();
                        try (Win w = Win.allocate(world, Long.BYTES * n, Long.BYTES, null)) {
                            w.fence(0);
                            w.put(new long[] {100 + me}, 1, Datatype.LONG, (me + 1) % n, me);
                            w.fence(0);
                            ByteBuffer b = w.buffer();
                            int left = (me + n - 1) % n;
                            if (b.getLong(Long.BYTES * left) != 100 + left) {
                                throw new IllegalStateException("rank " + me + " got " + b.getLong(Long.BYTES * left));
                            }
                        }
                    });
        } finally {
            stop.set(true);
        }
        RendezvousJoins rv = opened.get();
        assertNotNull(rv, "the job opened no rendezvous");
        System.out.println("rendezvous fuzz during a job's start-up: " + sent.get() + " bad clients sent, "
                + rv.refused() + " refused by the rendezvous before it closed; the job ran and checked its data");
        assertEquals(null, failed.get(), "the fuzzer found a bad client admitted or answered");
        assertTrue(sent.get() > 0, "the fuzzer sent nothing while the JVMs started");
        assertTrue(rv.refused() <= rv.accepted(), "more refusals than connections");
    }

    /**
     * More silent connections than {@link RendezvousJoins#MAX_HANDSHAKES} held open do not keep an honest client out:
     * each newcomer evicts the handshake open longest (a silent one), so every honest client is admitted at once.
     * (Before, the connections beyond the limit were refused, the honest ones among them.)
     */
    @Test
    @Timeout(120)
    void silentConnectionsBeyondTheLimitDoNotKeepAnHonestClientOut() throws Exception {
        String job = Handshake.newJobId();
        String secret = Handshake.newSecret();
        List<Socket> held = new ArrayList<>();
        try (RendezvousJoins rv = new RendezvousJoins(InetAddress.getLoopbackAddress(), job, secret, TIMEOUT_MS * 10)) {
            holdSilent(rv, SILENT_FLOOD, held);
            for (int id = 0; id < HONEST_AFTER_FLOOD; id++) {
                long h0 = System.nanoTime();
                joinHonestly(rv, job, secret, id);
                long ms = (System.nanoTime() - h0) / 1_000_000;
                assertTrue(ms < TIMEOUT_MS, "honest client " + id + " waited " + ms + " ms behind silent ones");
            }
            System.out.println("rendezvous: " + SILENT_FLOOD + " silent connections held, " + HONEST_AFTER_FLOOD
                    + " honest clients admitted; refused " + rv.refused() + ", the last: " + rv.lastRefusal());
            assertEquals(SILENT_FLOOD + HONEST_AFTER_FLOOD, rv.accepted(), "connections accepted");
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    /** A real job over 2 JVMs starts and runs while more silent connections than the limit hold its rendezvous. */
    @Test
    @Timeout(300)
    void aJobStartsWhileSilentConnectionsBeyondTheLimitHoldItsRendezvous() throws Exception {
        List<Socket> held = new ArrayList<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        AtomicReference<RendezvousJoins> opened = new AtomicReference<>();
        RendezvousJoins.openedForTests = rv -> {
            if (opened.compareAndSet(null, rv)) {
                try {
                    holdSilent(rv, SILENT_FLOOD, held); // before any JVM is started
                } catch (Exception e) {
                    failed.set(e);
                }
            }
        };
        try {
            Jrma.job(2).jvms(2).param(Params.JVMS_REUSE.name(), "false").timeout(Duration.ofSeconds(JOB_TIMEOUT_S))
                    .run(world -> {
                        try (Win w = Win.allocate(world, Long.BYTES, Long.BYTES, null)) {
                            w.fence(0);
                            w.put(new long[] {7 + world.rank()}, 1, Datatype.LONG, 1 - world.rank(), 0);
                            w.fence(0);
                            if (w.buffer().getLong(0) != 8 - world.rank()) {
                                throw new IllegalStateException("rank " + world.rank() + " got "
                                        + w.buffer().getLong(0));
                            }
                        }
                    });
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
        assertEquals(null, failed.get(), "holding the silent connections failed");
        RendezvousJoins rv = opened.get();
        assertNotNull(rv, "the job opened no rendezvous");
        System.out.println("rendezvous: a job of 2 JVMs started past " + SILENT_FLOOD + " silent connections; "
                + rv.refused() + " refused, the last: " + rv.lastRefusal());
    }

    /** Opens {@code n} connections that never say a word and waits until the rendezvous has accepted them all. */
    private static void holdSilent(RendezvousJoins rv, int n, List<Socket> held) throws Exception {
        int before = rv.accepted();
        for (int i = 0; i < n; i++) {
            held.add(new Socket(InetAddress.getLoopbackAddress(), rv.port()));
        }
        long until = System.currentTimeMillis() + TIMEOUT_MS * 10L;
        while (rv.accepted() < before + n && System.currentTimeMillis() < until) {
            Thread.sleep(5);
        }
        assertEquals(before + n, rv.accepted(), "silent connections accepted");
    }

    /** Sends bad clients of random kinds until told to stop or the rendezvous is closed. */
    private static void hammer(RendezvousJoins rv, AtomicBoolean stop, AtomicInteger sent) {
        Random random = new Random(34);
        String otherJob = Handshake.newJobId();
        String otherSecret = Handshake.newSecret();
        byte[] recorded = new byte[HELLO + 32];
        random.nextBytes(recorded);
        while (!stop.get()) {
            try {
                badClient(random.nextInt(KINDS), rv.port(), otherJob, otherSecret, recorded, random);
                sent.incrementAndGet();
            } catch (IOException e) {
                return; // the rendezvous closed: every JVM joined
            }
        }
    }

    /** An honest client joins as {@code id} and comes out of the acceptor; returns what it sent (for replays). */
    private static byte[] recordHonest(RendezvousJoins rv, String job, String secret) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), rv.port())) {
            Recording rec = new Recording(s.getOutputStream());
            Socket spy = new SpySocket(s, rec);
            Handshake.client(spy, job, secret, 0, TIMEOUT_MS);
            RendezvousJoins.Joined j = rv.next(TIMEOUT_MS);
            assertNotNull(j, "the honest client did not come out of the acceptor");
            assertEquals(0, j.jvm());
            j.socket().close();
            return rec.bytes();
        }
    }

    private static void joinHonestly(RendezvousJoins rv, String job, String secret, int id) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), rv.port())) {
            Handshake.client(s, job, secret, id, TIMEOUT_MS);
            RendezvousJoins.Joined j = rv.next(TIMEOUT_MS);
            assertNotNull(j, "honest client " + id + " did not come out of the acceptor");
            assertEquals(id, j.jvm());
            j.socket().close();
        }
    }

    /**
     * One bad client of {@code kind}: it connects, misbehaves, and closes (so the acceptor refuses it at once instead
     * of at its timeout).
     */
    static void badClient(int kind, int port, String job, String secret, byte[] recorded, Random random)
            throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(TIMEOUT_MS * 2);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            byte[] hello = hello(job, random.nextInt(), random);
            switch (kind) {
                case 0 -> out.write(randomBytes(random, 1 + random.nextInt(256))); // noise
                case 1 -> out.write(hello, 0, random.nextInt(HELLO)); // truncated hello
                case 2 -> out.write(randomBytes(random, OVERSIZED / 16 + random.nextInt(OVERSIZED))); // oversized
                case 3 -> { // a hello with 1-8 flipped bits, then a random proof if the server answers
                    flipBits(hello, random);
                    out.write(hello);
                    answerWithGarbage(in, out, random);
                }
                case 4 -> { // the right job, a wrong secret: a full exchange with a wrong proof
                    try {
                        Handshake.client(s, job, Handshake.newSecret(), random.nextInt(), TIMEOUT_MS);
                        throw new AssertionError("a wrong secret was admitted");
                    } catch (Handshake.Refused expected) {
                        // the server's proof does not verify with our secret; we give up as a client would
                    }
                }
                case 5 -> { // another job's id, with the right secret
                    try {
                        Handshake.client(s, Handshake.newJobId(), secret, random.nextInt(), TIMEOUT_MS);
                        throw new AssertionError("a client of another job was admitted");
                    } catch (Handshake.Refused expected) {
                        // closed by the server
                    }
                }
                case 6 -> { // an honest client's hello and proof replayed: the server's fresh nonce defeats it
                    out.write(recorded);
                    out.flush();
                    assertClosedAfterChallenge(in);
                }
                case 7 -> { // a wrong version, the rest honest
                    ByteBuffer.wrap(hello).putInt(4, 1 + random.nextInt(1 << 16));
                    out.write(hello);
                }
                default -> { // a valid hello whose proof is cut short
                    out.write(hello);
                    out.flush();
                    if (readFully(in, new byte[CHALLENGE])) {
                        out.write(randomBytes(random, random.nextInt(32)));
                    }
                }
            }
            out.flush();
        } catch (SocketException e) {
            if (!isResetByServer(e)) {
                throw e;
            }
            // the server closed the connection while we were still writing: it refused us, as it should
        }
    }

    private static boolean isResetByServer(SocketException e) {
        String m = String.valueOf(e.getMessage());
        return m.contains("reset") || m.contains("Broken pipe") || m.contains("closed");
    }

    private static byte[] hello(String job, int id, Random random) {
        ByteBuffer b = ByteBuffer.allocate(HELLO);
        b.putInt(MAGIC).putInt(1).put(HexFormat.of().parseHex(job)).putInt(id).put(randomBytes(random, 16));
        return b.array();
    }

    private static void flipBits(byte[] b, Random random) {
        int flips = 1 + random.nextInt(8);
        for (int k = 0; k < flips; k++) {
            int bit = random.nextInt(b.length * 8);
            b[bit / 8] ^= (byte) (1 << (bit % 8));
        }
    }

    private static void answerWithGarbage(InputStream in, OutputStream out, Random random) throws IOException {
        out.flush();
        if (readFully(in, new byte[CHALLENGE])) {
            out.write(randomBytes(random, 32));
            out.flush();
            assertClosedUnanswered(in);
        }
    }

    /** Reads {@code b} fully; false if the server closed first. */
    private static boolean readFully(InputStream in, byte[] b) throws IOException {
        int off = 0;
        while (off < b.length) {
            int r = in.read(b, off, b.length - off);
            if (r < 0) {
                return false;
            }
            off += r;
        }
        return true;
    }

    /** After a replayed hello and proof: the server sends its challenge, then closes without accepting. */
    private static void assertClosedAfterChallenge(InputStream in) throws IOException {
        if (readFully(in, new byte[CHALLENGE])) {
            assertClosedUnanswered(in);
        }
    }

    /** Reads until the server closes: any byte now would be the acceptance of a client without the secret. */
    private static void assertClosedUnanswered(InputStream in) throws IOException {
        int b = in.read();
        if (b >= 0) {
            throw new AssertionError("the server answered a wrong proof with " + b + " instead of closing");
        }
    }

    private static byte[] randomBytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    /** An output stream that keeps a copy of what an honest client sends. */
    private static final class Recording extends OutputStream {
        private final OutputStream to;
        private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

        Recording(OutputStream to) {
            this.to = to;
        }

        @Override
        public void write(int b) throws IOException {
            copy.write(b);
            to.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            copy.write(b, off, len);
            to.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            to.flush();
        }

        byte[] bytes() {
            return copy.toByteArray();
        }
    }

    /** A socket whose output is recorded; everything else is the real connection's. */
    private static final class SpySocket extends Socket {
        private final Socket real;
        private final Recording out;

        SpySocket(Socket real, Recording out) {
            this.real = real;
            this.out = out;
        }

        @Override
        public OutputStream getOutputStream() {
            return out;
        }

        @Override
        public InputStream getInputStream() throws IOException {
            return real.getInputStream();
        }

        @Override
        public void setSoTimeout(int ms) throws SocketException {
            real.setSoTimeout(ms);
        }
    }
}

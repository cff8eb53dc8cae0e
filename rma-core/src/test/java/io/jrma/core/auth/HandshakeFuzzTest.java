package io.jrma.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Fuzz campaign against the job-secret handshake, over real loopback sockets, both ends: a server (as an IO
 * agent's acceptor) is sent random bytes, truncated and bit-flipped client messages, a wrong secret, another
 * job's id, and the recorded messages of an accepted client replayed; a client is answered by a fake server with
 * the same kinds of garbage. Every one must be refused with {@link Handshake.Refused} (carrying
 * {@link ErrorClass#ERR_ACCESS}) within the timeout, never admitted and never failing with another exception;
 * honest clients interleaved with the garbage are all admitted.
 *
 * <p>{@code jrma.fuzz.handshakes} inputs per side (1,500 by default); seed {@code jrma.fuzz.seed} (34), printed.
 */
class HandshakeFuzzTest {
    static final long COUNT = Long.getLong("jrma.fuzz.handshakes", 1_500);
    static final long SEED = Long.getLong("jrma.fuzz.seed", 34);
    private static final int TIMEOUT_MS = 2_000;

    enum Kind { RANDOM, TRUNCATED, FLIPPED, WRONG_SECRET, WRONG_JOB, REPLAYED, HONEST }

    private final String job = Handshake.newJobId();
    private final String secret = Handshake.newSecret();

    /** What a client sent, both messages, as recorded by the test. */
    private record Recording(byte[] hello, byte[] proof) {
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // the long mode; the quick mode takes seconds
    void theServerRefusesEveryBadClientAndAdmitsEveryHonestOne() throws Exception {
        System.out.println("HandshakeFuzzTest server side: seed " + SEED + ", " + COUNT + " clients");
        Random rnd = new Random(SEED);
        AtomicLong admitted = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        List<Throwable> surprises = new ArrayList<>();
        Map<Kind, Long> sent = new EnumMap<>(Kind.class);
        try (ServerSocket server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> acceptor = CompletableFuture.runAsync(() -> {
                for (long i = 0; i < COUNT; i++) {
                    try (Socket s = server.accept()) {
                        Handshake.server(s, job, secret, TIMEOUT_MS);
                        admitted.incrementAndGet();
                        s.getOutputStream().write(1); // the test client learns the outcome before the next one
                    } catch (Handshake.Refused e) {
                        assertEquals(ErrorClass.ERR_ACCESS, e.errorClass(), e.getMessage());
                        refused.incrementAndGet();
                    } catch (Throwable t) {
                        synchronized (surprises) {
                            surprises.add(t);
                        }
                    }
                }
            });
            Recording honest = null;
            long t0 = System.nanoTime();
            for (long i = 0; i < COUNT; i++) {
                Kind k = i % 10 == 0 ? Kind.HONEST : Kind.values()[rnd.nextInt(Kind.values().length - 1)];
                if (k == Kind.REPLAYED && honest == null) {
                    k = Kind.HONEST;
                }
                sent.merge(k, 1L, Long::sum);
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                    s.setSoTimeout(TIMEOUT_MS * 2);
                    if (k == Kind.HONEST) {
                        honest = honestClient(s, rnd);
                    } else {
                        badClient(s, k, rnd, honest);
                    }
                }
            }
            acceptor.get(60, TimeUnit.SECONDS);
            double secs = (System.nanoTime() - t0) / 1e9;
            System.out.printf("HandshakeFuzzTest server side: %s in %.1f s: %d admitted, %d refused%n", sent, secs,
                    admitted.get(), refused.get());
        }
        assertEquals(List.of(), surprises, "the server failed otherwise than by refusing");
        assertEquals((long) sent.get(Kind.HONEST), admitted.get(), "honest clients admitted (and nobody else)");
        assertEquals(COUNT - sent.get(Kind.HONEST), refused.get(), "bad clients refused");
    }

    /** Runs the client side honestly (through {@link Handshake#client}) while recording what it sends. */
    private Recording honestClient(Socket s, Random rnd) throws IOException {
        RecordingSocket r = new RecordingSocket(s);
        Handshake.client(r, job, secret, rnd.nextInt(8), TIMEOUT_MS);
        assertEquals(1, s.getInputStream().read(), "the test server's admission byte");
        byte[] all = r.sent.toByteArray();
        byte[] hello = Arrays.copyOf(all, 44);
        byte[] proof = Arrays.copyOfRange(all, 44, all.length);
        return new Recording(hello, proof);
    }

    private void badClient(Socket s, Kind k, Random rnd, Recording honest) throws IOException {
        OutputStream out = s.getOutputStream();
        InputStream in = s.getInputStream();
        switch (k) {
            case RANDOM -> out.write(bytes(rnd, rnd.nextInt(120)));
            case TRUNCATED -> {
                byte[] hello = hello(job, rnd.nextInt(8), bytes(rnd, 16));
                out.write(hello, 0, rnd.nextInt(hello.length)); // and close: the rest never comes
            }
            case FLIPPED -> {
                // an honest client whose messages suffer 1..4 bit flips
                byte[] c = bytes(rnd, 16);
                int id = rnd.nextInt(8);
                byte[] hello = hello(job, id, c);
                boolean flipHello = rnd.nextBoolean();
                if (flipHello) {
                    flip(hello, rnd);
                }
                out.write(hello);
                byte[] sn = readServer(in, rnd);
                if (sn != null) {
                    byte[] proof = Handshake.mac(secret, "client", HexFormat.of().parseHex(job), sn, c, id);
                    if (!flipHello) {
                        flip(proof, rnd);
                    }
                    out.write(proof);
                }
            }
            case WRONG_SECRET, WRONG_JOB -> {
                String theJob = k == Kind.WRONG_JOB ? Handshake.newJobId() : job;
                String theSecret = k == Kind.WRONG_SECRET ? Handshake.newSecret() : secret;
                byte[] c = bytes(rnd, 16);
                int id = rnd.nextInt(8);
                out.write(hello(theJob, id, c));
                byte[] sn = readServer(in, rnd);
                if (sn != null) {
                    out.write(Handshake.mac(theSecret, "client", HexFormat.of().parseHex(theJob), sn, c, id));
                }
            }
            case REPLAYED -> {
                // an eavesdropper replays what an accepted client sent: the server's fresh nonce makes the proof stale
                out.write(honest.hello());
                readServer(in, rnd);
                out.write(honest.proof());
            }
            default -> throw new IllegalArgumentException(k.name());
        }
        out.flush();
        s.shutdownOutput();
        try {
            int b = in.read();
            assertTrue(b == -1, "a bad client (" + k + ") got an answer byte " + b);
        } catch (IOException reset) {
            // refused with a reset: as good as closed
        }
    }

    /** Reads the server's challenge; returns its nonce, or null when the server already hung up. */
    private static byte[] readServer(InputStream in, Random rnd) {
        try {
            DataInputStream d = new DataInputStream(in);
            d.readInt();
            byte[] sn = new byte[16];
            d.readFully(sn);
            d.readFully(new byte[32]);
            return sn;
        } catch (IOException e) {
            return null;
        }
    }

    static byte[] hello(String jobHex, int id, byte[] nonce) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        d.writeInt(0x4a524d41);
        d.writeInt(1);
        d.write(HexFormat.of().parseHex(jobHex));
        d.writeInt(id);
        d.write(nonce);
        return b.toByteArray();
    }

    static byte[] bytes(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    /** Flips 1..4 distinct bits (the same bit twice would give the honest message back). */
    static void flip(byte[] b, Random rnd) {
        int flips = 1 + rnd.nextInt(4);
        Set<Integer> bits = new HashSet<>();
        while (bits.size() < flips) {
            bits.add(rnd.nextInt(b.length * 8));
        }
        for (int bit : bits) {
            b[bit / 8] ^= (byte) (1 << (bit & 7));
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // the long mode; the quick mode takes seconds
    void theClientRefusesEveryServerThatCannotProveTheSecret() throws Exception {
        System.out.println("HandshakeFuzzTest client side: seed " + SEED + ", " + COUNT + " servers");
        Random rnd = new Random(SEED + 1);
        long refused = 0;
        long t0 = System.nanoTime();
        try (ServerSocket server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
            for (long i = 0; i < COUNT; i++) {
                int kind = rnd.nextInt(5);
                CompletableFuture<Void> fake = CompletableFuture.runAsync(() -> {
                    try (Socket s = server.accept()) {
                        fakeServer(s, kind, rnd);
                    } catch (IOException ignored) {
                        // the client hung up first
                    }
                });
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                    Handshake.client(s, job, secret, 1, TIMEOUT_MS);
                    throw new AssertionError("a fake server (kind " + kind + ") was accepted");
                } catch (Handshake.Refused e) {
                    assertEquals(ErrorClass.ERR_ACCESS, e.errorClass(), e.getMessage());
                    refused++;
                }
                fake.get(10, TimeUnit.SECONDS);
            }
        }
        System.out.printf("HandshakeFuzzTest client side: %d fake servers refused in %.1f s%n", refused,
                (System.nanoTime() - t0) / 1e9);
        assertEquals(COUNT, refused);
    }

    /** 0: random bytes; 1: a truncated challenge; 2: a wrong secret's proof; 3: a flipped proof; 4: a bad verdict. */
    private void fakeServer(Socket s, int kind, Random rnd) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] hello = new byte[44];
        in.readFully(hello);
        byte[] c = Arrays.copyOfRange(hello, 28, 44);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        byte[] sn;
        synchronized (rnd) {
            sn = bytes(rnd, 16);
        }
        byte[] jobBytes = HexFormat.of().parseHex(job);
        switch (kind) {
            case 0 -> {
                synchronized (rnd) {
                    out.write(bytes(rnd, rnd.nextInt(100)));
                }
            }
            case 1 -> {
                out.writeInt(0x4a524d41);
                out.write(sn, 0, 7);
            }
            case 2, 3 -> {
                byte[] proof = Handshake.mac(kind == 2 ? Handshake.newSecret() : secret, "server",
                        jobBytes, c, sn, null);
                if (kind == 3) {
                    synchronized (rnd) {
                        flip(proof, rnd);
                    }
                }
                out.writeInt(0x4a524d41);
                out.write(sn);
                out.write(proof);
            }
            default -> {
                // a correct proof, then anything but the acceptance byte
                out.writeInt(0x4a524d41);
                out.write(sn);
                out.write(Handshake.mac(secret, "server", jobBytes, c, sn, null));
                out.flush();
                in.readFully(new byte[32]);
                out.write(2 + (kind & 0x7f));
            }
        }
        out.flush();
        s.shutdownOutput();
    }

    /** A socket that keeps a copy of everything written to it. */
    private static final class RecordingSocket extends Socket {
        final ByteArrayOutputStream sent = new ByteArrayOutputStream();
        private final Socket s;

        RecordingSocket(Socket s) {
            this.s = s;
        }

        @Override
        public InputStream getInputStream() throws IOException {
            return s.getInputStream();
        }

        @Override
        public OutputStream getOutputStream() throws IOException {
            OutputStream o = s.getOutputStream();
            return new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    sent.write(b);
                    o.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    sent.write(b, off, len);
                    o.write(b, off, len);
                }

                @Override
                public void flush() throws IOException {
                    o.flush();
                }
            };
        }

        @Override
        public void setSoTimeout(int timeout) throws SocketException {
            s.setSoTimeout(timeout);
        }
    }
}

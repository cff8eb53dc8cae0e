package io.jrma.core.auth;

import io.jrma.ErrorClass;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The mutual proof of the per-job secret that opens every connection of a job (between JVMs, and between a
 * JVM and its launcher). Neither side ever sends the secret: each proves it holds it with an HMAC-SHA256
 * over both sides' fresh nonces, with a different label per direction, so a recorded exchange cannot be
 * replayed and an answer cannot be reflected.
 *
 * <pre>
 *  client -> server   "JRMA" | version | job id (16) | client id (int) | nonce C (16)
 *  server -> client   "JRMA" | nonce S (16) | HMAC(secret, "server" | job | C | S)
 *  client -> server   HMAC(secret, "client" | job | S | C | client id)
 *  server -> client   1 (accepted)   -- or the connection is closed
 * </pre>
 *
 * Both sides read with a timeout, so a silent or slow client cannot hold an acceptor.
 *
 * <p>Stateless; any thread.
 */
public final class Handshake {
    private static final int MAGIC = 0x4a524d41; // "JRMA"
    private static final int VERSION = 1;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Handshake() {
    }

    /** A fresh random per-job secret (32 bytes), as hex. */
    public static String newSecret() {
        byte[] s = new byte[32];
        RANDOM.nextBytes(s);
        return HexFormat.of().formatHex(s);
    }

    /** A fresh random job id (16 bytes), as hex. */
    public static String newJobId() {
        byte[] s = new byte[16];
        RANDOM.nextBytes(s);
        return HexFormat.of().formatHex(s);
    }

    /**
     * The handshake failed: wrong secret, wrong job, wrong protocol, a peer that hung up halfway, or timeout. Its
     * MPI error class is {@link ErrorClass#ERR_ACCESS}: the other side was not admitted.
     */
    public static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        Refused(String m) {
            super(m);
        }

        /** {@link ErrorClass#ERR_ACCESS}, always. */
        public ErrorClass errorClass() {
            return ErrorClass.ERR_ACCESS;
        }
    }

    /** Client side; returns normally when the server accepted. */
    public static void client(Socket s, String jobIdHex, String secretHex, int clientId,
            int timeoutMs) throws IOException {
        byte[] job = HexFormat.of().parseHex(jobIdHex);
        s.setSoTimeout(timeoutMs);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] c = nonce();
        try {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.write(job);
            out.writeInt(clientId);
            out.write(c);
            out.flush();
            if (in.readInt() != MAGIC) {
                throw new Refused("the server does not speak the jrma protocol");
            }
            byte[] sn = new byte[16];
            in.readFully(sn);
            byte[] proof = new byte[32];
            in.readFully(proof);
            if (!MessageDigest.isEqual(proof, mac(secretHex, "server", job, c, sn, null))) {
                throw new Refused("the server could not prove the job secret");
            }
            out.write(mac(secretHex, "client", job, sn, c, clientId));
            out.flush();
            int ok = in.read();
            if (ok != 1) {
                throw new Refused("the server refused the handshake");
            }
        } catch (SocketTimeoutException e) {
            throw new Refused("the server did not answer the handshake within " + timeoutMs + " ms");
        } catch (EOFException e) {
            throw new Refused("the server closed the connection during the handshake");
        } catch (SocketException e) {
            throw new Refused("the connection failed during the handshake: " + e.getMessage());
        }
        s.setSoTimeout(0);
    }

    /** Server side; returns the client's id when it proved the secret, else throws {@link Refused}. */
    public static int server(Socket s, String jobIdHex, String secretHex, int timeoutMs) throws IOException {
        byte[] job = HexFormat.of().parseHex(jobIdHex);
        s.setSoTimeout(timeoutMs);
        DataInputStream in = new DataInputStream(s.getInputStream());
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        try {
            if (in.readInt() != MAGIC || in.readInt() != VERSION) {
                throw new Refused("not a jrma client (bad magic or version)");
            }
            byte[] theirJob = new byte[16];
            in.readFully(theirJob);
            int clientId = in.readInt();
            byte[] c = new byte[16];
            in.readFully(c);
            if (!MessageDigest.isEqual(job, theirJob)) {
                throw new Refused("client of another job");
            }
            byte[] sn = nonce();
            out.writeInt(MAGIC);
            out.write(sn);
            out.write(mac(secretHex, "server", job, c, sn, null));
            out.flush();
            byte[] proof = new byte[32];
            in.readFully(proof);
            if (!MessageDigest.isEqual(proof, mac(secretHex, "client", job, sn, c, clientId))) {
                throw new Refused("client " + clientId + " could not prove the job secret");
            }
            out.write(1);
            out.flush();
            s.setSoTimeout(0);
            return clientId;
        } catch (SocketTimeoutException e) {
            throw new Refused("handshake timed out after " + timeoutMs + " ms");
        } catch (EOFException e) {
            throw new Refused("client closed the connection during the handshake");
        } catch (SocketException e) {
            throw new Refused("the connection failed during the handshake: " + e.getMessage());
        }
    }

    private static byte[] nonce() {
        byte[] n = new byte[16];
        RANDOM.nextBytes(n);
        return n;
    }

    /** HMAC-SHA256 over the label and the fields (package-private for the fuzz test, which forges proofs). */
    static byte[] mac(String secretHex, String label, byte[] job, byte[] a, byte[] b, Integer id) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(HexFormat.of().parseHex(secretHex), "HmacSHA256"));
            m.update(label.getBytes(StandardCharsets.US_ASCII));
            m.update(job);
            m.update(a);
            m.update(b);
            if (id != null) {
                m.update(new byte[] {(byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8), (byte) (int) id});
            }
            return m.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}

package io.jrma.launcher;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * One connection of {@code srun --mpi=none}'s rendezvous ({@link SlurmRendezvous}) between rank 0 and another rank,
 * after the handshake, with its streams (kept: a buffered stream may have read ahead), and the one message it
 * carries: a map of keys to values.
 *
 * <pre>
 *  message:  int n, n x (key, value); a string is an int length and its UTF-8 bytes
 * </pre>
 *
 * <p>Used by one thread at a time (the rank's).
 */
final class SlurmLink {
    /** The most entries of a message, and the longest string in bytes: more is a corrupt message. */
    private static final int MAX_STRING_BYTES = 1 << 20;

    private static final long NS_PER_MS = 1_000_000;

    final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    SlurmLink(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    /** Sends {@code m}. */
    void writeMap(Map<String, String> m) throws IOException {
        out.writeInt(m.size());
        for (Map.Entry<String, String> e : m.entrySet()) {
            writeString(out, e.getKey());
            writeString(out, e.getValue());
        }
        out.flush();
    }

    /**
     * Receives a map, waiting until {@code deadlineNs} ({@link System#nanoTime}).
     *
     * <p>A {@code SocketTimeoutException} when the deadline passes first.
     */
    Map<String, String> readMap(long deadlineNs) throws IOException {
        socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE,
                (deadlineNs - System.nanoTime()) / NS_PER_MS)));
        int n = in.readInt();
        if (n < 0 || n > MAX_STRING_BYTES) {
            throw new IOException("a corrupt message (" + n + " entries)");
        }
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < n; i++) {
            m.put(readString(in), readString(in));
        }
        socket.setSoTimeout(0);
        return m;
    }

    private static void writeString(DataOutputStream out, String v) throws IOException {
        byte[] b = v.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInputStream in) throws IOException {
        int len = in.readInt();
        if (len < 0 || len > MAX_STRING_BYTES) {
            throw new IOException("a corrupt message (a string of " + len + " bytes)");
        }
        byte[] b = new byte[len];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}

package io.jrma.launcher;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.util.Map;

/**
 * Messages between a launcher and the JVMs of its job, over one authenticated TCP connection per JVM
 * (opened with the {@link io.jrma.core.auth.Handshake}). Each message is {@code byte type, int length, body}.
 *
 * <pre>
 *  launcher -> JVM : SPEC (the job, with a fresh secret for its mesh), ENDPOINTS (every JVM's IO agent
 *                    address), GO, ABORT (reason), END
 *  JVM -> launcher : ENDPOINT (host, port), READY (mesh connected), RANK_DONE (rank, code, failure), ABORT,
 *                    IDLE (a pooled JVM is ready for the next SPEC), EXITING (the JVM runs its shutdown hooks:
 *                    System.exit or a termination signal, not the launcher's teardown)
 *  both ways       : HEARTBEAT (in a job across hosts, once the job runs: silence means a lost host or link)
 * </pre>
 */
final class Rendezvous {
    static final int SPEC = 1;
    static final int ENDPOINT = 2;
    static final int ENDPOINTS = 3;
    static final int READY = 4;
    static final int GO = 5;
    static final int RANK_DONE = 6;
    static final int ABORT = 7;
    static final int END = 8;
    /** JVM -> launcher: the job is over here and this JVM can take another (pooled JVMs only). */
    static final int IDLE = 9;
    /**
     * JVM -> launcher: the JVM is exiting on its own (a rank called System.exit, or a signal ran the shutdown
     * hooks) while its ranks were running. Sent before the process dies, so before its peers can report the
     * lost connection: the launcher then knows the root cause whatever order it reads the reports in.
     */
    static final int EXITING = 10;
    /** Both ways, in a job across hosts: still here (the only sign of life over a link that went down is silence). */
    static final int HEARTBEAT = 11;
    static final int MAX_BODY = 64 << 20;

    private Rendezvous() {
    }

    /**
     * The job as a JVM needs to know it. {@code body} (a serialized rank body) or {@code mainClass} is set.
     * {@code acrossHosts}: some JVMs run on other hosts; then both sides send a {@link #HEARTBEAT} every
     * {@code heartbeatMs} and give the other up after {@code silenceMs} without a word (0: no heartbeats).
     */
    record Spec(String jobId, String meshSecret, int nranks, int[] jvmOfRank, Map<String, String> params,
            String mainClass, String[] args, byte[] body, boolean tagOutput, boolean reusable, boolean acrossHosts,
            long heartbeatMs, long silenceMs) implements Serializable {
    }

    /** How a rank ended, as its JVM reports it. */
    record RankDone(int rank, int code, boolean secondary, String message, String trace, byte[] throwable)
            implements Serializable {
    }

    record Msg(int type, byte[] body) {
        Object object() throws IOException {
            return deserialize(body);
        }
    }

    static void write(DataOutputStream out, int type, byte[] body) throws IOException {
        synchronized (out) {
            out.writeByte(type);
            out.writeInt(body.length);
            out.write(body);
            out.flush();
        }
    }

    static void writeObject(DataOutputStream out, int type, Object o) throws IOException {
        write(out, type, serialize(o));
    }

    static void closeQuietly(Closeable c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    static Msg read(DataInputStream in) throws IOException {
        int type = in.readUnsignedByte();
        int len = in.readInt();
        if (len < 0 || len > MAX_BODY) {
            throw new IOException("bad rendezvous message length " + len);
        }
        byte[] b = new byte[len];
        in.readFully(b);
        return new Msg(type, b);
    }

    static byte[] serialize(Object o) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        return bytes.toByteArray();
    }

    static Object deserialize(byte[] b) throws IOException {
        try (ObjectInputStream in = new ContextObjectInputStream(new ByteArrayInputStream(b))) {
            return in.readObject();
        } catch (ClassNotFoundException e) {
            throw new IOException("class not found: " + e.getMessage(), e);
        }
    }

    /** Resolves classes with the thread's context class loader (application classes, serialized lambdas). */
    static final class ContextObjectInputStream extends ObjectInputStream {
        ContextObjectInputStream(InputStream in) throws IOException {
            super(in);
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            ClassLoader cl = Thread.currentThread().getContextClassLoader();
            if (cl != null) {
                try {
                    return Class.forName(desc.getName(), false, cl);
                } catch (ClassNotFoundException e) {
                    // fall back to the default
                }
            }
            return super.resolveClass(desc);
        }
    }
}

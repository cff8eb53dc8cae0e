package io.jrma.launcher;

import com.sun.jna.Library;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.os.Libc;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * A client of the PMI-1 wire protocol ("simple PMI"), which MPICH's {@code mpiexec} (hydra) serves to the
 * processes it starts: newline-ended commands of {@code key=value} words, each answered by one line. The
 * connection is the socket hydra leaves open as file descriptor {@code PMI_FD}, or a TCP connection to
 * {@code PMI_PORT} (introduced by {@code PMI_ID}). Pure Java apart from reading and writing an inherited file
 * descriptor, which goes through the C library.
 *
 * <p>Not thread-safe: one thread (the rank's) uses it.
 */
final class Pmi1 implements Pmi {
    /** Slurm's pmi2 plugin takes a PMI-1 command in one read of at most this many bytes (newline included). */
    private static final int SLURM_MAX_LINE = 1024;
    /** The longest line a PMI answer may have (64 KiB): longer is a corrupt or foreign peer. */
    private static final int MAX_LINE_BYTES = 64 * 1024;
    /** The read buffer of a descriptor the answers come on. */
    private static final int FD_BUFFER_BYTES = 4096;

    /** The C library's read and write, for the inherited PMI_FD (Java has no stream over a bare descriptor). */
    interface Fd extends Library {
        long read(int fd, byte[] buf, long count);

        long write(int fd, byte[] buf, long count);
    }

    private final InputStream in;
    private final OutputStream out;
    private final Socket socket;
    private final int rank;
    private final int size;
    private String kvs;
    /** Served by Slurm's pmi2 plugin (srun --mpi=pmi2), whose PMI-1 abort kills the step and loses the code. */
    private boolean slurm;

    private Pmi1(InputStream in, OutputStream out, Socket socket, int rank, int size) {
        this.in = in;
        this.out = out;
        this.socket = socket;
        this.rank = rank;
        this.size = size;
    }

    /** Whether the environment names a PMI-1 server: PMI_RANK and PMI_SIZE, with PMI_FD or PMI_PORT. */
    static boolean inEnvironment() {
        return System.getenv("PMI_RANK") != null && System.getenv("PMI_SIZE") != null
                && (System.getenv("PMI_FD") != null || System.getenv("PMI_PORT") != null);
    }

    /** Connects to the server the environment names and runs PMI's init exchange. */
    static Pmi1 connect() throws IOException {
        int rank = intEnv("PMI_RANK");
        int size = intEnv("PMI_SIZE");
        String fdText = System.getenv("PMI_FD");
        Pmi1 p;
        if (fdText != null) {
            int fd = intEnv("PMI_FD");
            Fd c = Libc.load(Fd.class, null);
            if (c == null) {
                throw new RmaException(ErrorClass.ERR_OTHER, "PMI: the launcher's connection is file descriptor " + fd
                        + " (PMI_FD), which jrma reads through JNA's C library, and JNA could not be loaded here");
            }
            p = new Pmi1(new FdIn(c, fd), new FdOut(c, fd), null, rank, size);
        } else {
            String port = System.getenv("PMI_PORT");
            int colon = port.lastIndexOf(':');
            if (colon <= 0) {
                throw new RmaException(ErrorClass.ERR_ARG, "PMI: PMI_PORT is not host:port: " + port);
            }
            Socket s = new Socket(port.substring(0, colon), Integer.parseInt(port.substring(colon + 1)));
            s.setTcpNoDelay(true);
            p = new Pmi1(s.getInputStream(), s.getOutputStream(), s, rank, size);
            String id = System.getenv("PMI_ID");
            p.send("cmd=initack pmiid=" + (id != null ? id : String.valueOf(rank)));
            p.expect("initack");
            for (int i = 0; i < 3; i++) {
                p.expect("set"); // size, rank and debug, which the environment already gave
            }
        }
        Map<String, String> r = p.call("cmd=init pmi_version=1 pmi_subversion=1", "response_to_init");
        if (!"0".equals(r.getOrDefault("rc", "0"))) {
            throw new IOException("PMI init refused: " + r);
        }
        p.kvs = p.call("cmd=get_my_kvsname", "my_kvsname").get("kvsname");
        // Slurm names the space after the job step ("<job>.<step>"); hydra after itself ("kvs_<pid>_0")
        p.slurm = p.kvs != null && p.kvs.equals(System.getenv("SLURM_JOB_ID") + "." + System.getenv("SLURM_STEP_ID"));
        return p;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public void put(String key, String value) throws IOException {
        String line = "cmd=put kvsname=" + kvs + " key=" + key + " value=" + value;
        if (slurm && line.length() + 1 > SLURM_MAX_LINE) {
            throw new IOException("PMI: " + key + " is " + value.length() + " bytes, more than Slurm's PMI-1 takes in"
                    + " one command (" + SLURM_MAX_LINE + " bytes with the command): use srun --mpi=pmix");
        }
        Map<String, String> r = call(line, "put_result");
        if (!"0".equals(r.get("rc"))) {
            throw new IOException("PMI put of " + key + " refused: " + r);
        }
    }

    /** PMI-1's key-value space is one for the job: keys are unique per process by their name. */
    @Override
    public String get(int fromRank, String key) throws IOException {
        Map<String, String> r = call("cmd=get kvsname=" + kvs + " key=" + key, "get_result");
        if (!"0".equals(r.get("rc")) || r.get("value") == null) {
            throw new IOException("PMI: no value for " + key + ": " + r);
        }
        return r.get("value");
    }

    @Override
    public void exchange() throws IOException {
        call("cmd=barrier_in", "barrier_out");
    }

    /**
     * PMI_Abort: hydra prints its own banner and kills every process, ending with the code; there is no answer to
     * wait for. Slurm's pmi2 plugin kills the step with SIGKILL and drops the code (srun would exit 137): under
     * Slurm nothing is sent, and the caller ends its process with the code itself.
     */
    @Override
    public void abort(int code, String message) throws IOException {
        if (!slurm) {
            send("cmd=abort exitcode=" + code);
        }
    }

    @Override
    public boolean abortEndsJob() {
        return !slurm;
    }

    @Override
    public void finish() throws IOException {
        call("cmd=finalize", "finalize_ack");
    }

    @Override
    public void close() {
        try {
            if (socket != null) {
                socket.close();
            }
        } catch (IOException ignored) {
            // nothing to tell anyone
        }
    }

    private Map<String, String> call(String command, String answer) throws IOException {
        send(command);
        return expect(answer);
    }

    private void send(String command) throws IOException {
        out.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private Map<String, String> expect(String cmd) throws IOException {
        String line = readLine();
        Map<String, String> m = parse(line);
        if (!cmd.equals(m.get("cmd"))) {
            throw new IOException("PMI: expected cmd=" + cmd + ", the launcher said: " + line);
        }
        return m;
    }

    /** {@code cmd=get_result rc=0 value=abc} as a map; a word without {@code =} is kept with an empty value. */
    static Map<String, String> parse(String line) {
        Map<String, String> m = new HashMap<>();
        for (String word : line.trim().split(" +")) {
            int eq = word.indexOf('=');
            if (eq < 0) {
                m.put(word, "");
            } else {
                m.put(word.substring(0, eq), word.substring(eq + 1));
            }
        }
        return m;
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("PMI: the launcher closed the connection");
            }
            if (c == '\n') {
                return b.toString(StandardCharsets.US_ASCII);
            }
            b.write(c);
            if (b.size() > MAX_LINE_BYTES) {
                throw new IOException("PMI: a line longer than 64 KiB");
            }
        }
    }

    private static int intEnv(String name) {
        String v = System.getenv(name);
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException | NullPointerException e) {
            throw new RmaException(ErrorClass.ERR_ARG, "PMI: " + name + " is not a number: " + v);
        }
    }

    /** Bytes from a file descriptor, buffered (answers are read a byte at a time). */
    private static final class FdIn extends InputStream {
        private final Fd c;
        private final int fd;
        private final byte[] buf = new byte[FD_BUFFER_BYTES];
        private int pos;
        private int end;

        FdIn(Fd c, int fd) {
            this.c = c;
            this.fd = fd;
        }

        @Override
        public int read() throws IOException {
            if (pos == end) {
                long n = c.read(fd, buf, buf.length);
                if (n < 0) {
                    throw new IOException("PMI: read from file descriptor " + fd + " failed");
                }
                if (n == 0) {
                    return -1;
                }
                pos = 0;
                end = (int) n;
            }
            return buf[pos++] & 0xff;
        }
    }

    private static final class FdOut extends OutputStream {
        private final Fd c;
        private final int fd;

        FdOut(Fd c, int fd) {
            this.c = c;
            this.fd = fd;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            byte[] chunk = off == 0 && len == b.length ? b : Arrays.copyOfRange(b, off, off + len);
            int done = 0;
            while (done < len) {
                byte[] rest = done == 0 ? chunk : Arrays.copyOfRange(chunk, done, len);
                long n = c.write(fd, rest, rest.length);
                if (n <= 0) {
                    throw new IOException("PMI: write to file descriptor " + fd + " failed");
                }
                done += (int) n;
            }
        }
    }
}

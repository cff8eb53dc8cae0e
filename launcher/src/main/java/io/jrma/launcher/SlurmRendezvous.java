package io.jrma.launcher;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import io.jrma.core.runtime.Param;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * The key-value space of a job started by Slurm's {@code srun --mpi=none}, which serves none: jrma's own
 * rendezvous on rank 0. Each process knows its rank and the job's size from Slurm's variables ({@code SLURM_PROCID},
 * {@code SLURM_STEP_NUM_TASKS}); rank 0 listens on a fresh port and writes its addresses and a fresh secret into a
 * file that only the user can read, {@code <jrma.slurm.dir>/<cluster>-<job>.<step>} (created exclusively with mode
 * 0600, in a directory only the user can write); the others read it, with a bounded wait, and connect to rank 0 with
 * the secret-checked handshake of every jrma connection. The directory must be one every node of the job sees
 * (a shared file system, as a home directory usually is). Rank 0 removes the file once every rank has connected,
 * and on any failure, so a stranger who cannot read the user's files cannot join; a stranger's connection fails the
 * handshake and is dropped.
 *
 * <pre>
 *  file (text):   version=1, node=, addresses= (comma-separated), port=, job= (id), secret=, end
 *  rank r -> 0:   after the handshake (client id r), per exchange: int n, n x (key, value)
 *  0 -> rank r:   per exchange: int n, n x (key, value): every rank's puts so far
 * </pre>
 *
 * Strings travel as an int length and UTF-8 bytes. There is no process manager to end the job: an abort ends this
 * process with its code, and the peers end as they learn of it (srun's exit code is the highest of its tasks').
 *
 * <p>Not thread-safe: one thread (the rank's) uses it; rank 0's acceptor thread only admits connections.
 */
final class SlurmRendezvous implements Pmi {
    static final Param DIR = new Param("jrma.slurm.dir", "~/.jrma/slurm", "job",
            "directory, shared by every node of a job, where rank 0 of `srun --mpi=none` leaves its address and a"
            + " secret for the others (a private file, removed once all have joined)");
    static final Param TIMEOUT_MS = new Param("jrma.slurm.timeoutMs", "60000", "job",
            "how long the processes of `srun --mpi=none` wait for each other (rank 0's file, connections, exchanges)");

    static final String PROCID = "SLURM_PROCID";
    static final String STEP_NUM_TASKS = "SLURM_STEP_NUM_TASKS";
    static final String NTASKS = "SLURM_NTASKS";
    static final String JOB_ID = "SLURM_JOB_ID";
    static final String STEP_ID = "SLURM_STEP_ID";
    static final String STEP_NODELIST = "SLURM_STEP_NODELIST";
    static final String NODENAME = "SLURMD_NODENAME";
    static final String CLUSTER = "SLURM_CLUSTER_NAME";

    private static final int VERSION = 1;
    private static final int HANDSHAKE_TIMEOUT_MS = 5_000;
    private static final int CONNECT_TIMEOUT_MS = 2_000;
    private static final long FIRST_RETRY_MS = 50;
    private static final long MAX_RETRY_MS = 500;
    private static final int MAX_STRING_BYTES = 1 << 20;
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> WRITABLE_BY_OTHERS = EnumSet.of(PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_WRITE);
    private static final Set<PosixFilePermission> ACCESSIBLE_BY_OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private final int rank;
    private final int size;
    private final Path file;
    /** Slurm's name of this node (rank 0 writes its own; a reader on the same node tries loopback first). */
    private final String node;
    private final long timeoutMs;
    private final Map<String, String> pending = new LinkedHashMap<>();
    private final Map<String, String> all = new HashMap<>();
    /** Rank 0: the connection of each other rank, filled by the acceptor. Others: [0] is the one to rank 0. */
    private final Link[] peers;
    private ServerSocket server;
    private boolean fileRemoved;
    private int exchanges;

    private SlurmRendezvous(int rank, int size, Path file, String node, long timeoutMs) {
        this.node = node;
        this.rank = rank;
        this.size = size;
        this.file = file;
        this.timeoutMs = timeoutMs;
        this.peers = new Link[rank == 0 ? size : 1];
    }

    /**
     * Whether srun started this process as one task of several in a job step, with no PMI (the SLURM_* variables of a
     * step; a batch script has no SLURM_STEP_ID). One task alone is left to MPI's singleton start.
     */
    static boolean inEnvironment() {
        return inEnvironment(System.getenv());
    }

    static boolean inEnvironment(Map<String, String> env) {
        if (env.get(PROCID) == null || env.get(JOB_ID) == null || env.get(STEP_ID) == null
                || env.get(STEP_NODELIST) == null) {
            return false;
        }
        try {
            return Integer.parseInt(env.get(STEP_ID).trim()) >= 0 && taskCount(env) > 1;
        } catch (NumberFormatException e) {
            return false; // "batch", "extern": not a step srun started
        }
    }

    private static int taskCount(Map<String, String> env) {
        String v = env.get(STEP_NUM_TASKS) != null ? env.get(STEP_NUM_TASKS) : env.get(NTASKS);
        return v == null ? 0 : Integer.parseInt(v.trim());
    }

    /** Meets the other tasks of the step: rank 0 publishes, the others connect to it. */
    static SlurmRendezvous connect(Map<String, String> params) throws IOException {
        return connect(params, System.getenv());
    }

    /** {@link #connect(Map)} with the Slurm variables of {@code env} (a test runs several ranks in one JVM). */
    static SlurmRendezvous connect(Map<String, String> params, Map<String, String> env) throws IOException {
        int rank;
        int size;
        try {
            rank = Integer.parseInt(env.get(PROCID).trim());
            size = taskCount(env);
        } catch (NumberFormatException e) {
            throw new RmaException(ErrorClass.ERR_ARG, "srun: " + PROCID + "=" + env.get(PROCID) + " or "
                    + STEP_NUM_TASKS + "/" + NTASKS + " is not a number");
        }
        if (rank < 0 || rank >= size) {
            throw new RmaException(ErrorClass.ERR_ARG, "srun: " + PROCID + "=" + rank + " is not a rank of "
                    + size + " tasks");
        }
        Path dir = directory(params);
        String name = safe(env.getOrDefault(CLUSTER, "slurm")) + "-" + safe(env.get(JOB_ID)) + "."
                + safe(env.get(STEP_ID));
        String slurmNode = env.get(NODENAME);
        String node = slurmNode != null && !slurmNode.isBlank() ? slurmNode.trim() : hostName();
        SlurmRendezvous r = new SlurmRendezvous(rank, size, dir.resolve(name), node, TIMEOUT_MS.getLong(params));
        try {
            if (rank == 0) {
                r.publish(dir);
            } else {
                r.join();
            }
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
        return r;
    }

    /** {@code jrma.slurm.dir}, with a leading {@code ~} as the user's home. */
    static Path directory(Map<String, String> params) {
        String d = DIR.get(params);
        if (d.isEmpty()) {
            throw new RmaException(ErrorClass.ERR_ARG, DIR.name() + " is empty");
        }
        if (d.equals("~") || d.startsWith("~/")) {
            d = System.getProperty("user.home") + d.substring(1);
        }
        return Path.of(d).toAbsolutePath();
    }

    private static String safe(String s) {
        return s == null ? "none" : s.trim().replaceAll("[^A-Za-z0-9._-]", "_");
    }

    // ---- rank 0

    private void publish(Path dir) throws IOException {
        checkDirectory(dir, true);
        String jobId = Handshake.newJobId();
        String secret = Handshake.newSecret();
        server = new ServerSocket();
        server.bind(new InetSocketAddress(0), size);
        StringBuilder text = new StringBuilder()
                .append("version=").append(VERSION).append('\n')
                .append("node=").append(node).append('\n')
                .append("addresses=").append(String.join(",", addresses())).append('\n')
                .append("port=").append(server.getLocalPort()).append('\n')
                .append("job=").append(jobId).append('\n')
                .append("secret=").append(secret).append('\n')
                .append("end\n");
        writeExclusively(text.toString().getBytes(StandardCharsets.US_ASCII));
        Thread acceptor = new Thread(() -> accept(jobId, secret), "jrma-slurm-rendezvous");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Creates the file with mode 0600, failing if it exists; one left by a crashed step of the same name goes. */
    private void writeExclusively(byte[] content) throws IOException {
        for (int attempt = 0;; attempt++) {
            // the mode is the file's from its creation (open(2) with 0600): no moment when others may read it
            try (SeekableByteChannel out = Files.newByteChannel(file, EnumSet.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE))) {
                out.write(ByteBuffer.wrap(content));
                return;
            } catch (FileAlreadyExistsException e) {
                // job and step ids repeat only when a cluster starts afresh: the file of a step that died before
                // removing it. Only the user's own goes; the readers retry until they meet this rank 0.
                if (attempt > 0 || !ownedByMe(file)) {
                    throw new RmaException(ErrorClass.ERR_ACCESS, "srun --mpi=none: " + file + " exists and "
                            + (attempt > 0 ? "came back after it was removed" : "is not this user's")
                            + ": another process uses this job step's name in " + DIR.name());
                }
                Files.deleteIfExists(file);
            }
        }
    }

    /**
     * Admits the other ranks until all are in, then closes the port. Each handshake runs on a thread of its own, so a
     * connection that says nothing (a port scanner, a stranger) holds up nobody for its handshake timeout.
     */
    private void accept(String jobId, String secret) {
        while (!allJoined()) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return; // closed: the job is over or failed
            }
            Thread t = new Thread(() -> admit(s, jobId, secret), "jrma-slurm-handshake");
            t.setDaemon(true);
            t.start();
        }
    }

    private void admit(Socket s, String jobId, String secret) {
        try {
            s.setTcpNoDelay(true);
            int r = Handshake.server(s, jobId, secret, HANDSHAKE_TIMEOUT_MS);
            synchronized (peers) {
                if (r <= 0 || r >= size || peers[r] != null) {
                    s.close(); // proved the secret, yet no rank this job is missing: not one of ours
                    return;
                }
                peers[r] = new Link(s);
                peers.notifyAll();
            }
            if (allJoined()) {
                closeQuietly(server); // all are in: nobody else can even try
            }
        } catch (IOException e) {
            closeQuietly(s); // a stranger, or a peer that gave up: not admitted
        }
    }

    private boolean allJoined() {
        synchronized (peers) {
            for (int r = 1; r < size; r++) {
                if (peers[r] == null) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Waits until every other rank has connected, or fails naming those that have not. */
    private void awaitAll(long deadlineNs) throws IOException {
        synchronized (peers) {
            while (true) {
                List<Integer> missing = new ArrayList<>();
                for (int r = 1; r < size; r++) {
                    if (peers[r] == null) {
                        missing.add(r);
                    }
                }
                if (missing.isEmpty()) {
                    return;
                }
                long leftMs = (deadlineNs - System.nanoTime()) / 1_000_000;
                if (leftMs <= 0) {
                    throw new RmaException(ErrorClass.ERR_OTHER, "srun --mpi=none: rank(s) " + ranges(missing)
                            + " of " + size + " did not join rank 0 (port " + server.getLocalPort() + ") within "
                            + timeoutMs + " ms: they read " + file + ", which must be on a file system their nodes"
                            + " share (" + DIR.name() + "); or they did not start, or cannot reach rank 0's node");
                }
                try {
                    peers.wait(Math.min(leftMs, MAX_RETRY_MS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting for the other ranks", e);
                }
            }
        }
    }

    // ---- ranks other than 0

    private void join() throws IOException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        long pause = FIRST_RETRY_MS;
        String last = "it does not exist";
        while (true) {
            Map<String, String> f = null;
            try {
                f = readFile();
                if (f == null) {
                    last = "it is incomplete";
                }
            } catch (NoSuchFileException e) {
                last = "it does not exist";
            }
            if (f != null) {
                String failure = connectTo(f);
                if (failure == null) {
                    return;
                }
                last = "rank 0 was not reached at " + f.get("addresses") + " port " + f.get("port") + " (" + failure
                        + ")";
            }
            if (System.nanoTime() > deadline) {
                throw new RmaException(ErrorClass.ERR_OTHER, "srun --mpi=none: rank " + rank + " found no rank 0 to"
                        + " join within " + timeoutMs + " ms in " + file + ": " + last + ". Rank 0 writes it into "
                        + DIR.name() + ", which must be a directory every node of the job shares (a home directory"
                        + " usually is); or use srun --mpi=pmi2 or --mpi=pmix");
            }
            sleep(pause);
            pause = Math.min(MAX_RETRY_MS, pause * 2);
        }
    }

    /** The file's fields once it is complete and trustworthy; null while rank 0 is still writing it. */
    private Map<String, String> readFile() throws IOException {
        byte[] b = Files.readAllBytes(file);
        if (!ownedByMe(file)) {
            throw new RmaException(ErrorClass.ERR_ACCESS, "srun --mpi=none: " + file + " is not this user's: not"
                    + " trusting it (" + DIR.name() + " must be a directory only this user writes)");
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
        if (!Collections.disjoint(perms, ACCESSIBLE_BY_OTHERS)) {
            throw new RmaException(ErrorClass.ERR_ACCESS, "srun --mpi=none: " + file + " has mode "
                    + PosixFilePermissions.toString(perms) + ", which others may read or write: not trusting it");
        }
        String text = new String(b, StandardCharsets.US_ASCII);
        if (!text.endsWith("end\n")) {
            return null;
        }
        Map<String, String> m = new HashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                m.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        for (String k : new String[] {"version", "node", "addresses", "port", "job", "secret"}) {
            if (m.get(k) == null) {
                throw new RmaException(ErrorClass.ERR_OTHER, "srun --mpi=none: " + file + " has no " + k);
            }
        }
        if (!String.valueOf(VERSION).equals(m.get("version"))) {
            throw new RmaException(ErrorClass.ERR_OTHER, "srun --mpi=none: " + file + " is of version "
                    + m.get("version") + ", this jrma reads version " + VERSION
                    + ": every task must run the same jrma");
        }
        return m;
    }

    /** Connects to rank 0 at one of its addresses; returns null, or why none answered with the secret. */
    private String connectTo(Map<String, String> f) {
        List<String> addresses = new ArrayList<>(List.of(f.getOrDefault("addresses", "").split(",")));
        if (node.equals(f.get("node"))) {
            Collections.reverse(addresses); // on rank 0's node: loopback (listed last) first
        }
        int port;
        try {
            port = Integer.parseInt(f.getOrDefault("port", ""));
        } catch (NumberFormatException e) {
            return "no port";
        }
        String why = "no address";
        for (String a : addresses) {
            if (a.isEmpty()) {
                continue;
            }
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(InetAddress.getByName(a), port), CONNECT_TIMEOUT_MS);
                s.setTcpNoDelay(true);
                Handshake.client(s, f.get("job"), f.get("secret"), rank, HANDSHAKE_TIMEOUT_MS);
                peers[0] = new Link(s);
                return null;
            } catch (IOException | IllegalArgumentException e) {
                closeQuietly(s);
                why = a + ": " + e.getMessage();
            }
        }
        return why;
    }

    // ---- the key-value space

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public void put(String key, String value) {
        pending.put(key, value);
    }

    @Override
    public void exchange() throws IOException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        boolean first = exchanges++ == 0;
        if (rank == 0) {
            try {
                awaitAll(deadline);
            } finally {
                if (first) {
                    removeFile(); // everyone has read it (or the job failed): it has served
                }
            }
            all.putAll(pending);
            for (int r = 1; r < size; r++) {
                try {
                    all.putAll(readMap(peers[r], deadline));
                } catch (SocketTimeoutException e) {
                    throw new RmaException(ErrorClass.ERR_OTHER, "srun --mpi=none: rank " + r + " did not reach"
                            + " exchange " + exchanges + " within " + timeoutMs + " ms (" + TIMEOUT_MS.name() + ")");
                } catch (IOException e) {
                    throw new IOException("srun --mpi=none: rank " + r + " left before exchange " + exchanges + ": "
                            + e.getMessage(), e);
                }
            }
            for (int r = 1; r < size; r++) {
                writeMap(peers[r], all);
            }
        } else {
            writeMap(peers[0], pending);
            try {
                all.putAll(readMap(peers[0], deadline));
            } catch (SocketTimeoutException e) {
                throw new RmaException(ErrorClass.ERR_OTHER, "srun --mpi=none: rank 0 did not complete exchange "
                        + exchanges + " within " + timeoutMs + " ms (" + TIMEOUT_MS.name() + ")");
            } catch (IOException e) {
                throw new IOException("srun --mpi=none: rank 0 left during exchange " + exchanges + ": "
                        + e.getMessage(), e);
            }
        }
        pending.clear();
    }

    @Override
    public String get(int fromRank, String key) throws IOException {
        String v = all.get(key);
        if (v == null) {
            throw new IOException("srun --mpi=none: rank " + fromRank + " published no " + key);
        }
        return v;
    }

    /** No process manager to tell: the caller ends this process with the code, the peers end as they learn it. */
    @Override
    public void abort(int code, String message) {
        close();
    }

    @Override
    public boolean abortEndsJob() {
        return false;
    }

    @Override
    public void finish() {
        close();
    }

    @Override
    public void close() {
        if (rank == 0) {
            removeFile();
        }
        closeQuietly(server);
        synchronized (peers) {
            for (Link l : peers) {
                if (l != null) {
                    closeQuietly(l.socket);
                }
            }
        }
    }

    private void removeFile() {
        if (!fileRemoved) {
            fileRemoved = true;
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a later step of this name replaces it
            }
        }
    }

    /** One rendezvous connection and its streams (kept: a buffered stream may have read ahead). */
    private static final class Link {
        final Socket socket;
        final DataInputStream in;
        final DataOutputStream out;

        Link(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        }
    }

    private static void writeMap(Link l, Map<String, String> m) throws IOException {
        l.out.writeInt(m.size());
        for (Map.Entry<String, String> e : m.entrySet()) {
            writeString(l.out, e.getKey());
            writeString(l.out, e.getValue());
        }
        l.out.flush();
    }

    private static Map<String, String> readMap(Link l, long deadlineNs) throws IOException {
        l.socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE,
                (deadlineNs - System.nanoTime()) / 1_000_000)));
        int n = l.in.readInt();
        if (n < 0 || n > MAX_STRING_BYTES) {
            throw new IOException("a corrupt message (" + n + " entries)");
        }
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < n; i++) {
            m.put(readString(l.in), readString(l.in));
        }
        l.socket.setSoTimeout(0);
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

    // ---- this node

    /** The kernel's host name (a name that need not resolve), for want of Slurm's SLURMD_NODENAME. */
    private static String hostName() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        } catch (IOException e) {
            return "localhost";
        }
    }

    /** This host's addresses, those other hosts may reach first (IPv4 before IPv6), loopback last. */
    static List<String> addresses() throws SocketException {
        List<String> v4 = new ArrayList<>();
        List<String> v6 = new ArrayList<>();
        for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!ni.isUp() || ni.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                if (a.isLinkLocalAddress()) {
                    continue; // needs a scope; another host's scope differs
                }
                (a instanceof Inet6Address ? v6 : v4).add(a.getHostAddress());
            }
        }
        List<String> out = new ArrayList<>(v4);
        out.addAll(v6);
        out.add(InetAddress.getLoopbackAddress().getHostAddress());
        return out;
    }

    /** Refuses a directory others may write into (they could plant or swap the file); creates it 0700. */
    private static void checkDirectory(Path dir, boolean create) throws IOException {
        if (create && !Files.isDirectory(dir)) {
            try {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
            } catch (IOException e) {
                throw new RmaException(ErrorClass.ERR_ACCESS, "srun --mpi=none: cannot create " + dir + " ("
                        + DIR.name() + "): " + e);
            }
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
        if (!ownedByMe(dir) || !Collections.disjoint(perms, WRITABLE_BY_OTHERS)) {
            throw new RmaException(ErrorClass.ERR_ACCESS, "srun --mpi=none: " + dir + " (" + DIR.name() + ") is "
                    + (ownedByMe(dir) ? "writable by others (" + PosixFilePermissions.toString(perms) + ")"
                    : "not this user's") + ": choose a directory only this user writes, on a file system every node"
                    + " shares");
        }
    }

    private static boolean ownedByMe(Path p) throws IOException {
        UserPrincipal me = p.getFileSystem().getUserPrincipalLookupService()
                .lookupPrincipalByName(System.getProperty("user.name"));
        return Files.getOwner(p).equals(me);
    }

    private static String ranges(List<Integer> ranks) {
        StringJoiner j = new StringJoiner(",");
        int i = 0;
        while (i < ranks.size()) {
            int k = i;
            while (k + 1 < ranks.size() && ranks.get(k + 1) == ranks.get(k) + 1) {
                k++;
            }
            j.add(k == i ? String.valueOf(ranks.get(i)) : ranks.get(i) + "-" + ranks.get(k));
            i = k + 1;
        }
        return j.toString();
    }

    private static void sleep(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for rank 0", e);
        }
    }

    private static void closeQuietly(Closeable c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}

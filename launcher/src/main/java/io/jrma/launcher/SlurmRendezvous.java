package io.jrma.launcher;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import io.jrma.core.config.Param;
import java.io.Closeable;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    private static final int HANDSHAKE_TIMEOUT_MS = 5_000;
    private static final int CONNECT_TIMEOUT_MS = 2_000;
    private static final long FIRST_RETRY_MS = 50;
    private static final long MAX_RETRY_MS = 500;
    private static final long NS_PER_MS = 1_000_000;

    private final int rank;
    private final int size;
    private final SlurmRendezvousFile file;
    /** Slurm's name of this node (rank 0 writes its own; a reader on the same node tries loopback first). */
    private final String node;
    private final long timeoutMs;
    private final Map<String, String> pending = new LinkedHashMap<>();
    private final Map<String, String> all = new HashMap<>();
    /** Rank 0: the connection of each other rank, filled by the acceptor. Others: [0] is the one to rank 0. */
    private final SlurmLink[] peers;
    private ServerSocket server;
    private int exchanges;

    private SlurmRendezvous(int rank, int size, SlurmRendezvousFile file, String node, long timeoutMs) {
        this.node = node;
        this.rank = rank;
        this.size = size;
        this.file = file;
        this.timeoutMs = timeoutMs;
        this.peers = new SlurmLink[rank == 0 ? size : 1];
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
        Path dir = SlurmRendezvousFile.directory(params);
        String slurmNode = env.get(NODENAME);
        String node = slurmNode != null && !slurmNode.isBlank() ? slurmNode.trim() : hostName();
        SlurmRendezvous r = new SlurmRendezvous(rank, size, new SlurmRendezvousFile(dir, env), node,
                TIMEOUT_MS.getLong(params));
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

    // ---- rank 0

    private void publish(Path dir) throws IOException {
        SlurmRendezvousFile.checkDirectory(dir, true);
        String jobId = Handshake.newJobId();
        String secret = Handshake.newSecret();
        server = new ServerSocket();
        server.bind(new InetSocketAddress(0), size);
        file.publish(node, String.join(",", addresses()), server.getLocalPort(), jobId, secret);
        Thread acceptor = new Thread(() -> accept(jobId, secret), "jrma-slurm-rendezvous");
        acceptor.setDaemon(true);
        acceptor.start();
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
                peers[r] = new SlurmLink(s);
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
                long leftMs = (deadlineNs - System.nanoTime()) / NS_PER_MS;
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
        long deadline = System.nanoTime() + timeoutMs * NS_PER_MS;
        long pause = FIRST_RETRY_MS;
        String last = "it does not exist";
        while (true) {
            Map<String, String> f = null;
            try {
                f = file.read();
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
                peers[0] = new SlurmLink(s);
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
        long deadline = System.nanoTime() + timeoutMs * NS_PER_MS;
        boolean first = exchanges++ == 0;
        if (rank == 0) {
            try {
                awaitAll(deadline);
            } finally {
                if (first) {
                    file.remove(); // everyone has read it (or the job failed): it has served
                }
            }
            all.putAll(pending);
            for (int r = 1; r < size; r++) {
                try {
                    all.putAll(peers[r].readMap(deadline));
                } catch (SocketTimeoutException e) {
                    throw new RmaException(ErrorClass.ERR_OTHER, "srun --mpi=none: rank " + r + " did not reach"
                            + " exchange " + exchanges + " within " + timeoutMs + " ms (" + TIMEOUT_MS.name() + ")");
                } catch (IOException e) {
                    throw new IOException("srun --mpi=none: rank " + r + " left before exchange " + exchanges + ": "
                            + e.getMessage(), e);
                }
            }
            for (int r = 1; r < size; r++) {
                peers[r].writeMap(all);
            }
        } else {
            peers[0].writeMap(pending);
            try {
                all.putAll(peers[0].readMap(deadline));
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
            file.remove();
        }
        closeQuietly(server);
        synchronized (peers) {
            for (SlurmLink l : peers) {
                if (l != null) {
                    closeQuietly(l.socket);
                }
            }
        }
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

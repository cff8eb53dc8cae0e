package mpitests;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Slurm cluster of this machine for a test: munged with a key of its own, slurmctld and two slurmd (nodes
 * {@code <cluster>n1} and {@code n2}, each {@code slurmd -N}), all under a fresh directory in /tmp, with ports, names
 * and a ClusterName ({@code jrmatest...}) of their own. Nothing of the machine's Slurm or munge is used or changed:
 * every daemon and client reads this cluster's slurm.conf ({@code SLURM_CONF}, {@code -f}), munge's socket is named
 * in it ({@code AuthInfo}), and /etc/slurm and /etc/munge are not touched. {@link #close} cancels the jobs, stops the
 * daemons (and any slurmstepd left, known by its working directory, which slurmd gives it) and removes the directory.
 *
 * <p>Facts it rests on (Debian's Slurm 22.05): munged runs as root with {@code --key-file}/{@code --socket}; its
 * socket's directory must be reachable by all; {@code SlurmdParameters=config_overrides} lets the nodes claim more CPUs
 * than the machine has (so steps of several tasks do not queue behind one another); the PMIx plugin's client
 * directory ({@code PMIxCliTmpDirBase} in mpi.conf, beside slurm.conf) must differ per slurmd, so each node has its own
 * copy of the configuration directory.
 *
 * <p>Owned by one test class; not thread-safe.
 */
final class SlurmCluster implements AutoCloseable {
    static final String NODE1 = "n1";
    static final String NODE2 = "n2";
    private static final int CPUS_PER_NODE = 16;
    private static final long START_TIMEOUT_MS = 60_000;
    private static final long STOP_TIMEOUT_MS = 15_000;
    private static final int KEY_BYTES = 1024;

    final Path dir;
    final String cluster;
    final Path conf;
    private final List<Process> daemons = new ArrayList<>();
    private final Map<String, String> env;
    /** Stops the daemons if the test JVM ends without {@link #close} (a surefire timeout kills it, say). */
    private final Thread hook = new Thread(() -> daemons.forEach(Process::destroyForcibly), "jrma-slurm-cluster-stop");

    private SlurmCluster(Path dir, String cluster) {
        this.dir = dir;
        this.cluster = cluster;
        this.conf = dir.resolve("etc").resolve("slurm.conf");
        this.env = Map.of("SLURM_CONF", conf.toString());
    }

    /** The program's path if it is installed (PATH, then the sbin directories), else null. */
    static String find(String name) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "")
                .split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/local/sbin"));
        for (String d : dirs) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, name))) {
                return Path.of(d, name).toString();
            }
        }
        return null;
    }

    /** Why a cluster cannot be started here, or empty if it can be tried. */
    static Optional<String> unavailable() {
        for (String p : new String[] {"munged", "slurmctld", "slurmd", "slurmstepd", "srun", "sinfo", "scancel"}) {
            if (find(p) == null) {
                return Optional.of(p + " is not installed (apt-get install --no-install-recommends slurm-wlm munge;"
                        + " .ci/run does it)");
            }
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("slurmd must run as root to start tasks, and this is "
                    + System.getProperty("user.name"));
        }
        return Optional.empty();
    }

    /** Starts munged, slurmctld and both slurmd, and waits until both nodes are idle. */
    static SlurmCluster start() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("jrma-slurm-test-");
        SecureRandom random = new SecureRandom();
        byte[] id = new byte[4];
        random.nextBytes(id);
        SlurmCluster c = new SlurmCluster(dir, "jrmatest" + HexFormat.of().formatHex(id));
        try {
            Runtime.getRuntime().addShutdownHook(c.hook);
            c.startDaemons(random);
            return c;
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            String logs = c.logs();
            c.close();
            throw new IOException(e.getMessage() + "\n" + logs, e);
        }
    }

    private void startDaemons(SecureRandom random) throws IOException, InterruptedException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x")); // munge's socket path
        Path key = Files.createDirectories(dir.resolve("munge-key"));
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rwx------"));
        byte[] k = new byte[KEY_BYTES];
        random.nextBytes(k);
        Files.write(key.resolve("munge.key"), k);
        Files.setPosixFilePermissions(key.resolve("munge.key"), PosixFilePermissions.fromString("rw-------"));
        Path run = Files.createDirectories(dir.resolve("munge-run"));
        Path socket = run.resolve("munge.socket");
        for (String d : new String[] {"state", "log", "spool/" + node(NODE1), "spool/" + node(NODE2), "etc", "etc-"
                + NODE1, "etc-" + NODE2, "pmix-" + NODE1, "pmix-" + NODE2}) {
            Files.createDirectories(dir.resolve(d));
        }
        daemon("munged", List.of(find("munged"), "-F", "--key-file=" + key.resolve("munge.key"), "--socket=" + socket,
                "--pid-file=" + run.resolve("munged.pid"), "--log-file=" + key.resolve("munged.log"),
                "--seed-file=" + key.resolve("munged.seed")));
        await(() -> Files.exists(socket), "munged's socket " + socket);

        String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim().split("\\.")[0];
        int[] ports = freePorts(4);
        String slurmConf = String.join("\n",
                "ClusterName=" + cluster,
                "SlurmctldHost=" + host + "(127.0.0.1)",
                "SlurmctldPort=" + ports[0],
                "SlurmdPort=" + ports[1],
                "SlurmUser=root",
                "SlurmdUser=root",
                "AuthType=auth/munge",
                "CredType=cred/munge",
                "AuthInfo=socket=" + socket,
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=task/none",
                "JobAcctGatherType=jobacct_gather/none",
                "MpiDefault=none",
                "ReturnToService=2",
                "SelectType=select/cons_tres",
                "SelectTypeParameters=CR_Core",
                "SlurmdParameters=config_overrides",
                "MailProg=/bin/true",
                "StateSaveLocation=" + dir.resolve("state"),
                "SlurmdSpoolDir=" + dir.resolve("spool") + "/%n",
                "SlurmctldPidFile=" + dir.resolve("slurmctld.pid"),
                "SlurmdPidFile=" + dir.resolve("slurmd-%n.pid"),
                "SlurmctldLogFile=" + dir.resolve("log/slurmctld.log"),
                "SlurmdLogFile=" + dir.resolve("log/slurmd-%n.log"),
                "PlugStackConfig=" + dir.resolve("etc/plugstack.conf"),
                nodeLine(NODE1, host, ports[2]),
                nodeLine(NODE2, host, ports[3]),
                "PartitionName=" + cluster + " Nodes=" + node(NODE1) + "," + node(NODE2)
                        + " Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES",
                "");
        writeConf("etc", slurmConf, NODE1);
        writeConf("etc-" + NODE1, slurmConf, NODE1);
        writeConf("etc-" + NODE2, slurmConf, NODE2);

        daemon("slurmctld", List.of(find("slurmctld"), "-D", "-i", "-f", conf.toString()));
        for (String n : new String[] {NODE1, NODE2}) {
            daemon("slurmd-" + n, List.of(find("slurmd"), "-D", "-N", node(n), "-f",
                    dir.resolve("etc-" + n).resolve("slurm.conf").toString()));
        }
        await(this::nodesIdle, "both nodes idle in sinfo");
    }

    private String nodeLine(String n, String host, int port) {
        return "NodeName=" + node(n) + " NodeHostname=" + host + " NodeAddr=127.0.0.1 Port=" + port + " CPUs="
                + CPUS_PER_NODE;
    }

    private void writeConf(String sub, String slurmConf, String pmixNode) throws IOException {
        Path d = dir.resolve(sub);
        Files.writeString(d.resolve("slurm.conf"), slurmConf);
        Files.writeString(d.resolve("plugstack.conf"), "");
        Files.writeString(d.resolve("mpi.conf"), "PMIxCliTmpDirBase=" + dir.resolve("pmix-" + pmixNode) + "\n");
    }

    /** This cluster's name of node {@code n} ({@code NODE1}, {@code NODE2}). */
    String node(String n) {
        return cluster + n;
    }

    private void daemon(String name, List<String> cmd) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(dir.resolve("log").resolve(name + ".out").toFile());
        clean(pb.environment());
        daemons.add(pb.start());
    }

    /** A child's environment: this cluster's configuration, and no launcher variables of whatever started the test. */
    void clean(Map<String, String> e) {
        e.keySet().removeIf(k -> k.startsWith("SLURM_") || k.startsWith("PMI_") || k.startsWith("PMIX_")
                || k.startsWith("OMPI_"));
        e.putAll(env);
    }

    /** A client command of this cluster (sinfo, srun, ...), its output as text; fails after {@code seconds}. */
    String client(long seconds, String... cmd) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        clean(pb.environment());
        Process p = pb.start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " did not end within " + seconds + " s");
        }
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    private boolean nodesIdle() throws IOException, InterruptedException {
        for (Process d : daemons) {
            if (!d.isAlive()) {
                throw new IOException("a Slurm daemon exited at start (" + d.info().command().orElse("?") + ", code "
                        + d.exitValue() + ")");
            }
        }
        String out = client(20, find("sinfo"), "-h", "-N", "-o", "%N %t");
        return out.contains(node(NODE1) + " idle") && out.contains(node(NODE2) + " idle");
    }

    /** The MPI plugins this Slurm has ({@code srun --mpi=list}). */
    String mpiPlugins() throws IOException, InterruptedException {
        return client(30, find("srun"), "--mpi=list");
    }

    interface Check {
        boolean ok() throws IOException, InterruptedException;
    }

    private static void await(Check c, String what) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT_MS * 1_000_000L;
        while (!c.ok()) {
            if (System.nanoTime() > deadline) {
                throw new IOException("Slurm did not start: no " + what + " within " + START_TIMEOUT_MS + " ms");
            }
            Thread.sleep(100);
        }
    }

    private static int[] freePorts(int n) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0);
                held.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
    }

    /** The last lines of every log, for a failure's message. */
    String logs() {
        StringBuilder b = new StringBuilder();
        try (Stream<Path> s = Files.walk(dir.resolve("log"))) {
            for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
                List<String> lines = Files.readAllLines(p, StandardCharsets.ISO_8859_1);
                b.append("--- ").append(p.getFileName()).append('\n');
                for (String l : lines.subList(Math.max(0, lines.size() - 15), lines.size())) {
                    b.append(l).append('\n');
                }
            }
        } catch (IOException | RuntimeException e) {
            b.append("(logs unreadable: ").append(e).append(")\n");
        }
        return b.toString();
    }

    /** The processes whose working directory is this cluster's (the slurmstepd of its nodes, and their tasks). */
    List<ProcessHandle> stragglers() {
        String prefix = dir.toString();
        return ProcessHandle.allProcesses().filter(h -> {
            try {
                return Files.readSymbolicLink(Path.of("/proc", String.valueOf(h.pid()), "cwd")).toString()
                        .startsWith(prefix);
            } catch (IOException | UnsupportedOperationException | SecurityException e) {
                return false;
            }
        }).toList();
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException ignored) {
            // the JVM is shutting down: the hook runs anyway
        }
        try {
            if (daemons.size() == 4 && daemons.stream().allMatch(Process::isAlive)) {
                client(20, find("scancel"), "--full", "--user=root"); // this cluster's jobs only (SLURM_CONF)
            }
        } catch (IOException | InterruptedException | RuntimeException ignored) {
            // the daemons go anyway
        }
        for (int i = daemons.size() - 1; i >= 0; i--) {
            daemons.get(i).destroy(); // SIGTERM: slurmd and slurmctld save state and exit
        }
        long deadline = System.nanoTime() + STOP_TIMEOUT_MS * 1_000_000L;
        for (Process d : daemons) {
            try {
                if (!d.waitFor(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    d.destroyForcibly();
                    d.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                d.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            d.descendants().forEach(ProcessHandle::destroyForcibly); // slurmctld's slurmscriptd
        }
        for (ProcessHandle h : stragglers()) {
            h.destroyForcibly();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            System.out.println("SlurmCluster: could not remove all of " + dir + ": " + e);
        }
    }
}

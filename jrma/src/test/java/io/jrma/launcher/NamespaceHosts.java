package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.testsupport.ChildProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Hosts for tests, made of Linux network namespaces on this machine (DESIGN.md section 8): host {@code i} is the
 * namespace {@code multihost-tI} with a veth pair to a bridge ({@value #SUBNET}.0/24, the bridge at .254, which is this
 * machine's side), and an {@code sshd} of its own (key-only, its configuration, host key and authorized key under a
 * temporary directory) started as {@code nsenter --net=... unshare --uts --mount} with the host's name, a tmpfs of
 * its own on /dev/shm and a sysfs of its own on /sys (as {@code ip netns exec} mounts: /sys/class/net lists the
 * namespace's interfaces, which UCX's tcp transport enumerates there): a host with its own address, name, network
 * devices and shared memory, the rest of the file system shared as on a cluster with a shared file system.
 * {@link #agent()} is an ssh wrapper to pass as {@code --launch-agent}.
 *
 * <p>{@link #unavailable} says why the hosts cannot be made here (not root, no {@code ip}, {@code sshd},
 * {@code nsenter}, {@code unshare} or {@code ssh}), {@link #create} throws with the reason when a step fails (no
 * namespaces allowed, sshd not starting). {@link #close} removes everything it made (and what a
 * crashed earlier run of these tests left under the same names): the processes of its namespaces, the namespaces, the
 * veth pairs, the bridge, the temporary directory. /etc/ssh and ~/.ssh are not touched (the client never writes a
 * known_hosts file: {@code UserKnownHostsFile=/dev/null}); /run/sshd, which sshd needs, is created if missing and left
 * (another sshd of this machine may use it).
 *
 * <p>Owned by one test class; not thread-safe.
 */
final class NamespaceHosts implements AutoCloseable {
    /** The first three octets of the hosts' subnet: unique to these tests. */
    static final String SUBNET = "10.99.47";
    /** This machine's address on the bridge. */
    static final String BRIDGE_HOST = ".254";
    static final String BRIDGE = "mht47br";
    static final String NS_PREFIX = "multihost-t";
    private static final String VETH_PREFIX = "mht47v";
    private static final String PEER_PREFIX = "mht47p";
    private static final String SHM_SIZE = "256m";
    private static final String SSHD = "/usr/sbin/sshd";
    private static final long SSHD_UP_MS = 15_000;
    private static final long COMMAND_TIMEOUT_S = 30;
    /** Most hosts a test makes (the stale-state sweep looks this far). */
    private static final int MAX_HOSTS = 8;

    private final int count;
    private final Path dir;
    private final List<Process> sshds = new ArrayList<>();

    /** How often {@link #assertNothingLeft} looks again. */
    private static final long LEFT_POLL_MS = 200;

    private NamespaceHosts(int count, Path dir) {
        this.count = count;
        this.dir = dir;
    }

    /** The reason these hosts cannot be made here, or null when they can be tried. */
    static String unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "network namespaces need root (running as " + System.getProperty("user.name") + ")";
        }
        for (String tool : new String[] {"/usr/sbin/ip", SSHD, "/usr/bin/nsenter", "/usr/bin/unshare", "/usr/bin/ssh",
            "/usr/bin/ssh-keygen"}) {
            Path alt = Path.of(tool.replace("/usr/sbin/", "/sbin/"));
            if (!Files.isExecutable(Path.of(tool)) && !Files.isExecutable(alt)) {
                return tool + " is not installed (apt-get install iproute2 openssh-server openssh-client util-linux;"
                        + " .ci/run does it)";
            }
        }
        return null;
    }

    /**
     * {@code n} hosts for the test class {@code test}, or a skip (an aborted assumption) that prints why when network
     * namespaces cannot be made here.
     */
    static NamespaceHosts createOrSkip(int n, String test) throws InterruptedException {
        String why = unavailable();
        NamespaceHosts hosts = null;
        if (why == null) {
            try {
                hosts = create(n);
            } catch (IOException e) {
                why = "cannot make network-namespace hosts here: " + e.getMessage();
            }
        }
        if (why != null) {
            System.out.println(test + " skipped: " + why);
        }
        Assumptions.assumeTrue(why == null, why);
        return hosts;
    }

    /** Makes {@code n} hosts with their sshd; throws with the reason when a step fails (everything made is removed). */
    static NamespaceHosts create(int n) throws IOException, InterruptedException {
        if (n > MAX_HOSTS) {
            throw new IllegalArgumentException("at most " + MAX_HOSTS + " hosts");
        }
        sweep();
        Path dir = Files.createTempDirectory("multihost-hosts");
        NamespaceHosts h = new NamespaceHosts(n, dir);
        try {
            h.build();
            return h;
        } catch (IOException | InterruptedException | RuntimeException e) {
            h.close();
            throw e;
        }
    }

    /** Host {@code i}'s address (0-based). */
    String address(int i) {
        return SUBNET + "." + (i + 1);
    }

    /** Host {@code i}'s name (its UTS host name). */
    String name(int i) {
        return "mh" + (i + 1);
    }

    /** The first two hosts with {@code slots} slots each, as {@code --host} takes them. */
    String both(int slots) {
        return address(0) + ":" + slots + "," + address(1) + ":" + slots;
    }

    /** jrmarun with these arguments, reaching the hosts through their ssh ({@link #agent}). */
    ChildProcess jrmarun(String... args) throws IOException {
        List<String> a = new ArrayList<>(List.of("--launch-agent", agent().toString()));
        a.addAll(List.of(args));
        return ChildProcess.jrmarun(a.toArray(new String[0]));
    }

    /**
     * Asserts that nothing of a job is left on the first two hosts within {@code waitMs}: no JVM of a rank, no file
     * in their /dev/shm.
     */
    void assertNothingLeft(long waitMs) throws IOException, InterruptedException {
        long until = System.currentTimeMillis() + waitMs;
        for (int h = 0; h < 2; h++) {
            while (!jvms(h).isEmpty() && System.currentTimeMillis() < until) {
                Thread.sleep(LEFT_POLL_MS);
            }
            assertEquals(List.of(), jvms(h), "JVMs left on host " + name(h));
            assertEquals(List.of(), shmFiles(h), "files left in /dev/shm of host " + name(h));
        }
    }

    /** The ssh wrapper to give jrmarun as {@code --launch-agent}. */
    Path agent() {
        return dir.resolve("agent");
    }

    /** The temporary directory of these hosts (keys, configurations, logs). */
    Path dir() {
        return dir;
    }

    private String ns(int i) {
        return NS_PREFIX + (i + 1);
    }

    private void build() throws IOException, InterruptedException {
        run("ip", "link", "add", BRIDGE, "type", "bridge");
        run("ip", "addr", "add", SUBNET + BRIDGE_HOST + "/24", "dev", BRIDGE);
        run("ip", "link", "set", BRIDGE, "up");
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir.resolve("hostkey").toString());
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir.resolve("userkey").toString());
        Files.copy(dir.resolve("userkey.pub"), dir.resolve("authorized_keys"));
        Files.writeString(agent(), String.join("\n", "#!/bin/sh",
                "# ssh to a namespace host of the tests: their key, no known_hosts file, never a prompt",
                "exec ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
                        + " -o BatchMode=yes -o ConnectTimeout=10 -i " + dir.resolve("userkey") + " \"$@\"", ""));
        Files.setPosixFilePermissions(agent(), PosixFilePermissions.fromString("rwx------"));
        Files.createDirectories(Path.of("/run/sshd")); // sshd's privilege separation directory
        for (int i = 0; i < count; i++) {
            String ns = ns(i);
            run("ip", "netns", "add", ns);
            run("ip", "link", "add", VETH_PREFIX + (i + 1), "type", "veth", "peer", "name", PEER_PREFIX + (i + 1));
            run("ip", "link", "set", PEER_PREFIX + (i + 1), "netns", ns);
            run("ip", "link", "set", VETH_PREFIX + (i + 1), "master", BRIDGE, "up");
            run("ip", "-n", ns, "addr", "add", address(i) + "/24", "dev", PEER_PREFIX + (i + 1));
            run("ip", "-n", ns, "link", "set", PEER_PREFIX + (i + 1), "up");
            run("ip", "-n", ns, "link", "set", "lo", "up");
            Path conf = dir.resolve("sshd_config_" + (i + 1));
            Files.writeString(conf, String.join("\n", "ListenAddress " + address(i), "Port 22",
                    "HostKey " + dir.resolve("hostkey"), "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                    "PasswordAuthentication no", "KbdInteractiveAuthentication no", "PubkeyAuthentication yes",
                    "PermitRootLogin prohibit-password", "StrictModes no", "UsePAM no",
                    "PidFile " + dir.resolve("sshd_" + (i + 1) + ".pid"), "LogLevel ERROR", ""));
            Process p = new ProcessBuilder("nsenter", "--net=/run/netns/" + ns, "unshare", "--uts", "--mount", "sh",
                    "-c", "hostname " + name(i) + " && mount -t tmpfs -o size=" + SHM_SIZE + " " + NS_PREFIX
                            + "shm /dev/shm && mount -t sysfs " + NS_PREFIX + "sys /sys && exec " + SSHD
                            + " -D -e -f " + conf)
                    .redirectErrorStream(true).redirectOutput(dir.resolve("sshd_" + (i + 1) + ".log").toFile()).start();
            sshds.add(p);
        }
        for (int i = 0; i < count; i++) {
            awaitSshd(i);
        }
    }

    private void awaitSshd(int i) throws IOException, InterruptedException {
        long until = System.currentTimeMillis() + SSHD_UP_MS;
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(address(i), 22), 1_000);
                return;
            } catch (IOException e) {
                if (!sshds.get(i).isAlive() || System.currentTimeMillis() > until) {
                    throw new IOException("the sshd of host " + name(i) + " did not come up: "
                            + Files.readString(dir.resolve("sshd_" + (i + 1) + ".log")).trim(), e);
                }
                Thread.sleep(100);
            }
        }
    }

    /** Takes host {@code i}'s link down (its veth on the bridge side), as a cut cable. */
    void linkDown(int i) throws IOException, InterruptedException {
        run("ip", "link", "set", VETH_PREFIX + (i + 1), "down");
    }

    void linkUp(int i) throws IOException, InterruptedException {
        run("ip", "link", "set", VETH_PREFIX + (i + 1), "up");
    }

    /** The pids of the processes that run on host {@code i} (in its network namespace). */
    List<Long> processes(int i) {
        return processesIn(ns(i));
    }

    /**
     * The pids of the jrma JVMs on host {@code i}: those of several ranks ({@code JvmHost}) and those of one rank,
     * which run the program's main class (jrmarun gave them their index, {@code JRMA_JVM}).
     */
    List<Long> jvms(int i) {
        List<Long> l = new ArrayList<>();
        for (long pid : processes(i)) {
            String cmd = ProcessHandle.of(pid).flatMap(h -> h.info().commandLine()).orElse("");
            if (cmd.contains(JvmHost.class.getName()) || isJvmOfOneRank(pid)) {
                l.add(pid);
            }
        }
        return l;
    }

    private static boolean isJvmOfOneRank(long pid) {
        try {
            String env = new String(Files.readAllBytes(Path.of("/proc", String.valueOf(pid), "environ")),
                    StandardCharsets.ISO_8859_1);
            return ("\0" + env).contains("\0" + MainRankBootstrap.ENV_MAIN_RANK + "=");
        } catch (IOException e) {
            return false; // gone
        }
    }

    /** Kills every jrma JVM on host {@code i} with SIGKILL, as a host that dies; returns how many. */
    int killJvms(int i) {
        List<Long> l = jvms(i);
        l.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        return l.size();
    }

    /** The files in host {@code i}'s own /dev/shm (seen through the mount namespace of its sshd). */
    List<String> shmFiles(int i) throws IOException, InterruptedException {
        String out = run("nsenter", "-t", String.valueOf(sshds.get(i).pid()), "-m", "ls", "-A", "/dev/shm");
        return out.isBlank() ? List.of() : List.of(out.trim().split("\\s+"));
    }

    @Override
    public void close() throws InterruptedException {
        for (int i = 0; i < count; i++) {
            killAllIn(ns(i));
        }
        for (Process p : sshds) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
        }
        sweep();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // already gone
        }
    }

    /** Removes the namespaces, veth pairs and bridge of these tests (a crashed earlier run may have left them). */
    private static void sweep() throws InterruptedException {
        for (int i = 1; i <= MAX_HOSTS; i++) {
            String ns = NS_PREFIX + i;
            if (Files.exists(Path.of("/run/netns", ns))) {
                killAllIn(ns);
                quietly("ip", "netns", "delete", ns);
            }
            if (Files.exists(Path.of("/sys/class/net", VETH_PREFIX + i))) {
                quietly("ip", "link", "delete", VETH_PREFIX + i);
            }
        }
        if (Files.exists(Path.of("/sys/class/net", BRIDGE))) {
            quietly("ip", "link", "delete", BRIDGE);
        }
    }

    /** Kills every process in network namespace {@code ns}: only these tests' processes run there. */
    private static void killAllIn(String ns) throws InterruptedException {
        for (int round = 0; round < 3; round++) {
            List<Long> l = processesIn(ns);
            if (l.isEmpty()) {
                return;
            }
            l.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
            Thread.sleep(200);
        }
    }

    private static List<Long> processesIn(String ns) {
        List<Long> l = new ArrayList<>();
        String want;
        try {
            want = "net:[" + Files.getAttribute(Path.of("/run/netns", ns), "unix:ino") + "]";
        } catch (IOException | RuntimeException e) {
            return l;
        }
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (name.chars().allMatch(Character::isDigit)) {
                    try {
                        if (want.equals(Files.readSymbolicLink(p.resolve("ns/net")).toString())) {
                            l.add(Long.parseLong(name));
                        }
                    } catch (IOException | RuntimeException e) {
                        // gone, or not ours to read
                    }
                }
            }
        } catch (IOException e) {
            // no /proc
        }
        return l;
    }

    /**
     * Compiles the mpi test programs {@code names} (two-sided-compat's {@code mpitests} sources) against {@code
     * classPath} into {@code programs} under this machine's directory, which every host sees; returns that directory.
     */
    Path compilePrograms(String classPath, String... names) throws IOException {
        Path programs = dir().resolve("programs");
        Files.createDirectories(programs);
        Path sources = Path.of("..", "two-sided-compat", "src", "test", "java", "mpitests");
        // the sourcepath: a program may use classes of its own beside it (Collective its CollectiveReductions)
        List<String> args = new ArrayList<>(List.of("-cp", classPath, "-sourcepath", sources.getParent().toString(),
                "-d", programs.toString()));
        for (String p : names) {
            args.add(sources.resolve(p + ".java").toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null || javac.run(null, null, null, args.toArray(new String[0])) != 0) {
            throw new IOException("compiling the mpi test programs " + List.of(names) + " failed (a JDK with javac"
                    + " runs the tests)");
        }
        return programs;
    }

    /** Runs a command to its end; returns its output; throws with the output if it fails. */
    static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " did not end within " + COMMAND_TIMEOUT_S + " s");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (exit " + p.exitValue() + "): " + out.trim());
        }
        return out;
    }

    private static void quietly(String... cmd) throws InterruptedException {
        try {
            run(cmd);
        } catch (IOException ignored) {
            // removing what may not be there
        }
    }
}

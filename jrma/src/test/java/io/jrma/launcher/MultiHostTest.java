package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.testsupport.ChildProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * jrmarun across hosts, on two hosts made of network namespaces with an sshd each ({@link NamespaceHosts}), the JVMs
 * there started through ssh as on a cluster: the mpi test programs of two-sided-compat (windows under fence, locks and
 * PSCW; send/recv; collectives) on 2 hosts x 2 JVMs, a hostfile, where ranks run and which of them share memory,
 * tagged output, exit codes, an abort, a host killed in the middle of an epoch, a host whose link goes down, and ssh
 * that fails. After every test no JVM runs on either host and neither host's /dev/shm holds a file. Skipped, saying
 * why, where the hosts cannot be made (not root, no sshd, no namespaces).
 */
class MultiHostTest {
    private static final String FIX = "io.jrma.launcher.fixtures.";
    /** The mpi test programs, compiled from two-sided-compat's test sources (the module's own directory is the cwd). */
    private static final String[] PROGRAMS = {"Check", "Windows", "PointToPoint", "Collective"};
    /** A host that does not exist on the hosts' subnet: ssh to it fails. */
    private static final String NO_HOST = NamespaceHosts.SUBNET + ".9";
    /** How long a job may take here (2 cores shared with other work; every JVM starts through ssh). */
    private static final long JOB_S = 150;
    /** How long a failed job may take to end everywhere (the failure seen, the grace, the remote JVMs' exit). */
    private static final long FAILED_JOB_S = 40;
    /** After a test, how long the JVMs on the hosts may take to be gone (a cut-off host ends its own). */
    private static final long JVMS_GONE_MS = 20_000;
    /** Rounds of the soak across hosts (each a window of random operations and epochs, checked). */
    private static final int SOAK_ROUNDS = 8;

    /** What a secret of the job looks like: 32 random bytes in hex, on no word boundary but its own. */
    private static final Pattern SECRET = Pattern.compile("(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])");

    private static NamespaceHosts hosts;
    private static Path programs;

    @BeforeAll
    static void makeHosts() throws Exception {
        hosts = NamespaceHosts.createOrSkip(2, "MultiHostTest");
        programs = hosts.compilePrograms(System.getProperty("java.class.path"), PROGRAMS);
    }

    @AfterAll
    static void removeHosts() throws Exception {
        if (hosts != null) {
            hosts.close();
        }
    }

    /** Nothing of the job is left on any host: no JVM, no file in /dev/shm. */
    @AfterEach
    void nothingLeftOnAnyHost() throws Exception {
        hosts.assertNothingLeft(JVMS_GONE_MS);
    }

    private static String both(int slots) {
        return hosts.both(slots);
    }

    private static ChildProcess jrmarun(String... args) throws IOException {
        return hosts.jrmarun(args);
    }

    @ParameterizedTest(name = "{0} on 2 hosts x 2 JVMs")
    @ValueSource(strings = {"Windows", "PointToPoint", "Collective"})
    @Timeout(JOB_S + 30)
    void theMpiProgramsRunOnTwoHostsWithTwoJvmsEach(String program) throws Exception {
        ChildProcess r = jrmarun("--host", both(2), "--jvms", "4", "-cp", programs.toString(),
                "mpitests." + program);
        assertEquals(0, r.exit(JOB_S), r.output());
        assertTrue(r.lines().contains(program + " OK on 4 ranks"), r.output());
    }

    /**
     * The soak (docs/soak.md) on 2 hosts x 2 JVMs: random mixes of RMA calls, epochs, datatypes and window flavors,
     * messages and collectives, each result checked against the sequential model; a rank reaches the other JVM of its
     * host over shared memory and the other host's over TCP (the soak checks that each peer's transport is one of
     * these). A failed check names the seed.
     */
    @Test
    @Timeout(JOB_S + 30)
    void theSoakRunsAcrossTwoHostsAndEveryResultIsChecked() throws Exception {
        long seed = new SplittableRandom().nextLong();
        Path counts = hosts.dir().resolve("soak-" + Long.toHexString(seed) + ".counts");
        ChildProcess r = jrmarun("--host", both(2), "--jvms", "4", "--param", "jrma.shm.windows=false",
                "io.jrma.soak.SoakProgram", "2hosts", "4", "shm,tcp", String.valueOf(seed),
                String.valueOf(SOAK_ROUNDS), counts.toString());
        assertEquals(0, r.exit(JOB_S), "soak seed " + seed + ":\n" + r.output());
        List<String> c = Files.readAllLines(counts);
        Files.delete(counts);
        assertTrue(c.contains("rounds=" + SOAK_ROUNDS), "soak seed " + seed + ": " + c);
        assertTrue(c.stream().anyMatch(l -> l.matches("checks=[1-9][0-9]*")), "soak seed " + seed + ": " + c);
        System.out.println("MultiHostTest: soak on 2 hosts x 2 JVMs, seed " + seed + ": " + String.join(" ", c));
    }

    @Test
    @Timeout(JOB_S + 30)
    void aHostfileMapsRanksBySlotAndOnlyRanksOfOneHostShareMemory() throws Exception {
        Path file = hosts.dir().resolve("hostfile");
        Files.writeString(file, String.join("\n", "# two namespace hosts", hosts.address(0) + " slots=2",
                "", hosts.address(1) + " slots=2 max_slots=4", ""));
        ChildProcess r = jrmarun("--hostfile", file.toString(), "--ranks-per-jvm", "1", FIX + "HostReport");
        assertEquals(0, r.exit(JOB_S), r.output());
        for (int rank = 0; rank < 4; rank++) {
            // each rank in a JVM of its own; the two JVMs of a host share memory, never those of the other host
            String line = "rank " + rank + " of 4 on " + hosts.name(rank / 2) + " shared=2";
            assertTrue(r.lines().contains(line), line + " in:\n" + r.output());
        }
    }

    @Test
    @Timeout(JOB_S + 30)
    void mapByNodeDealsRanksOverTheHostsAndEachHostBindsItsOwn() throws Exception {
        ChildProcess r = jrmarun("--host", both(2), "--map-by", "node", "--bind-to", "core",
                "--report-bindings", FIX + "HostReport");
        assertEquals(0, r.exit(JOB_S), r.output());
        for (int rank = 0; rank < 4; rank++) {
            // ranks 0, 2 on the first host, 1, 3 on the second, the two of a host in its one JVM
            String line = "rank " + rank + " of 4 on " + hosts.name(rank % 2) + " shared=2";
            assertTrue(r.lines().contains(line), line + " in:\n" + r.output());
            String report = "] MCW rank " + rank + " bound to socket ";
            assertEquals(1, r.lines().stream().filter(l -> l.contains(report)).count(), report + " in:\n" + r.output());
        }
    }

    @Test
    @Timeout(JOB_S + 30)
    void outputOfEveryHostComesBackTagged() throws Exception {
        ChildProcess r = jrmarun("--host", both(2), "--tag-output", FIX + "Hello");
        assertEquals(0, r.exit(JOB_S), r.output());
        for (int rank = 0; rank < 4; rank++) {
            String prefix = "[1," + rank + "]<stdout>:hello from rank " + rank + " of 4";
            assertTrue(r.lines().stream().anyMatch(l -> l.startsWith(prefix)), prefix + " in:\n" + r.output());
        }
    }

    @Test
    @Timeout(JOB_S + 30)
    void aRanksExitCodeComesBackFromAnotherHost() throws Exception {
        ChildProcess r = jrmarun("--host", both(2), "--jvms", "4", FIX + "Exiter", "3", "7");
        assertEquals(7, r.exit(JOB_S), r.output());
        assertTrue(r.output().contains("JVM 3 on host " + hosts.address(1)), r.output());
    }

    @Test
    @Timeout(JOB_S + 30)
    void anAbortOnAnotherHostEndsTheJobEverywhereWithItsCode() throws Exception {
        ChildProcess r = jrmarun("--host", both(2), FIX + "Aborter", "2", "9");
        assertEquals(9, r.exit(JOB_S), r.output());
        assertTrue(r.output().contains("jrmarun: rank 2 called abort(9)"), r.output());
    }

    @Test
    @Timeout(JOB_S + FAILED_JOB_S + 30)
    void aHostKilledInTheMiddleOfAnEpochEndsTheJobOnEveryHost() throws Exception {
        ChildProcess r = jrmarun("--host", both(2), "--jvms", "4", FIX + "EpochLoop");
        try {
            r.awaitLine(l -> l.equals("epochs running"), JOB_S * 1000);
            noSecretInSight(r);
            assertEquals(2, hosts.killJvms(1), "the JVMs of host " + hosts.name(1));
            int code = r.exit(FAILED_JOB_S);
            assertNotEquals(0, code, r.output());
            assertTrue(r.output().contains("on host " + hosts.address(1) + " (ranks ["), r.output());
            assertTrue(r.output().contains("the host runs ranks [2, 3]"), r.output());
        } finally {
            r.kill();
        }
    }

    /**
     * The job's secrets (64 hex digits, {@code Handshake.newSecret()}) are on no command line and in no
     * environment of the job's processes, here (jrmarun, the agents) or on the hosts (sshd's sessions, the JVMs):
     * what {@code ps} shows every user of a host.
     */
    private static void noSecretInSight(ChildProcess r) throws IOException {
        List<Long> pids = new ArrayList<>();
        pids.add(r.process().pid());
        r.process().descendants().forEach(h -> pids.add(h.pid()));
        for (int h = 0; h < 2; h++) {
            pids.addAll(hosts.processes(h));
        }
        assertEquals(4, hosts.jvms(0).size() + hosts.jvms(1).size(), "the job's JVMs run on the hosts");
        for (long pid : pids) {
            for (String what : new String[] {"cmdline", "environ"}) {
                byte[] b;
                try {
                    b = Files.readAllBytes(Path.of("/proc", String.valueOf(pid), what));
                } catch (IOException e) {
                    continue; // ended meanwhile
                }
                String text = new String(b, StandardCharsets.ISO_8859_1).replace('\0', ' ');
                assertFalse(SECRET.matcher(text).find(), "a secret in /proc/" + pid + "/" + what + ": " + text);
            }
        }
    }

    @Test
    @Timeout(JOB_S + FAILED_JOB_S + 60)
    void aHostWhoseLinkGoesDownEndsTheJobAndItsOwnJvms() throws Exception {
        ChildProcess r = jrmarun("--host", both(2), "--jvms", "4", "--param", "jrma.launcher.silenceMs=4000",
                FIX + "EpochLoop");
        try {
            r.awaitLine(l -> l.equals("epochs running"), JOB_S * 1000);
            hosts.linkDown(1);
            int code = r.exit(FAILED_JOB_S);
            assertNotEquals(0, code, r.output());
            assertTrue(r.output().contains("host " + hosts.address(1) + " (JVMs 2,3, ranks [2, 3]) is unreachable"),
                    r.output());
            // cut off, the JVMs there hear nothing from the launcher and end themselves, link still down
            long until = System.currentTimeMillis() + JVMS_GONE_MS;
            while (!hosts.jvms(1).isEmpty() && System.currentTimeMillis() < until) {
                Thread.sleep(200);
            }
            assertEquals(List.of(), hosts.jvms(1), "JVMs left on the host whose link is down");
        } finally {
            r.kill();
            hosts.linkUp(1);
        }
    }

    @Test
    @Timeout(FAILED_JOB_S + 30)
    void sshThatCannotReachAHostIsOneLineNamingIt() throws Exception {
        ChildProcess r = jrmarun("--host", hosts.address(0) + "," + NO_HOST, FIX + "Hello");
        int code = r.exit(FAILED_JOB_S);
        assertNotEquals(0, code, r.output());
        String prefix = "jrmarun: cannot start JVM 1 on host " + NO_HOST + ": the launch agent '" + hosts.agent()
                + "' exited with code 255 (";
        assertTrue(r.lines().stream().anyMatch(l -> l.startsWith(prefix)), prefix + " in:\n" + r.output());
    }

    /**
     * {@code --prefix DIR} as Open MPI's: the JVMs on the other hosts take jrma from DIR/lib (an install of jars made
     * here from this JVM's class path), not from the class path jrmarun itself runs with; the program's class path
     * ({@code -cp}) is appended as given.
     */
    @Test
    @Timeout(JOB_S + 30)
    void theJvmsOfOtherHostsTakeJrmaFromThePrefix() throws Exception {
        Path prefix = Files.createDirectories(hosts.dir().resolve("prefix-install"));
        Installs.ofClassPath(prefix.resolve("lib"), System.getProperty("java.class.path"), testClasses());
        ChildProcess r = jrmarun("--host", both(1), "--prefix", prefix.toString(), "-cp", testClasses().toString(),
                FIX + "WhereFrom");
        assertEquals(0, r.exit(JOB_S), r.output());
        for (int rank = 0; rank < 2; rank++) {
            String line = "rank " + rank + " on " + hosts.name(rank) + ": mpi from " + prefix.resolve("lib") + "/";
            assertTrue(r.lines().stream().anyMatch(l -> l.startsWith(line) && l.endsWith(".jar")),
                    line + "... .jar in:\n" + r.output());
        }
    }

    @Test
    @Timeout(FAILED_JOB_S + 30)
    void aPrefixWithoutJrmaIsOneLineNamingTheHost() throws Exception {
        Path nowhere = hosts.dir().resolve("no-install-here");
        ChildProcess r = jrmarun("--host", both(1), "--prefix", nowhere.toString(), FIX + "Hello");
        assertEquals(RemoteStart.NOT_INSTALLED, r.exit(FAILED_JOB_S), r.output());
        String lib = nowhere.resolve("lib") + " is not there (--prefix " + nowhere + ")";
        assertTrue(r.lines().stream().anyMatch(l -> l.startsWith("jrmarun: cannot start JVM ")
                && (l.contains("jrma is not installed on host " + hosts.address(0) + ": " + lib)
                || l.contains("jrma is not installed on host " + hosts.address(1) + ": " + lib))),
                "the host and " + lib + " named in:\n" + r.output());
        assertFalse(r.output().contains("Exception"), "no class-loading error of a JVM, nor of the clean-up:\n"
                + r.output());
    }

    /** This module's test classes: the fixtures' class path as a program's. */
    private static Path testClasses() {
        return Path.of("target", "test-classes").toAbsolutePath();
    }

    @Test
    @Timeout(FAILED_JOB_S + 30)
    void aLaunchAgentThatIsNotThereIsOneLine() throws Exception {
        String agent = hosts.dir().resolve("no-such-agent").toString();
        ChildProcess r = ChildProcess.jrmarun("--launch-agent", agent, "--host", both(1), FIX + "Hello");
        assertEquals(1, r.exit(FAILED_JOB_S), r.output());
        assertTrue(r.lines().get(0).startsWith("jrmarun: cannot start JVM 0 on host " + hosts.address(0)
                + " with the launch agent '" + agent + "': "), r.output());
    }

    /**
     * A process on another host that knows the job's id and its TCP agent's address but not the secret (issue 34's
     * stranger, across hosts): its handshake is refused and counted, and neither rank's window changes.
     */
    @Test
    @Timeout(JOB_S + 30)
    void aStrangerOnAnotherHostCannotJoinNorChangeAWindow() throws Exception {
        Path go = hosts.dir().resolve("stranger-tried");
        Files.deleteIfExists(go);
        Path script = hosts.dir().resolve("stranger.py");
        Files.writeString(script, String.join("\n",
                "import os, socket, struct, sys",
                "s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)",
                "s.sendall(struct.pack('>ii', 0x4a524d41, 1) + bytes.fromhex(sys.argv[3])",
                "          + struct.pack('>i', 1) + os.urandom(16))",
                "got = b''",
                "verdict = b''",
                "try:",
                "    while len(got) < 52:",
                "        b = s.recv(52 - len(got))",
                "        if not b:",
                "            break",
                "        got += b",
                "    s.sendall(os.urandom(32))",
                "    verdict = s.recv(1)",
                "except OSError:",
                "    pass",
                "print('ADMITTED' if verdict == b'\\x01' else 'REFUSED after a challenge of %d bytes' % len(got))",
                ""));
        ChildProcess r = jrmarun("--host", hosts.address(0) + "," + hosts.address(1), FIX + "TcpStrangerTarget",
                go.toString());
        try {
            String agent = r.awaitLine(l -> l.startsWith("AGENT "), JOB_S * 1000);
            String[] a = agent.split(" ");
            assertEquals(hosts.address(0), a[1], "rank 0's agent listens on its host's address: " + agent);
            Process p = new ProcessBuilder(hosts.agent().toString(), hosts.address(1), "python3", script.toString(),
                    a[1], a[2], a[3]).redirectErrorStream(true).start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the stranger on " + hosts.name(1) + " still runs");
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            System.out.println("MultiHostTest: a stranger on " + hosts.name(1) + " tried rank 0's agent at " + a[1]
                    + ":" + a[2] + ": " + said);
            assertTrue(said.startsWith("REFUSED after a challenge of 52 bytes"), said);
            Files.writeString(go, "tried");
            assertEquals(0, r.exit(JOB_S), r.output());
            long before = Long.parseLong(a[4]);
            assertTrue(r.lines().contains("UNDISTURBED refused=" + (before + 1)), r.output());
        } finally {
            r.kill();
        }
    }
}

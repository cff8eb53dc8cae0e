package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.testsupport.ChildProcess;
import io.jrma.transport.ucx.UcxWorker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * UCX between hosts (issue 31): jobs of {@code jrmarun --host} on two network-namespace hosts ({@link NamespaceHosts},
 * each with its own address, host name and /dev/shm, JVMs started through its sshd) with {@code jrma.transports}
 * naming {@code ucx} and {@code jrma.ucx.tls=tcp,self} (UCX's TCP transport over the hosts' veth link): puts, gets and
 * atomics to the other host by the RDMA lane and UCP atomics with no packet (the window counters, {@code UcxLanes}),
 * on 2 hosts x 1 JVM and 2 hosts x 2 JVMs (shared memory within a host); the mpi test programs (windows under fence,
 * locks and PSCW; send/recv); and the soak, every result checked. Skipped, saying why, where the hosts cannot be
 * made (not root, no sshd, no namespaces) or libucp is missing.
 */
class UcxAcrossHostsTest {
    private static final String FIX = "io.jrma.launcher.fixtures.";
    /** The mpi test programs, compiled from two-sided-compat's test sources. */
    private static final String[] PROGRAMS = {"Check", "Windows", "PointToPoint"};
    /** How long a job may take here (2 cores shared with other work; every JVM starts through ssh). */
    private static final long JOB_S = 150;
    /** After a test, how long the JVMs on the hosts may take to be gone. */
    private static final long JVMS_GONE_MS = 20_000;
    /** Rounds of the soak across hosts. */
    private static final int SOAK_ROUNDS = 8;
    /** UCX's TCP transport between the hosts (and its loopback for the ranks of one JVM). */
    private static final String TLS = "jrma.ucx.tls=tcp,self";

    private static NamespaceHosts hosts;
    private static Path programs;

    @BeforeAll
    static void makeHosts() throws Exception {
        String why = UcxWorker.unavailableReason();
        if (why != null) {
            System.out.println("UcxAcrossHostsTest skipped: " + why);
        }
        Assumptions.assumeTrue(why == null, why);
        hosts = NamespaceHosts.createOrSkip(2, "UcxAcrossHostsTest");
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

    /**
     * 4 ranks, 2 per host, in {@code jvmsPerHost} JVMs per host: between the hosts everything goes through UCX
     * (within a host, with 2 JVMs, shared memory); each rank's puts and gets to the other host took the RDMA lane and
     * its atomics UCP atomics, and sent no packet.
     */
    @ParameterizedTest(name = "2 hosts x {0} JVMs")
    @ValueSource(ints = {1, 2})
    @Timeout(JOB_S + 30)
    void putsGetsAndAtomicsToTheOtherHostGoThroughUcxWithoutPackets(int jvmsPerHost) throws Exception {
        String transports = jvmsPerHost == 1 ? "tcp,ucx" : "shm,tcp,ucx";
        ChildProcess r = jrmarun("--host", both(2), "--jvms", String.valueOf(2 * jvmsPerHost),
                "--param", "jrma.transports=" + transports, "--param", TLS, FIX + "UcxLanes");
        assertEquals(0, r.exit(JOB_S), r.output());
        List<String> ok = r.lines().stream().filter(l -> l.startsWith("UcxLanes rank ")).toList();
        assertEquals(4, ok.size(), r.output());
        for (String l : ok) {
            assertTrue(l.contains(" ok: packets=0 rdma_ops=2 rdma_bytes=32768 "), l);
        }
        System.out.println("UcxAcrossHostsTest, 2 hosts x " + jvmsPerHost + " JVMs, " + transports + ":\n"
                + String.join("\n", ok));
    }

    /** The mpi test programs over UCX between the hosts (windows, and send/recv through the messenger). */
    @ParameterizedTest(name = "{0} over UCX on 2 hosts")
    @ValueSource(strings = {"Windows", "PointToPoint"})
    @Timeout(JOB_S + 30)
    void theMpiProgramsRunOverUcxBetweenHosts(String program) throws Exception {
        ChildProcess r = jrmarun("--host", both(2), "--param", "jrma.transports=tcp,ucx", "--param", TLS,
                "-cp", programs.toString(), "mpitests." + program);
        assertEquals(0, r.exit(JOB_S), r.output());
        assertTrue(r.lines().contains(program + " OK on 4 ranks"), r.output());
    }

    /**
     * The soak (docs/soak.md) on 2 hosts x 1 JVM, UCX between them: random RMA calls, epochs, datatypes and window
     * flavors, messages and collectives, each result checked (the soak checks that each peer of the other JVM is
     * reached through ucx). A failed check names the seed.
     */
    @Test
    @Timeout(JOB_S + 30)
    void theSoakRunsOverUcxBetweenHostsAndEveryResultIsChecked() throws Exception {
        long seed = new SplittableRandom().nextLong();
        Path counts = hosts.dir().resolve("soak-ucx-" + Long.toHexString(seed) + ".counts");
        ChildProcess r = jrmarun("--host", both(2), "--param", "jrma.transports=tcp,ucx", "--param", TLS,
                "--param", "jrma.shm.windows=false", "io.jrma.soak.SoakProgram", "2hosts-ucx", "2", "ucx",
                String.valueOf(seed), String.valueOf(SOAK_ROUNDS), counts.toString());
        assertEquals(0, r.exit(JOB_S), "soak seed " + seed + ":\n" + r.output());
        List<String> c = Files.readAllLines(counts);
        Files.delete(counts);
        assertTrue(c.contains("rounds=" + SOAK_ROUNDS), "soak seed " + seed + ": " + c);
        assertTrue(c.stream().anyMatch(l -> l.matches("checks=[1-9][0-9]*")), "soak seed " + seed + ": " + c);
        System.out.println("UcxAcrossHostsTest: soak on 2 hosts over UCX, seed " + seed + ": " + String.join(" ", c));
    }
}

package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrma.testsupport.ChildProcess;
import io.jrma.testsupport.Command;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The mpi test programs across two hosts (network namespaces with an sshd each, {@link NamespaceHosts}) started by the
 * C libraries' own launchers, as a cluster user starts them and with nothing of jrma's set: Open MPI's {@code mpirun}
 * (its daemons started through ssh, PMIx) and MPICH's {@code mpiexec} (hydra's proxies through ssh, PMI-1), two
 * processes on each host, no {@code JRMA_TCP_INTERFACE}. Ranks of one host reach each other there, those of the other
 * host over TCP on an address the hosts share (the agents listen on every address once the ranks' host ids differ).
 * Skipped, saying why, where the hosts cannot be made or the launcher is not installed.
 */
class EnginesAcrossHostsTest {
    /** The mpi test programs, compiled from two-sided-compat's test sources (the module's own directory is the cwd). */
    private static final String[] PROGRAMS = {"Check", "Windows", "PointToPoint", "Collective"};
    /** How long a job may take here (2 cores shared with other work; every process starts through ssh). */
    private static final long JOB_S = 150;
    /** After a job, how long its processes on the hosts may take to be gone. */
    private static final long GONE_MS = 20_000;
    private static final int RANKS = 4;

    private static NamespaceHosts hosts;
    private static Path programs;

    @BeforeAll
    static void makeHosts() throws Exception {
        hosts = NamespaceHosts.createOrSkip(2, "EnginesAcrossHostsTest");
        programs = hosts.compilePrograms(Command.classPath(), PROGRAMS);
    }

    @AfterAll
    static void removeHosts() throws Exception {
        if (hosts != null) {
            hosts.close();
        }
    }

    /** No process of a job is left on either host (only the sshd, and what it runs for a moment, live there). */
    @AfterEach
    void nothingLeftOnAnyHost() throws Exception {
        long until = System.currentTimeMillis() + GONE_MS;
        for (int h = 0; h < 2; h++) {
            List<String> left = jobProcesses(h);
            while (!left.isEmpty() && System.currentTimeMillis() < until) {
                Thread.sleep(200);
                left = jobProcesses(h);
            }
            assertEquals(List.of(), left, "processes of the job left on host " + hosts.name(h));
            assertEquals(List.of(), hosts.shmFiles(h), "files left in /dev/shm of host " + hosts.name(h));
        }
    }

    private static List<String> jobProcesses(int h) {
        List<String> l = new ArrayList<>();
        for (long pid : hosts.processes(h)) {
            String cmd = ProcessHandle.of(pid).flatMap(p -> p.info().commandLine()).orElse("");
            if (cmd.contains("mpitests.") || cmd.contains("orted") || cmd.contains("hydra_pmi_proxy")) {
                l.add(pid + " " + cmd);
            }
        }
        return l;
    }

    /**
     * The launcher's command up to the program, run on this machine (the hosts' bridge is its side of their network),
     * starting its daemons on both hosts through the hosts' ssh wrapper; null when it is not installed.
     */
    private static List<String> launcher(String which) {
        String hostList = hosts.address(0) + ":2," + hosts.address(1) + ":2";
        if (which.equals("hydra")) {
            String m = Command.onPath("mpiexec.hydra", "mpiexec.mpich");
            return m == null ? null : List.of(m, "-launcher", "ssh", "-launcher-exec", hosts.agent().toString(),
                    "-iface", NamespaceHosts.BRIDGE, "-hosts", hostList, "-n", String.valueOf(RANKS));
        }
        String m = Command.onPath("mpirun.openmpi");
        return m == null ? null : List.of(m, "--allow-run-as-root", "--mca", "plm_rsh_agent", hosts.agent().toString(),
                "--mca", "oob_tcp_if_include", NamespaceHosts.SUBNET + ".0/24", "--bind-to", "none", "--host",
                hostList, "-np", String.valueOf(RANKS));
    }

    @ParameterizedTest(name = "{0}: {1} on 2 hosts x 2 processes")
    @CsvSource({"hydra, Windows", "hydra, PointToPoint", "ompi, Windows", "ompi, Collective"})
    @Timeout(JOB_S + 30)
    void aProgramRunsAcrossHostsUnderTheLauncherWithNoAddressGiven(String which, String program) throws Exception {
        List<String> cmd = launcher(which);
        if (cmd == null) {
            System.out.println("EnginesAcrossHostsTest skipped for " + which + ": " + (which.equals("hydra")
                    ? "MPICH's mpiexec is not installed (apt-get install mpich" : "Open MPI's mpirun.openmpi is not"
                    + " installed (apt-get install openmpi-bin") + "; .ci/run does it)");
            assumeTrue(false, which + " is not installed");
        }
        List<String> all = new ArrayList<>(cmd);
        all.add(Command.java());
        all.addAll(Command.jrmaJvmFlags());
        all.addAll(List.of("-cp", programs + File.pathSeparator + Command.classPath(), "mpitests." + program));
        ProcessBuilder pb = new ProcessBuilder(all);
        pb.environment().remove(PmiBootstrap.TCP_INTERFACE_ENV); // hydra passes its environment on: none set here
        ChildProcess r = ChildProcess.start(pb);
        assertEquals(0, r.exit(JOB_S), r.output());
        assertTrue(r.printed(program + " OK on " + RANKS + " ranks"), r.output());
        assertFalse(r.output().contains("cannot connect"), r.output());
    }
}

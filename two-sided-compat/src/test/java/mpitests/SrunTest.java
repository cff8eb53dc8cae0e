package mpitests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.testsupport.Command;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The mpi test programs started unchanged by Slurm's {@code srun -n N java <jrma's flags> -cp ... Main} on a real
 * cluster of this machine ({@link SlurmCluster}: munged, slurmctld, two slurmd), with each way srun offers to meet:
 * {@code --mpi=pmi2} (Slurm's PMI-1 wire over PMI_FD), {@code --mpi=pmix} (libpmix) and {@code --mpi=none}
 * (SLURM_* variables and jrma's own rendezvous through a private file in {@code jrma.slurm.dir}). Each step spans both
 * nodes. Exit codes are srun's: 0, an MPI_Abort's code, 128+9 for a task killed with SIGKILL (the others end by
 * themselves, as they learn of it). After every step no JVM of it is left, no shared-memory file of its JVMs, and no
 * rendezvous file. Slurm not installed or not starting here: skipped with the reason (.ci/run installs it).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class SrunTest {
    private static final long STEP_SECONDS = 90;
    private static final long GONE_MS = 5_000;
    private static final int SIGKILL_EXIT = 128 + 9;
    private static final long KILLED_END_SECONDS = 30;

    private SlurmCluster cluster;
    private String skipped;
    private String plugins = "";
    private Path rendezvous;

    @BeforeAll
    void startCluster() throws Exception {
        Optional<String> why = SlurmCluster.unavailable();
        if (why.isPresent()) {
            skipped = why.get();
        } else {
            long t0 = System.nanoTime();
            try {
                cluster = SlurmCluster.start();
                plugins = cluster.mpiPlugins();
                rendezvous = cluster.dir.resolve("rendezvous");
                System.out.printf("SrunTest: Slurm cluster %s up in %.1f s; MPI plugins: %s%n", cluster.cluster,
                        (System.nanoTime() - t0) / 1e9, plugins.replaceAll("\\s+", " ").trim());
            } catch (IOException e) {
                skipped = "Slurm could not be started here: " + e.getMessage();
            }
        }
        if (skipped != null) {
            System.out.println("SrunTest skipped: " + skipped);
        }
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) {
            long t0 = System.nanoTime();
            cluster.close();
            System.out.printf("SrunTest: cluster stopped and removed in %.1f s%n", (System.nanoTime() - t0) / 1e9);
        }
    }

    private void assume(String mpi) {
        Assumptions.assumeTrue(skipped == null, () -> "SrunTest skipped: " + skipped);
        if (!mpi.equals("none") && !plugins.contains(mpi)) {
            String why = "this Slurm has no mpi/" + mpi + " plugin (srun --mpi=list: " + plugins.trim() + ")";
            System.out.println("SrunTest skipped for --mpi=" + mpi + ": " + why);
            Assumptions.abort(why);
        }
    }

    /** One srun step and the JVMs it started (seen by a marker on their command line, as slurmd is their parent). */
    private final class Step {
        final Process p;
        final List<String> lines = new ArrayList<>();
        final Set<Long> jvms = ConcurrentHashMap.newKeySet();
        final String marker = "-Djrma.test.srun=" + UUID.randomUUID();
        private final Thread sampler;
        private volatile boolean sampling = true;

        Step(String mpi, int n, List<String> javaOptions, String... program) throws IOException {
            List<String> cmd = new ArrayList<>(List.of(SlurmCluster.find("srun"), "--mpi=" + mpi, "-n",
                    String.valueOf(n), "-N", "2", "--overcommit", Command.java()));
            cmd.addAll(Command.jrmaJvmFlags());
            cmd.add(marker);
            cmd.addAll(javaOptions);
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "mpitests." + program[0]));
            cmd.addAll(Arrays.asList(program).subList(1, program.length));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            cluster.clean(pb.environment());
            p = pb.start();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String l = r.readLine(); l != null; l = r.readLine()) {
                        synchronized (lines) {
                            lines.add(l);
                        }
                    }
                } catch (IOException ignored) {
                    // srun is gone
                }
            });
            reader.setDaemon(true);
            reader.start();
            sampler = new Thread(() -> {
                while (sampling) {
                    running().forEach(h -> jvms.add(h.pid()));
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            sampler.setDaemon(true);
            sampler.start();
        }

        /** The step's JVMs still running (srun has the marker among its arguments too: it is not a JVM). */
        Stream<ProcessHandle> running() {
            return ProcessHandle.allProcesses().filter(h -> h.info().command().map(c -> c.endsWith("/java"))
                    .orElse(false) && h.info().arguments().map(a -> Arrays.asList(a).contains(marker)).orElse(false));
        }

        /** srun's exit code; kills the step's processes if it does not end within {@code seconds}. */
        int exit(long seconds) throws InterruptedException {
            try {
                assertTrue(p.waitFor(seconds, TimeUnit.SECONDS), "srun did not end within " + seconds + " s:\n"
                        + output());
                Thread.sleep(100); // the reader takes the last lines
                return p.exitValue();
            } finally {
                sampling = false;
                sampler.join();
                p.destroyForcibly();
            }
        }

        String output() {
            synchronized (lines) {
                return String.join("\n", lines);
            }
        }

        boolean printed(String prefix) {
            synchronized (lines) {
                return lines.stream().anyMatch(l -> l.startsWith(prefix));
            }
        }

        long count(String prefix) {
            synchronized (lines) {
                return lines.stream().filter(l -> l.startsWith(prefix)).count();
            }
        }

        /** No JVM, no /dev/shm file of its JVMs, and no rendezvous file are left. */
        void assertNothingLeft() throws Exception {
            long deadline = System.nanoTime() + GONE_MS * 1_000_000L;
            while (running().findAny().isPresent() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            List<Long> alive = running().map(ProcessHandle::pid).toList();
            running().forEach(ProcessHandle::destroyForcibly);
            assertEquals(List.of(), alive, "JVMs of the step still running");
            List<String> left = List.of();
            for (int i = 0; i < 50; i++) {
                try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
                    left = s.map(f -> f.getFileName().toString())
                            .filter(f -> jvms.stream().anyMatch(pid -> f.startsWith("jrma-" + pid + "-"))).toList();
                }
                if (left.isEmpty()) {
                    break;
                }
                Thread.sleep(100);
            }
            assertEquals(List.of(), left, "files of the step's JVMs left in /dev/shm");
            if (Files.isDirectory(rendezvous)) {
                try (Stream<Path> s = Files.list(rendezvous)) {
                    assertEquals(List.of(), s.toList(), "rendezvous files left");
                }
            }
        }
    }

    private Step srun(String mpi, int n, String... program) throws IOException {
        return new Step(mpi, n, List.of("-Djrma.slurm.dir=" + rendezvous), program);
    }

    @ParameterizedTest(name = "--mpi={0}")
    @ValueSource(strings = {"pmi2", "pmix", "none"})
    void everyRankKnowsItsRankAndTheSize(String mpi) throws Exception {
        assume(mpi);
        Step s = srun(mpi, 2, "Hello");
        assertEquals(0, s.exit(STEP_SECONDS), s.output());
        for (int r = 0; r < 2; r++) {
            assertTrue(s.printed("hello from " + r + " of 2 on "), "rank " + r + ":\n" + s.output());
        }
        // the sampler saw the tasks' JVMs (and perhaps a child they forked, which has their command line until it
        // execs): the checks of what is left after the step look at real processes
        assertTrue(s.jvms.size() >= 2, "JVMs seen: " + s.jvms + "\n" + s.output());
        s.assertNothingLeft();
    }

    /** Ring: a token passed with sendRecvReplace, an allreduce of the tokens, puts into rank 0's window. */
    @ParameterizedTest(name = "--mpi={0}")
    @ValueSource(strings = {"pmi2", "pmix", "none"})
    void sendRecvAllreduceAndAWindow(String mpi) throws Exception {
        assume(mpi);
        Step s = srun(mpi, 3, "Ring");
        assertEquals(0, s.exit(STEP_SECONDS), s.output());
        for (int r = 0; r < 3; r++) {
            assertTrue(s.printed("Ring OK on rank " + r), "rank " + r + ":\n" + s.output());
        }
        s.assertNothingLeft();
    }

    /** The thorough programs, each under one way of meeting (the three together would not fit the time of CI). */
    @ParameterizedTest(name = "--mpi={0}: {1} on {2} tasks")
    @CsvSource({"pmi2, PointToPoint, 4", "pmix, Windows, 4", "none, Collective, 3"})
    void theFullPrograms(String mpi, String program, int n) throws Exception {
        assume(mpi);
        Step s = srun(mpi, n, program);
        assertEquals(0, s.exit(STEP_SECONDS), s.output());
        assertTrue(s.printed(program + " OK on " + n + " ranks"), s.output());
        s.assertNothingLeft();
    }

    @ParameterizedTest(name = "--mpi={0}")
    @ValueSource(strings = {"pmi2", "pmix", "none"})
    void mpiAbortEndsTheStepWithItsCode(String mpi) throws Exception {
        assume(mpi);
        Step s = srun(mpi, 3, "Abort", "2", "42");
        assertEquals(42, s.exit(STEP_SECONDS), s.output());
        assertTrue(s.printed("jrma mpi: rank 2 called abort(42)"), s.output());
        s.assertNothingLeft();
    }

    @ParameterizedTest(name = "--mpi={0}")
    @ValueSource(strings = {"pmi2", "pmix", "none"})
    void aKilledRankEndsTheOthers(String mpi) throws Exception {
        assume(mpi);
        Step s = srun(mpi, 3, "AwaitKill");
        long deadline = System.nanoTime() + STEP_SECONDS * 1_000_000_000L;
        while (s.count("rank ") < 3 && s.p.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        String victim = s.output().lines().filter(l -> l.startsWith("rank 1 pid ")).findFirst()
                .orElseThrow(() -> new AssertionError("rank 1 never said its pid:\n" + s.output()));
        long pid = Long.parseLong(victim.substring("rank 1 pid ".length()).trim());
        ProcessHandle h = ProcessHandle.of(pid).orElseThrow(() -> new AssertionError("rank 1 is gone already"));
        long killedAt = System.nanoTime();
        assertTrue(h.destroyForcibly()); // SIGKILL
        int code = s.exit(KILLED_END_SECONDS);
        double seconds = (System.nanoTime() - killedAt) / 1e9;
        assertEquals(SIGKILL_EXIT, code, "srun's code for a task killed by SIGKILL:\n" + s.output());
        if (!mpi.equals("pmix")) {
            // nobody but jrma ends the others (Slurm's PMIx plugin may kill them first): they exit with 1, and say why
            // (srun may drop a task's last line when the step ends, so at least one of them is seen)
            assertTrue(s.output().lines().filter(l -> l.contains(": Killed"))
                    .allMatch(l -> l.endsWith(": task 1: Killed")), "only rank 1 was killed:\n" + s.output());
            assertTrue(s.output().contains("ends with the job (ERR_PROC_ABORTED): lost the connection to JVM 1"),
                    s.output());
        }
        System.out.printf("SrunTest: --mpi=%s: srun ended %.1f s after rank 1 was killed%n", mpi, seconds);
        s.assertNothingLeft();
    }

    /**
     * jrmarun in a batch script, given no hosts: it runs on the allocation's two nodes with their slots (two each),
     * starting the JVM of each node with srun as mpirun's plm/slurm does (these nodes have no ssh between them), and
     * the ranks of both nodes reach each other. Afterwards no JVM of the job is left.
     */
    @Test
    void jrmarunInABatchScriptRunsOnTheAllocationsNodesThroughSrun() throws Exception {
        assume("none");
        String sbatch = SlurmCluster.find("sbatch");
        Assumptions.assumeTrue(sbatch != null, "SrunTest: sbatch is not installed");
        String marker = "-Djrma.test.sbatch=" + UUID.randomUUID();
        String cp = System.getProperty("java.class.path");
        List<String> jrmarun = new ArrayList<>(List.of(Command.java()));
        jrmarun.addAll(Command.jrmaJvmFlags());
        jrmarun.addAll(List.of("-cp", cp, "io.jrma.launcher.JrmaRun", "java", marker, "-cp", cp,
                "mpitests.SlurmNode"));
        Path script = cluster.dir.resolve("jrmarun-job.sh");
        Files.writeString(script, "#!/bin/sh\nexec " + String.join(" ", jrmarun.stream().map(SrunTest::shellWord)
                .toList()) + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        Path out = cluster.dir.resolve("jrmarun-job.out");
        ProcessBuilder pb = new ProcessBuilder(sbatch, "--wait", "-N", "2", "--ntasks-per-node=2",
                "--chdir=" + cluster.dir, "--output=" + out, script.toString()).redirectErrorStream(true);
        cluster.clean(pb.environment());
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        Process p = pb.start();
        try {
            long deadline = System.nanoTime() + STEP_SECONDS * 1_000_000_000L;
            while (p.isAlive() && System.nanoTime() < deadline) {
                withMarker(marker).forEach(h -> seen.add(h.pid()));
                Thread.sleep(100);
            }
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String job = Files.exists(out) ? Files.readString(out) : "(no output file)";
            assertTrue(!p.isAlive(), "sbatch --wait did not end within " + STEP_SECONDS + " s:\n" + said + job);
            assertEquals(0, p.exitValue(), said + job);
            for (int r = 0; r < 4; r++) {
                String node = cluster.node(r < 2 ? SlurmCluster.NODE1 : SlurmCluster.NODE2);
                assertTrue(job.contains("rank " + r + " of 4 on slurm node " + node + "\n"), "rank " + r + ":\n" + job);
            }
            assertTrue(job.contains("sum 6 token 4"), job);
            assertTrue(seen.size() >= 3, "jrmarun and a JVM on each node, seen: " + seen + "\n" + job);
            long gone = System.nanoTime() + GONE_MS * 1_000_000L;
            while (withMarker(marker).findAny().isPresent() && System.nanoTime() < gone) {
                Thread.sleep(50);
            }
            assertEquals(List.of(), withMarker(marker).map(ProcessHandle::pid).toList(), "JVMs of the job left");
        } finally {
            p.destroyForcibly();
            withMarker(marker).forEach(ProcessHandle::destroyForcibly);
        }
    }

    /**
     * The JVMs with {@code marker} among their arguments (jrmarun's and the ranks'; srun has it inside a word). Read
     * from /proc: ProcessHandle.Info gives no arguments for a command line past 4 KiB, as these are.
     */
    private static Stream<ProcessHandle> withMarker(String marker) {
        return ProcessHandle.allProcesses().filter(h -> {
            try {
                List<String> words = Arrays.asList(Files.readString(Path.of("/proc", String.valueOf(h.pid()),
                        "cmdline"), StandardCharsets.ISO_8859_1).split("\0"));
                return !words.isEmpty() && words.get(0).endsWith("/java") && words.contains(marker);
            } catch (IOException | RuntimeException e) {
                return false; // gone, or not ours to read
            }
        });
    }

    /** {@code s} as one word of a POSIX shell command line. */
    private static String shellWord(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /**
     * {@code srun --mpi=none} with a rendezvous directory that the nodes do not share (each node its own, as when
     * {@code jrma.slurm.dir} is on a local disk): the ranks of the other node give up after jrma.slurm.timeoutMs
     * naming the file and the setting, rank 0 names the ranks that did not join, and the step ends.
     */
    @Test
    void withoutASharedDirectoryTheRanksSayWhatIsMissing() throws Exception {
        assume("none");
        Path perNode = rendezvous.resolveSibling("rendezvous-per-node");
        String javaCmd = String.join(" ", Command.java(), String.join(" ", Command.jrmaJvmFlags()));
        List<String> cmd = List.of(SlurmCluster.find("srun"), "--mpi=none", "-n", "2", "-N", "2", "--overcommit",
                "bash", "-c", "JRMA_SLURM_DIR=" + perNode + "/$SLURMD_NODENAME JRMA_SLURM_TIMEOUTMS=3000 exec "
                + javaCmd + " -cp " + System.getProperty("java.class.path") + " mpitests.Hello");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        cluster.clean(pb.environment());
        Process p = pb.start();
        try {
            assertTrue(p.waitFor(STEP_SECONDS, TimeUnit.SECONDS), "srun did not end");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.exitValue() != 0, out);
            assertTrue(out.contains("found no rank 0 to join within 3000 ms") && out.contains("jrma.slurm.dir")
                    && out.contains("it does not exist"), out);
            assertTrue(out.contains("rank(s) 1 of 2 did not join rank 0"), out);
        } finally {
            p.destroyForcibly();
        }
    }
}

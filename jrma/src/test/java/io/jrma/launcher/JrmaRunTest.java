package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.os.Affinity;
import io.jrma.core.os.CrossMemory;
import io.jrma.core.os.Topology;
import io.jrma.core.os.Topology.Kind;
import io.jrma.testsupport.ChildProcess;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jrmarun end to end: the launcher runs as a process of its own (as a user starts it), starts real JVMs, and
 * is judged by its exit code, its output and how fast it tears a failed job down. Every test kills whatever
 * is left, even when it fails.
 */
class JrmaRunTest {
    private static final String FIX = "io.jrma.launcher.fixtures.";

    @Test
    @Timeout(60)
    void helloOverTwoJvmsForwardsEveryRanksOutput() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "4", "--jvms", "2", "-x", "JRMA_TEST_VAR=v42", FIX + "Hello");
        assertEquals(0, r.exit(40), r.output());
        for (int k = 0; k < 4; k++) {
            final int rank = k;
            assertTrue(r.lines().stream().anyMatch(l -> l.startsWith("hello from rank " + rank
                    + " of 4 var=v42")), r.output());
        }
        long pids =
                r.lines().stream().filter(l -> l.startsWith("hello")).map(l -> l.substring(l.indexOf("pid=")))
                .distinct().count();
        assertEquals(2, pids, "ranks in 2 JVMs: " + r.output());
    }

    @Test
    @Timeout(120)
    void bindToCoreBindsJvmRanksWholeAndThreadRanksByThreadAndReportsEachAsMpirun() throws Exception {
        Assumptions.assumeTrue(Affinity.available(), "binding needs Linux and JNA");
        Topology here = Topology.here();
        Assumptions.assumeTrue(here.count(Kind.CORE) >= 2,
                "two ranks bound to a core each need two cores");
        String[] cpuOf = new String[2];
        for (int k = 0; k < 2; k++) {
            int[] core = here.objects(Kind.CORE).get(k);
            cpuOf[k] = Topology.formatList(here.osCpus(core));
        }
        // JVM ranks: the whole JVM is bound (its main thread too), so availableProcessors() says the core's threads
        ChildProcess jvms = ChildProcess.jrmarun("-n", "2", "--jvms", "2", "--bind-to", "core", "--report-bindings",
                FIX + "Affinities");
        assertEquals(0, jvms.exit(90), jvms.output());
        for (int k = 0; k < 2; k++) {
            String rank = "rank " + k + " thread-cpus " + cpuOf[k] + " process-cpus " + cpuOf[k] + " available ";
            assertTrue(jvms.lines().stream().anyMatch(l -> l.startsWith(rank)), rank + ": " + jvms.output());
            String report = "] MCW rank " + k + " bound to socket ";
            assertEquals(1, jvms.lines().stream().filter(l -> l.startsWith("[") && l.contains(report)
                    && l.matches(".*: \\[[B./]+\\](\\[[B./]+\\])*$")).count(), report + ": " + jvms.output());
        }
        // thread ranks in one JVM: each rank's thread is bound, the JVM's main thread is not
        String all = Topology.formatList(Affinity.cpus());
        ChildProcess threads = ChildProcess.jrmarun("-n", "2", "--bind-to", "core", "--report-bindings",
                FIX + "Affinities");
        assertEquals(0, threads.exit(90), threads.output());
        for (int k = 0; k < 2; k++) {
            String rank = "rank " + k + " thread-cpus " + cpuOf[k] + " process-cpus " + all + " ";
            assertTrue(threads.lines().stream().anyMatch(l -> l.startsWith(rank)), rank + ": " + threads.output());
            String report = "] MCW rank " + k + " bound to socket ";
            assertEquals(1, threads.lines().stream().filter(l -> l.contains(report)).count(), threads.output());
        }
        ChildProcess none = ChildProcess.jrmarun("-n", "2", "--bind-to", "none", "--report-bindings", FIX + "Hello");
        assertEquals(0, none.exit(60), none.output());
        assertTrue(none.lines().stream().anyMatch(l -> l.endsWith("MCW rank 1 is not bound (or bound to all available"
                + " processors)")), none.output());
    }

    @Test
    @Timeout(60)
    void displayMapPrintsTheJobMapBeforeTheJobAndMappingErrorsExitWith2() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "2", "--jvms", "2", "--display-map", FIX + "Hello");
        assertEquals(0, r.exit(50), r.output());
        int map = r.lines().indexOf(" ========================   JOB MAP   ========================");
        assertTrue(map >= 0, r.output());
        String node = r.lines().get(map + 2);
        assertTrue(node.startsWith(" Data for node: ") && node.endsWith("\tNum slots: 2\tMax slots: 0\tNum procs: 2"),
                r.output());
        assertEquals(" \tProcess rank: 0 JVM: 0 Bound: N/A", r.lines().get(map + 3), r.output());
        assertEquals(" \tProcess rank: 1 JVM: 1 Bound: N/A", r.lines().get(map + 4), r.output());
        String first = r.lines().stream().filter(l -> l.startsWith("hello from rank")).findFirst().orElseThrow();
        int hello = r.lines().indexOf(first);
        assertTrue(hello > map, "the map comes before the job: " + r.output());
        int cores = Topology.here().count(Kind.CORE);
        String[][] bad = {
            {"-n", String.valueOf(cores + 1), "--bind-to", "core"}, {"binding more ranks than cpus"},
            {"-n", "2", "--map-by", "diagonal"}, {"unknown mapping policy 'diagonal'"},
            {"-n", String.valueOf(cores + 1), "--map-by", "ppr:1:core"},
            {"places at most " + cores + " ranks on a host"},
        };
        for (int k = 0; k < bad.length; k += 2) {
            List<String> args = new ArrayList<>(List.of(bad[k]));
            args.add(FIX + "Hello");
            ChildProcess e = ChildProcess.jrmarun(args.toArray(new String[0]));
            assertEquals(2, e.exit(30), e.output());
            String want = bad[k + 1][0];
            assertTrue(e.lines().get(0).startsWith("jrmarun: ") && e.lines().get(0).contains(want), e.output());
        }
    }

    @Test
    @Timeout(90)
    void mapByNodeOverTwoHostsPutsEveryOtherRankInEachHostsJvmBoundThere() throws Exception {
        // two names of this host: two hosts to the mapper, both started directly (no launch agent)
        ChildProcess r = ChildProcess.jrmarun("--host", "localhost:2,127.0.0.1:2", "--map-by", "node",
                "--bind-to", "core",
                "--report-bindings", FIX + "Hello");
        assertEquals(0, r.exit(80), r.output());
        String[] pid = new String[4];
        for (int k = 0; k < 4; k++) {
            String want = "hello from rank " + k + " of 4 pid=";
            pid[k] = r.lines().stream().filter(l -> l.startsWith(want)).findFirst()
                    .orElseThrow(() -> new AssertionError(want + ": " + r.output())).substring(want.length());
        }
        assertEquals(pid[0], pid[2], "ranks 0 and 2 on the first host: " + r.output());
        assertEquals(pid[1], pid[3], "ranks 1 and 3 on the second host: " + r.output());
        assertFalse(pid[0].equals(pid[1]), r.output());
        if (Affinity.available() && Topology.here().count(Kind.CORE) >= 2) {
            for (int k = 0; k < 4; k++) { // each host's two ranks on its cores 0 and 1
                String report = ":" + pid[k] + "] MCW rank " + k + " bound to socket 0[core " + k / 2 + "[";
                assertTrue(r.lines().stream().anyMatch(l -> l.contains(report)), report + ": " + r.output());
            }
        }
    }

    @Test
    @Timeout(60)
    void jdkLinkerPutsSystemCallsOnTheJdksLinker() throws Exception {
        int feature = Runtime.version().feature();
        Assumptions.assumeTrue(feature == 17 || feature >= 22,
                "JDK " + feature + " has no linker jrma uses (17 or 22+)");
        Assumptions.assumeTrue(CrossMemory.available(),
                "process_vm_readv is not available here (not Linux, or JNA)");
        String linker = feature == 17 ? "jdk.incubator.foreign" : "java.lang.foreign";
        ChildProcess with = ChildProcess.jrmarun("-n", "2", "--jvms", "2", "--jdk-linker", FIX + "Binding");
        assertEquals(0, with.exit(40), with.output());
        for (int k = 0; k < 2; k++) {
            assertTrue(with.lines().contains("rank " + k + " binding " + linker), with.output());
        }
        ChildProcess without = ChildProcess.jrmarun("-n", "1", FIX + "Binding");
        assertEquals(0, without.exit(40), without.output());
        assertTrue(without.lines().contains("rank 0 binding "
                + (feature == 17 ? "procmem+jna" : linker)), without.output());
    }

    @Test
    @Timeout(60)
    void tagOutputPrefixesEachLineWithItsRank() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "3", "--tag-output", FIX + "Hello");
        assertEquals(0, r.exit(40), r.output());
        for (int k = 0; k < 3; k++) {
            String prefix = "[1," + k + "]<stdout>:hello from rank " + k + " of 3";
            assertTrue(r.lines().stream().anyMatch(l -> l.startsWith(prefix)),
                    "missing " + prefix + " in\n" + r.output());
        }
    }

    @Test
    @Timeout(60)
    void aRankThatThrowsFailsTheJobWithExitCode1AndNamesTheRank() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "4", "--ranks-per-jvm", "2", FIX + "Thrower", "2");
        long t0 = System.nanoTime();
        assertEquals(1, r.exit(40), r.output());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(r.output().contains("rank 2 failed: java.lang.IllegalStateException: boom from rank 2"), r.output());
        assertTrue(ms < 20_000, "teardown took " + ms + " ms");
        r.assertNoJvmLeft();
    }

    @Test
    @Timeout(60)
    void systemExitOfARankBecomesTheJobsExitCode() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "4", "--jvms", "4", FIX + "Exiter", "2", "3");
        assertEquals(3, r.exit(40), r.output());
        assertTrue(r.output().contains("ranks [2]) exited with code 3"), r.output());
        r.assertNoJvmLeft();
    }

    @Test
    @Timeout(60)
    void theCodeARankPassesToAbortBecomesTheJobsExitCode() throws Exception {
        for (String[] shape : new String[][] {{"--jvms", "1"}, {"--jvms", "2"}}) {
            ChildProcess r = ChildProcess.jrmarun("-n", "4", shape[0], shape[1], FIX + "Aborter", "1", "7");
            assertEquals(7, r.exit(40), r.output());
            assertTrue(r.output().contains("jrmarun: rank 1 called abort(7)"), r.output());
            // a deliberate abort is a banner, as mpirun's, not a stack trace
            assertFalse(r.output().contains("\tat "), r.output());
            r.assertNoJvmLeft();
        }
    }

    @Test
    @Timeout(90)
    void aJvmKilledInsideAnExclusiveLockEpochFailsTheJobFast() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "3", "--jvms", "3", FIX + "LockHolder");
        try {
            String locked = r.awaitLine(l -> l.startsWith("LOCKED "), 40_000);
            long pid = Long.parseLong(locked.substring("LOCKED ".length()).trim());
            Thread.sleep(500); // rank 2 now waits for the lock, rank 0 in the barrier
            r.noteDescendants();
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // SIGKILL
            long t0 = System.nanoTime();
            int code = r.exit(30);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(137, code, r.output());
            assertTrue(r.output().contains("ranks [1]) was killed by signal 9"), r.output());
            assertTrue(ms < 15_000, "teardown took " + ms + " ms");
            r.assertNoJvmLeft();
        } finally {
            r.kill();
        }
    }

    /**
     * Four JVMs, the killed one second: its peers report the lost connection at once, and the launcher's callback
     * that learns of a JVM's end comes late (delayed here by a test hook; on two cores it runs on the common pool's
     * single thread), after the grace, which JVM 0 used up. The launcher must still learn what ended JVM 1 (its
     * signal) before it kills the rest, and exit with 137 naming it, as mpirun does, not with the peers' "lost the
     * connection" and 1 (it took the dead JVM for one it had killed itself).
     */
    @Test
    @Timeout(120)
    void aKilledJvmsSignalIsTheJobsExitCodeEvenWhenItsPeersReportTheLostConnectionFirst() throws Exception {
        for (int round = 0; round < 2; round++) {
            ChildProcess r = ChildProcess.jrmarun(List.of("-Djrma.launcher.test.exitReportDelayMs=4000"),
                    "-n", "4", "--jvms", "4",
                    "--grace", "0.001", FIX + "LockHolder");
            try {
                String locked = r.awaitLine(l -> l.startsWith("LOCKED "), 40_000);
                long pid = Long.parseLong(locked.substring("LOCKED ".length()).trim());
                Thread.sleep(500); // ranks 2 and 3 now wait for the lock, rank 0 in the barrier
                r.noteDescendants();
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // SIGKILL
                int code = r.exit(30);
                assertEquals(137, code, r.output());
                String cause = "JVM 1 (pid " + pid + ", ranks [1]) was killed by signal 9";
                assertTrue(r.output().contains(cause), r.output());
                r.assertNoJvmLeft();
            } finally {
                r.kill();
            }
        }
    }

    @Test
    @Timeout(90)
    void aJvmKilledWhileDataStreamsThroughTheRingsFailsTheJobFastAndLeavesNoRingFile() throws Exception {
        // (no kernel copies: the megabyte puts to private memory of the other JVMs then stream through the rings)
        ChildProcess r = ChildProcess.jrmarun("-n", "3", "--jvms", "3", "--param", "jrma.cma.minBytes=-1",
                FIX + "RingStreamer");
        try {
            String streaming = r.awaitLine(l -> l.startsWith("STREAMING "), 40_000);
            String[] f = streaming.split(" ");
            assertEquals("shm", f[2], "the JVMs of this host exchange packets through the rings");
            long pid = Long.parseLong(f[1]);
            r.noteDescendants();
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // SIGKILL, rings full of its data
            long t0 = System.nanoTime();
            int code = r.exit(30);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(137, code, r.output());
            assertTrue(r.output().contains("ranks [1]) was killed by signal 9"), r.output());
            assertTrue(ms < 15_000, "teardown took " + ms + " ms");
            r.assertNoJvmLeft();
            for (ProcessHandle h : r.seen()) {
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/dev/shm"),
                        "jrma-" + h.pid() + "-ring-*")) {
                    assertFalse(ds.iterator().hasNext(), "ring files of JVM " + h.pid() + " left in /dev/shm");
                }
            }
        } finally {
            r.kill();
        }
    }

    @Test
    @Timeout(60)
    void cleanupRemovesTheShmFilesOfDeadJvmsOnly() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        Path shm = Path.of("/dev/shm");
        Path dead = shm.resolve("jrma-" + p.pid() + "-win-1");
        Path live = shm.resolve("jrma-" + ProcessHandle.current().pid() + "-test-1");
        try {
            Files.write(dead, new byte[16]);
            Files.write(live, new byte[16]);
            assertEquals(0, JrmaRun.run(new String[] {"--cleanup"}, System.err));
            assertFalse(Files.exists(dead), "file of a dead JVM reclaimed");
            assertTrue(Files.exists(live), "file of a live JVM kept");
        } finally {
            Files.deleteIfExists(dead);
            Files.deleteIfExists(live);
        }
    }

    @Test
    @Timeout(60)
    void timeoutTearsDownRanksThatComputeForever() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "2", "--jvms", "2", "--timeout", "3", "--grace",
                "1", FIX + "Sleeper");
        assertEquals(124, r.exit(40), r.output());
        assertTrue(r.output().contains("job timed out after 3000 ms"), r.output());
        r.assertNoJvmLeft();
    }

    @Test
    @Timeout(30)
    void usageErrorsExitWith2() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("--jvms", "2", FIX + "Hello");
        assertEquals(2, r.exit(20), r.output());
        assertTrue(r.output().contains("the number of ranks is required"), r.output());
        ChildProcess r2 = ChildProcess.jrmarun("-n", "2", "--jvms", "3", FIX + "Hello");
        assertEquals(2, r2.exit(20), r2.output());
        // found missing before any JVM starts (MpirunHabitsTest)
        ChildProcess r3 = ChildProcess.jrmarun("-n", "2", FIX + "NoSuchClass");
        assertEquals(2, r3.exit(30), r3.output());
        assertTrue(r3.output().contains("cannot find the main class " + FIX + "NoSuchClass"), r3.output());
    }

    @Test
    @Timeout(60)
    void eachRankHasItsOwnStaticsAsAProcessWould() throws Exception {
        ChildProcess r = ChildProcess.jrmarun("-n", "3", FIX + "Statics");
        assertEquals(0, r.exit(40), r.output());
        for (int k = 0; k < 3; k++) {
            assertTrue(r.lines().contains("rank " + k + " static=1"), r.output());
        }
        ChildProcess shared = ChildProcess.jrmarun("-n", "3", "--param", "jrma.rankLoaders=shared", FIX + "Statics");
        assertEquals(0, shared.exit(40), shared.output());
        assertTrue(shared.lines().contains("rank 2 static=3"), "one copy of the class when asked: " + shared.output());
    }

    @Test
    @Timeout(90)
    void globalArrayExamplesRunUnderJrmarun() throws Exception {
        ChildProcess jacobi = ChildProcess.jrmarun("-n", "4", "--jvms", "2",
                "io.jrma.ga.examples.Jacobi2D", "64", "64", "20");
        assertEquals(0, jacobi.exit(60), jacobi.output());
        assertTrue(jacobi.output().contains("Jacobi 64x64, 4 ranks, 20 iterations"), jacobi.output());
        ChildProcess histo = ChildProcess.jrmarun("-n", "3", "io.jrma.ga.examples.Histogram", "30000", "16", "20");
        assertEquals(0, histo.exit(60), histo.output());
        assertTrue(histo.output().contains("histogram of 30000 values in 16 bins on 3 ranks")
                && histo.output().contains("total 30000"),
                histo.output());
    }

    @Test
    @Timeout(60)
    void systemExitAfterFinalizeEndsTheJobWithThatCode() throws Exception {
        ChildProcess ok = ChildProcess.jrmarun("-n", "3", FIX + "FinalizeThenExit", "0");
        assertEquals(0, ok.exit(40), ok.output());
        ChildProcess five = ChildProcess.jrmarun("-n", "3", FIX + "FinalizeThenExit", "5");
        assertEquals(5, five.exit(40), five.output());
        assertTrue(five.output().contains("exited with code 5"), five.output());
    }
}

package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rendezvous of {@code srun --mpi=none} with its ranks as threads of this JVM, each given the variables srun
 * gives a task (the real srun runs it in SrunTest): the exchange, the private file and its removal, a stranger
 * without the secret, the bounded waits and their messages, and files or directories others could write.
 */
@Timeout(60)
class SlurmRendezvousTest {
    private static final String JOB = "7";
    private static final long SHORT_TIMEOUT_MS = 1_500;
    /** Less than the rendezvous' handshake timeout (5 s), for which a silent stranger held up a single acceptor. */
    private static final long SILENT_HOLD_NS = 4_500_000_000L;

    @TempDir
    Path tmp;
    private Path dir;
    private ExecutorService pool;

    @BeforeEach
    void setUp() throws IOException {
        dir = tmp.resolve("rv");
        pool = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }

    private static Map<String, String> env(int rank, int size) {
        Map<String, String> e = new HashMap<>();
        e.put("SLURM_PROCID", String.valueOf(rank));
        e.put("SLURM_STEP_NUM_TASKS", String.valueOf(size));
        e.put("SLURM_NTASKS", String.valueOf(size));
        e.put("SLURM_JOB_ID", JOB);
        e.put("SLURM_STEP_ID", "0");
        e.put("SLURM_STEP_NODELIST", "n[1-2]");
        e.put("SLURMD_NODENAME", rank % 2 == 0 ? "n1" : "n2");
        e.put("SLURM_CLUSTER_NAME", "jrmatest");
        return e;
    }

    private Map<String, String> params(long timeoutMs) {
        return Map.of("jrma.slurm.dir", dir.toString(), "jrma.slurm.timeoutMs", String.valueOf(timeoutMs));
    }

    private Path file() {
        return dir.resolve("jrmatest-" + JOB + ".0");
    }

    /** Rank r's part: connect, put, exchange twice, return every rank's values of both rounds. */
    private Future<List<String>> rank(int r, int size, long timeoutMs) {
        return pool.submit(() -> {
            try (SlurmRendezvous p = SlurmRendezvous.connect(params(timeoutMs), env(r, size))) {
                return rounds(p, size);
            }
        });
    }

    private static List<String> rounds(SlurmRendezvous p, int size) throws IOException {
        List<String> got = new ArrayList<>();
        for (String round : new String[] {"a", "b"}) {
            p.put(round + p.rank(), round + "-from-" + p.rank());
            p.exchange();
            for (int q = 0; q < size; q++) {
                got.add(p.get(q, round + q));
            }
        }
        p.finish();
        return got;
    }

    @Test
    void theRanksExchangeThroughRankZeroAndTheFileIsPrivateAndThenGone() throws Exception {
        int size = 3;
        SlurmRendezvous zero = SlurmRendezvous.connect(params(30_000), env(0, size));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file())));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        Future<List<String>> one = rank(1, size, 30_000);
        Future<List<String>> two = rank(2, size, 30_000);
        List<String> mine = rounds(zero, size);
        List<String> want = List.of("a-from-0", "a-from-1", "a-from-2", "b-from-0", "b-from-1", "b-from-2");
        assertEquals(want, mine);
        assertEquals(want, one.get(20, TimeUnit.SECONDS));
        assertEquals(want, two.get(20, TimeUnit.SECONDS));
        assertFalse(Files.exists(file()), "rank 0's file is still there");
        zero.close();
    }

    @Test
    void aStrangerWithoutTheSecretIsNotAdmitted() throws Exception {
        SlurmRendezvous zero = SlurmRendezvous.connect(params(30_000), env(0, 2));
        int port = Integer.parseInt(Files.readAllLines(file()).stream().filter(l -> l.startsWith("port="))
                .findFirst().orElseThrow().substring("port=".length()));
        long t0 = System.nanoTime();
        try (Socket silent = new Socket(InetAddress.getLoopbackAddress(), port);
                Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            // one stranger connects and says nothing (it must not hold up the others for the handshake's timeout);
            // another knows the port (anyone may scan for it) but not the secret; it claims to be rank 1
            assertThrows(Handshake.Refused.class, () -> Handshake.client(s, Handshake.newJobId(),
                    Handshake.newSecret(), 1, 5_000));
            Future<List<String>> one = rank(1, 2, 30_000);
            assertEquals(List.of("a-from-0", "a-from-1", "b-from-0", "b-from-1"), rounds(zero, 2));
            assertEquals(List.of("a-from-0", "a-from-1", "b-from-0", "b-from-1"), one.get(20, TimeUnit.SECONDS));
            assertTrue(silent.isConnected());
            // the other stranger was refused and rank 1 got in while the silent one's handshake was still waiting (it
            // gives up after 5 s)
            assertTrue(System.nanoTime() - t0 < SILENT_HOLD_NS, "the others waited for the silent stranger");
        }
        zero.close();
    }

    @Test
    void aRankWithoutRankZeroGivesUpNamingTheFileAndTheDirectory() {
        RmaException e = assertThrows(RmaException.class,
                () -> SlurmRendezvous.connect(params(SHORT_TIMEOUT_MS), env(1, 2)));
        assertEquals(ErrorClass.ERR_OTHER, e.errorClass());
        assertTrue(e.getMessage().contains(file().toString()) && e.getMessage().contains("it does not exist")
                && e.getMessage().contains("jrma.slurm.dir") && e.getMessage().contains("shares"), e.getMessage());
    }

    @Test
    void rankZeroGivesUpNamingTheRanksThatDidNotJoinAndRemovesItsFile() throws Exception {
        SlurmRendezvous zero = SlurmRendezvous.connect(params(SHORT_TIMEOUT_MS), env(0, 4));
        Future<List<String>> one = rank(1, 4, 30_000);
        RmaException e = assertThrows(RmaException.class, zero::exchange);
        zero.close();
        assertEquals(ErrorClass.ERR_OTHER, e.errorClass());
        assertTrue(e.getMessage().contains("rank(s) 2-3 of 4 did not join"), e.getMessage());
        assertFalse(Files.exists(file()));
        assertThrows(Exception.class, () -> one.get(20, TimeUnit.SECONDS)); // rank 0 left: rank 1 fails, no hang
    }

    @Test
    void aFileOthersMayReadIsNotTrusted() throws Exception {
        Files.createDirectories(dir);
        Files.writeString(file(), "version=1\nnode=n1\naddresses=127.0.0.1\nport=1\njob=" + Handshake.newJobId()
                + "\nsecret=" + Handshake.newSecret() + "\nend\n");
        Files.setPosixFilePermissions(file(), PosixFilePermissions.fromString("rw-r--r--"));
        RmaException e = assertThrows(RmaException.class,
                () -> SlurmRendezvous.connect(params(SHORT_TIMEOUT_MS), env(1, 2)));
        assertEquals(ErrorClass.ERR_ACCESS, e.errorClass());
        assertTrue(e.getMessage().contains("rw-r--r--"), e.getMessage());
    }

    @Test
    void aDirectoryOthersMayWriteIsRefused() throws Exception {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        RmaException e = assertThrows(RmaException.class,
                () -> SlurmRendezvous.connect(params(SHORT_TIMEOUT_MS), env(0, 2)));
        assertEquals(ErrorClass.ERR_ACCESS, e.errorClass());
        assertTrue(e.getMessage().contains("writable by others") && e.getMessage().contains("jrma.slurm.dir"),
                e.getMessage());
    }

    @Test
    void aFileLeftByADeadStepOfTheSameNameIsReplaced() throws Exception {
        Files.createDirectories(dir);
        Files.writeString(file(), "version=1\nnode=n1\naddresses=127.0.0.1\nport=1\njob=" + Handshake.newJobId()
                + "\nsecret=" + Handshake.newSecret() + "\nend\n");
        Files.setPosixFilePermissions(file(), PosixFilePermissions.fromString("rw-------"));
        Future<List<String>> one = rank(1, 2, 30_000); // may read the dead step's file first: it retries
        Thread.sleep(300);
        SlurmRendezvous zero = SlurmRendezvous.connect(params(30_000), env(0, 2));
        assertEquals(List.of("a-from-0", "a-from-1", "b-from-0", "b-from-1"), rounds(zero, 2));
        assertEquals(List.of("a-from-0", "a-from-1", "b-from-0", "b-from-1"), one.get(20, TimeUnit.SECONDS));
        zero.close();
    }

    @Test
    void onlyATaskOfASeveralTaskStepIsDetected() {
        assertTrue(SlurmRendezvous.inEnvironment(env(1, 2)));
        Map<String, String> batch = env(0, 2);
        batch.remove("SLURM_STEP_ID"); // an sbatch script: a job, no step
        assertFalse(SlurmRendezvous.inEnvironment(batch));
        Map<String, String> named = env(0, 2);
        named.put("SLURM_STEP_ID", "batch");
        assertFalse(SlurmRendezvous.inEnvironment(named));
        assertFalse(SlurmRendezvous.inEnvironment(env(0, 1)), "one task is MPI's singleton");
        assertFalse(SlurmRendezvous.inEnvironment(Map.of()));
    }

    @Test
    void aStepOverSeveralNodesListensOnTheAddressTowardsSrunUnlessTheUserChose() {
        Map<String, String> twoNodes = Map.of("SLURM_STEP_NUM_NODES", "2", "SLURM_LAUNCH_NODE_IPADDR", "10.1.2.3");
        Map<String, String> params = new HashMap<>();
        PmiBootstrap.slurmAcrossNodes(params, twoNodes);
        assertEquals("route:10.1.2.3", params.get("jrma.tcp.interface"));
        Map<String, String> chosen = new HashMap<>(Map.of("jrma.tcp.interface", "eth1"));
        PmiBootstrap.slurmAcrossNodes(chosen, twoNodes);
        assertEquals("eth1", chosen.get("jrma.tcp.interface"));
        Map<String, String> byEnv = new HashMap<>(twoNodes);
        byEnv.put("JRMA_TCP_INTERFACE", "10.0.0.0/8");
        Map<String, String> untouched = new HashMap<>();
        PmiBootstrap.slurmAcrossNodes(untouched, byEnv);
        PmiBootstrap.slurmAcrossNodes(untouched, Map.of("SLURM_STEP_NUM_NODES", "1",
                "SLURM_LAUNCH_NODE_IPADDR", "10.1.2.3"));
        PmiBootstrap.slurmAcrossNodes(untouched, Map.of());
        assertEquals(Map.of(), untouched, "the environment chose, one node, or no srun: loopback stays the default");
    }

    @Test
    void aJobAcrossHostsListensOnEveryAddressAndAJobOnOneHostOnLoopback() {
        String here = "h1/boot-a/2a";
        Map<String, String> params = new HashMap<>();
        PmiBootstrap.acrossHosts(params, here, new String[] {here, here, here});
        assertEquals(Map.of(), params, "one host: loopback stays the default");
        PmiBootstrap.acrossHosts(params, "", new String[] {"", "h2/boot-b/2a"});
        assertEquals(Map.of(), params, "no host id (not Linux): the default stays");
        PmiBootstrap.acrossHosts(params, here, new String[] {here, "h1/boot-a/2b", here}); // a /dev/shm of its own
        assertEquals(Map.of("jrma.tcp.interface", "any"), params);
        Map<String, String> other = new HashMap<>();
        PmiBootstrap.acrossHosts(other, here, new String[] {"h2/boot-b/2a", here});
        assertEquals("any", other.get("jrma.tcp.interface"));
        assertTrue(PmiBootstrap.interfaceChosen(Map.of("jrma.tcp.interface", "eth0"), Map.of()));
        assertTrue(PmiBootstrap.interfaceChosen(Map.of(), Map.of("JRMA_TCP_INTERFACE", "eth0")));
        assertFalse(PmiBootstrap.interfaceChosen(Map.of(), Map.of()));
    }
}

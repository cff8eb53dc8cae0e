package io.jrma.launcher;

import io.jrma.Comm;
import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.RmaException;
import io.jrma.core.auth.Handshake;
import io.jrma.core.op.ElementLocks;
import io.jrma.core.os.HostId;
import io.jrma.core.os.LocalAddresses;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.RankThreads;
import io.jrma.spi.Components;
import io.jrma.spi.TransportProvider;
import io.jrma.spi.WorldBootstrap;
import io.jrma.spi.transport.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

/**
 * Joins a job started by Open MPI's {@code mpirun} or Slurm's {@code srun --mpi=pmix} (PMIx, through libpmix), by
 * MPICH's {@code mpiexec} (hydra), {@code srun --mpi=pmi2} or any launcher that serves PMI-1 (in pure Java), or by
 * {@code srun --mpi=none} (no PMI: {@link SlurmRendezvous}, jrma's own on rank 0): each process is one
 * rank (PMI_RANK of PMI_SIZE) in a JVM of its own, running the program's {@code main} on its main thread. Rank 0
 * makes the job's id and secret; every process opens the transports the job selects and publishes their cards in
 * the launcher's key-value space; after PMI's barrier each connects to the others, with the same secret-checked
 * handshakes as under jrmarun.
 *
 * <p>Failures end the job as under the launcher's own MPI: an abort (MPI_Abort, a failed rank, a lost peer) tells
 * the peers and ends this process with the abort's code at once, and the launcher ends the others (under Slurm
 * without PMIx the others end themselves as they learn of it, and srun exits with the highest code of its tasks).
 */
public final class PmiBootstrap implements WorldBootstrap {
    /** How long closing waits for the goodbyes to leave. */
    private static final long CLOSE_TIMEOUT_MS = 1_000;
    /** How long a process aborted by a peer waits for the launcher to end it before it ends itself. */
    private static final long ABORT_GRACE_MS = 3_000;
    /**
     * How long a process that ends itself (no launcher kills it: Slurm without PMIx) waits before it does, so that its
     * last lines leave through the launcher's output forwarding: srun lost them now and then when the task ended at
     * once.
     */
    private static final long OUTPUT_GRACE_MS = 300;
    /** How long a process that asks the launcher to end the job waits first, so that its last lines get out. */
    private static final long ABORT_OUTPUT_MS = 100;

    static final String SLURM_STEP_NUM_NODES = "SLURM_STEP_NUM_NODES";
    static final String SLURM_LAUNCH_NODE_IPADDR = "SLURM_LAUNCH_NODE_IPADDR";
    /** The TCP transport's address parameter (window-rdma's NetParams.INTERFACE), as property and variable. */
    static final String TCP_INTERFACE = "jrma.tcp.interface";
    static final String TCP_INTERFACE_ENV = "JRMA_TCP_INTERFACE";
    /** The TCP address specification of a job across hosts that chose none: every address of the host. */
    static final String ANY_ADDRESS = "any";
    /** The key each process publishes its {@link HostId} under (with its rank appended). */
    static final String HOST_KEY = "jrma-host-";

    private Pmi pmi;
    private Job job;
    private List<Transport> transports = List.of();
    /** Each rank's process id (the names of its shared-memory files carry it). */
    private long[] pids = new long[0];
    private final AtomicBoolean ending = new AtomicBoolean();

    @Override
    public String name() {
        return "pmi";
    }

    @Override
    public boolean detected() {
        return Pmix.inEnvironment() || Pmi1.inEnvironment() || SlurmRendezvous.inEnvironment();
    }

    @Override
    public Comm join(Map<String, String> params) {
        try {
            return joinOrFail(params);
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_OTHER, "joining the job of the launcher that started this process"
                    + " (PMIx: Open MPI's mpirun, srun --mpi=pmix; PMI-1: MPICH's mpiexec, srun --mpi=pmi2;"
                    + " srun --mpi=none) failed: " + e.getMessage(), e);
        }
    }

    private Comm joinOrFail(Map<String, String> params) throws IOException {
        if (System.getProperty("slf4j.internal.verbosity") == null) {
            // Chronicle's "no SLF4J provider" notice, once per process, as jrmarun's JVMs are spared it
            System.setProperty("slf4j.internal.verbosity", "ERROR");
        }
        slurmAcrossNodes(params, System.getenv());
        if (Pmix.inEnvironment()) {
            pmi = Pmix.connect();
        } else if (Pmi1.inEnvironment()) {
            pmi = Pmi1.connect();
        } else {
            pmi = SlurmRendezvous.connect(params); // srun --mpi=none: jrma's own rendezvous on rank 0
        }
        int rank = pmi.rank();
        int size = pmi.size();
        if (rank == 0) {
            pmi.put("jrma-job", Handshake.newJobId() + "." + Handshake.newSecret());
        }
        pmi.put(HOST_KEY + rank, HostId.current().isEmpty() ? "-" : HostId.current());
        pmi.exchange();
        if (!interfaceChosen(params, System.getenv())) {
            String[] hostIds = new String[size];
            for (int r = 0; r < size; r++) {
                hostIds[r] = pmi.get(r, HOST_KEY + r);
            }
            acrossHosts(params, HostId.current(), hostIds);
        }
        String[] idAndSecret = pmi.get(0, "jrma-job").split("\\.", 2);
        if (idAndSecret.length != 2) {
            throw new IOException("rank 0's job id is malformed");
        }
        int[] jvmOfRank = IntStream.range(0, size).toArray(); // a JVM per process, a rank per JVM
        job = new Job(size, params, rank, jvmOfRank);
        if (size > 1) {
            Components.bufferAllocator().jobSpansJvms(job.params());
        }
        ElementLocks.onLongWait(job::checkAborted); // a holder in a killed JVM never releases
        if (rank == 0) {
            // what JVMs of earlier jobs left when the launcher killed them (as jrmarun --cleanup does)
            for (TransportProvider p : Components.transportProviders()) {
                p.reclaimDead(job.params());
            }
        }
        transports = TransportMesh.open(job, idAndSecret[0], idAndSecret[1], this::tradeCards);
        job.onAbort(e -> {
            Jrma.AbortException own = ownAbort(e);
            if (own != null) {
                // MPI_Abort here (or an error under ERRORS_ARE_FATAL): the launcher ends the job with its code, as
                // it does for its own MPI's PMI_Abort, and prints its banner
                int code = own.exitCode() & 0xff;
                endJob(code == 0 ? 1 : code, e.getMessage());
            } else {
                // aborted by a peer, or a peer was lost: the launcher kills every process of the job (SIGKILL, which
                // leaves files behind), so this one removes its own and those of peers already gone; if the launcher
                // has not ended it within the grace, it ends itself (the peer's failure is the job's exit code)
                for (Transport t : transports) {
                    t.abortPeers(e.getMessage());
                }
                System.err.println("jrma: rank " + rank + " ends with the job (" + e.errorClass() + "): "
                        + reason(e.getMessage()));
                reclaim(true);
                halt(1, pmi.abortEndsJob() ? ABORT_GRACE_MS : OUTPUT_GRACE_MS);
            }
        });
        Thread main = Thread.currentThread();
        Thread.UncaughtExceptionHandler before = main.getUncaughtExceptionHandler();
        main.setUncaughtExceptionHandler((t, x) -> {
            if (ending.get() || job.isAborted() && RankThreads.endedByAbort(x)) {
                return; // this process is ending the job already, or another's failure ended this rank
            }
            before.uncaughtException(t, x); // the program's own failure: its stack trace, as java prints it
            endJob(1, "rank " + rank + " failed: " + x);
        });
        return RankThreads.adopt(job, rank);
    }

    /**
     * A step srun spread over several nodes needs the TCP transport on an address the other nodes reach (it listens on
     * loopback unless told otherwise): unless the user chose one, the address that routes to srun's node
     * ({@code SLURM_LAUNCH_NODE_IPADDR}; on that node itself, that address), as jrmarun does for its hosts.
     */
    static void slurmAcrossNodes(Map<String, String> params, Map<String, String> env) {
        String nodes = env.get(SLURM_STEP_NUM_NODES);
        String srunHost = env.get(SLURM_LAUNCH_NODE_IPADDR);
        if (nodes == null || srunHost == null || srunHost.isBlank() || interfaceChosen(params, env)) {
            return;
        }
        try {
            if (Integer.parseInt(nodes.trim()) > 1) {
                params.put(TCP_INTERFACE, LocalAddresses.ROUTE_PREFIX + srunHost.trim());
            }
        } catch (NumberFormatException ignored) {
            // not a step srun started: nothing to choose
        }
    }

    /**
     * A job whose processes run on several hosts (their {@link HostId}s, traded in the first exchange, differ) needs
     * the TCP transport where the other hosts reach it, and jrma's default (loopback) is not. The caller checks that
     * the user (or the Slurm rule) chose no address; then the agents listen on every address ({@code any}) and publish
     * them all, and each peer picks loopback on its own host, else an address on a network both hosts share. A job on
     * one host keeps loopback (nothing exposed). Connections are secret-checked either way.
     */
    static void acrossHosts(Map<String, String> params, String mine, String[] hostIds) {
        if (mine.isEmpty()) {
            return; // not Linux: no host id to compare
        }
        for (String other : hostIds) {
            if (!HostId.sameHost(mine, other)) {
                params.put(TCP_INTERFACE, ANY_ADDRESS);
                return;
            }
        }
    }

    /** Whether the user (or the Slurm rule) set the TCP transport's address: parameter, property or variable. */
    static boolean interfaceChosen(Map<String, String> params, Map<String, String> env) {
        return params.containsKey(TCP_INTERFACE) || System.getProperty(TCP_INTERFACE) != null
                || env.get(TCP_INTERFACE_ENV) != null;
    }

    /** Trades transport cards (and process ids) through the launcher's key-value space. */
    private String[][] tradeCards(String[] mine) throws IOException {
        int size = job.size();
        StringBuilder v = new StringBuilder().append(ProcessHandle.current().pid()).append(';');
        for (int i = 0; i < mine.length; i++) {
            v.append(i == 0 ? "" : ",").append(encode(mine[i]));
        }
        pmi.put("jrma-cards-" + pmi.rank(), mine.length == 0 ? v.append('-').toString() : v.toString());
        pmi.exchange();
        String[][] all = new String[size][];
        pids = new long[size];
        for (int r = 0; r < size; r++) {
            String got = pmi.get(r, "jrma-cards-" + r);
            int semi = got.indexOf(';');
            pids[r] = Long.parseLong(got.substring(0, semi));
            got = got.substring(semi + 1);
            String[] parts = got.equals("-") ? new String[0] : got.split(",", -1);
            if (parts.length != mine.length) {
                throw new IOException("rank " + r + " published " + parts.length + " transport cards, this one "
                        + mine.length + ": the processes disagree on jrma.transports");
            }
            all[r] = new String[parts.length];
            for (int i = 0; i < parts.length; i++) {
                all[r][i] = decode(parts[i]);
            }
        }
        return all;
    }

    @Override
    public void finish(Comm world) {
        Job j = ((CommCore) world).job();
        j.stop();
        for (int i = transports.size() - 1; i >= 0; i--) {
            transports.get(i).close(CLOSE_TIMEOUT_MS); // the narrower ones first; TCP says goodbye last
        }
        try {
            pmi.finish();
        } catch (IOException ignored) {
            // the launcher is gone; the process ends anyway
        }
        pmi.close();
    }

    /**
     * Ends the job from this process: tells the peers, removes the files of every process of the job (the launcher
     * kills them all with SIGKILL, which runs no clean-up), asks the launcher to end the job with {@code code} and
     * ends this process.
     */
    private void endJob(int code, String message) {
        if (!ending.compareAndSet(false, true)) {
            return; // another thread is ending the job already
        }
        for (Transport t : transports) {
            t.abortPeers(message);
        }
        System.out.flush();
        System.err.flush();
        reclaim(false);
        if (pmi.abortEndsJob()) {
            // the launcher kills every process at once, this one too: give its output forwarding the last lines
            // first (MPICH's hydra lost an abort's banner now and then)
            pause(ABORT_OUTPUT_MS);
        }
        try {
            pmi.abort(code, message);
        } catch (IOException ignored) {
            // the launcher is gone
        }
        System.out.flush();
        System.err.flush();
        if (!pmi.abortEndsJob()) {
            pause(OUTPUT_GRACE_MS);
        }
        Runtime.getRuntime().halt(code);
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // end now
        }
    }

    /** Removes what this JVM and its peers (all, or only those no longer running) left in shared memory. */
    private void reclaim(boolean onlyGonePeers) {
        long self = ProcessHandle.current().pid();
        for (TransportProvider p : Components.transportProviders()) {
            try {
                p.reclaim(job.params(), self);
                for (long pid : pids) {
                    if (pid > 0 && pid != self && !(onlyGonePeers && ProcessHandle.of(pid).isPresent())) {
                        p.reclaim(job.params(), pid);
                    }
                }
            } catch (RuntimeException ignored) {
                // best effort on the way out; jrmarun --cleanup removes what is left
            }
        }
    }

    /**
     * The cause of an abort without the error-class prefixes each relay added ("ERR_PROC_ABORTED: job aborted: ...").
     */
    static String reason(String message) {
        String m = message;
        String before;
        do {
            before = m;
            for (String prefix : new String[] {ErrorClass.ERR_PROC_ABORTED.name() + ": ", "job aborted: "}) {
                if (m.startsWith(prefix)) {
                    m = m.substring(prefix.length());
                }
            }
        } while (!m.equals(before));
        return m;
    }

    /** The abort this process's own rank raised (MPI_Abort), or null when the abort came from elsewhere. */
    static Jrma.AbortException ownAbort(RmaException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof Jrma.AbortException a) {
                return a;
            }
        }
        return null;
    }

    /** Ends the process with {@code code} after {@code delayMs}, whatever its other threads do. */
    private static void halt(int code, long delayMs) {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(delayMs);
            } catch (InterruptedException ignored) {
                // end now
            }
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(code);
        }, "jrma-abort-exit");
        t.setDaemon(false); // keeps the JVM up through the grace even when main has returned
        t.start();
    }

    /** A card as a PMI value: no spaces, no '=' (base64url without padding). */
    private static String encode(String card) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(card.getBytes(StandardCharsets.UTF_8));
    }

    private static String decode(String value) {
        return new String(Base64.getUrlDecoder().decode(value), StandardCharsets.UTF_8);
    }
}

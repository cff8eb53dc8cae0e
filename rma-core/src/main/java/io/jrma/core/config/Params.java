package io.jrma.core.config;

import java.util.List;

/**
 * Every run-time parameter of rma-core and sync-epochs, each with its default and one sentence of
 * description. {@code io.jrma.JrmaInfo} prints this table.
 */
public final class Params {
    /** Which path windows use between ranks that share memory: {@code auto} (direct) or {@code packet}. */
    public static final Param PATH = new Param("jrma.path", "auto", "window",
            "`auto`: direct load/store where memory is reachable; `packet`: force the active-message path for "
            + "every peer");
    /** Who runs the JVM's progress agent. */
    public static final Param PROGRESS = new Param("jrma.progress", "both", "job",
            "`thread`: a dedicated progress thread; `caller`: threads waiting in the library; `both`: either, "
            + "whichever is free. With `thread` and as many ranks as cores, every packet waits for that "
            + "thread to get a core from a spinning rank, so keep `thread` for programs whose ranks poll "
            + "their own memory without entering the library");
    /** Busy-spin iterations before a waiting thread starts yielding. */
    public static final Param WAIT_SPINS = new Param("jrma.wait.spins", "auto", "job",
            "iterations a waiting thread spins (driving progress) before it yields; `auto`: 2000, or 0 when "
            + "the job has more ranks than the host has cores (MPI's oversubscription: a spinning waiter "
            + "then holds the core the awaited rank needs)");
    /** Longest busy spin of a waiting thread, whatever its iterations. */
    public static final Param WAIT_SPIN_NS = new Param("jrma.wait.spinNs", "0", "job",
            "longest time (ns) a waiting thread spins before it yields, whatever `jrma.wait.spins` allows (0: no "
            + "bound). A spin that polls a TCP connection is a system call, so 2000 of them hold a core for "
            + "milliseconds while the peer that would answer may wait for one (a loaded host); 200000 measured "
            + "better there once and worse once, within the noise, so it is not the default yet");
    /** Yields before a waiting thread starts parking. */
    public static final Param WAIT_YIELDS = new Param("jrma.wait.yields", "auto", "job",
            "`Thread.yield()` calls a waiting thread makes before it parks; `auto`: 200, or 5000 when ranks > "
            + "cores (a yield hands the core to a rank with work at once, as Open MPI's yield-when-idle; a "
            + "park's wake-up takes tens of µs)");
    /** Longest single park of a waiting thread. */
    public static final Param WAIT_MAX_PARK_NS = new Param("jrma.wait.maxParkNs", "200000", "job",
            "longest single park (ns) of a waiting thread; parks grow from 1 µs to this");
    /** Idle strategy of the dedicated progress thread. */
    public static final Param AGENT_MAX_PARK_NS = new Param("jrma.agent.maxParkNs", "100000", "job",
            "longest park (ns) of the idle dedicated progress thread (spin, yield, then park up to this)");
    /** Default issue mode of the packet path; the info key jrma_issue overrides it per window. */
    public static final Param ISSUE = new Param("jrma.issue", "lazy", "window",
            "`lazy`: queue packets until a synchronization call; `eager`: send each operation when issued; "
            + "`flush_local`: as `lazy`, and `flush_local` also sends what is queued (without waiting for "
            + "an ack) (info `jrma_issue` overrides)");
    /** Default bound on queued operations per target before they are sent; info key jrma_max_pending_ops. */
    public static final Param MAX_PENDING = new Param("jrma.maxPendingOps", "256", "window",
            "queued operations per target after which the queue is sent without waiting for a sync call (info "
            + "`jrma_max_pending_ops` overrides)");
    /** Whether lock/unlock requests ride on operation packets; the info key jrma_lock_coalesce overrides it. */
    public static final Param LOCK_COALESCE = new Param("jrma.lock.coalesce", "true", "window",
            "`true`: a passive-target lock rides on the first operation to the target and the unlock on the "
            + "last (a single-operation epoch is one packet and one reply; a direct peer's lock word is "
            + "taken at `lock` either way, as Open MPI's osc/sm takes it); `false`: `lock`/`lock_all` "
            + "request the lock at once and wait for the grant, and `unlock` is a packet of its own after "
            + "the operations — for measuring what coalescing saves (info `jrma_lock_coalesce` overrides)");
    /** Whether acknowledgements that carry no information are elided; the info key jrma_acks overrides it. */
    public static final Param ACKS = new Param("jrma.acks", "auto", "window",
            "`auto`: a flush with nothing unacknowledged and an unlock after everything was acknowledged send "
            + "no ack request, and a GET moved to the tail of the batch carries the ack in its reply; `always`: "
            + "every flush and unlock waits for an ack of its own (a packet, or the ring's applied position) — "
            + "for measuring what eliding and piggy-backing save (info `jrma_acks` overrides)");
    /** Operations at least this large are sent at once even in lazy mode. */
    public static final Param EAGER_BYTES = new Param("jrma.issue.eagerBytes", "65536", "window",
            "in lazy mode, an operation of at least this many bytes sends its target's queue at once (large "
            + "transfers overlap with issuing the next)");
    /** Job timeout for programs started with Jrma.run without an explicit timeout (0 = none). */
    public static final Param JOB_TIMEOUT_MS = new Param("jrma.job.timeoutMs", "0", "job",
            "a job still running after this many milliseconds is aborted (0: no limit)");

    /** Number of JVMs for jobs started with Jrma.run. */
    public static final Param JVMS = new Param("jrma.jvms", "1", "job",
            "JVMs a job started with `Jrma.run` spreads its ranks over (1: threads of the calling JVM)");

    /** Whether Jrma.run keeps its child JVMs for the next job. */
    public static final Param JVMS_REUSE = new Param("jrma.jvms.reuse", "true", "job",
            "keep the child JVMs of a clean `Jrma.run` job for the next job of the same shape");

    /** How often jrmarun and the JVMs of a job across hosts tell each other they are alive. */
    public static final Param LAUNCHER_HEARTBEAT_MS = new Param("jrma.launcher.heartbeatMs", "1000", "job",
            "in a jrmarun job across hosts, the launcher and every JVM send each other a heartbeat this often (ms)");

    /** After how long without a word jrmarun gives a JVM of another host up, and such a JVM its launcher. */
    public static final Param LAUNCHER_SILENCE_MS = new Param("jrma.launcher.silenceMs", "10000", "job",
            "in a jrmarun job across hosts, a JVM the launcher has not heard from for this long (ms) is taken for "
            + "unreachable and the job is aborted; a JVM that has not heard from the launcher for this long aborts "
            + "its ranks and exits (a host whose link went down)");

    /** How long each side of the handshake between jrmarun and a JVM of its job waits for the other side. */
    public static final Param LAUNCHER_HANDSHAKE_TIMEOUT_MS = new Param("jrma.launcher.handshakeTimeoutMs", "30000",
            "job", "how long (ms) jrmarun and a JVM joining its job each wait for the other side's next handshake "
            + "message (the proof of the job secret); a JVM whose launcher does not answer in time fails with "
            + "`ERR_ACCESS`, and a connection to the launcher that does not prove the secret in time is closed");

    /** Whether jrmarun runs a job whose ranks are all threads of this host in its own JVM. */
    public static final Param LAUNCHER_IN_PROCESS = new Param("jrma.launcher.inProcess", "true", "job",
            "jrmarun runs a job whose ranks are all threads of one JVM on this host in its own JVM (no second JVM "
            + "starts) when that JVM has the flags jrma needs and the job asks for no JVM option or variable of its "
            + "own (`--jvm-arg`, `-x`, `--jdk-linker`, options of a `java` command line); `false`: always a JVM apart");

    /** The class-data sharing archive the JVMs of a jrmarun job start with. */
    public static final Param LAUNCHER_CDS_ARCHIVE = new Param("jrma.launcher.cdsArchive", "", "job",
            "the class-data sharing archive (`-XX:SharedArchiveFile`) jrmarun's JVMs start with, which makes each "
            + "start quicker; `bin/jrmarun` makes one per JDK and jar set under `${XDG_CACHE_HOME:-~/.cache}/jrma` "
            + "(`JRMA_CDS=0` turns that off); from JDK 25 it is an ahead-of-time cache (`*.aot`, `-XX:AOTCache`) that "
            + "also holds the JIT's profiles of a training run of mpi loops; empty: none");

    /** After how long a stopped JVM of a jrmarun job is reported. */
    public static final Param LAUNCHER_STOPPED_NOTICE_MS = new Param("jrma.launcher.stoppedNoticeMs", "5000", "job",
            "jrmarun prints a notice naming a JVM of this host that has been stopped (SIGSTOP, SIGTSTP: state T) "
            + "for this long (ms), once, and another when it runs again; `0`: no notice");

    /** After how long a stopped JVM of a jrmarun job ends the job. */
    public static final Param LAUNCHER_STOPPED_FAIL_MS = new Param("jrma.launcher.stoppedFailMs", "0", "job",
            "a JVM of this host stopped (state T) for this long (ms) ends the job with ERR_PROC_ABORTED (exit code "
            + "74), as a dead one would; `0` (the default): never, as mpirun, since a job may be stopped on purpose "
            + "(its peers then wait; `--timeout` still applies)");

    /** Whether each rank of a jrmarun program gets its own class loader. */
    public static final Param RANK_LOADERS = new Param("jrma.rankLoaders", "isolated", "job",
            "`isolated`: under jrmarun each rank loads the program's classes (and the mpi package) in its own class "
            + "loader,"
            + " so statics are per rank as per process; `shared`: one copy per JVM (the engine is always shared)");

    /** Whether window memory goes into shared segments when ranks of other JVMs on the host use the window. */
    public static final Param SHM_WINDOWS = new Param("jrma.shm.windows", "true", "window",
            "allocate and allocate_shared windows whose ranks span JVMs of one host keep their memory in "
            + "/dev/shm segments every JVM maps (load/store between JVMs); `false`: private memory, packets "
            + "between JVMs");
    /** When puts and gets on private window memory of another JVM of the host are copied by the kernel. */
    public static final Param CMA_MIN_BYTES = new Param("jrma.cma.minBytes", "4096", "window",
            "contiguous puts and gets on a dynamic window's private region of a rank in another JVM of the "
            + "host are one kernel copy by the origin (`process_vm_writev`/`readv`): from this many bytes "
            + "always, smaller gets while the target's flushes cover one operation each (small puts too "
            + "when system calls go through the JDK's linker, else they stay packets); `-1`: never "
            + "(`-Djrma.cma=false` turns cross memory attach off JVM-wide)");
    /** Whether single small operations on private memory of another JVM of the host use request slots. */
    public static final Param OP_SLOTS = new Param("jrma.shm.opSlots", "true", "window",
            "a single fetch_and_op, compare_and_swap, accumulate or get_accumulate of at most 16 contiguous "
            + "bytes (a put of at most 32 the kernel does not copy, a get of at most 16 where it refuses or "
            + "from a target that polls: `jrma.shm.opSlots.gets`) on private memory of a rank in another "
            + "JVM of the host (a dynamic window's private region, a create window's memory not from the "
            + "allocator), while the target's flushes cover one operation each, goes through a request slot "
            + "in the target's shared state, applied and answered by its progress agent in the same cache "
            + "line; `false`: packets through the rings");
    /** Whether small gets on private memory of another JVM of the host use the slot while its target polls. */
    public static final Param OP_SLOTS_GETS = new Param("jrma.shm.opSlots.gets", "polled", "window",
            "`polled`: a get of at most 16 contiguous bytes on such private memory goes through the target's "
            + "slot while that rank's slots were served within the last 200 µs (a thread of its JVM polls "
            + "the library: a cache-line round trip, whatever a system call costs), else by the kernel's "
            + "copy, which needs no target CPU; `kernel`: such gets are always the kernel's copy (the slot "
            + "only where the kernel refuses)");
    /** How long an origin waits for a target to take a request from its slot before sending a packet instead. */
    public static final Param OP_SLOTS_WAIT_NS = new Param("jrma.shm.opSlots.waitNs", "50000", "window",
            "how long an origin waits for the target's progress agent to take a slot request (after the first "
            + "2 µs, which end by ringing the doorbell of a target asleep in its selector) before it "
            + "withdraws it and sends a packet; the next 8 such calls to that target are packets, twice as "
            + "many after each further withdrawal in a row (up to 1,024)");
    /** Directory of shared-memory segments. */
    public static final Param TRANSPORTS = new Param("jrma.transports", "shm,tcp", "job",
            "transport components between JVMs, as Open MPI's `--mca btl`: a list (`shm,tcp`) or exclusions "
            + "(`^shm`); `shm`: rings in shared memory between JVMs of one host; `tcp`: always kept (it "
            + "carries the start-up, the control plane and aborts, and reaches other hosts; `^tcp` is an "
            + "`ERR_ARG` that says so). `bin/jrma-info` shows each component's priority or the reason it "
            + "declines");
    public static final Param SHM_DIR = new Param("jrma.shm.dir", "/dev/shm", "job",
            "directory (a tmpfs) of the shared segments and the ring files; files are named `jrma-<pid>-...` "
            + "after the creating JVM");

    /** Binding of rank threads to CPUs. */
    public static final Param BIND = new Param("jrma.bind", "none", "job",
            "`core`: each rank's thread is bound to one CPU (Linux `sched_setaffinity` through JNA), the "
            + "ranks filling this host's allowed CPUs in rank order; `none`: not bound");
    /** Whether each rank says where it was bound. */
    public static final Param BIND_REPORT = new Param("jrma.bind.report", "false", "job",
            "`true`: each rank prints where it is bound, one line on stderr as Open MPI's `--report-bindings`: "
            + "`[host:pid] MCW rank R bound to socket 0[core 0[hwt 0]]: [B/.]`");
    /** The binding of every rank that jrmarun's mapper computed. */
    public static final Param BIND_CPUS = new Param("jrma.bind.cpus", "", "job",
            "set by jrmarun (`--map-by`, `--bind-to`): each world rank's processing units, by logical index on its "
            + "host (socket by socket, core by core), ranks separated by `;` (`0;1;0-1;`, empty: not bound); a JVM "
            + "of one rank binds all its threads, a JVM of several binds each rank's thread; overrides `jrma.bind`");

    /** Point-to-point messaging (two-sided-compat): smallest message handed to a rank of this JVM by reference. */
    public static final Param MSG_HANDOFF_MIN = new Param("jrma.msg.handoffMin", "auto", "job",
            "smallest message (bytes) a messenger hands to a rank of the same JVM by reference: the receiver copies "
            + "straight from the sender's buffer (one copy instead of the two through its inbox) and the send "
            + "completes when it is matched; larger-than-eager and synchronous messages to such a rank always go so; "
            + "`auto`: those only (below the eager limit a blocking send completes at once, as before); the "
            + "messenger's Info key `jrma_msg_handoff_min` overrides it (docs/two-sided.md)");
    /** Point-to-point messaging (two-sided-compat): largest message sent eagerly through the inbox. */
    public static final Param MSG_EAGER_LIMIT = new Param("jrma.msg.eagerLimit", "auto", "job",
            "largest message (bytes) a messenger sends eagerly through the receiver's inbox area, at most a quarter "
            + "of the area; larger ones go by rendezvous (one kernel copy between JVMs of a host); `auto`: a "
            + "quarter of the area (64 KiB with 8 ranks or fewer); the Info key `jrma_msg_eager_limit` overrides it");

    /** Collectives (two-sided-compat): how long a rank waiting in a collective spins before it yields. */
    public static final Param COLL_SPIN_NS = new Param("jrma.coll.spinNs", "auto", "job",
            "how long (ns) a rank waiting inside a collective spins, driving progress, before it yields and then "
            + "parks; `auto`: 2000000 when the job has no more ranks than the host has cores (a yield or a park "
            + "hands the core away for a scheduler slice, and every rank waiting for this one waits that long "
            + "too), 0 when ranks outnumber cores (the messenger's own spin, yield and park counts then apply)");
    /** Collectives (two-sided-compat): how often a waiting rank yields before it sleeps. */
    public static final Param COLL_YIELDS = new Param("jrma.coll.yields", "auto", "job",
            "how many times a rank waiting inside a collective yields its core, once its spin is over, before it "
            + "sleeps (on its inbox's futex word where every peer stores directly, so the rank that raises its flag "
            + "or sends its message wakes it at once); `auto`: the messenger's own count (`jrma_msg_wait_yields`)");
    /** Collectives on shared memory where every rank maps every other's inbox. */
    public static final Param COLL_SHARED = new Param("jrma.coll.shared", "true", "job",
            "whether collectives on a communicator whose ranks all share memory (threads of a JVM, JVMs of a host "
            + "whose inboxes are mapped) move small data through 4 KiB slots of the ranks' inboxes and a barrier on "
            + "shared flags instead of messages: bcast, gather, scatter, allgather(v) and alltoall of up to 4 KiB per "
            + "slot, reductions of up to 4 KiB (and P x size up to 64 KiB), and bcasts and reductions beyond them "
            + "through large shared slots (`jrma.coll.sharedLargeMin`, `jrma.coll.sharedLargeMax`); `false`: always "
            + "messages (barriers still use the shared flags)");
    /** Largest allgather done by Bruck's algorithm. */
    public static final Param COLL_ALLGATHER_SHORT = new Param("jrma.coll.allgatherShort", "65536", "job",
            "largest allgather (bytes gathered at each rank, all blocks) done by Bruck's algorithm on 3 or more "
            + "ranks: ceil(log2 P) messages per rank instead of the ring's P - 1; larger ones use the ring, which "
            + "moves each block once without the packing Bruck needs; `0`: always the ring");
    /** Largest reduce_scatter done as an allreduce. */
    public static final Param COLL_REDUCE_SCATTER_SHORT = new Param("jrma.coll.reduceScatterShort", "8192", "job",
            "largest reduce_scatter (bytes of the whole vector) done as a recursive-doubling allreduce of the whole "
            + "vector of which each rank keeps its block, on 3 or more ranks: about log2 P messages per rank "
            + "instead of the ring's P - 1 dependent steps; larger ones use the ring; `0`: always the ring");

    /** Smallest collective done through the large shared slots. */
    public static final Param COLL_SHARED_LARGE_MIN = new Param("jrma.coll.sharedLargeMin", "0", "job",
            "smallest bcast, allreduce, reduce or reduce_scatter (bytes of the data, of the whole vector) done on "
            + "shared memory through large slots where every rank maps every other's memory (see "
            + "`jrma.coll.shared`) when the inboxes' 4 KiB slots are too small, with no message: bcast, the root "
            + "copies its data into its slot and after a barrier on shared flags the others copy it out; the "
            + "reductions, each rank copies its vector into its slot, combines its 1/P of the P slots, and copies "
            + "the P results out, around two barriers (reduce_scatter: one); smaller ones (beyond the 4 KiB slots) "
            + "go by messages");
    /** Largest collective done through the large shared slots. */
    public static final Param COLL_SHARED_LARGE_MAX = new Param("jrma.coll.sharedLargeMax", "16777216", "job",
            "largest bcast, allreduce, reduce or reduce_scatter (bytes) done through the large shared slots of "
            + "`jrma.coll.sharedLargeMin` (each rank keeps two slots of the largest such size it has met, rounded "
            + "up to a power of two, in an allocate window made by the first one that needs it; where that window "
            + "cannot be had, that size and larger go by messages); larger ones go by messages; `0`: never the "
            + "large slots");
    /** The mpi package: whether MPI.Init warms the JIT up before it returns. */
    public static final Param MPI_WARMUP = new Param("jrma.mpi.warmup", "auto", "job",
            "whether `MPI.Init` runs the `mpi` package's common loops (ping-pongs, windows of non-blocking sends, "
            + "collectives, 8-byte RMA with flush, lock and fence epochs) between pairs of ranks until the JIT "
            + "compilers of the job's JVMs are quiet, so that they compile these paths inside `Init` and not inside "
            + "the program's first loops; `auto`: when the job has more than one rank; `on`; `off`");
    /** The mpi package: the longest warm-up of MPI.Init. */
    public static final Param MPI_WARMUP_MS = new Param("jrma.mpi.warmupMs", "1000", "job",
            "longest time (ms) `MPI.Init`'s warm-up (`jrma.mpi.warmup`) runs, however busy the JIT still is: what "
            + "every job pays at start for faster first loops (3000 measured better first loops on 2 cores, at 2-3 s "
            + "a job instead of about 1; docs/mpi-package.md#warm-up)");

    /** All parameters, for listing. */
    public static final List<Param> ALL = List.of(PATH, PROGRESS, WAIT_SPINS, WAIT_SPIN_NS, WAIT_YIELDS,
            WAIT_MAX_PARK_NS, AGENT_MAX_PARK_NS, ISSUE, EAGER_BYTES, MAX_PENDING, LOCK_COALESCE, ACKS, JOB_TIMEOUT_MS,
            JVMS, JVMS_REUSE,
            LAUNCHER_HEARTBEAT_MS, LAUNCHER_SILENCE_MS, LAUNCHER_HANDSHAKE_TIMEOUT_MS, LAUNCHER_IN_PROCESS,
            LAUNCHER_CDS_ARCHIVE, LAUNCHER_STOPPED_NOTICE_MS, LAUNCHER_STOPPED_FAIL_MS,
            RANK_LOADERS, SHM_WINDOWS, CMA_MIN_BYTES, OP_SLOTS, OP_SLOTS_GETS, OP_SLOTS_WAIT_NS, SHM_DIR, TRANSPORTS,
            BIND, BIND_REPORT, BIND_CPUS, MSG_HANDOFF_MIN, MSG_EAGER_LIMIT, COLL_SPIN_NS, COLL_YIELDS, COLL_SHARED,
            COLL_ALLGATHER_SHORT,
            COLL_REDUCE_SCATTER_SHORT, COLL_SHARED_LARGE_MIN, COLL_SHARED_LARGE_MAX, MPI_WARMUP, MPI_WARMUP_MS);

    private Params() {
    }
}

package io.jrma.core.runtime;

import java.util.List;

/**
 * Every run-time parameter of rma-core and sync-epochs, each with its default and one sentence of
 * description. {@code io.jrma.JrmaInfo} prints this table.
 */
public final class Params {
    /** Which path windows use between ranks that share memory: {@code auto} (direct) or {@code packet}. */
    public static final Param PATH = new Param("jrma.path", "auto", "window",
            "auto: direct load/store where memory is reachable; packet: force the active-message path for every peer");
    /** Who runs the JVM's progress agent. */
    public static final Param PROGRESS = new Param("jrma.progress", "both", "job",
            "thread: a dedicated progress thread; caller: threads waiting in the library; both: either, whichever is free");
    /** Busy-spin iterations before a waiting thread starts yielding. */
    public static final Param WAIT_SPINS = new Param("jrma.wait.spins", "auto", "job",
            "iterations a waiting thread spins (driving progress) before it yields; auto: 2000, or 0 when the job has"
            + " more ranks than the host has cores (spinning then steals the core the awaited rank needs)");
    /** Yields before a waiting thread starts parking. */
    public static final Param WAIT_YIELDS = new Param("jrma.wait.yields", "auto", "job",
            "Thread.yield() calls a waiting thread makes before it parks; auto: 200, or 5000 when ranks > cores (a yield"
            + " hands the core to a rank that has work at once; a park's wake-up takes tens of microseconds)");
    /** Longest single park of a waiting thread. */
    public static final Param WAIT_MAX_PARK_NS = new Param("jrma.wait.maxParkNs", "200000", "job",
            "longest single park (ns) of a waiting thread; parks grow from 1 us to this");
    /** Idle strategy of the dedicated progress thread. */
    public static final Param AGENT_MAX_PARK_NS = new Param("jrma.agent.maxParkNs", "100000", "job",
            "longest park (ns) of the idle dedicated progress thread (spin, yield, then park up to this)");
    /** Default issue mode of the packet path; the info key jrma_issue overrides it per window. */
    public static final Param ISSUE = new Param("jrma.issue", "lazy", "window",
            "lazy: queue packets until a synchronization call; eager: send each operation when issued; "
                    + "flush_local: lazy, and flush_local also sends what is queued");
    /** Default bound on queued operations per target before they are sent; info key jrma_max_pending_ops. */
    public static final Param MAX_PENDING = new Param("jrma.maxPendingOps", "256", "window",
            "queued operations per target after which the queue is sent without waiting for a sync call");
    /** Whether lock/unlock requests ride on operation packets; the info key jrma_lock_coalesce overrides it. */
    public static final Param LOCK_COALESCE = new Param("jrma.lock.coalesce", "true", "window",
            "true: a passive-target lock is requested with the first operation to the target and released with the"
            + " last (one packet per single-operation epoch; on the direct path the lock word is taken at the first"
            + " operation); false: lock and lock_all request the lock at once and wait for the grant, and unlock is a"
            + " packet of its own (for measuring what coalescing saves)");
    /** Operations at least this large are sent at once even in lazy mode. */
    public static final Param EAGER_BYTES = new Param("jrma.issue.eagerBytes", "65536", "window",
            "in lazy mode, an operation of at least this many bytes sends its target's queue at once (large transfers"
            + " overlap with issuing the next; small ones still wait to be coalesced)");
    /** Job timeout for programs started with Jrma.run without an explicit timeout (0 = none). */
    public static final Param JOB_TIMEOUT_MS = new Param("jrma.job.timeoutMs", "0", "job",
            "a job still running after this many milliseconds is aborted (0: no limit)");

    /** Number of JVMs for jobs started with Jrma.run. */
    public static final Param JVMS = new Param("jrma.jvms", "1", "job",
            "JVMs a job started with Jrma.run spreads its ranks over (blocks of consecutive ranks, connected over TCP);"
            + " 1: all ranks are threads of the calling JVM");

    /** Whether Jrma.run keeps its child JVMs for the next job. */
    public static final Param JVMS_REUSE = new Param("jrma.jvms.reuse", "true", "job",
            "true: after a clean job, Jrma.run keeps its child JVMs (up to two sets) for the next job with the same"
            + " JVM count and class path, which saves their start-up; false: every job starts fresh JVMs");

    /** Whether each rank of a jrmarun program gets its own class loader. */
    public static final Param RANK_LOADERS = new Param("jrma.rankLoaders", "isolated", "job",
            "isolated: under jrmarun each rank loads the program's classes (and the mpi package) in its own class loader,"
            + " so statics are per rank as per process; shared: one copy per JVM (the engine is always shared)");

    /** Whether window memory goes into shared segments when ranks of other JVMs on the host use the window. */
    public static final Param SHM_WINDOWS = new Param("jrma.shm.windows", "true", "window",
            "true: allocate and allocate_shared windows whose ranks span JVMs of one host keep their memory in /dev/shm"
            + " segments that every JVM maps, so those ranks reach each other by load/store; false: private memory,"
            + " reached by packets (allocate_shared across JVMs then fails)");
    /** When puts and gets on private window memory of another JVM of the host are copied by the kernel. */
    public static final Param CMA_MIN_BYTES = new Param("jrma.cma.minBytes", "4096", "window",
            "contiguous puts and gets on private memory of a rank in another JVM of the host (a dynamic window's region"
            + " outside shared segments) are one kernel copy (process_vm_writev/readv) by the origin alone, instead of"
            + " packets through the rings: from this many bytes always, smaller gets while the target's flushes cover"
            + " one operation each (a stream of small ones goes as batches), small puts likewise when system calls go"
            + " through the JDK's linker (through JNA they are quicker as packets); -1:"
            + " never (-Djrma.cma=false turns cross memory attach off JVM-wide)");
    /** Whether single small operations on private memory of another JVM of the host use request slots. */
    public static final Param OP_SLOTS = new Param("jrma.shm.opSlots", "true", "window",
            "true: a single accumulate, get_accumulate, fetch_and_op or compare_and_swap of at most 16 contiguous bytes"
            + " (a put of at most 32 the kernel does not copy, a get of at most 16 where it refuses or from a target"
            + " that polls, jrma.shm.opSlots.gets) on memory private to"
            + " a rank in another JVM of the host (a dynamic window's region, a create window's memory not from the"
            + " allocator), while the target's flushes cover one operation each, is written into a request slot in the"
            + " target's shared state, which its progress agent applies and answers in the same cache line (complete"
            + " when the call returns); false: such operations are packets through the rings like the rest");
    /** Whether small gets on private memory of another JVM of the host use the slot while its target polls. */
    public static final Param OP_SLOTS_GETS = new Param("jrma.shm.opSlots.gets", "polled", "window",
            "polled: a get of at most 16 contiguous bytes on memory private to a rank in another JVM of the host goes"
            + " through the target's request slot (jrma.shm.opSlots) while that rank's slots were served within the"
            + " last 200 us (a thread of its JVM polls the library: the answer comes in a cache-line round trip,"
            + " whatever a system call costs), else by the kernel's copy (jrma.cma.minBytes), which needs no target"
            + " CPU; kernel: such gets are always the kernel's copy (the slot only where the kernel refuses)");
    /** How long an origin waits for a target to take a request from its slot before sending a packet instead. */
    public static final Param OP_SLOTS_WAIT_NS = new Param("jrma.shm.opSlots.waitNs", "50000", "window",
            "nanoseconds an origin waits for the target's progress agent to take a request from its slot (jrma.shm.opSlots;"
            + " after the first 2 us, which end by ringing the doorbell of a target asleep in its selector) before it"
            + " withdraws it and sends a packet; the next 8 such calls to that target are packets, twice as many after"
            + " each further withdrawal in a row (up to 1024)");
    /** Directory of shared-memory segments. */
    public static final Param TRANSPORTS = new Param("jrma.transports", "shm,tcp", "job",
            "transports for packets between JVMs, as Open MPI's --mca btl: a list (shm,tcp) or exclusions (^shm);"
            + " shm: rings in shared memory between JVMs of one host; tcp: always kept (it carries the start-up,"
            + " the control plane and aborts, and reaches other hosts); jrma-info shows what each would do");
    public static final Param SHM_DIR = new Param("jrma.shm.dir", "/dev/shm", "job",
            "directory (a tmpfs) holding the shared segments and the rings between JVMs; files are named jrma-<pid>-... after the creating JVM");

    /** Binding of rank threads to CPUs. */
    public static final Param BIND = new Param("jrma.bind", "none", "job",
            "none: rank threads run where the OS puts them; core: each rank's thread is bound to one CPU, the ranks"
            + " filling this host's allowed CPUs in rank order (wrapping around when there are more ranks than CPUs)");
    /** Whether each rank says where it was bound. */
    public static final Param BIND_REPORT = new Param("jrma.bind.report", "false", "job",
            "true: each rank prints the CPUs its thread is bound to (jrmarun --report-bindings)");

    /** All parameters, for listing. */
    public static final List<Param> ALL = List.of(PATH, PROGRESS, WAIT_SPINS, WAIT_YIELDS, WAIT_MAX_PARK_NS,
            AGENT_MAX_PARK_NS, ISSUE, EAGER_BYTES, MAX_PENDING, LOCK_COALESCE, JOB_TIMEOUT_MS, JVMS, JVMS_REUSE, RANK_LOADERS, SHM_WINDOWS, CMA_MIN_BYTES, OP_SLOTS, OP_SLOTS_GETS, OP_SLOTS_WAIT_NS, SHM_DIR, TRANSPORTS,
            BIND, BIND_REPORT);

    private Params() {
    }
}

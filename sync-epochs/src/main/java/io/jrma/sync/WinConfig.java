package io.jrma.sync;

import io.jrma.ErrorClass;
import io.jrma.Info;
import io.jrma.RmaException;
import io.jrma.core.config.Params;
import io.jrma.core.runtime.Job;
import io.jrma.shm.window.OpSlots;

/**
 * The info keys of one window, parsed and validated once at creation (MPICH: decisions are made once).
 * {@link #toInfo()} reports every key jrma honours with the value in force.
 *
 * <p>Immutable except {@link #name}; any thread.
 */
final class WinConfig {
    final boolean noLocks;
    final String accumulateOrdering;
    final String accumulateOps;
    final boolean sameSize;
    final boolean sameDispUnit;
    final boolean allocSharedNoncontig;
    final long accumulateGranularity;
    final boolean eager;
    /** Issue mode {@code flush_local}: queued packets also leave at a flush_local (which then waits for no ack). */
    final boolean sendOnFlushLocal;
    /** The issue mode's name (jrma_issue). */
    final String issue;
    final int maxPendingOps;
    final long eagerBytes;
    final boolean forcePacket;
    /** Lock/unlock ride on the first/last operation (jrma.lock.coalesce, info jrma_lock_coalesce). */
    final boolean coalesceLocks;
    /** Every flush and unlock asks for an ack of its own: none elided or piggy-backed (jrma.acks, info jrma_acks). */
    final boolean alwaysAck;
    /** Window memory in shared segments when other JVMs of the host use the window (jrma.shm.windows). */
    final boolean shmWindows;
    /**
     * Contiguous puts and gets on a private region of another JVM of the host from this many bytes are done by
     * cross memory attach whenever they may (jrma.cma.minBytes); Long.MAX_VALUE when none is.
     */
    final long crossMemoryMin;
    /** Whether single small operations on another JVM's private memory use its request slots ({@link OpSlots}). */
    final boolean opSlots;
    /** How long an origin waits for its slot request to be taken before it sends a packet instead. */
    final long opSlotsWaitNs;
    /** Whether small gets take the slot of a target that polls before the kernel (jrma.shm.opSlots.gets). */
    final boolean slotGets;
    /** Where shared segments live (jrma.shm.dir). */
    final String shmDir;
    /**
     * Whether the window may take the RDMA lane and the atomic domain (info jrma_rdma, default true): false keeps
     * every operation to other JVMs on packets, applied by the target in issue order (the messenger's inbox).
     */
    final boolean rdma;

    WinConfig(Job job, Info info) {
        Info i = info == null ? new Info() : info;
        noLocks = bool(i, "no_locks", false);
        accumulateOrdering = ordering(i.get("accumulate_ordering"));
        accumulateOps = choice(i, "accumulate_ops", "same_op_no_op", "same_op_no_op", "same_op");
        sameSize = bool(i, "same_size", false);
        sameDispUnit = bool(i, "same_disp_unit", false);
        allocSharedNoncontig = bool(i, "alloc_shared_noncontig", false);
        rdma = bool(i, "jrma_rdma", true);
        accumulateGranularity = positive(i, "mpi_accumulate_granularity", 0, true);
        String issue = i.get("jrma_issue") != null ? i.get("jrma_issue") : job.param(Params.ISSUE);
        if (!issue.equals("lazy") && !issue.equals("eager") && !issue.equals("flush_local")) {
            throw bad("jrma_issue", issue, "lazy|eager|flush_local");
        }
        this.issue = issue;
        eager = issue.equals("eager");
        sendOnFlushLocal = issue.equals("flush_local");
        String maxp = i.get("jrma_max_pending_ops") != null ? i.get("jrma_max_pending_ops")
                : job.param(Params.MAX_PENDING);
        long mp = parse("jrma_max_pending_ops", maxp);
        if (mp < 1 || mp > 1_000_000) {
            throw bad("jrma_max_pending_ops", maxp, "an integer in 1..1000000");
        }
        maxPendingOps = (int) mp;
        String coalesce = i.get("jrma_lock_coalesce") != null ? i.get("jrma_lock_coalesce")
                : job.param(Params.LOCK_COALESCE);
        if (!coalesce.equals("true") && !coalesce.equals("false")) {
            throw bad("jrma_lock_coalesce", coalesce, "true|false");
        }
        coalesceLocks = coalesce.equals("true");
        String acks = i.get("jrma_acks") != null ? i.get("jrma_acks") : job.param(Params.ACKS);
        if (!acks.equals("auto") && !acks.equals("always")) {
            throw bad("jrma_acks", acks, "auto|always");
        }
        alwaysAck = acks.equals("always");
        eagerBytes = job.params() == null ? 65536 : Params.EAGER_BYTES.getLong(job.params());
        String path = job.param(Params.PATH);
        if (!path.equals("auto") && !path.equals("packet")) {
            throw bad("jrma.path", path, "auto|packet");
        }
        forcePacket = path.equals("packet");
        String shm = job.param(Params.SHM_WINDOWS);
        if (!shm.equals("true") && !shm.equals("false")) {
            throw bad("jrma.shm.windows", shm, "true|false");
        }
        shmWindows = shm.equals("true");
        shmDir = job.param(Params.SHM_DIR);
        String cma = job.param(Params.CMA_MIN_BYTES);
        long cm = parse("jrma.cma.minBytes", cma);
        if (cm < -1) {
            throw bad("jrma.cma.minBytes", cma, "-1 (never) or a byte count >= 0");
        }
        crossMemoryMin = cm < 0 ? Long.MAX_VALUE : cm;
        String slots = job.param(Params.OP_SLOTS);
        if (!slots.equals("true") && !slots.equals("false")) {
            throw bad("jrma.shm.opSlots", slots, "true|false");
        }
        opSlots = slots.equals("true");
        String wait = job.param(Params.OP_SLOTS_WAIT_NS);
        long wn = parse("jrma.shm.opSlots.waitNs", wait);
        if (wn < 0) {
            throw bad("jrma.shm.opSlots.waitNs", wait, "nanoseconds >= 0");
        }
        opSlotsWaitNs = wn;
        String gets = job.param(Params.OP_SLOTS_GETS);
        if (!gets.equals("polled") && !gets.equals("kernel")) {
            throw bad("jrma.shm.opSlots.gets", gets, "polled|kernel");
        }
        slotGets = opSlots && gets.equals("polled");
    }

    private static boolean bool(Info i, String key, boolean dflt) {
        String v = i.get(key);
        if (v == null) {
            return dflt;
        }
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw bad(key, v, "true|false");
    }

    private static String choice(Info i, String key, String dflt, String... allowed) {
        String v = i.get(key);
        if (v == null) {
            return dflt;
        }
        for (String a : allowed) {
            if (a.equals(v)) {
                return v;
            }
        }
        throw bad(key, v, String.join("|", allowed));
    }

    private static String ordering(String v) {
        if (v == null) {
            return "rar,raw,war,waw";
        }
        if (v.equals("none")) {
            return v;
        }
        for (String part : v.split(",")) {
            String p = part.trim();
            if (!p.equals("rar") && !p.equals("raw") && !p.equals("war") && !p.equals("waw")) {
                throw bad("accumulate_ordering", v, "none or a comma-separated subset of rar,raw,war,waw");
            }
        }
        return v;
    }

    private static long positive(Info i, String key, long dflt, boolean zeroOk) {
        String v = i.get(key);
        if (v == null) {
            return dflt;
        }
        long n = parse(key, v);
        if (n < 0 || (!zeroOk && n == 0)) {
            throw bad(key, v, "a non-negative integer");
        }
        return n;
    }

    private static long parse(String key, String v) {
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw bad(key, v, "an integer");
        }
    }

    private static RmaException bad(String key, String v, String allowed) {
        return new RmaException(ErrorClass.ERR_INFO_VALUE,
                "info " + key + "=" + v + " is not valid (allowed: " + allowed + ")");
    }

    /** Every key jrma honours with its value in force; {@code path} is the path chosen for remote peers. */
    Info toInfo(String path) {
        return Info.of("no_locks", Boolean.toString(noLocks),
                "accumulate_ordering", accumulateOrdering,
                "accumulate_ops", accumulateOps,
                "same_size", Boolean.toString(sameSize),
                "same_disp_unit", Boolean.toString(sameDispUnit),
                "alloc_shared_noncontig", Boolean.toString(allocSharedNoncontig),
                "mpi_accumulate_granularity", Long.toString(accumulateGranularity),
                "jrma_issue", issue,
                "jrma_max_pending_ops", Integer.toString(maxPendingOps),
                "jrma_lock_coalesce", Boolean.toString(coalesceLocks),
                "jrma_acks", alwaysAck ? "always" : "auto",
                "jrma_rdma", Boolean.toString(rdma),
                "jrma_path", path);
    }
}

package io.jrma;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.ServiceLoader;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * An RMA window (MPI-3 one-sided communication): memory each rank of a communicator exposes to the others,
 * accessed with put, get and the accumulate family inside synchronization epochs (fence, post/start/complete/
 * wait, lock/unlock, lock_all) with MPI-3's semantics: same error classes, same completion rules, the unified
 * memory model.
 *
 * <h2>Buffers</h2>
 * Origin, compare and result buffers ({@code Object buf} parameters) may be a direct {@link ByteBuffer}, a
 * Chronicle {@link BytesStore} with native memory (the zero-copy fast path), or a Java primitive array
 * ({@code byte[]}, {@code short[]}, {@code char[]}, {@code int[]}, {@code long[]}, {@code float[]},
 * {@code double[]}, {@code boolean[]}). Buffers are addressed from their first byte: a ByteBuffer's position
 * and limit are ignored (use {@code slice()} to offset); datatype offsets are bytes from that start. Counts are
 * elements of the given datatype; displacements are in units of the target's {@code disp_unit}.
 *
 * <h2>Paths</h2>
 * The path to each target is chosen once, at creation: <em>direct</em> (load/store and CPU atomics on the
 * target's memory; passive-target locks are lock words the origin takes itself) when the target's memory is in
 * this address space, else <em>packet</em> (wire-ready packets queued per target and applied by the target's
 * progress agent). Run-time parameter {@code jrma.path=packet} forces the packet path for every peer.
 *
 * <h2>Info keys</h2>
 * MPI's {@code no_locks}, {@code accumulate_ordering} ({@code rar,raw,war,waw} default, or {@code none}),
 * {@code accumulate_ops} ({@code same_op_no_op} default, or {@code same_op}), {@code same_size},
 * {@code same_disp_unit}, {@code alloc_shared_noncontig}, {@code mpi_accumulate_granularity}; jrma's own
 * {@code jrma_issue} ({@code lazy}: packets queue until a synchronization needs them sent, {@code eager}: each
 * operation leaves when issued, {@code flush_local}: as lazy, and a flush_local also sends what is queued,
 * without waiting for an ack), {@code jrma_max_pending_ops} (positive integer),
 * {@code jrma_lock_coalesce} ({@code true}|{@code false}: lock/unlock ride on operation packets),
 * {@code jrma_acks} ({@code auto}|{@code always}: {@code always} gives every flush and unlock an ack of its own) and
 * {@code jrma_path} (read-only: {@code direct}, {@code packet}, or {@code mixed} for a dynamic window, or a create
 * window over memory not from {@code Jrma.allocateMemory}, whose ranks in other JVMs of the host are locked and
 * signalled by load/store and reached by load/store where the target bytes lie in memory from
 * {@code Jrma.allocateMemory}, elsewhere by the kernel's copy, request slots or packets; set the run-time parameter
 * {@code jrma.path} to choose).
 *
 * <h2>Threads</h2>
 * A window object belongs to one rank; several threads of that rank may issue operations and flushes on it at
 * once. Synchronization calls that open or close epochs must not race with each other (MPI's rule).
 */
public interface Win extends AutoCloseable {
    /** Target rank that makes an operation a no-op. */
    int PROC_NULL = -2;
    /** Assert: no other process holds or attempts a conflicting lock (lock, lock_all, start, post). */
    int MODE_NOCHECK = 1;
    /** Assert (fence): no RMA operations complete at this fence: the fence opens a new sequence. */
    int MODE_NOPRECEDE = 2;
    /** Assert (fence, post): the local window is not updated by put or accumulate in the coming epoch. */
    int MODE_NOPUT = 4;
    /** Assert (fence, post): the local window was not updated by local stores since the last sync. */
    int MODE_NOSTORE = 8;
    /** Assert (fence): no RMA operations are started after this fence. */
    int MODE_NOSUCCEED = 16;

    // ---------------------------------------------------------------- creation

    /**
     * MPI_Win_create over memory the caller owns (a direct ByteBuffer or a native BytesStore). Collective.
     * Memory from {@link Jrma#allocateMemory} is reached by load/store from ranks in other JVMs of the host too;
     * other memory is reached by packets from other JVMs.
     */
    static Win create(Comm comm, Object memory, int dispUnit, Info info) {
        return provider().create(comm, memory, dispUnit, info);
    }

    /**
     * MPI_Win_allocate: {@code size} bytes of library-owned off-heap memory per rank. Collective. When ranks of
     * the communicator live in other JVMs of this host, the memory is in a /dev/shm segment they map (they
     * reach it by load/store; {@code jrma.shm.windows=false} turns this off); a /dev/shm too small fails the
     * call on every rank with {@link ErrorClass#ERR_NO_MEM}.
     */
    static Win allocate(Comm comm, long size, int dispUnit, Info info) {
        return provider().allocate(comm, size, dispUnit, info, false);
    }

    /**
     * MPI_Win_allocate_shared: memory every rank of {@code comm} can load/store ({@link #sharedQuery}); all
     * ranks' segments are contiguous unless info {@code alloc_shared_noncontig=true}. Collective. The ranks may
     * live in several JVMs of one host (shared /dev/shm segments); ranks on other hosts fail the call with
     * {@link ErrorClass#ERR_RMA_SHARED}.
     */
    static Win allocateShared(Comm comm, long size, int dispUnit, Info info) {
        return provider().allocate(comm, size, dispUnit, info, true);
    }

    /**
     * MPI_Win_create_dynamic: memory is attached later with {@link #attach}; disp is an absolute address. Across
     * JVMs of one host, operations on attached memory from {@code Jrma.allocateMemory} are loads, stores and CPU
     * atomics on a shared mapping, as on an allocate window; other attached memory is reached by packets.
     */
    static Win createDynamic(Comm comm, Info info) {
        return provider().createDynamic(comm, info);
    }

    /** The absolute address of the first byte of a direct ByteBuffer or native BytesStore (MPI_Get_address). */
    static long address(Object memory) {
        return provider().address(memory);
    }

    private static WindowProvider provider() {
        return WindowProvider.Holder.INSTANCE;
    }

    // ---------------------------------------------------------------- communication

    /** Copies {@code originCount} elements of {@code originType} from {@code origin} to the target. */
    void put(Object origin, long originCount, Datatype originType, int targetRank, long targetDisp,
             long targetCount, Datatype targetType);

    /** {@link #put} with the same count and type on both sides. */
    default void put(Object origin, long count, Datatype type, int targetRank, long targetDisp) {
        put(origin, count, type, targetRank, targetDisp, count, type);
    }

    /** Copies from the target into {@code origin}; the data is there once the operation completes locally. */
    void get(Object origin, long originCount, Datatype originType, int targetRank, long targetDisp,
             long targetCount, Datatype targetType);

    default void get(Object origin, long count, Datatype type, int targetRank, long targetDisp) {
        get(origin, count, type, targetRank, targetDisp, count, type);
    }

    /** Combines origin data into the target with {@code op}, atomically per element. */
    void accumulate(Object origin, long originCount, Datatype originType, int targetRank, long targetDisp,
                    long targetCount, Datatype targetType, Op op);

    default void accumulate(Object origin, long count, Datatype type, int targetRank, long targetDisp, Op op) {
        accumulate(origin, count, type, targetRank, targetDisp, count, type, op);
    }

    /** Fetches the target's data into {@code result}, then combines the origin data into it; atomic per element. */
    void getAccumulate(Object origin, long originCount, Datatype originType, Object result, long resultCount,
                       Datatype resultType, int targetRank, long targetDisp, long targetCount,
                       Datatype targetType, Op op);

    /** Single-element get_accumulate: {@code result = target; target = target op origin}. */
    void fetchAndOp(Object origin, Object result, Datatype type, int targetRank, long targetDisp, Op op);

    /** Single element: {@code result = target; if (target == compare) target = origin}, atomically. */
    void compareAndSwap(Object origin, Object compare, Object result, Datatype type, int targetRank, long targetDisp);

    /** Request-based {@link #put}: the request completes when the origin buffer may be reused. */
    Request rput(Object origin, long originCount, Datatype originType, int targetRank, long targetDisp,
                 long targetCount, Datatype targetType);

    /** Request-based {@link #get}: the request completes when the data is in {@code origin}. */
    Request rget(Object origin, long originCount, Datatype originType, int targetRank, long targetDisp,
                 long targetCount, Datatype targetType);

    Request raccumulate(Object origin, long originCount, Datatype originType, int targetRank, long targetDisp,
                        long targetCount, Datatype targetType, Op op);

    Request rgetAccumulate(Object origin, long originCount, Datatype originType, Object result, long resultCount,
                           Datatype resultType, int targetRank, long targetDisp, long targetCount,
                           Datatype targetType, Op op);

    /** Convenience: atomic fetch-and-add on a {@code long} at the target. */
    long fetchAndAddLong(int targetRank, long targetDisp, long delta);

    /** Convenience: atomic compare-and-swap on a {@code long} at the target; returns the old value. */
    long compareAndSwapLong(int targetRank, long targetDisp, long expected, long newValue);

    // ---------------------------------------------------------------- active target

    /** MPI_Win_fence with the given asserts (MODE_* or 0). Collective over the window's group. */
    void fence(int assertion);

    /** MPI_Win_start: opens an access epoch to the ranks of {@code group} (a group of the window's comm). */
    void start(Group group, int assertion);

    /** MPI_Win_complete: ends the access epoch; operations are complete at the origin. */
    void complete();

    /** MPI_Win_post: opens an exposure epoch to the origins in {@code group}. */
    void post(Group group, int assertion);

    /** MPI_Win_wait: ends the exposure epoch once every origin has completed. */
    void waitFor();

    /** MPI_Win_test: {@code true} (and the exposure epoch ended) if {@link #waitFor} would not block. */
    boolean test();

    // ---------------------------------------------------------------- passive target

    void lock(LockType type, int targetRank, int assertion);

    void unlock(int targetRank);

    void lockAll(int assertion);

    void unlockAll();

    /** Completes all operations to the target, at origin and target. */
    void flush(int targetRank);

    void flushAll();

    /** Completes all operations to the target at the origin only (buffers reusable, gets arrived). */
    void flushLocal(int targetRank);

    void flushLocalAll();

    /** MPI_Win_sync: synchronizes the public and private copies (a full memory fence in the unified model). */
    void sync();

    // ---------------------------------------------------------------- dynamic windows

    /**
     * Attaches memory (direct ByteBuffer or native BytesStore) to a dynamic window. Local. Origins of other JVMs of
     * the host see the region as soon as this returns (MPI requires the program to tell them its address after
     * the attach, so they cannot be earlier); memory from {@code Jrma.allocateMemory} they reach by load/store.
     */
    void attach(Object memory);

    /** Detaches memory attached earlier. Local. */
    void detach(Object memory);

    // ---------------------------------------------------------------- shared memory

    /**
     * MPI_Win_shared_query: the memory of {@code rank} as seen from this process (or of the first rank with
     * size &gt; 0 for PROC_NULL). Works on allocate_shared windows and, as MPI-4.1 allows, on allocate windows,
     * where ranks whose memory this process cannot map report size 0. Other flavors: ERR_RMA_FLAVOR.
     */
    SharedMemory sharedQuery(int rank);

    // ---------------------------------------------------------------- attributes

    /** MPI_WIN_BASE: absolute address of this rank's window memory (0 for dynamic or empty windows). */
    long base();

    /** MPI_WIN_SIZE in bytes. */
    long size();

    /** MPI_WIN_DISP_UNIT in bytes. */
    int dispUnit();

    Flavor flavor();

    MemoryModel model();

    /** This rank's window memory as a Chronicle BytesStore (library-owned for allocate flavors); null for dynamic. */
    BytesStore<?, ?> memory();

    /** This rank's window memory as a direct ByteBuffer (little-endian); null for dynamic or over 2 GiB. */
    ByteBuffer buffer();

    /** The window's group (a new object each call, as MPI_Win_get_group). */
    Group group();

    /** This rank's rank in the window's group. */
    int rank();

    String name();

    void setName(String name);

    /** The info in force: every key jrma honours with its value. */
    Info info();

    /**
     * Sets hints (MPI_Win_set_info). Values are validated (ERR_INFO_VALUE for a malformed one); keys that shape
     * the engine keep the value chosen at creation, as MPI allows, and {@link #info()} reports the value in force.
     */
    void setInfo(Info info);

    void setErrorHandler(ErrorHandler handler);

    ErrorHandler errorHandler();

    /** Counters of this window at this rank. */
    WinCounters counters();

    /** MPI_Win_free. Collective; every epoch must be closed. */
    void free();

    /** Same as {@link #free()}. */
    @Override
    default void close() {
        free();
    }

    /**
     * The window engine behind the static factories (found with ServiceLoader). Internal SPI: the communicators it
     * is given are the engine's own, which it may cast to its internal view of them.
     */
    interface WindowProvider {
        Win create(Comm comm, Object memory, int dispUnit, Info info);

        Win allocate(Comm comm, long size, int dispUnit, Info info, boolean shared);

        Win createDynamic(Comm comm, Info info);

        long address(Object memory);

        /** Lazily loads the one provider. */
        final class Holder {
            static final WindowProvider INSTANCE = load();

            private Holder() {
            }

            private static WindowProvider load() {
                Iterator<WindowProvider> it = ServiceLoader.load(WindowProvider.class).iterator();
                if (!it.hasNext()) {
                    throw new RmaException(ErrorClass.ERR_INTERN,
                            "no window engine on the class path: add io.jrma:sync-epochs");
                }
                return it.next();
            }
        }
    }
}

package mpi;

import io.jrma.ErrorClass;
import io.jrma.Flavor;
import io.jrma.LockType;
import io.jrma.MemoryModel;
import io.jrma.RmaException;
import io.jrma.SharedMemory;
import io.jrma.core.runtime.CommCore;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An RMA window (MPI_Win) on jrma's window engine: memory each rank of a communicator exposes, accessed with
 * put, get and the accumulate family inside fence, post/start/complete/wait and lock/unlock epochs, with MPI-3's
 * semantics and the unified memory model.
 *
 * <h2>Sizes and displacements</h2>
 * As in Open MPI's bindings, the {@code size} and {@code dispUnit} given to the constructors are counted in
 * elements of the window buffer's type (ints for an IntBuffer, bytes for a ByteBuffer); target displacements are
 * in units of the target's displacement unit; origin and result buffers must be direct. The attributes
 * {@link MPI#WIN_SIZE} and {@link MPI#WIN_DISP_UNIT} are in bytes. Displacements into a dynamic window are
 * absolute addresses ({@link MPI#getAddress}), which need the {@code long} overloads of the operations.
 *
 * <h2>Allocated memory (unlike Open MPI)</h2>
 * Java code can reach the memory of windows made by {@link #Win(int, int, Info, Comm, Buffer, int)}: with
 * {@link #FLAVOR_PRIVATE} the window's memory <em>is</em> the direct buffer given as {@code base} when it holds
 * {@code size} elements (reads and writes through it are window accesses), and {@link #getBuffer()} returns the
 * memory of every window; with {@link #FLAVOR_SHARED} the memory is allocated by jrma (all ranks must share a
 * JVM), {@link #getBuffer()} returns this rank's segment and {@link #sharedQuery(int)} any rank's.
 *
 * <h2>Errors</h2>
 * A window's error handler is {@link MPI#ERRORS_ARE_FATAL} by default, as MPI wants; errors while creating
 * a window are handled by the communicator's handler.
 */
public final class Win implements Freeable, Site {
    /** The null window. */
    public static final int WIN_NULL = 0;
    /** Flavor argument of {@link #Win(int, int, Info, Comm, Buffer, int)}: MPI_WIN_ALLOCATE. */
    public static final int FLAVOR_PRIVATE = 0;
    /** Flavor argument of {@link #Win(int, int, Info, Comm, Buffer, int)}: MPI_WIN_ALLOCATE_SHARED. */
    public static final int FLAVOR_SHARED = 1;

    private volatile io.jrma.Win w;
    private volatile Errhandler errh = MPI.ERRORS_ARE_FATAL;
    /** MPI.WIN_FLAVOR_* as the program asked for it. */
    private final int flavor;
    /** This rank's window memory in native order (null for a dynamic window). */
    private final ByteBuffer mem;
    /** The base buffer given by the program: kept reachable while the window lives. */
    private final Buffer base;
    /** The size in bytes given at creation when it exceeds the buffer (only the buffer is exposed), else -1. */
    private final long declaredSize;
    private final Map<Integer, byte[]> attrs = new ConcurrentHashMap<>();
    private final Map<Buffer, ByteBuffer> attached = Collections.synchronizedMap(new IdentityHashMap<>());
    /** Byte views of the non-byte buffers given to the communication calls (allocation-free after the first). */
    private final Bufs.Views views = new Bufs.Views();
    private volatile String name = "";

    /** What a constructor made. */
    private static final class Made {
        final io.jrma.Win w;
        final int flavor;
        final ByteBuffer mem;
        /** The size in bytes the window was created with, when its buffer is smaller (else -1). */
        long declared = -1;

        Made(io.jrma.Win w, int flavor, ByteBuffer mem) {
            this.w = w;
            this.flavor = flavor;
            this.mem = mem;
        }
    }

    private Win(Made m, Buffer base) {
        this.w = m.w;
        this.flavor = m.flavor;
        this.mem = m.mem == null ? null : m.mem.duplicate().clear().order(ByteOrder.nativeOrder());
        this.base = base;
        this.declaredSize = m.declared;
    }

    /**
     * A window over {@code size} elements of a direct buffer (MPI_WIN_CREATE); {@code dispUnit} is in elements
     * of the buffer. Collective over {@code comm}.
     */
    public Win(Buffer base, int size, int dispUnit, Info info, Comm comm) throws MPIException {
        this(create(base, size, dispUnit, info, comm), base);
    }

    /**
     * A window of {@code size} elements of memory allocated for it, {@code dispUnit} in elements, the element
     * type being that of {@code base} (MPI_WIN_ALLOCATE with {@link #FLAVOR_PRIVATE}, MPI_WIN_ALLOCATE_SHARED
     * with {@link #FLAVOR_SHARED}; {@link MPI#WIN_FLAVOR_ALLOCATE} and {@link MPI#WIN_FLAVOR_SHARED} are taken
     * too). With FLAVOR_PRIVATE and a direct {@code base} of at least {@code size} elements, {@code base} is the
     * window's memory; {@link #getBuffer()} always returns it. Collective over {@code comm}.
     */
    public Win(int size, int dispUnit, Info info, Comm comm, Buffer base, int flavor) throws MPIException {
        this(allocate(size, dispUnit, info, comm, base, flavor), base);
    }

    /** A dynamic window (MPI_WIN_CREATE_DYNAMIC): memory is attached later with {@link #attach}. Collective. */
    public Win(Info info, Comm comm) throws MPIException {
        this(dynamic(info, comm), null);
    }

    private static CommCore core(Comm comm) {
        if (comm == null) {
            throw new RmaException(ErrorClass.ERR_COMM, "window communicator is null");
        }
        return (CommCore) comm.core();
    }

    private static long bytes(int n, int elem, String what, ErrorClass ec) {
        if (n < 0) {
            throw new RmaException(ec, "window " + what + " " + n + " is negative");
        }
        return (long) n * elem;
    }

    private static Made create(Buffer base, int size, int dispUnit, Info info, Comm comm) throws MPIException {
        MPI.check();
        if (base == null || !base.isDirect()) {
            throw new IllegalArgumentException("The buffer must be direct.");
        }
        return comm.run(() -> {
            int elem = Bufs.elemSize(base);
            long len = bytes(size, elem, "size", ErrorClass.ERR_SIZE);
            ByteBuffer view = Bufs.bytes(base);
            // A size beyond the buffer is accepted, as Open MPI (which only sees the address) does: programs
            // give ranks that are never targeted an empty buffer. Only the buffer's memory is exposed, so an
            // access beyond it fails with ERR_RMA_RANGE instead of touching memory that is not the window's.
            long exposed = Math.min(len, view.capacity());
            ByteBuffer m = view.duplicate().clear().limit((int) exposed).slice().order(ByteOrder.LITTLE_ENDIAN);
            io.jrma.Win w = io.jrma.Win.create(core(comm), m, dispUnit * elem, Info.ji(info));
            Made made = new Made(w, MPI.WIN_FLAVOR_CREATE, m);
            made.declared = exposed < len ? len : -1;
            return made;
        });
    }

    private static Made allocate(int size, int dispUnit, Info info, Comm comm, Buffer base, int flavor)
            throws MPIException {
        MPI.check();
        if (base != null && !base.isDirect()) {
            throw new IllegalArgumentException("The buffer must be direct.");
        }
        return comm.run(() -> {
            int elem = base == null ? 1 : Bufs.elemSize(base);
            long len = bytes(size, elem, "size", ErrorClass.ERR_SIZE);
            int disp = dispUnit * elem;
            if (flavor == FLAVOR_PRIVATE || flavor == MPI.WIN_FLAVOR_ALLOCATE) {
                if (base != null && (long) base.capacity() * elem >= len) {
                    ByteBuffer m =
                            Bufs.bytes(base).duplicate().clear().limit((int) len).slice()
                            .order(ByteOrder.LITTLE_ENDIAN);
                    return new Made(io.jrma.Win.create(core(comm), m, disp, Info.ji(info)), MPI.WIN_FLAVOR_ALLOCATE, m);
                }
                io.jrma.Win w = io.jrma.Win.allocate(core(comm), len, disp, Info.ji(info));
                return new Made(w, MPI.WIN_FLAVOR_ALLOCATE, w.buffer());
            }
            if (flavor == FLAVOR_SHARED || flavor == MPI.WIN_FLAVOR_SHARED) {
                io.jrma.Win w = io.jrma.Win.allocateShared(core(comm), len, disp, Info.ji(info));
                return new Made(w, MPI.WIN_FLAVOR_SHARED, w.buffer());
            }
            throw new RmaException(ErrorClass.ERR_ARG,
                    "window flavor " + flavor + " is not FLAVOR_PRIVATE or FLAVOR_SHARED");
        });
    }

    private static Made dynamic(Info info, Comm comm) throws MPIException {
        MPI.check();
        return comm.run(() -> new Made(io.jrma.Win.createDynamic(core(comm), Info.ji(info)),
                MPI.WIN_FLAVOR_DYNAMIC, null));
    }

    // ------------------------------------------------------------------------------------------- internals

    @Override
    public Errhandler errh() {
        return errh;
    }

    @Override
    public String siteName() {
        String n = name;
        return n.isEmpty() ? "a window" : "window " + n;
    }

    private io.jrma.Win w() {
        io.jrma.Win x = w;
        if (x == null) {
            throw new RmaException(ErrorClass.ERR_WIN, "the window was freed");
        }
        return x;
    }

    private <T> T run(Work<T> work) throws MPIException {
        MPI.check();
        try {
            return work.run();
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    private void exec(Comm.Act a) throws MPIException {
        run(() -> {
            a.run();
            return null;
        });
    }

    private ByteBuffer origin(Buffer b) {
        if (b == null || !b.isDirect()) {
            throw new IllegalArgumentException("The origin must be direct buffer.");
        }
        return views.of(b);
    }

    private ByteBuffer result(Buffer b) {
        if (b == null || !b.isDirect()) {
            throw new IllegalArgumentException("The result buffer must be direct.");
        }
        return views.of(b);
    }

    /** A direct buffer's bytes (the caller checked it is direct). */
    private ByteBuffer view(Buffer b) {
        return views.of(b);
    }

    /** The origin of an accumulate-family operation: may be null with NO_OP, whose origin is not read. */
    private ByteBuffer accOrigin(Buffer b, Op op) {
        return b == null && op != null && op.jop == io.jrma.Op.NO_OP ? null : origin(b);
    }

    // ------------------------------------------------------------------------------------------ dynamic windows

    /** Attaches {@code size} elements of a direct buffer to a dynamic window (MPI_WIN_ATTACH). Local. */
    public void attach(Buffer base, int size) throws MPIException {
        MPI.check();
        if (base == null || !base.isDirect()) {
            throw new IllegalArgumentException("The buffer must be direct.");
        }
        exec(() -> {
            long len = bytes(size, Bufs.elemSize(base), "attach size", ErrorClass.ERR_SIZE);
            ByteBuffer view = Bufs.bytes(base);
            if (len > view.capacity()) {
                throw new RmaException(ErrorClass.ERR_SIZE, "attach: " + size + " elements exceed the buffer of "
                        + base.capacity());
            }
            ByteBuffer m = view.duplicate().clear().limit((int) len).slice().order(ByteOrder.LITTLE_ENDIAN);
            w().attach(m);
            attached.put(base, m);
        });
    }

    /** Detaches memory attached with {@link #attach} (MPI_WIN_DETACH). Local. */
    public void detach(Buffer base) throws MPIException {
        MPI.check();
        if (base == null || !base.isDirect()) {
            throw new IllegalArgumentException("The buffer must be direct.");
        }
        exec(() -> {
            ByteBuffer m = attached.get(base);
            if (m == null) {
                throw new RmaException(ErrorClass.ERR_RMA_ATTACH, "detach: this buffer is not attached to the window");
            }
            w().detach(m);
            attached.remove(base);
        });
    }

    /** The group of the window's communicator (MPI_WIN_GET_GROUP). */
    public Group getGroup() throws MPIException {
        return run(() -> new Group(w().group()));
    }

    // ------------------------------------------------------------------------------------------ communication

    /** Copies {@code orgCount} elements from {@code origin} to the target (MPI_PUT). */
    public void put(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount,
                    Datatype targetType) throws MPIException {
        put(origin, orgCount, orgType, targetRank, (long) targetDisp, targetCount, targetType);
    }

    /** {@link #put} with a 64-bit displacement (jrma extension, for dynamic windows). */
    public void put(Buffer origin, int orgCount, Datatype orgType, int targetRank, long targetDisp, int targetCount,
                    Datatype targetType) throws MPIException {
        MPI.check();
        try {
            w().put(origin(origin), orgCount, Datatype.jt(orgType), targetRank, targetDisp, targetCount,
                    Datatype.jt(targetType));
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Copies target data into {@code origin}; it is there once the operation completes (MPI_GET). */
    public void get(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount,
                    Datatype targetType) throws MPIException {
        get(origin, orgCount, orgType, targetRank, (long) targetDisp, targetCount, targetType);
    }

    /** {@link #get} with a 64-bit displacement. */
    public void get(Buffer origin, int orgCount, Datatype orgType, int targetRank, long targetDisp, int targetCount,
                    Datatype targetType) throws MPIException {
        MPI.check();
        try {
            w().get(origin(origin), orgCount, Datatype.jt(orgType), targetRank, targetDisp, targetCount,
                    Datatype.jt(targetType));
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Combines origin data into the target with a predefined {@code op}, atomically per element (MPI_ACCUMULATE). */
    public void accumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
                           int targetCount, Datatype targetType, Op op) throws MPIException {
        accumulate(origin, orgCount, orgType, targetRank, (long) targetDisp, targetCount, targetType, op);
    }

    /** {@link #accumulate} with a 64-bit displacement. */
    public void accumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, long targetDisp,
                           int targetCount, Datatype targetType, Op op) throws MPIException {
        MPI.check();
        try {
            w().accumulate(origin(origin), orgCount, Datatype.jt(orgType), targetRank, targetDisp, targetCount,
                    Datatype.jt(targetType), Op.predefined(op, "accumulate"));
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /**
     * Fetches the target's data into {@code resultAddr}, then combines the origin data into it
     * (MPI_GET_ACCUMULATE); with {@link MPI#NO_OP} an atomic get (the origin may then be null).
     */
    public void getAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr, int resultCount,
                              Datatype resultType, int targetRank, int targetDisp, int targetCount,
                              Datatype targetType, Op op) throws MPIException {
        getAccumulate(origin, orgCount, orgType, resultAddr, resultCount, resultType, targetRank, (long) targetDisp,
                targetCount, targetType, op);
    }

    /** {@link #getAccumulate} with a 64-bit displacement. */
    public void getAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr, int resultCount,
                              Datatype resultType, int targetRank, long targetDisp, int targetCount,
                              Datatype targetType, Op op) throws MPIException {
        MPI.check();
        try {
            w().getAccumulate(accOrigin(origin, op), orgCount, orgType == null ? Datatype.jt(targetType)
                    : Datatype.jt(orgType), result(resultAddr), resultCount, Datatype.jt(resultType),
                    targetRank, targetDisp,
                    targetCount, Datatype.jt(targetType), Op.predefined(op, "getAccumulate"));
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Request-based put (MPI_RPUT): the request completes when {@code origin} may be reused. */
    public Request rPut(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
                        int targetCount, Datatype targetType) throws MPIException {
        return rPut(origin, orgCount, orgType, targetRank, (long) targetDisp, targetCount, targetType);
    }

    /** {@link #rPut} with a 64-bit displacement. */
    public Request rPut(Buffer origin, int orgCount, Datatype orgType, int targetRank, long targetDisp,
                        int targetCount, Datatype targetType) throws MPIException {
        return run(() -> Request.rma(this, w().rput(origin(origin), orgCount, Datatype.jt(orgType), targetRank,
                targetDisp, targetCount, Datatype.jt(targetType)), origin, null));
    }

    /** Request-based get (MPI_RGET): the request completes when the data is in {@code origin}. */
    public Request rGet(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
                        int targetCount, Datatype targetType) throws MPIException {
        return rGet(origin, orgCount, orgType, targetRank, (long) targetDisp, targetCount, targetType);
    }

    /** {@link #rGet} with a 64-bit displacement. */
    public Request rGet(Buffer origin, int orgCount, Datatype orgType, int targetRank, long targetDisp,
                        int targetCount, Datatype targetType) throws MPIException {
        return run(() -> Request.rma(this, w().rget(origin(origin), orgCount, Datatype.jt(orgType), targetRank,
                targetDisp, targetCount, Datatype.jt(targetType)), origin, null));
    }

    /** Request-based accumulate (MPI_RACCUMULATE). */
    public Request rAccumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
                               int targetCount, Datatype targetType, Op op) throws MPIException {
        return rAccumulate(origin, orgCount, orgType, targetRank, (long) targetDisp, targetCount, targetType, op);
    }

    /** {@link #rAccumulate} with a 64-bit displacement. */
    public Request rAccumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, long targetDisp,
                               int targetCount, Datatype targetType, Op op) throws MPIException {
        return run(() -> Request.rma(this, w().raccumulate(origin(origin), orgCount, Datatype.jt(orgType), targetRank,
                targetDisp, targetCount, Datatype.jt(targetType), Op.predefined(op, "rAccumulate")), origin, null));
    }

    /** Request-based get-accumulate (MPI_RGET_ACCUMULATE). */
    public Request rGetAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr, int resultCount,
                                  Datatype resultType, int targetRank, int targetDisp, int targetCount,
                                  Datatype targetType, Op op) throws MPIException {
        return rGetAccumulate(origin, orgCount, orgType, resultAddr, resultCount, resultType, targetRank,
                (long) targetDisp, targetCount, targetType, op);
    }

    /** {@link #rGetAccumulate} with a 64-bit displacement. */
    public Request rGetAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr, int resultCount,
                                  Datatype resultType, int targetRank, long targetDisp, int targetCount,
                                  Datatype targetType, Op op) throws MPIException {
        return run(() -> Request.rma(this, w().rgetAccumulate(accOrigin(origin, op), orgCount,
                orgType == null ? Datatype.jt(targetType) : Datatype.jt(orgType), result(resultAddr), resultCount,
                Datatype.jt(resultType), targetRank, targetDisp, targetCount, Datatype.jt(targetType),
                Op.predefined(op, "rGetAccumulate")), origin, resultAddr));
    }

    /** One element: {@code result = target; target = target op origin}, atomically (MPI_FETCH_AND_OP). */
    public void fetchAndOp(Buffer origin, Buffer resultAddr, Datatype dataType, int targetRank, int targetDisp, Op op)
            throws MPIException {
        fetchAndOp(origin, resultAddr, dataType, targetRank, (long) targetDisp, op);
    }

    /** {@link #fetchAndOp} with a 64-bit displacement. */
    public void fetchAndOp(Buffer origin, Buffer resultAddr, Datatype dataType, int targetRank, long targetDisp, Op op)
            throws MPIException {
        MPI.check();
        try {
            w().fetchAndOp(accOrigin(origin, op), result(resultAddr), Datatype.jt(dataType), targetRank,
                    targetDisp, Op.predefined(op, "fetchAndOp"));
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /**
     * One element: {@code result = target; if (target == compare) target = origin}, atomically
     * (MPI_COMPARE_AND_SWAP).
     */
    public void compareAndSwap(Buffer origin, Buffer compareAddr, Buffer resultAddr, Datatype targetType,
                               int targetRank, int targetDisp) throws MPIException {
        compareAndSwap(origin, compareAddr, resultAddr, targetType, targetRank, (long) targetDisp);
    }

    /** {@link #compareAndSwap} with a 64-bit displacement. */
    public void compareAndSwap(Buffer origin, Buffer compareAddr, Buffer resultAddr, Datatype targetType,
                               int targetRank, long targetDisp) throws MPIException {
        MPI.check();
        try {
            if (compareAddr == null || !compareAddr.isDirect()) {
                throw new IllegalArgumentException("The compare buffer must be direct.");
            }
            w().compareAndSwap(origin(origin), view(compareAddr), result(resultAddr), Datatype.jt(targetType),
                    targetRank, targetDisp);
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    // ------------------------------------------------------------------------------------------ synchronization

    /** MPI_WIN_FENCE with {@code assertion} (MODE_* or 0); collective. */
    public void fence(int assertion) throws MPIException {
        MPI.check();
        try {
            w().fence(assertion);
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Opens an access epoch to the ranks of {@code group} (MPI_WIN_START). */
    public void start(Group group, int assertion) throws MPIException {
        MPI.check();
        try {
            w().start(Group.jg(group), assertion);
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Ends the access epoch of {@link #start} (MPI_WIN_COMPLETE). */
    public void complete() throws MPIException {
        MPI.check();
        try {
            w().complete();
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Opens an exposure epoch to the ranks of {@code group} (MPI_WIN_POST). */
    public void post(Group group, int assertion) throws MPIException {
        MPI.check();
        try {
            w().post(Group.jg(group), assertion);
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Ends the exposure epoch once every origin has completed (MPI_WIN_WAIT). */
    public void waitFor() throws MPIException {
        MPI.check();
        try {
            w().waitFor();
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Whether the exposure epoch is over; if so it is ended (MPI_WIN_TEST). */
    public boolean test() throws MPIException {
        return run(() -> w().test());
    }

    /** Locks the window of {@code rank}: {@link MPI#LOCK_EXCLUSIVE} or {@link MPI#LOCK_SHARED} (MPI_WIN_LOCK). */
    public void lock(int lockType, int rank, int assertion) throws MPIException {
        MPI.check();
        try {
            w().lock(lockType(lockType), rank, assertion);
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    private static LockType lockType(int t) {
        if (t == MPI.LOCK_EXCLUSIVE) {
            return LockType.EXCLUSIVE;
        }
        if (t == MPI.LOCK_SHARED) {
            return LockType.SHARED;
        }
        throw new RmaException(ErrorClass.ERR_LOCKTYPE, "lock type " + t + " is not LOCK_EXCLUSIVE or LOCK_SHARED");
    }

    /** Ends the passive-target epoch at {@code rank} (MPI_WIN_UNLOCK). */
    public void unlock(int rank) throws MPIException {
        MPI.check();
        try {
            w().unlock(rank);
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Shared locks on every rank's window (MPI_WIN_LOCK_ALL). */
    public void lockAll(int assertion) throws MPIException {
        MPI.check();
        try {
            w().lockAll(assertion);
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Ends the epoch of {@link #lockAll} (MPI_WIN_UNLOCK_ALL). */
    public void unlockAll() throws MPIException {
        MPI.check();
        try {
            w().unlockAll();
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Synchronizes the public and private copies of the window (MPI_WIN_SYNC). */
    public void sync() throws MPIException {
        MPI.check();
        try {
            w().sync();
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Completes every operation to {@code targetRank}, at origin and target (MPI_WIN_FLUSH). */
    public void flush(int targetRank) throws MPIException {
        MPI.check();
        try {
            w().flush(targetRank);
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Completes every operation, at origin and target (MPI_WIN_FLUSH_ALL). */
    public void flushAll() throws MPIException {
        MPI.check();
        try {
            w().flushAll();
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Completes every operation to {@code targetRank} at the origin (MPI_WIN_FLUSH_LOCAL). */
    public void flushLocal(int targetRank) throws MPIException {
        MPI.check();
        try {
            w().flushLocal(targetRank);
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    /** Completes every operation at the origin (MPI_WIN_FLUSH_LOCAL_ALL). */
    public void flushLocalAll() throws MPIException {
        MPI.check();
        try {
            w().flushLocalAll();
        } catch (RuntimeException e) {
            throw Err.handle(errh, siteName(), e);
        }
    }

    // ------------------------------------------------------------------------------------------ errors, attributes

    /** Sets the window's error handler (MPI_WIN_SET_ERRHANDLER). */
    public void setErrhandler(Errhandler errhandler) throws MPIException {
        exec(() -> {
            w();
            if (errhandler == null) {
                throw new RmaException(ErrorClass.ERR_ARG, "error handler is null");
            }
            errh = errhandler;
        });
    }

    /** The window's error handler (MPI_WIN_GET_ERRHANDLER). */
    public Errhandler getErrhandler() throws MPIException {
        MPI.check();
        return errh;
    }

    /** Invokes the error handler with {@code errorCode} (MPI_WIN_CALL_ERRHANDLER). */
    public void callErrhandler(int errorCode) throws MPIException {
        MPI.check();
        if (errh.fatal && errorCode != MPI.SUCCESS) { // ERRORS_RETURN: the handler returns, so does the call
            throw Err.raise(errh, errorCode, "MPI error " + errorCode + " raised by callErrhandler", siteName(), null);
        }
    }

    /** A new attribute key for windows (MPI_WIN_CREATE_KEYVAL). */
    public static int createKeyval() throws MPIException {
        MPI.check();
        return MPI.env.newKeyval(Env.KeyKind.WIN);
    }

    /** Frees an attribute key (MPI_WIN_FREE_KEYVAL). */
    public static void freeKeyval(int keyval) throws MPIException {
        MPI.check();
        try {
            MPI.env.freeKeyval(Env.KeyKind.WIN, keyval);
        } catch (RuntimeException e) {
            throw Err.handle(MPI.COMM_WORLD.errh, MPI.COMM_WORLD.siteName(), e);
        }
    }

    /** Caches a (serializable) value on the window (MPI_WIN_SET_ATTR). */
    public void setAttr(int keyval, Object value) throws MPIException {
        exec(() -> {
            w();
            MPI.env.checkKeyval(Env.KeyKind.WIN, keyval, attrs);
            attrs.put(keyval, MPI.attrSet(value));
        });
    }

    /**
     * The value under {@code keyval}, or null (MPI_WIN_GET_ATTR): {@link MPI#WIN_BASE} ({@code Long}, the
     * address), {@link MPI#WIN_SIZE} and {@link MPI#WIN_DISP_UNIT} ({@code Integer}, bytes),
     * {@link MPI#WIN_CREATE_FLAVOR} and {@link MPI#WIN_MODEL} ({@code Integer}).
     */
    public Object getAttr(int keyval) throws MPIException {
        return run(() -> {
            io.jrma.Win x = w();
            switch (keyval) {
                case MPI.WIN_BASE:
                    return x.base();
                case MPI.WIN_SIZE:
                    return (int) (declaredSize >= 0 ? declaredSize : x.size());
                case MPI.WIN_DISP_UNIT:
                    return x.dispUnit();
                case MPI.WIN_CREATE_FLAVOR:
                    return flavor;
                case MPI.WIN_MODEL:
                    return x.model() == MemoryModel.UNIFIED ? MPI.WIN_UNIFIED : MPI.WIN_SEPARATE;
                default:
                    MPI.env.checkKeyval(Env.KeyKind.WIN, keyval, attrs);
                    return MPI.attrGet(attrs.get(keyval));
            }
        });
    }

    /** Removes the value under {@code keyval} (MPI_WIN_DELETE_ATTR). */
    public void deleteAttr(int keyval) throws MPIException {
        exec(() -> {
            w();
            MPI.env.checkKeyval(Env.KeyKind.WIN, keyval, attrs);
            attrs.remove(keyval);
        });
    }

    /** Frees the window (MPI_WIN_FREE); collective, every epoch must be closed. */
    @Override
    public void free() throws MPIException {
        exec(() -> {
            w().free();
            w = null;
            attached.clear();
        });
    }

    /** Whether the window has been freed (MPI_WIN_NULL). */
    public boolean isNull() {
        return w == null;
    }

    /** The hints in force (MPI_WIN_GET_INFO): every key jrma honours, with its value. */
    public Info getInfo() throws MPIException {
        return run(() -> Info.of(w().info()));
    }

    /** Sets hints (MPI_WIN_SET_INFO). */
    public void setInfo(Info info) throws MPIException {
        exec(() -> {
            io.jrma.Info i = Info.ji(info);
            w().setInfo(i == null ? new io.jrma.Info() : i);
        });
    }

    /** The window's name (MPI_WIN_GET_NAME). */
    public String getName() throws MPIException {
        return run(() -> {
            w();
            return name;
        });
    }

    /** Names the window (MPI_WIN_SET_NAME). */
    public void setName(String name) throws MPIException {
        exec(() -> {
            w();
            if (name == null || name.length() > MPI.MAX_OBJECT_NAME) {
                throw new RmaException(ErrorClass.ERR_ARG, "a window name must have at most " + MPI.MAX_OBJECT_NAME
                        + " characters");
            }
            this.name = name;
            w().setName(name);
        });
    }

    // ------------------------------------------------------------------------------------------ jrma extensions

    /**
     * jrma extension: this rank's window memory as a direct ByteBuffer in native order (a new view each call,
     * position 0): the created window's buffer, the memory of an allocated window (Open MPI's bindings give Java
     * code no way to reach it), this rank's segment of a shared window; null for a dynamic window. Loads and
     * stores through it are the local window accesses of MPI's unified memory model.
     */
    public ByteBuffer getBuffer() throws MPIException {
        return run(() -> {
            w();
            return mem == null ? null : mem.duplicate().order(ByteOrder.nativeOrder());
        });
    }

    /**
     * jrma extension (MPI_WIN_SHARED_QUERY): the memory of {@code rank}'s segment of a shared window
     * ({@link #FLAVOR_SHARED}) as a direct ByteBuffer in native order, which this rank may load and store;
     * ERR_RMA_FLAVOR for other windows.
     */
    public ByteBuffer sharedQuery(int rank) throws MPIException {
        return run(() -> {
            SharedMemory s = w().sharedQuery(rank);
            ByteBuffer b = s.buffer();
            return b == null ? null : b.duplicate().clear().order(ByteOrder.nativeOrder());
        });
    }

    /** jrma extension: the displacement unit of {@code rank}'s segment of a shared window, in bytes. */
    public int sharedQueryDispUnit(int rank) throws MPIException {
        return run(() -> w().sharedQuery(rank).dispUnit());
    }

    @Override
    public String toString() {
        return w == null ? "MPI_WIN_NULL" : siteName() + " " + w;
    }

    /** The flavor as jrma sees it (for diagnostics). */
    Flavor jrmaFlavor() {
        return w().flavor();
    }
}

package mpi;

import io.jrma.ErrorClass;
import io.jrma.Jrma;
import io.jrma.RmaException;
import io.jrma.core.os.HostId;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.reflect.InaccessibleObjectException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

/**
 * The MPI environment: initialization and finalization, the predefined communicators, datatypes, operations,
 * error handlers and constants, timers, and helpers for direct buffers. Source-compatible with Open MPI's Java
 * bindings (4.1/5.0), on jrma: {@code MPI.Init(args)} under {@code jrmarun} makes the calling rank thread a
 * member of {@link #COMM_WORLD}; in a plain {@code java} process it makes the program a job of one rank (MPI's
 * singleton init).
 *
 * <p>Under jrmarun every rank loads the {@code mpi} package in a class loader of its own, so these statics are
 * per rank, as they are per process with Open MPI. Numeric constants are Open MPI's.
 */
public final class MPI {
    static final int ERR_OTHER_CODE = 16;

    // ------------------------------------------------------------------------------------------------ constants

    public static final int THREAD_SINGLE = 0;
    public static final int THREAD_FUNNELED = 1;
    public static final int THREAD_SERIALIZED = 2;
    public static final int THREAD_MULTIPLE = 3;

    public static final int CART = 1;
    public static final int GRAPH = 2;
    public static final int DIST_GRAPH = 3;

    public static final int ANY_SOURCE = -1;
    public static final int ANY_TAG = -1;
    public static final int PROC_NULL = -2;
    public static final int ROOT = -4;
    public static final int UNDEFINED = -32766;
    public static final int KEYVAL_INVALID = -1;

    public static final int IDENT = 0;
    public static final int CONGRUENT = 1;
    public static final int SIMILAR = 2;
    public static final int UNEQUAL = 3;

    /** Attribute key: the largest tag ({@code Integer}). */
    public static final int TAG_UB = 0;
    /** Attribute key: the host process ({@code Integer}, {@link #PROC_NULL}: there is none). */
    public static final int HOST = 1;
    /** Attribute key: a rank that can do I/O ({@code Integer}, {@link #ANY_SOURCE}: every rank can). */
    public static final int IO = 2;
    /** Attribute key: whether {@link #wtime} is synchronized across ranks ({@code Boolean}: false). */
    public static final int WTIME_IS_GLOBAL = 3;
    /** Attribute key: the application number ({@code Integer}: 0). */
    public static final int APPNUM = 4;
    /** Attribute key: the last error code in use ({@code Integer}: {@link #ERR_LASTCODE}). */
    public static final int LASTUSEDCODE = 5;
    /** Attribute key: ranks the job can have ({@code Integer}: the size of COMM_WORLD). */
    public static final int UNIVERSE_SIZE = 6;
    /** Window attribute key: the address of this rank's window memory ({@code Long}). */
    public static final int WIN_BASE = 7;
    /** Window attribute key: the size of this rank's window memory in bytes ({@code Integer}). */
    public static final int WIN_SIZE = 8;
    /** Window attribute key: the displacement unit in bytes ({@code Integer}). */
    public static final int WIN_DISP_UNIT = 9;
    /** Window attribute key: how the window was created ({@code Integer}: a {@code WIN_FLAVOR_*}). */
    public static final int WIN_CREATE_FLAVOR = 10;
    /** Window attribute key: the memory model ({@code Integer}: {@link #WIN_UNIFIED}). */
    public static final int WIN_MODEL = 11;

    public static final int WIN_FLAVOR_CREATE = 1;
    public static final int WIN_FLAVOR_ALLOCATE = 2;
    public static final int WIN_FLAVOR_DYNAMIC = 3;
    public static final int WIN_FLAVOR_SHARED = 4;
    public static final int WIN_UNIFIED = 0;
    public static final int WIN_SEPARATE = 1;

    /** Split type of {@link Intracomm#splitType}: ranks that share memory (the ranks of one host). */
    public static final int COMM_TYPE_SHARED = 0;

    public static final int VERSION = 3;
    public static final int SUBVERSION = 1;
    public static final int BSEND_OVERHEAD = 128;
    public static final int MAX_OBJECT_NAME = 64;
    public static final int MAX_PORT_NAME = 1024;
    public static final int MAX_DATAREP_STRING = 128;
    public static final int MAX_INFO_KEY = 36;
    public static final int MAX_INFO_VAL = 256;
    public static final int MAX_PROCESSOR_NAME = 256;
    public static final int MAX_ERROR_STRING = 256;
    public static final int MAX_LIBRARY_VERSION_STRING = 256;

    public static final int ORDER_C = 0;
    public static final int ORDER_FORTRAN = 1;
    public static final int DISTRIBUTE_BLOCK = 0;
    public static final int DISTRIBUTE_CYCLIC = 1;
    public static final int DISTRIBUTE_NONE = 2;
    public static final int DISTRIBUTE_DFLT_DARG = -1;

    public static final int MODE_CREATE = 1;
    public static final int MODE_RDONLY = 2;
    public static final int MODE_WRONLY = 4;
    public static final int MODE_RDWR = 8;
    public static final int MODE_DELETE_ON_CLOSE = 16;
    public static final int MODE_UNIQUE_OPEN = 32;
    public static final int MODE_EXCL = 64;
    public static final int MODE_APPEND = 128;
    public static final int MODE_SEQUENTIAL = 256;
    public static final int DISPLACEMENT_CURRENT = -54278278;
    public static final int SEEK_SET = 600;
    public static final int SEEK_CUR = 602;
    public static final int SEEK_END = 604;

    /** Window assert: no conflicting lock is held or attempted (lock, lockAll, start, post). */
    public static final int MODE_NOCHECK = 1;
    /** Fence assert: no RMA operation completes at this fence. */
    public static final int MODE_NOPRECEDE = 2;
    /** Fence/post assert: the local window is not updated by put or accumulate until the next sync. */
    public static final int MODE_NOPUT = 4;
    /** Fence/post assert: the local window was not updated by local stores since the last sync. */
    public static final int MODE_NOSTORE = 8;
    /** Fence assert: no RMA operation starts after this fence. */
    public static final int MODE_NOSUCCEED = 16;
    public static final int LOCK_EXCLUSIVE = 1;
    public static final int LOCK_SHARED = 2;

    // error classes (Open MPI's values; every jrma error code is its class)
    public static final int SUCCESS = 0;
    public static final int ERR_BUFFER = 1;
    public static final int ERR_COUNT = 2;
    public static final int ERR_TYPE = 3;
    public static final int ERR_TAG = 4;
    public static final int ERR_COMM = 5;
    public static final int ERR_RANK = 6;
    public static final int ERR_REQUEST = 7;
    public static final int ERR_ROOT = 8;
    public static final int ERR_GROUP = 9;
    public static final int ERR_OP = 10;
    public static final int ERR_TOPOLOGY = 11;
    public static final int ERR_DIMS = 12;
    public static final int ERR_ARG = 13;
    public static final int ERR_UNKNOWN = 14;
    public static final int ERR_TRUNCATE = 15;
    public static final int ERR_OTHER = ERR_OTHER_CODE;
    public static final int ERR_INTERN = 17;
    public static final int ERR_IN_STATUS = 18;
    public static final int ERR_PENDING = 19;
    public static final int ERR_ACCESS = 20;
    public static final int ERR_AMODE = 21;
    public static final int ERR_ASSERT = 22;
    public static final int ERR_BAD_FILE = 23;
    public static final int ERR_BASE = 24;
    public static final int ERR_CONVERSION = 25;
    public static final int ERR_DISP = 26;
    public static final int ERR_DUP_DATAREP = 27;
    public static final int ERR_FILE_EXISTS = 28;
    public static final int ERR_FILE_IN_USE = 29;
    public static final int ERR_FILE = 30;
    public static final int ERR_INFO_KEY = 31;
    public static final int ERR_INFO_NOKEY = 32;
    public static final int ERR_INFO_VALUE = 33;
    public static final int ERR_INFO = 34;
    public static final int ERR_IO = 35;
    public static final int ERR_KEYVAL = 36;
    public static final int ERR_LOCKTYPE = 37;
    public static final int ERR_NAME = 38;
    public static final int ERR_NO_MEM = 39;
    public static final int ERR_NOT_SAME = 40;
    public static final int ERR_NO_SPACE = 41;
    public static final int ERR_NO_SUCH_FILE = 42;
    public static final int ERR_PORT = 43;
    public static final int ERR_QUOTA = 44;
    public static final int ERR_READ_ONLY = 45;
    public static final int ERR_RMA_CONFLICT = 46;
    public static final int ERR_RMA_SYNC = 47;
    public static final int ERR_SERVICE = 48;
    public static final int ERR_SIZE = 49;
    public static final int ERR_SPAWN = 50;
    public static final int ERR_UNSUPPORTED_DATAREP = 51;
    public static final int ERR_UNSUPPORTED_OPERATION = 52;
    public static final int ERR_WIN = 53;
    public static final int ERR_RMA_RANGE = 68;
    public static final int ERR_RMA_ATTACH = 69;
    public static final int ERR_RMA_FLAVOR = 70;
    public static final int ERR_RMA_SHARED = 71;
    /** A rank of the job failed or aborted (Open MPI's MPI_ERR_PROC_ABORTED). */
    public static final int ERR_PROC_ABORTED = 74;
    public static final int ERR_LASTCODE = 92;
    public static final int ERR_SYSRESOURCE = -2;

    // ---------------------------------------------------------------------------------------- predefined objects

    public static final Errhandler ERRORS_ARE_FATAL = new Errhandler(true, "MPI_ERRORS_ARE_FATAL");
    public static final Errhandler ERRORS_RETURN = new Errhandler(false, "MPI_ERRORS_RETURN");

    // Names are those of the C types Open MPI maps the Java types to (MPI.INT is MPI_INT32_T, ...).
    public static final Datatype DATATYPE_NULL = Datatype.nullType();
    /** A Java byte (as in Open MPI, an unsigned 8-bit integer for reductions: MAX of -1 and 1 is -1). */
    public static final Datatype BYTE = Datatype.basic(Datatype.BYTE, io.jrma.Datatype.UINT8, "MPI_UINT8_T");
    /** A Java char: an unsigned 16-bit integer. */
    public static final Datatype CHAR = Datatype.basic(Datatype.CHAR, io.jrma.Datatype.CHAR, "MPI_UINT16_T");
    public static final Datatype SHORT = Datatype.basic(Datatype.SHORT, io.jrma.Datatype.SHORT, "MPI_INT16_T");
    /** A Java boolean: one byte, 0 or 1 (an unsigned 8-bit integer for reductions, as in Open MPI). */
    public static final Datatype BOOLEAN = Datatype.basic(Datatype.BOOLEAN, io.jrma.Datatype.UINT8, "MPI_UINT8_T");
    public static final Datatype INT = Datatype.basic(Datatype.INT, io.jrma.Datatype.INT, "MPI_INT32_T");
    public static final Datatype LONG = Datatype.basic(Datatype.LONG, io.jrma.Datatype.LONG, "MPI_INT64_T");
    public static final Datatype FLOAT = Datatype.basic(Datatype.FLOAT, io.jrma.Datatype.FLOAT, "MPI_FLOAT");
    public static final Datatype DOUBLE = Datatype.basic(Datatype.DOUBLE, io.jrma.Datatype.DOUBLE, "MPI_DOUBLE");
    /** Packed bytes ({@link Comm#pack}). */
    public static final Datatype PACKED = Datatype.basic(Datatype.PACKED, io.jrma.Datatype.BYTE, "MPI_PACKED");
    /** Two ints (value, index) for MINLOC/MAXLOC; sizes and extents are in bytes. */
    public static final Datatype INT2 = Datatype.pair(Datatype.INT2, io.jrma.Datatype.INT_INT, "MPI_2INT");
    /** short value at 0, int index at 4 (8 bytes). */
    public static final Datatype SHORT_INT =
            Datatype.pair(Datatype.SHORT_INT, io.jrma.Datatype.SHORT_INT, "MPI_SHORT_INT");
    /** long value at 0, int index at 8 (extent 16 bytes). */
    public static final Datatype LONG_INT = Datatype.pair(Datatype.LONG_INT, io.jrma.Datatype.LONG_INT, "MPI_LONG_INT");
    /** float value at 0, int index at 4 (8 bytes). */
    public static final Datatype FLOAT_INT =
            Datatype.pair(Datatype.FLOAT_INT, io.jrma.Datatype.FLOAT_INT, "MPI_FLOAT_INT");
    /** double value at 0, int index at 8 (extent 16 bytes). */
    public static final Datatype DOUBLE_INT =
            Datatype.pair(Datatype.DOUBLE_INT, io.jrma.Datatype.DOUBLE_INT, "MPI_DOUBLE_INT");
    /** Two floats (real, imaginary); counts and extents are in floats. */
    public static final Datatype FLOAT_COMPLEX =
            Datatype.complex(Datatype.FLOAT_COMPLEX, io.jrma.Datatype.FLOAT_COMPLEX,
            "MPI_C_FLOAT_COMPLEX", 4);
    /** Two doubles (real, imaginary); counts and extents are in doubles. */
    public static final Datatype DOUBLE_COMPLEX = Datatype.complex(Datatype.DOUBLE_COMPLEX,
            io.jrma.Datatype.DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 8);

    public static final Op MAX = new Op(io.jrma.Op.MAX);
    public static final Op MIN = new Op(io.jrma.Op.MIN);
    public static final Op SUM = new Op(io.jrma.Op.SUM);
    public static final Op PROD = new Op(io.jrma.Op.PROD);
    public static final Op LAND = new Op(io.jrma.Op.LAND);
    public static final Op BAND = new Op(io.jrma.Op.BAND);
    public static final Op LOR = new Op(io.jrma.Op.LOR);
    public static final Op BOR = new Op(io.jrma.Op.BOR);
    public static final Op LXOR = new Op(io.jrma.Op.LXOR);
    public static final Op BXOR = new Op(io.jrma.Op.BXOR);
    /** Minimum value and its index, for the pair types {@link #INT2}, {@link #SHORT_INT}, ... */
    public static final Op MINLOC = new Op(io.jrma.Op.MINLOC);
    /** Maximum value and its index, for the pair types. */
    public static final Op MAXLOC = new Op(io.jrma.Op.MAXLOC);
    /** Accumulate only: the target takes the origin's value. */
    public static final Op REPLACE = new Op(io.jrma.Op.REPLACE);
    /** Accumulate only: the target is left as it is (getAccumulate then is an atomic get). */
    public static final Op NO_OP = new Op(io.jrma.Op.NO_OP);

    /** Struct object for {@link #INT2} data in byte buffers. */
    public static final Int2 int2 = new Int2();
    /** Struct object for {@link #SHORT_INT} data. */
    public static final ShortInt shortInt = new ShortInt();
    /** Struct object for {@link #LONG_INT} data. */
    public static final LongInt longInt = new LongInt();
    /** Struct object for {@link #FLOAT_INT} data. */
    public static final FloatInt floatInt = new FloatInt();
    /** Struct object for {@link #DOUBLE_INT} data. */
    public static final DoubleInt doubleInt = new DoubleInt();

    public static final Request REQUEST_NULL = Request.nullRequest();
    public static final Group GROUP_EMPTY = new Group(new io.jrma.Group(new int[0], -1));
    public static final Info INFO_NULL = Info.nullInfo();
    /** The environment this program was started in ("command", "argv", "maxprocs", "thread_level", ...). */
    public static final Info INFO_ENV = Info.envInfo();

    public static final Intracomm COMM_WORLD = new Intracomm("MPI_COMM_WORLD");
    public static final Intracomm COMM_SELF = new Intracomm("MPI_COMM_SELF");

    // ------------------------------------------------------------------------------------------------- state

    private static volatile boolean initialized;
    private static volatile boolean finalized;
    static volatile Env env;
    /** The buffer of buffered-mode sends (MPI_BUFFER_ATTACH) and the buffered messages in flight. */
    static final Bsend bsend = new Bsend();

    private MPI() {
    }

    // -------------------------------------------------------------------------------------- init and finalize

    /**
     * Initializes MPI (MPI_INIT) and returns the arguments. Under jrmarun the calling thread must be a rank (or a
     * thread started by one); in any other JVM the calling thread becomes rank 0 of a job of one rank.
     *
     * @throws MPIException if MPI was already initialized
     */
    public static String[] Init(String[] args) throws MPIException {
        init(args, THREAD_SINGLE);
        return args;
    }

    /** Whether {@code t} is what a JVM started without jrma's flags (bin/jrma-flags) meets: access to JDK internals. */
    private static boolean missingJvmFlags(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof IllegalAccessError || c instanceof IllegalAccessException
                    || c instanceof InaccessibleObjectException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Initializes MPI with the thread level {@code required} (MPI_INIT_THREAD) and returns the level provided:
     * {@code required} itself, as jrma supports every level up to {@link #THREAD_MULTIPLE}.
     */
    public static int InitThread(String[] args, int required) throws MPIException {
        return init(args, Math.max(THREAD_SINGLE, Math.min(THREAD_MULTIPLE, required)));
    }

    private static synchronized int init(String[] args, int level) throws MPIException {
        if (initialized) {
            Env e = env;
            if (e != null && Jrma.inJob() && Jrma.world() != e.world) {
                throw new MPIException("MPI.Init: the mpi package is shared by two ranks of this JVM: run the program"
                        + " with jrmarun and per-rank class loaders (the default; not jrma.rankLoaders=shared)");
            }
            throw new MPIException(finalized ? "MPI was finalized; it cannot be initialized again"
                    : "MPI is already initialized");
        }
        boolean single = !Jrma.inJob();
        io.jrma.Comm world;
        try {
            world = single ? Jrma.singleton() : Jrma.world();
        } catch (LinkageError | RuntimeException ex) {
            if (!missingJvmFlags(ex) && ex instanceof RmaException r) {
                // the launcher's job could not be joined (a PMI error, srun --mpi=none's rendezvous): its own story
                int c = r.errorClass().code();
                throw new MPIException(Err.classOf(c), Err.classOf(c), "MPI.Init could not start jrma in this process:"
                        + " " + r.getMessage(), ex);
            }
            throw new MPIException(ERR_OTHER, ERR_OTHER, "MPI.Init could not start jrma in this process (" + ex + "):"
                    + " give java the flags jrma needs, java $(bin/jrma-flags) ... (or java $(java -cp <rma-core jar>"
                    + " io.jrma.JvmFlags) ...), or run the program with bin/jrmarun", ex);
        }
        // a process another launcher started (mpiexec) joined that launcher's job: a rank of many, not a singleton
        single = single && !Jrma.joinedExternalJob();
        Env e = new Env(world, single, Thread.currentThread(), level);
        env = e;
        try {
            COMM_WORLD.bind(world, false);
            io.jrma.Comm self = world.split(world.rank(), 0);
            COMM_SELF.bind(self, false);
            Info.fillEnv(INFO_ENV, args, world.size(), level);
        } catch (RuntimeException ex) {
            env = null;
            throw new MPIException(Err.classOf(code(ex)), Err.classOf(code(ex)), "MPI.Init failed: " + ex, ex);
        }
        initialized = true;
        warmUp(world, single);
        return level;
    }

    /** MPI.Init's warm-up of the JIT ({@code jrma.mpi.warmup}, {@link WarmUp}); collective over COMM_WORLD. */
    private static void warmUp(io.jrma.Comm world, boolean single) throws MPIException {
        String mode = single ? "off" : Jrma.parameter(world, "jrma.mpi.warmup");
        boolean on = switch (mode) {
            case "on" -> true;
            case "off" -> false;
            case "auto" -> world.size() > 1;
            default -> throw new MPIException(ERR_ARG, ERR_ARG, "jrma.mpi.warmup must be auto, on or off, not '"
                    + mode + "'", null);
        };
        if (on) {
            String ms = Jrma.parameter(world, "jrma.mpi.warmupMs");
            long budget;
            try {
                budget = Long.parseLong(ms.trim());
            } catch (NumberFormatException e) {
                budget = -1;
            }
            if (budget < 0) {
                throw new MPIException(ERR_ARG, ERR_ARG, "jrma.mpi.warmupMs must be a number of milliseconds, not '"
                        + ms + "'", null);
            }
            WarmUp.run(COMM_WORLD, budget);
        }
    }

    private static int code(RuntimeException e) {
        return e instanceof RmaException ? ((RmaException) e).errorCode() : ErrorClass.ERR_INTERN.code();
    }

    /** The thread level provided at initialization (MPI_QUERY_THREAD). */
    public static int queryThread() throws MPIException {
        check();
        return env.provided;
    }

    /** Whether the calling thread is the one that initialized MPI (MPI_IS_THREAD_MAIN). */
    public static boolean isThreadMain() throws MPIException {
        check();
        return Thread.currentThread() == env.main;
    }

    /**
     * Finalizes MPI (MPI_FINALIZE): collective over COMM_WORLD, which it leaves only when every rank has called
     * it. Afterwards every MPI call except {@link #isInitialized} and {@link #isFinalized} throws.
     */
    public static void Finalize() throws MPIException {
        check();
        try {
            bsend.drain(null); // buffered messages are sent before the rank leaves
        } catch (RuntimeException e) {
            throw Err.handle(COMM_WORLD.errh, COMM_WORLD.siteName(), e);
        }
        COMM_WORLD.barrier();
        finalized = true;
        if (Jrma.inJob()) { // under jrmarun a System.exit after this ends the rank cleanly, as a process
            io.jrma.Comm w = Jrma.world();
            Job job = ((CommCore) w).job();
            job.markFinalized(w.worldRank(w.rank()));
            // and so does it end the other ranks of this JVM only once they have finalized too
            job.awaitLocalRanksFinalized();
            // a process of a job another launcher started closes its connections so that it can end
            Jrma.leave(w);
        }
    }

    /** Whether {@link #Init} has been called (MPI_INITIALIZED). */
    public static boolean isInitialized() throws MPIException {
        return initialized;
    }

    /** Whether {@link #Finalize} has been called (MPI_FINALIZED). */
    public static boolean isFinalized() throws MPIException {
        return finalized;
    }

    /** Throws unless MPI is initialized and not finalized. */
    static void check() throws MPIException {
        if (!initialized) {
            throw new MPIException("MPI is not initialized: call MPI.Init first");
        }
        if (finalized) {
            throw new MPIException("MPI is finalized: no MPI call may follow MPI.Finalize");
        }
    }

    // ----------------------------------------------------------------------------------------- environment

    /** Seconds since an arbitrary time in the past (MPI_WTIME); not synchronized across ranks. */
    public static double wtime() throws MPIException {
        check();
        return System.nanoTime() / 1e9;
    }

    /** The resolution of {@link #wtime} in seconds (MPI_WTICK). */
    public static double wtick() throws MPIException {
        check();
        return 1e-9;
    }

    /** The version of the MPI standard: 3.1 (MPI_GET_VERSION). */
    public static Version getVersion() {
        return new Version(VERSION, SUBVERSION);
    }

    /** The library version string (MPI_GET_LIBRARY_VERSION). */
    public static String getLibVersion() {
        String v = MPI.class.getPackage() == null ? null : MPI.class.getPackage().getImplementationVersion();
        return "jrma " + (v == null ? "0.1.0-SNAPSHOT" : v) + " (MPI " + VERSION + "." + SUBVERSION
                + ", Open MPI Java bindings API)";
    }

    /** The name of this host (MPI_GET_PROCESSOR_NAME). */
    public static String getProcessorName() throws MPIException {
        check();
        String n = hostName();
        return n.length() > MAX_PROCESSOR_NAME ? n.substring(0, MAX_PROCESSOR_NAME) : n;
    }

    /**
     * This host's name as the kernel knows it (never a name lookup: a host's own name need not resolve, as in a
     * network namespace or a container), or "localhost" when it cannot be found.
     */
    static String hostName() {
        return HostId.hostName();
    }

    /**
     * Attaches a buffer for buffered sends (MPI_BUFFER_ATTACH): its length bounds the buffered messages in flight
     * (each takes its size plus {@link #BSEND_OVERHEAD} bytes). ERR_BUFFER if one is attached already.
     */
    public static void attachBuffer(byte[] buffer) throws MPIException {
        check();
        try {
            bsend.attach(buffer);
        } catch (RuntimeException e) {
            throw Err.handle(COMM_WORLD.errh, COMM_WORLD.siteName(), e);
        }
    }

    /**
     * Waits until every buffered message has been sent, then detaches and returns the buffer given to
     * {@link #attachBuffer}, or null if none is attached (MPI_BUFFER_DETACH).
     */
    public static byte[] detachBuffer() throws MPIException {
        check();
        try {
            return bsend.detach();
        } catch (RuntimeException e) {
            throw Err.handle(COMM_WORLD.errh, COMM_WORLD.siteName(), e);
        }
    }

    /** Profiling control (MPI_PCONTROL): does nothing. */
    public static void pControl(int level, Object obj) {
        // no profiling layer
    }

    // ------------------------------------------------------------------------------------------- attributes

    static byte[] attrSet(Object value) throws MPIException {
        try {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            try (ObjectOutputStream o = new ObjectOutputStream(b)) {
                o.writeObject(value);
            }
            return b.toByteArray();
        } catch (IOException e) {
            throw new MPIException(ERR_ARG, ERR_ARG, "attribute values must be serializable: " + e, e);
        }
    }

    static Object attrGet(byte[] value) throws MPIException {
        if (value == null) {
            return null;
        }
        try (ObjectInputStream i = new ObjectInputStream(new ByteArrayInputStream(value))) {
            return i.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw new MPIException(ERR_INTERN, ERR_INTERN, "attribute value cannot be read back: " + e, e);
        }
    }

    // ---------------------------------------------------------------------------------------- direct buffers

    /** A new direct byte buffer in native order. */
    public static ByteBuffer newByteBuffer(int capacity) {
        // in a job over several JVMs: shared memory, so windows created over it are direct between JVMs
        return Jrma.allocateMemory(capacity).order(ByteOrder.nativeOrder());
    }

    /** A new direct char buffer (native order). */
    public static CharBuffer newCharBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 2)).asCharBuffer();
    }

    /** A new direct short buffer (native order). */
    public static ShortBuffer newShortBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 2)).asShortBuffer();
    }

    /** A new direct int buffer (native order). */
    public static IntBuffer newIntBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 4)).asIntBuffer();
    }

    /** A new direct long buffer (native order). */
    public static LongBuffer newLongBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 8)).asLongBuffer();
    }

    /** A new direct float buffer (native order). */
    public static FloatBuffer newFloatBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 4)).asFloatBuffer();
    }

    /** A new direct double buffer (native order). */
    public static DoubleBuffer newDoubleBuffer(int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 8)).asDoubleBuffer();
    }

    /** Throws IllegalArgumentException unless {@code buf} is direct (as the bindings' nonblocking calls do). */
    static void assertDirectBuffer(Buffer buf) {
        if (buf == null || !buf.isDirect()) {
            throw new IllegalArgumentException("The buffer must be direct.");
        }
    }

    static void assertDirectBuffer(Buffer sendbuf, Buffer recvbuf) {
        if (sendbuf == null || !sendbuf.isDirect()) {
            throw new IllegalArgumentException("The send buffer must be direct.");
        }
        if (recvbuf == null || !recvbuf.isDirect()) {
            throw new IllegalArgumentException("The recv. buffer must be direct.");
        }
    }

    static boolean isDirectBuffer(Object obj) {
        return obj instanceof Buffer && ((Buffer) obj).isDirect();
    }

    static boolean isHeapBuffer(Object obj) {
        return obj instanceof Buffer && !((Buffer) obj).isDirect();
    }

    /**
     * jrma extension: the absolute address of the first element of a direct buffer (MPI_GET_ADDRESS), the
     * target displacement of memory attached to a dynamic window ({@link Win#attach}).
     */
    public static long getAddress(Buffer buf) throws MPIException {
        check();
        return Bufs.address(buf);
    }

    /** A buffer sharing {@code buf}'s content from element {@code offset} on (position and limit are reset). */
    public static ByteBuffer slice(ByteBuffer buf, int offset) {
        return buf.duplicate().clear().position(offset).slice().order(ByteOrder.nativeOrder());
    }

    public static CharBuffer slice(CharBuffer buf, int offset) {
        return buf.duplicate().clear().position(offset).slice();
    }

    public static ShortBuffer slice(ShortBuffer buf, int offset) {
        return buf.duplicate().clear().position(offset).slice();
    }

    public static IntBuffer slice(IntBuffer buf, int offset) {
        return buf.duplicate().clear().position(offset).slice();
    }

    public static LongBuffer slice(LongBuffer buf, int offset) {
        return buf.duplicate().clear().position(offset).slice();
    }

    public static FloatBuffer slice(FloatBuffer buf, int offset) {
        return buf.duplicate().clear().position(offset).slice();
    }

    public static DoubleBuffer slice(DoubleBuffer buf, int offset) {
        return buf.duplicate().clear().position(offset).slice();
    }

    /** A heap buffer over {@code buf} from index {@code offset} on: how to pass part of an array. */
    public static ByteBuffer slice(byte[] buf, int offset) {
        return ByteBuffer.wrap(buf, offset, buf.length - offset).slice().order(ByteOrder.nativeOrder());
    }

    public static CharBuffer slice(char[] buf, int offset) {
        return CharBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static ShortBuffer slice(short[] buf, int offset) {
        return ShortBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static IntBuffer slice(int[] buf, int offset) {
        return IntBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static LongBuffer slice(long[] buf, int offset) {
        return LongBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static FloatBuffer slice(float[] buf, int offset) {
        return FloatBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static DoubleBuffer slice(double[] buf, int offset) {
        return DoubleBuffer.wrap(buf, offset, buf.length - offset).slice();
    }
}

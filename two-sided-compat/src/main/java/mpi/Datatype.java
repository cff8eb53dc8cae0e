package mpi;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.dt.BasicType;
import io.jrma.core.dt.TypeLayout;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An MPI datatype (MPI_Datatype), on jrma's datatype engine. As in Open MPI's bindings, every datatype has a
 * <em>base type</em> (the Java element type of the buffers it describes): sizes, extents and lower bounds
 * returned by {@link #getSize}, {@link #getExtent}, {@link #getLb} are counted in elements of the base type
 * (bytes for {@link MPI#BYTE}, {@link MPI#PACKED}, the pair types and structs), while the byte arguments of
 * {@link #createHVector}, {@link #createHIndexed}, {@link #createStruct} and {@link #createResized} are bytes.
 * Derived types must be {@link #commit committed} before they are used in communication.
 */
public final class Datatype implements Freeable, Cloneable {
    // base type codes, Open MPI's numbering
    static final int NULL = 0;
    static final int BYTE = 1;
    static final int CHAR = 2;
    static final int SHORT = 3;
    static final int BOOLEAN = 4;
    static final int INT = 5;
    static final int LONG = 6;
    static final int FLOAT = 7;
    static final int DOUBLE = 8;
    static final int PACKED = 9;
    static final int INT2 = 10;
    static final int SHORT_INT = 11;
    static final int LONG_INT = 12;
    static final int FLOAT_INT = 13;
    static final int DOUBLE_INT = 14;
    static final int FLOAT_COMPLEX = 15;
    static final int DOUBLE_COMPLEX = 16;

    /** The jrma type; null for DATATYPE_NULL and once freed. */
    io.jrma.Datatype t;
    /** The base type code: the Java element type of buffers of this type. */
    final int baseType;
    /** Bytes per base element. */
    final int baseSize;
    private final boolean predefined;
    private volatile String name;
    private final Map<Integer, byte[]> attrs = new ConcurrentHashMap<>();

    private Datatype(io.jrma.Datatype t, int baseType, int baseSize, boolean predefined, String name) {
        this.t = t;
        this.baseType = baseType;
        this.baseSize = baseSize;
        this.predefined = predefined;
        this.name = name;
    }

    static Datatype nullType() {
        return new Datatype(null, NULL, 1, true, "MPI_DATATYPE_NULL");
    }

    static Datatype basic(int code, io.jrma.Datatype t, String name) {
        return new Datatype(t, code, (int) t.size(), true, name);
    }

    /** A value-index pair type: its base type is BYTE, as in Open MPI. */
    static Datatype pair(int code, io.jrma.Datatype t, String name) {
        return new Datatype(t, BYTE, 1, true, name);
    }

    static Datatype complex(int code, io.jrma.Datatype t, String name, int partSize) {
        return new Datatype(t, code == FLOAT_COMPLEX ? FLOAT : DOUBLE, partSize, true, name);
    }

    private static Datatype derived(Datatype old, io.jrma.Datatype t) {
        return new Datatype(t, old.baseType, old.baseSize, false, "");
    }

    /** The jrma type of a datatype argument; ERR_TYPE for null, DATATYPE_NULL or a freed type. */
    static io.jrma.Datatype jt(Datatype d) {
        if (d == null || d.t == null) {
            throw new RmaException(ErrorClass.ERR_TYPE,
                    "datatype is " + (d == null ? "null" : d.name + " (null or freed)"));
        }
        return d.t;
    }

    private static <T> T run(Work<T> w) throws MPIException {
        MPI.check();
        try {
            return w.run();
        } catch (RuntimeException e) {
            throw Err.handle(MPI.COMM_WORLD.errh, "MPI_COMM_WORLD (datatype call)", e);
        }
    }

    // ------------------------------------------------------------------------------------------------ queries

    /** The lower bound, in base elements (MPI_TYPE_GET_EXTENT). */
    public int getLb() throws MPIException {
        return run(() -> (int) (jt(this).lb() / baseSize));
    }

    /** The extent, in base elements (MPI_TYPE_GET_EXTENT). */
    public int getExtent() throws MPIException {
        return run(() -> (int) (jt(this).extent() / baseSize));
    }

    /** The true lower bound, in base elements (MPI_TYPE_GET_TRUE_EXTENT). */
    public int getTrueLb() throws MPIException {
        return run(() -> (int) (jt(this).trueLb() / baseSize));
    }

    /** The true extent, in base elements (MPI_TYPE_GET_TRUE_EXTENT). */
    public int getTrueExtent() throws MPIException {
        return run(() -> (int) (jt(this).trueExtent() / baseSize));
    }

    /** The size (data only), in base elements (MPI_TYPE_SIZE). */
    public int getSize() throws MPIException {
        return run(() -> (int) (jt(this).size() / baseSize));
    }

    /** Commits the type for use in communication (MPI_TYPE_COMMIT). */
    public void commit() throws MPIException {
        run(() -> jt(this).commit());
    }

    /** Frees the type (MPI_TYPE_FREE); it becomes DATATYPE_NULL. Predefined types cannot be freed. */
    @Override
    public void free() throws MPIException {
        run(() -> {
            if (predefined) {
                throw new RmaException(ErrorClass.ERR_TYPE, "the predefined datatype " + name + " cannot be freed");
            }
            jt(this);
            t = null;
            return null;
        });
    }

    /** Whether this is DATATYPE_NULL (or has been freed). */
    public boolean isNull() {
        return t == null;
    }

    /** Same as {@link #dup}, with MPIException wrapped in a RuntimeException. */
    @Override
    public Datatype clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new RuntimeException(e.getMessage(), e);
        }
    }

    /** A copy of this type (MPI_TYPE_DUP); committed if this one is, with the same attributes. */
    public Datatype dup() throws MPIException {
        return run(() -> {
            io.jrma.Datatype j = jt(this);
            io.jrma.Datatype c = io.jrma.Datatype.contiguous(1, j);
            if (j.isCommitted()) {
                c.commit();
            }
            Datatype d = new Datatype(c, baseType, baseSize, false, name);
            d.attrs.putAll(attrs);
            return d;
        });
    }

    // ------------------------------------------------------------------------------------------- constructors

    /** {@code count} copies of {@code oldType} side by side (MPI_TYPE_CONTIGUOUS). */
    public static Datatype createContiguous(int count, Datatype oldType) throws MPIException {
        return run(() -> derived(oldType, io.jrma.Datatype.contiguous(count, jt(oldType))));
    }

    /**
     * {@code count} blocks of {@code blockLength} elements of {@code oldType}, block starts {@code stride}
     * extents of {@code oldType} apart (MPI_TYPE_VECTOR).
     */
    public static Datatype createVector(int count, int blockLength, int stride, Datatype oldType) throws MPIException {
        return run(() -> derived(oldType, io.jrma.Datatype.vector(count, blockLength, stride, jt(oldType))));
    }

    /** Like {@link #createVector} with the stride in bytes (MPI_TYPE_CREATE_HVECTOR). */
    public static Datatype createHVector(int count, int blockLength, int stride, Datatype oldType) throws MPIException {
        return run(() -> derived(oldType, io.jrma.Datatype.hvector(count, blockLength, stride, jt(oldType))));
    }

    /**
     * Blocks of {@code blockLengths[i]} elements of {@code oldType} at {@code displacements[i]} extents of
     * {@code oldType} (MPI_TYPE_INDEXED).
     */
    public static Datatype createIndexed(int[] blockLengths, int[] displacements,
            Datatype oldType) throws MPIException {
        return run(() -> derived(oldType,
                io.jrma.Datatype.indexed(longs(blockLengths), longs(displacements), jt(oldType))));
    }

    /** Like {@link #createIndexed} with the displacements in bytes (MPI_TYPE_CREATE_HINDEXED). */
    public static Datatype createHIndexed(int[] blockLengths, int[] displacements,
            Datatype oldType) throws MPIException {
        return run(() -> derived(oldType,
                io.jrma.Datatype.hindexed(longs(blockLengths), longs(displacements), jt(oldType))));
    }

    /**
     * jrma extension (MPI_TYPE_CREATE_INDEXED_BLOCK): blocks of {@code blockLength} elements at
     * {@code displacements[i]} extents of {@code oldType}.
     */
    public static Datatype createIndexedBlock(int blockLength, int[] displacements,
            Datatype oldType) throws MPIException {
        return run(() -> derived(oldType,
                io.jrma.Datatype.indexedBlock(blockLength, longs(displacements), jt(oldType))));
    }

    /** jrma extension (MPI_TYPE_CREATE_HINDEXED_BLOCK): like {@link #createIndexedBlock} with byte displacements. */
    public static Datatype createHIndexedBlock(int blockLength, int[] displacements,
            Datatype oldType) throws MPIException {
        return run(() -> derived(oldType,
                io.jrma.Datatype.hindexedBlock(blockLength, longs(displacements), jt(oldType))));
    }

    /**
     * jrma extension (MPI_TYPE_CREATE_SUBARRAY): the sub-array {@code [starts, starts + subSizes)} of an array
     * of {@code sizes} elements of {@code oldType}, in {@link MPI#ORDER_C} or {@link MPI#ORDER_FORTRAN}.
     */
    public static Datatype createSubarray(int[] sizes, int[] subSizes, int[] starts, int order, Datatype oldType)
            throws MPIException {
        return run(() -> {
            io.jrma.Datatype.Order o;
            if (order == MPI.ORDER_C) {
                o = io.jrma.Datatype.Order.C;
            } else if (order == MPI.ORDER_FORTRAN) {
                o = io.jrma.Datatype.Order.FORTRAN;
            } else {
                throw new RmaException(ErrorClass.ERR_ARG,
                        "subarray order must be ORDER_C or ORDER_FORTRAN, got " + order);
            }
            return derived(oldType, io.jrma.Datatype.subarray(longs(sizes), longs(subSizes),
                    longs(starts), o, jt(oldType)));
        });
    }

    /**
     * Blocks of {@code blockLengths[i]} elements of {@code types[i]} at byte {@code displacements[i]}
     * (MPI_TYPE_CREATE_STRUCT). Its base type is BYTE: sizes and extents are in bytes. No alignment padding is
     * added at the end: use {@link #createResized} for the extent of a padded C struct.
     */
    public static Datatype createStruct(int[] blockLengths, int[] displacements, Datatype[] types) throws MPIException {
        return run(() -> {
            if (types == null) {
                throw new RmaException(ErrorClass.ERR_ARG, "struct types array is null");
            }
            io.jrma.Datatype[] jts = new io.jrma.Datatype[types.length];
            for (int i = 0; i < types.length; i++) {
                jts[i] = jt(types[i]);
            }
            return new Datatype(io.jrma.Datatype.struct(longs(blockLengths), longs(displacements), jts),
                    BYTE, 1, false, "");
        });
    }

    /**
     * {@code oldType} with lower bound {@code lb} and extent {@code extent}, both in bytes
     * (MPI_TYPE_CREATE_RESIZED).
     */
    public static Datatype createResized(Datatype oldType, int lb, int extent) throws MPIException {
        return run(() -> derived(oldType, io.jrma.Datatype.resized(jt(oldType), lb, extent)));
    }

    private static long[] longs(int[] a) {
        if (a == null) {
            return null;
        }
        long[] l = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            l[i] = a[i];
        }
        return l;
    }

    // --------------------------------------------------------------------------------------------- naming

    /** Sets the name of this type (MPI_TYPE_SET_NAME). */
    public void setName(String name) throws MPIException {
        run(() -> {
            if (name == null || name.length() > MPI.MAX_OBJECT_NAME) {
                throw new RmaException(ErrorClass.ERR_ARG, "a datatype name must have at most " + MPI.MAX_OBJECT_NAME
                        + " characters");
            }
            this.name = name;
            return null;
        });
    }

    /**
     * The name of this type (MPI_TYPE_GET_NAME): for the predefined types the name of the C type Open MPI uses
     * ({@code "MPI_INT32_T"} for {@link MPI#INT}, {@code "MPI_DOUBLE"}, ...); empty for unnamed derived types.
     */
    public String getName() throws MPIException {
        return run(() -> name);
    }

    // ------------------------------------------------------------------------------------------- attributes

    /** A new attribute key for datatypes (MPI_TYPE_CREATE_KEYVAL). */
    public static int createKeyval() throws MPIException {
        MPI.check();
        return MPI.env.newKeyval(Env.KeyKind.TYPE);
    }

    /** Frees an attribute key (MPI_TYPE_FREE_KEYVAL). */
    public static void freeKeyval(int keyval) throws MPIException {
        MPI.check();
        try {
            MPI.env.freeKeyval(Env.KeyKind.TYPE, keyval);
        } catch (RuntimeException e) {
            throw Err.handle(MPI.COMM_WORLD.errh, MPI.COMM_WORLD.siteName(), e);
        }
    }

    /** Caches a (serializable) value on this type (MPI_TYPE_SET_ATTR); {@link #dup} copies it. */
    public void setAttr(int keyval, Object value) throws MPIException {
        MPI.check();
        try {
            MPI.env.checkKeyval(Env.KeyKind.TYPE, keyval, attrs);
        } catch (RuntimeException e) {
            throw Err.handle(MPI.COMM_WORLD.errh, MPI.COMM_WORLD.siteName(), e);
        }
        attrs.put(keyval, MPI.attrSet(value));
    }

    /** The value cached under {@code keyval} (a copy), or null (MPI_TYPE_GET_ATTR). */
    public Object getAttr(int keyval) throws MPIException {
        MPI.check();
        try {
            MPI.env.checkKeyval(Env.KeyKind.TYPE, keyval, attrs);
        } catch (RuntimeException e) {
            throw Err.handle(MPI.COMM_WORLD.errh, MPI.COMM_WORLD.siteName(), e);
        }
        return MPI.attrGet(attrs.get(keyval));
    }

    /** Removes the value cached under {@code keyval} (MPI_TYPE_DELETE_ATTR). */
    public void deleteAttr(int keyval) throws MPIException {
        MPI.check();
        try {
            MPI.env.checkKeyval(Env.KeyKind.TYPE, keyval, attrs);
        } catch (RuntimeException e) {
            throw Err.handle(MPI.COMM_WORLD.errh, MPI.COMM_WORLD.siteName(), e);
        }
        attrs.remove(keyval);
    }

    // ------------------------------------------------------------------------------------------- internals

    /**
     * Basic elements in {@code bytes} bytes of data of this type, or UNDEFINED if they end inside an element
     * (MPI_GET_ELEMENTS). A value-index pair counts as two elements, as in MPI.
     */
    long elements(long bytes) {
        TypeLayout l = t.layout();
        long size = t.size();
        if (size == 0) {
            return 0;
        }
        long whole = bytes / size;
        long left = bytes % size;
        long n = 0;
        for (int i = 0; i < l.runCount(); i++) {
            BasicType e = l.runType(i);
            int per = e.kind() == BasicType.Kind.PAIR ? 2 : 1;
            n += l.runElements(i) * per * whole;
        }
        for (int i = 0; i < l.runCount() && left > 0; i++) {
            BasicType e = l.runType(i);
            int per = e.kind() == BasicType.Kind.PAIR ? 2 : 1;
            long runBytes = l.runElements(i) * e.size();
            long take = Math.min(runBytes, left);
            if (take % e.size() != 0) {
                return MPI.UNDEFINED;
            }
            n += take / e.size() * per;
            left -= take;
        }
        return n;
    }

    @Override
    public String toString() {
        return name.isEmpty() ? String.valueOf(t) : name;
    }
}

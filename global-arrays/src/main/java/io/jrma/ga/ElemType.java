package io.jrma.ga;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Element type of a {@link GlobalArray}: the Java primitive, its MPI datatype and its size. Immutable. */
public enum ElemType {
    INT(Datatype.INT, 4, int[].class, false),
    LONG(Datatype.LONG, 8, long[].class, false),
    FLOAT(Datatype.FLOAT, 4, float[].class, true),
    DOUBLE(Datatype.DOUBLE, 8, double[].class, true);

    private final Datatype datatype;
    private final int size;
    private final Class<?> arrayClass;
    private final boolean floating;

    ElemType(Datatype datatype, int size, Class<?> arrayClass, boolean floating) {
        this.datatype = datatype;
        this.size = size;
        this.arrayClass = arrayClass;
        this.floating = floating;
    }

    /** The predefined MPI datatype of one element. */
    public Datatype datatype() {
        return datatype;
    }

    /** Bytes per element. */
    public int size() {
        return size;
    }

    /** True for FLOAT and DOUBLE. */
    public boolean isFloating() {
        return floating;
    }

    /** The Java array class holding elements of this type ({@code int[].class}, ...). */
    public Class<?> arrayClass() {
        return arrayClass;
    }

    /** A new Java array of {@code n} elements. */
    public Object newArray(int n) {
        switch (this) {
            case INT: return new int[n];
            case LONG: return new long[n];
            case FLOAT: return new float[n];
            default: return new double[n];
        }
    }

    /**
     * Capacity of {@code buf} in elements of this type; throws ERR_BUFFER for null or unsupported objects and
     * ERR_TYPE for a Java array of another element type. ByteBuffers are raw bytes (little-endian, like
     * window memory) and are accepted for every element type.
     */
    long capacity(Object buf, String role) {
        if (buf == null) {
            throw new RmaException(ErrorClass.ERR_BUFFER, role + " buffer is null");
        }
        if (buf instanceof ByteBuffer) {
            ByteBuffer bb = (ByteBuffer) buf;
            if (!bb.isDirect() && bb.isReadOnly()) {
                throw new RmaException(ErrorClass.ERR_BUFFER, role + " buffer: read-only heap ByteBuffer");
            }
            return bb.capacity() / size;
        }
        if (buf.getClass() == arrayClass) {
            return Array.getLength(buf);
        }
        if (buf.getClass().isArray() && buf.getClass().getComponentType().isPrimitive()) {
            throw new RmaException(ErrorClass.ERR_TYPE, role + " buffer is a " + buf.getClass().getSimpleName()
                    + " but the global array holds " + name() + " elements (needs " + arrayClass.getSimpleName()
                    + " or a ByteBuffer)");
        }
        throw new RmaException(ErrorClass.ERR_BUFFER, role + " buffer must be " + arrayClass.getSimpleName()
                + " or a ByteBuffer, got " + buf.getClass().getName());
    }

    private static ByteBuffer le(ByteBuffer bb) {
        return bb.order() == ByteOrder.LITTLE_ENDIAN ? bb : bb.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    // ------------------------------------------------------------ element access (arrays and LE ByteBuffers)

    double getD(Object buf, long i) {
        if (buf instanceof ByteBuffer) {
            ByteBuffer bb = (ByteBuffer) buf;
            int off = Math.toIntExact(i * size);
            switch (this) {
                case INT: return le(bb).getInt(off);
                case LONG: return le(bb).getLong(off);
                case FLOAT: return le(bb).getFloat(off);
                default: return le(bb).getDouble(off);
            }
        }
        int k = (int) i;
        switch (this) {
            case INT: return ((int[]) buf)[k];
            case LONG: return ((long[]) buf)[k];
            case FLOAT: return ((float[]) buf)[k];
            default: return ((double[]) buf)[k];
        }
    }

    long getL(Object buf, long i) {
        if (floating) {
            return (long) getD(buf, i);
        }
        if (buf instanceof ByteBuffer) {
            ByteBuffer bb = le((ByteBuffer) buf);
            int off = Math.toIntExact(i * size);
            return this == INT ? bb.getInt(off) : bb.getLong(off);
        }
        return this == INT ? ((int[]) buf)[(int) i] : ((long[]) buf)[(int) i];
    }

    void putD(Object buf, long i, double v) {
        if (!floating) {
            putL(buf, i, (long) v);
            return;
        }
        if (buf instanceof ByteBuffer) {
            ByteBuffer bb = le((ByteBuffer) buf);
            int off = Math.toIntExact(i * size);
            if (this == FLOAT) {
                bb.putFloat(off, (float) v);
            } else {
                bb.putDouble(off, v);
            }
            return;
        }
        if (this == FLOAT) {
            ((float[]) buf)[(int) i] = (float) v;
        } else {
            ((double[]) buf)[(int) i] = v;
        }
    }

    void putL(Object buf, long i, long v) {
        if (floating) {
            putD(buf, i, v);
            return;
        }
        if (buf instanceof ByteBuffer) {
            ByteBuffer bb = le((ByteBuffer) buf);
            int off = Math.toIntExact(i * size);
            if (this == INT) {
                bb.putInt(off, (int) v);
            } else {
                bb.putLong(off, v);
            }
            return;
        }
        if (this == INT) {
            ((int[]) buf)[(int) i] = (int) v;
        } else {
            ((long[]) buf)[(int) i] = v;
        }
    }

    /** Copies element {@code si} of {@code src} to element {@code di} of {@code dst} without conversion loss. */
    void copy(Object src, long si, Object dst, long di) {
        if (floating) {
            putD(dst, di, getD(src, si));
        } else {
            putL(dst, di, getL(src, si));
        }
    }
}

package io.jrma.core.dt;

/**
 * The predefined element types of jrma: what a type signature is made of and what accumulate operations
 * work on. Values in memory are little-endian (native order on every platform jrma runs on).
 *
 * <p>Pair types (for MINLOC/MAXLOC) hold a value followed by an {@code int} index, laid out as the C
 * structs of MPI: {@code size} counts the bytes holding data, {@code extent} includes trailing padding.
 * Complex types are two floats or two doubles (real, imaginary).
 *
 * <p>The {@link #id()} is part of the wire format: never renumber.
 */
public enum BasicType {
    BYTE(1, 1, 1, Kind.BYTE),
    BOOLEAN(2, 1, 1, Kind.LOGICAL),
    CHAR(3, 2, 2, Kind.UNSIGNED),
    SHORT(4, 2, 2, Kind.SIGNED),
    INT(5, 4, 4, Kind.SIGNED),
    LONG(6, 8, 8, Kind.SIGNED),
    FLOAT(7, 4, 4, Kind.FLOAT),
    DOUBLE(8, 8, 8, Kind.FLOAT),
    INT8(9, 1, 1, Kind.SIGNED),
    UINT8(10, 1, 1, Kind.UNSIGNED),
    UINT16(11, 2, 2, Kind.UNSIGNED),
    UINT32(12, 4, 4, Kind.UNSIGNED),
    UINT64(13, 8, 8, Kind.UNSIGNED),
    FLOAT_COMPLEX(14, 8, 8, Kind.COMPLEX),
    DOUBLE_COMPLEX(15, 16, 16, Kind.COMPLEX),
    /** {@code struct { short v; int i; }}: value at 0, index at 4. */
    SHORT_INT(16, 8, 8, Kind.PAIR),
    /** {@code struct { int v; int i; }} (MPI_2INT): value at 0, index at 4. */
    INT_INT(17, 8, 8, Kind.PAIR),
    /** {@code struct { long v; int i; }}: value at 0, index at 8, size 12, extent 16. */
    LONG_INT(18, 12, 16, Kind.PAIR),
    /** {@code struct { float v; int i; }}: value at 0, index at 4. */
    FLOAT_INT(19, 8, 8, Kind.PAIR),
    /** {@code struct { double v; int i; }}: value at 0, index at 8, size 12, extent 16. */
    DOUBLE_INT(20, 12, 16, Kind.PAIR);

    /** Families of element types, which decide the ops that apply to them. */
    public enum Kind { BYTE, LOGICAL, SIGNED, UNSIGNED, FLOAT, COMPLEX, PAIR }

    private static final BasicType[] BY_ID = new BasicType[32];

    static {
        for (BasicType t : values()) {
            BY_ID[t.id] = t;
        }
    }

    private final int id;
    private final int size;
    private final int extent;
    private final Kind kind;

    BasicType(int id, int size, int extent, Kind kind) {
        this.id = id;
        this.size = size;
        this.extent = extent;
        this.kind = kind;
    }

    /** Stable wire id (1..31). */
    public int id() {
        return id;
    }

    /** Bytes of data in one element. */
    public int size() {
        return size;
    }

    /** Distance between consecutive elements of an array of this type (size plus trailing padding). */
    public int extent() {
        return extent;
    }

    public Kind kind() {
        return kind;
    }

    /** For pair types, the byte offset of the int index; otherwise -1. */
    public int pairIndexOffset() {
        switch (this) {
            case SHORT_INT: case INT_INT: case FLOAT_INT: return 4;
            case LONG_INT: case DOUBLE_INT: return 8;
            default: return -1;
        }
    }

    /** The type with this wire id, or {@code null} if there is none. */
    public static BasicType ofId(int id) {
        return id > 0 && id < BY_ID.length ? BY_ID[id] : null;
    }
}

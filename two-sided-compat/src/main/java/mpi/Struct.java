package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A helper for struct datatypes over byte buffers: a subclass adds its fields in its constructor
 * ({@link #addInt()}, {@link #addDouble(int)}, ... each returning the field's byte offset), and its {@link Data}
 * class reads and writes them in a buffer of structs. {@link #getType()} is the committed MPI datatype
 * (MPI_TYPE_CREATE_STRUCT of the fields) and {@link #getExtent()} its extent in bytes: the sum of the fields,
 * or the offset set last by {@link #setOffset} if that is larger.
 *
 * <p>Programs extend this class and its {@link Data}, so both have exactly the members of Open MPI's class and
 * nothing more: any other accessible member could clash with a method a program declares in its subclass.
 */
public abstract class Struct {
    int extent;
    private final List<Object[]> fields = new ArrayList<>();
    private Datatype datatype;

    private void commit() throws MPIException {
        if (datatype == null) {
            int n = fields.size();
            int[] lengths = new int[n];
            int[] offsets = new int[n];
            Datatype[] types = new Datatype[n];
            for (int i = 0; i < n; i++) {
                Object[] f = fields.get(i);
                types[i] = f[0] instanceof Struct ? ((Struct) f[0]).datatype : (Datatype) f[0];
                offsets[i] = (Integer) f[1];
                lengths[i] = (Integer) f[2];
            }
            Datatype s = Datatype.createStruct(lengths, offsets, types);
            if (s.getExtent() < extent) {
                s = Datatype.createResized(s, 0, extent);
            }
            s.commit();
            datatype = s;
            extent = datatype.getExtent();
        }
    }

    /** The extent of the struct in bytes. */
    public final int getExtent() throws MPIException {
        commit();
        return extent;
    }

    /** The committed datatype of the struct. */
    public final Datatype getType() throws MPIException {
        commit();
        return datatype;
    }

    /** A new, unattached Data object of the subclass. */
    protected abstract Data newData();

    @SuppressWarnings("unchecked")
    <T extends Data> T newData(ByteBuffer buffer, int offset) {
        Data d = newData();
        d.buffer = buffer;
        d.offset = offset;
        return (T) d;
    }

    /** A Data object for the struct at the start of {@code buffer}. */
    public final <T extends Data> T getData(ByteBuffer buffer) throws MPIException {
        commit();
        return newData(buffer, 0);
    }

    /** A Data object for struct number {@code index} of an array of structs in {@code buffer}. */
    public final <T extends Data> T getData(ByteBuffer buffer, int index) throws MPIException {
        commit();
        return newData(buffer, index * extent);
    }

    /** A Data object for the struct at the start of a byte array (native order). */
    public final <T extends Data> T getData(byte[] array) throws MPIException {
        return getData(ByteBuffer.wrap(array).order(ByteOrder.nativeOrder()));
    }

    /** A Data object for struct number {@code index} of a byte array. */
    public final <T extends Data> T getData(byte[] array, int index) throws MPIException {
        return getData(ByteBuffer.wrap(array).order(ByteOrder.nativeOrder()), index);
    }

    private int addField(Object type, int typeExtent, int length) {
        if (datatype != null) {
            throw new AssertionError("The struct data type was committed.");
        }
        int offset = extent;
        extent += typeExtent * length;
        fields.add(new Object[] {type, offset, length});
        return offset;
    }

    /** Places the next field at byte {@code offset} (at least the extent so far; to align fields). */
    public final Struct setOffset(int offset) {
        if (datatype != null) {
            throw new AssertionError("The struct data type was committed.");
        }
        if (offset < extent) {
            throw new IllegalArgumentException("The offset must be greater or equal to the accumulated extent.");
        }
        extent = offset;
        return this;
    }

    public final int addByte() {
        return addByte(1);
    }

    public final int addByte(int length) {
        return addField(MPI.BYTE, 1, length);
    }

    public final int addChar() {
        return addChar(1);
    }

    public final int addChar(int length) {
        return addField(MPI.CHAR, 2, length);
    }

    public final int addShort() {
        return addShort(1);
    }

    public final int addShort(int length) {
        return addField(MPI.SHORT, 2, length);
    }

    public final int addInt() {
        return addInt(1);
    }

    public final int addInt(int length) {
        return addField(MPI.INT, 4, length);
    }

    public final int addLong() {
        return addLong(1);
    }

    public final int addLong(int length) {
        return addField(MPI.LONG, 8, length);
    }

    public final int addFloat() {
        return addFloat(1);
    }

    public final int addFloat(int length) {
        return addField(MPI.FLOAT, 4, length);
    }

    public final int addDouble() {
        return addDouble(1);
    }

    public final int addDouble(int length) {
        return addField(MPI.DOUBLE, 8, length);
    }

    /** Adds a field that is itself a struct. */
    public final int addStruct(Struct struct) throws MPIException {
        return addStruct(struct, 1);
    }

    /** Adds an array of structs. */
    public final int addStruct(Struct struct, int length) throws MPIException {
        struct.commit();
        return addField(struct, struct.extent, length);
    }

    /** Adds a field of any datatype. */
    public final int addData(Datatype type) throws MPIException {
        return addData(type, 1);
    }

    /** Adds an array of a datatype. */
    public final int addData(Datatype type, int length) throws MPIException {
        return addField(type, type.getExtent() * type.baseSize, length);
    }

    /** Reads and writes one struct in a byte buffer; subclasses add typed accessors on top of these. */
    public abstract class Data {
        private ByteBuffer buffer;
        private int offset;

        /** The buffer holding this struct, starting at it (to send or receive it). */
        public final ByteBuffer getBuffer() {
            return offset == 0 ? buffer : MPI.slice(buffer, offset);
        }

        protected final byte getByte(int field) {
            return buffer.get(offset + field);
        }

        protected final byte getByte(int field, int index) {
            return buffer.get(offset + field + index);
        }

        protected final void putByte(int field, byte v) {
            buffer.put(offset + field, v);
        }

        protected final void putByte(int field, int index, byte v) {
            buffer.put(offset + field + index, v);
        }

        protected final char getChar(int field) {
            return buffer.getChar(offset + field);
        }

        protected final char getChar(int field, int index) {
            return buffer.getChar(offset + field + index * 2);
        }

        protected final void putChar(int field, char v) {
            buffer.putChar(offset + field, v);
        }

        protected final void putChar(int field, int index, char v) {
            buffer.putChar(offset + field + index * 2, v);
        }

        protected final short getShort(int field) {
            return buffer.getShort(offset + field);
        }

        protected final short getShort(int field, int index) {
            return buffer.getShort(offset + field + index * 2);
        }

        protected final void putShort(int field, short v) {
            buffer.putShort(offset + field, v);
        }

        protected final void putShort(int field, int index, short v) {
            buffer.putShort(offset + field + index * 2, v);
        }

        protected final int getInt(int field) {
            return buffer.getInt(offset + field);
        }

        protected final int getInt(int field, int index) {
            return buffer.getInt(offset + field + index * 4);
        }

        protected final void putInt(int field, int v) {
            buffer.putInt(offset + field, v);
        }

        protected final void putInt(int field, int index, int v) {
            buffer.putInt(offset + field + index * 4, v);
        }

        protected final long getLong(int field) {
            return buffer.getLong(offset + field);
        }

        protected final long getLong(int field, int index) {
            return buffer.getLong(offset + field + index * 8);
        }

        protected final void putLong(int field, long v) {
            buffer.putLong(offset + field, v);
        }

        protected final void putLong(int field, int index, long v) {
            buffer.putLong(offset + field + index * 8, v);
        }

        protected final float getFloat(int field) {
            return buffer.getFloat(offset + field);
        }

        protected final float getFloat(int field, int index) {
            return buffer.getFloat(offset + field + index * 4);
        }

        protected final void putFloat(int field, float v) {
            buffer.putFloat(offset + field, v);
        }

        protected final void putFloat(int field, int index, float v) {
            buffer.putFloat(offset + field + index * 4, v);
        }

        protected final double getDouble(int field) {
            return buffer.getDouble(offset + field);
        }

        protected final double getDouble(int field, int index) {
            return buffer.getDouble(offset + field + index * 8);
        }

        protected final void putDouble(int field, double v) {
            buffer.putDouble(offset + field, v);
        }

        protected final void putDouble(int field, int index, double v) {
            buffer.putDouble(offset + field + index * 8, v);
        }

        /** The Data of a struct field. */
        protected final <S extends Struct, D extends Struct.Data> D getData(S struct, int field) {
            return struct.newData(buffer, offset + field);
        }

        /** The Data of element {@code index} of an array-of-structs field. */
        protected final <S extends Struct, D extends Struct.Data> D getData(S struct, int field, int index) {
            return struct.newData(buffer, offset + field + index * struct.extent);
        }

        /** A buffer starting at a field (to send or receive it). */
        protected final ByteBuffer getBuffer(Datatype type, int field) {
            int position = offset + field;
            return position == 0 ? buffer : MPI.slice(buffer, position);
        }

        /** A buffer starting at element {@code index} of an array field. */
        protected final ByteBuffer getBuffer(Datatype type, int field, int index) throws MPIException {
            int position = offset + field + index * type.getExtent() * type.baseSize;
            return position == 0 ? buffer : MPI.slice(buffer, position);
        }
    }
}

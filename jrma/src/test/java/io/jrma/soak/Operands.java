package io.jrma.soak;

import io.jrma.Datatype;
import io.jrma.Flavor;
import io.jrma.soak.Plan.Kind;
import io.jrma.soak.Plan.RmaOp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The buffers and datatypes of a soak operation: where its cells lie at the target, the target-side count and type,
 * the origin-side buffer (array or direct buffer, strided by a vector type) and reading an element back. Stateless:
 * any thread of a rank.
 */
final class Operands {
    private Operands() {
    }

    /** Where a cell lies at a target: displacement in the target's units (dynamic: absolute address). */
    record Target(int dispUnit, long[] bases, Flavor flavor) {
        long disp(int t, int cell) {
            if (t < 0) {
                return 0; // PROC_NULL
            }
            long byteOff = 8L * cell;
            return flavor == Flavor.DYNAMIC ? bases[t] + byteOff : byteOff / dispUnit;
        }
    }

    static Datatype basic(Kind k) {
        switch (k) {
            case INT: return Datatype.INT;
            case DOUBLE: return Datatype.DOUBLE;
            default: return Datatype.LONG;
        }
    }

    /** The target side of an op: count and type covering its cells. */
    static Object[] targetType(RmaOp op) {
        Datatype b = basic(op.kind);
        int elemStride = op.tStride * (8 / op.kind.bytes);
        if (op.count == 1) {
            return new Object[] {1L, b};
        }
        if (elemStride == 1) {
            return new Object[] {(long) op.count, b};
        }
        return new Object[] {1L, Datatype.vector(op.count, 1, elemStride, b).commit()};
    }

    /** The origin side: a buffer holding {@code values} (or room for results) every oStride elements. */
    static Object[] originSide(RmaOp op, long[] values) {
        Datatype b = basic(op.kind);
        int len = (op.count - 1) * op.oStride + 1;
        Object buf;
        if (op.byteBuffer) {
            ByteBuffer bb = ByteBuffer.allocateDirect(len * op.kind.bytes).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; values != null && i < op.count; i++) {
                int at = i * op.oStride * op.kind.bytes;
                if (op.kind == Kind.INT) {
                    bb.putInt(at, (int) values[i]);
                } else {
                    bb.putLong(at, values[i]);
                }
            }
            buf = bb;
        } else {
            switch (op.kind) {
                case INT: {
                    int[] a = new int[len];
                    for (int i = 0; values != null && i < op.count; i++) {
                        a[i * op.oStride] = (int) values[i];
                    }
                    buf = a;
                    break;
                }
                case DOUBLE: {
                    double[] a = new double[len];
                    for (int i = 0; values != null && i < op.count; i++) {
                        a[i * op.oStride] = Double.longBitsToDouble(values[i]);
                    }
                    buf = a;
                    break;
                }
                default: {
                    long[] a = new long[len];
                    for (int i = 0; values != null && i < op.count; i++) {
                        a[i * op.oStride] = values[i];
                    }
                    buf = a;
                    break;
                }
            }
        }
        if (op.oStride == 1) {
            return new Object[] {buf, (long) op.count, b};
        }
        return new Object[] {buf, 1L, Datatype.vector(op.count, 1, op.oStride, b).commit()};
    }

    /** Element i of an origin-side buffer, as raw bits. */
    static long read(RmaOp op, Object buf, int i) {
        int at = i * op.oStride;
        if (buf instanceof ByteBuffer bb) {
            return op.kind == Kind.INT ? bb.getInt(at * 4) : bb.getLong(at * 8);
        }
        if (buf instanceof int[] a) {
            return a[at];
        }
        if (buf instanceof double[] a) {
            return Double.doubleToRawLongBits(a[at]);
        }
        return ((long[]) buf)[at];
    }
}

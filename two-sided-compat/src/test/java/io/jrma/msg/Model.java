package io.jrma.msg;

import io.jrma.Datatype;
import io.jrma.Op;

/**
 * The sequential model the collective tests compare against: element values as {@code long}s, stored into
 * and read from Java arrays of each kind, and every reduction op computed the way MPI defines it for that
 * kind (integers wrap to their width, unsigned kinds compare unsigned, logical ops give 1 or 0).
 */
final class Model {
    private Model() {
    }

    /** An element kind: its datatype, Java array, and width. */
    enum Kind {
        LONG(Datatype.LONG, 64, false, false),
        INT(Datatype.INT, 32, false, false),
        UINT32(Datatype.UINT32, 32, true, false),
        SHORT(Datatype.SHORT, 16, false, false),
        BYTE(Datatype.BYTE, 8, false, false),
        DOUBLE(Datatype.DOUBLE, 64, false, true),
        FLOAT(Datatype.FLOAT, 32, false, true),
        BOOLEAN(Datatype.BOOLEAN, 1, false, false);

        final Datatype type;
        final int bits;
        final boolean unsigned;
        final boolean floating;

        Kind(Datatype type, int bits, boolean unsigned, boolean floating) {
            this.type = type;
            this.bits = bits;
            this.unsigned = unsigned;
            this.floating = floating;
        }

        Object newArray(int n) {
            switch (this) {
                case LONG: return new long[n];
                case INT: case UINT32: return new int[n];
                case SHORT: return new short[n];
                case BYTE: return new byte[n];
                case DOUBLE: return new double[n];
                case FLOAT: return new float[n];
                default: return new boolean[n];
            }
        }

        void set(Object a, int i, long v) {
            switch (this) {
                case LONG: ((long[]) a)[i] = v; break;
                case INT: case UINT32: ((int[]) a)[i] = (int) v; break;
                case SHORT: ((short[]) a)[i] = (short) v; break;
                case BYTE: ((byte[]) a)[i] = (byte) v; break;
                case DOUBLE: ((double[]) a)[i] = v; break;
                case FLOAT: ((float[]) a)[i] = v; break;
                default: ((boolean[]) a)[i] = v != 0; break;
            }
        }

        long get(Object a, int i) {
            switch (this) {
                case LONG: return ((long[]) a)[i];
                case INT: return ((int[]) a)[i];
                case UINT32: return ((int[]) a)[i] & 0xFFFF_FFFFL;
                case SHORT: return ((short[]) a)[i];
                case BYTE: return ((byte[]) a)[i];
                case DOUBLE: return (long) ((double[]) a)[i];
                case FLOAT: return (long) ((float[]) a)[i];
                default: return ((boolean[]) a)[i] ? 1 : 0;
            }
        }

        /** A value as stored: wrapped to the kind's width (floats hold small integers exactly). */
        long narrow(long v) {
            switch (this) {
                case INT: return (int) v;
                case UINT32: return v & 0xFFFF_FFFFL;
                case SHORT: return (short) v;
                case BYTE: return (byte) v;
                case BOOLEAN: return v != 0 ? 1 : 0;
                default: return v;
            }
        }

        /** A deterministic input value for {@code op}, small enough that float arithmetic stays exact. */
        long input(Op op, int rank, int i, int salt) {
            long h = mix(rank * 0x9E37_79B9L + i * 0x85EB_CA6BL + salt);
            if (op == Op.LAND || op == Op.LOR || op == Op.LXOR) {
                return (h & 3) == 0 ? 0 : this == BOOLEAN ? 1 : (h & 7) + 1;
            }
            if (floating) {
                return op == Op.PROD ? 1 + Math.floorMod(h, 3) : Math.floorMod(h, 2001) - 1000;
            }
            return narrow(h);
        }
    }

    static long mix(long x) {
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        x *= 0xc4ceb9fe1a85ec53L;
        return x ^ (x >>> 33);
    }

    /** {@code a op b} for the kind, as MPI defines it. */
    static long combine(Op op, Kind k, long a, long b) {
        if (op == Op.SUM) {
            return k.narrow(a + b);
        }
        if (op == Op.PROD) {
            return k.narrow(a * b);
        }
        if (op == Op.MIN || op == Op.MAX) {
            boolean less = k.unsigned ? Long.compareUnsigned(a, b) < 0 : a < b;
            return (op == Op.MIN) == less ? a : b;
        }
        if (op == Op.LAND) {
            return a != 0 && b != 0 ? 1 : 0;
        }
        if (op == Op.LOR) {
            return a != 0 || b != 0 ? 1 : 0;
        }
        if (op == Op.LXOR) {
            return (a != 0) != (b != 0) ? 1 : 0;
        }
        if (op == Op.BAND) {
            return k.narrow(a & b);
        }
        if (op == Op.BOR) {
            return k.narrow(a | b);
        }
        if (op == Op.BXOR) {
            return k.narrow(a ^ b);
        }
        throw new IllegalArgumentException("no model for " + op);
    }

    /** The reduction of ranks {@code from..to-1}'s inputs for element {@code i}. */
    static long reduce(Op op, Kind k, int from, int to, int i, int salt) {
        long acc = k.input(op, from, i, salt);
        for (int r = from + 1; r < to; r++) {
            acc = combine(op, k, acc, k.input(op, r, i, salt));
        }
        return acc;
    }
}

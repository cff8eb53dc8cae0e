package io.jrma.soak;

import io.jrma.Op;
import io.jrma.soak.Plan.Kind;

/**
 * The sequential model of one window: the raw 8-byte content of every cell of every rank, updated round by round
 * with what the round's operations must have done (every rank keeps the whole model).
 */
final class Model {
    final int n;
    final int cells;
    final long[][] mem;

    Model(int n, long windowSeed) {
        this.n = n;
        this.cells = Plan.cells(n);
        mem = new long[n][cells];
        for (int t = 0; t < n; t++) {
            for (int c = 0; c < cells; c++) {
                mem[t][c] = initial(windowSeed, t, c);
            }
        }
    }

    /** A window's initial content: cell values small enough that no fold overflows, tickets and CAS cells 0. */
    long initial(long windowSeed, int t, int c) {
        long h = mix(windowSeed ^ (t * 1_000_003L + c));
        if (c >= Plan.bulkBase(n)) {
            return h;
        }
        if (c >= Plan.ticketBase(n)) {
            return 0;
        }
        if (c >= Plan.accBase(n, Kind.DOUBLE) && c < Plan.accBase(n, Kind.DOUBLE) + Plan.A) {
            return Double.doubleToRawLongBits((h & 0xFFFF) - 0x8000);
        }
        if (c >= Plan.accBase(n, Kind.LONG)) {
            return (h & 0xFFFF_FFFF_0000_0000L) | ((h >> 8) & 0xFFFF); // INT cells: small low half
        }
        return h;
    }

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The element of kind k in cell c of rank t, as raw bits (INT sign-extended). */
    long elem(int t, int c, Kind k) {
        return k == Kind.INT ? (int) mem[t][c] : mem[t][c];
    }

    void setElem(int t, int c, Kind k, long v) {
        if (k == Kind.INT) {
            mem[t][c] = (mem[t][c] & 0xFFFF_FFFF_0000_0000L) | (v & 0xFFFF_FFFFL);
        } else {
            mem[t][c] = v;
        }
    }

    /** {@code a op b} on raw element bits of kind k (MPI's definitions; integers wrap to their width). */
    static long apply(Op op, Kind k, long a, long b) {
        if (k == Kind.DOUBLE) {
            double x = Double.longBitsToDouble(a);
            double y = Double.longBitsToDouble(b);
            double z;
            switch (op.code()) {
                case SUM: z = x + y; break;
                case MAX: z = Math.max(x, y); break;
                case MIN: z = Math.min(x, y); break;
                case PROD: z = x * y; break;
                case REPLACE: return b;
                case NO_OP: return a;
                default: throw new IllegalArgumentException(op + " on double");
            }
            return Double.doubleToRawLongBits(z);
        }
        long z;
        switch (op.code()) {
            case SUM: z = a + b; break;
            case PROD: z = a * b; break;
            case MAX: z = Math.max(a, b); break;
            case MIN: z = Math.min(a, b); break;
            case BAND: z = a & b; break;
            case BOR: z = a | b; break;
            case BXOR: z = a ^ b; break;
            case REPLACE: return b;
            case NO_OP: return a;
            default: throw new IllegalArgumentException(op.toString());
        }
        return k == Kind.INT ? (int) z : z;
    }

    static String show(Kind k, long v) {
        return k == Kind.DOUBLE ? Double.toString(Double.longBitsToDouble(v)) : Long.toString(v);
    }
}

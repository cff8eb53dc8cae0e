package io.jrma.core.op;


import io.jrma.core.dt.BasicType;
import io.jrma.core.mem.Memory;

/**
 * Non-atomic element-wise reduction {@code dst[i] = dst[i] op src[i]} over a run of contiguous elements,
 * with specialised loops for the common primitive types and a generic loop for the rest.
 *
 * <p>For local buffers only (heap destinations, collective scratch buffers): nothing here is atomic.
 * Stateless; any thread.
 */
final class LocalReduce {
    private LocalReduce() {
    }

    /** Applies a validated {@code op} to {@code count >= 0} elements of {@code t} at stride {@code t.size()}. */
    static void reduce(OpCode op, BasicType t, Object sb, long so, Object db, long doff, long count) {
        if (op == OpCode.NO_OP || count == 0) {
            return;
        }
        if (op == OpCode.REPLACE) {
            Memory.copy(sb, so, db, doff, count * t.size());
            return;
        }
        boolean done;
        switch (t) {
            case LONG: case UINT64: done = longs(op, t == BasicType.LONG, sb, so, db, doff, count); break;
            case INT: case UINT32: done = ints(op, t == BasicType.INT, sb, so, db, doff, count); break;
            case DOUBLE: done = doubles(op, sb, so, db, doff, count); break;
            case FLOAT: done = floats(op, sb, so, db, doff, count); break;
            default: done = false; break;
        }
        if (!done) {
            generic(op, t, sb, so, db, doff, count);
        }
    }

    /** One element at a time through {@link ElementMath}; handles every valid pair. */
    static void generic(OpCode op, BasicType t, Object sb, long so, Object db, long doff, long count) {
        int size = t.size();
        if (size > 8) {
            for (long i = 0; i < count; i++, so += size, doff += size) {
                ElementMath.applyWide(op, t, sb, so, db, doff, false, null, 0);
            }
            return;
        }
        for (long i = 0; i < count; i++, so += size, doff += size) {
            long s = ElementMath.read(sb, so, size);
            long d = ElementMath.read(db, doff, size);
            ElementMath.write(db, doff, size, ElementMath.combine(op, t, d, s));
        }
    }

    private static boolean longs(OpCode op, boolean signed, Object sb, long so, Object db, long d, long n) {
        long end = d + (n << 3);
        switch (op) {
            case SUM:
                for (; d < end; d += 8, so += 8) {
                    Memory.putLongPlain(db, d, Memory.getLongPlain(db, d) + Memory.getLongPlain(sb, so));
                }
                return true;
            case PROD:
                for (; d < end; d += 8, so += 8) {
                    Memory.putLongPlain(db, d, Memory.getLongPlain(db, d) * Memory.getLongPlain(sb, so));
                }
                return true;
            case MIN:
            case MAX: {
                long flip = signed ? 0 : Long.MIN_VALUE; // unsigned compare as signed after flipping the sign bit
                boolean min = op == OpCode.MIN;
                for (; d < end; d += 8, so += 8) {
                    long a = Memory.getLongPlain(db, d);
                    long b = Memory.getLongPlain(sb, so);
                    if (min ? (b ^ flip) < (a ^ flip) : (b ^ flip) > (a ^ flip)) {
                        Memory.putLongPlain(db, d, b);
                    }
                }
                return true;
            }
            case BAND:
                for (; d < end; d += 8, so += 8) {
                    Memory.putLongPlain(db, d, Memory.getLongPlain(db, d) & Memory.getLongPlain(sb, so));
                }
                return true;
            case BOR:
                for (; d < end; d += 8, so += 8) {
                    Memory.putLongPlain(db, d, Memory.getLongPlain(db, d) | Memory.getLongPlain(sb, so));
                }
                return true;
            case BXOR:
                for (; d < end; d += 8, so += 8) {
                    Memory.putLongPlain(db, d, Memory.getLongPlain(db, d) ^ Memory.getLongPlain(sb, so));
                }
                return true;
            default:
                return false;
        }
    }

    private static boolean ints(OpCode op, boolean signed, Object sb, long so, Object db, long d, long n) {
        long end = d + (n << 2);
        switch (op) {
            case SUM:
                for (; d < end; d += 4, so += 4) {
                    Memory.putIntPlain(db, d, Memory.getIntPlain(db, d) + Memory.getIntPlain(sb, so));
                }
                return true;
            case PROD:
                for (; d < end; d += 4, so += 4) {
                    Memory.putIntPlain(db, d, Memory.getIntPlain(db, d) * Memory.getIntPlain(sb, so));
                }
                return true;
            case MIN:
            case MAX: {
                int flip = signed ? 0 : Integer.MIN_VALUE;
                boolean min = op == OpCode.MIN;
                for (; d < end; d += 4, so += 4) {
                    int a = Memory.getIntPlain(db, d);
                    int b = Memory.getIntPlain(sb, so);
                    if (min ? (b ^ flip) < (a ^ flip) : (b ^ flip) > (a ^ flip)) {
                        Memory.putIntPlain(db, d, b);
                    }
                }
                return true;
            }
            default:
                return false;
        }
    }

    private static boolean doubles(OpCode op, Object sb, long so, Object db, long d, long n) {
        long end = d + (n << 3);
        switch (op) {
            case SUM:
                for (; d < end; d += 8, so += 8) {
                    Memory.putDoublePlain(db, d, Memory.getDoublePlain(db, d) + Memory.getDoublePlain(sb, so));
                }
                return true;
            case PROD:
                for (; d < end; d += 8, so += 8) {
                    Memory.putDoublePlain(db, d, Memory.getDoublePlain(db, d) * Memory.getDoublePlain(sb, so));
                }
                return true;
            case MIN:
                for (; d < end; d += 8, so += 8) {
                    Memory.putDoublePlain(db, d, Math.min(Memory.getDoublePlain(db, d), Memory.getDoublePlain(sb, so)));
                }
                return true;
            case MAX:
                for (; d < end; d += 8, so += 8) {
                    Memory.putDoublePlain(db, d, Math.max(Memory.getDoublePlain(db, d), Memory.getDoublePlain(sb, so)));
                }
                return true;
            default:
                return false;
        }
    }

    private static boolean floats(OpCode op, Object sb, long so, Object db, long d, long n) {
        long end = d + (n << 2);
        switch (op) {
            case SUM:
                for (; d < end; d += 4, so += 4) {
                    Memory.putFloatPlain(db, d, Memory.getFloatPlain(db, d) + Memory.getFloatPlain(sb, so));
                }
                return true;
            case PROD:
                for (; d < end; d += 4, so += 4) {
                    Memory.putFloatPlain(db, d, Memory.getFloatPlain(db, d) * Memory.getFloatPlain(sb, so));
                }
                return true;
            case MIN:
                for (; d < end; d += 4, so += 4) {
                    Memory.putFloatPlain(db, d, Math.min(Memory.getFloatPlain(db, d), Memory.getFloatPlain(sb, so)));
                }
                return true;
            case MAX:
                for (; d < end; d += 4, so += 4) {
                    Memory.putFloatPlain(db, d, Math.max(Memory.getFloatPlain(db, d), Memory.getFloatPlain(sb, so)));
                }
                return true;
            default:
                return false;
        }
    }
}

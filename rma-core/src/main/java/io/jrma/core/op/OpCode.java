package io.jrma.core.op;

/**
 * The predefined reduction operations, as they travel in packets. The {@link #id()} is part of the wire
 * format: never renumber.
 */
public enum OpCode {
    SUM(1), PROD(2), MIN(3), MAX(4), LAND(5), LOR(6), LXOR(7), BAND(8), BOR(9), BXOR(10),
    MINLOC(11), MAXLOC(12), REPLACE(13), NO_OP(14);

    private static final OpCode[] BY_ID = new OpCode[16];

    static {
        for (OpCode o : values()) {
            BY_ID[o.id] = o;
        }
    }

    private final int id;

    OpCode(int id) {
        this.id = id;
    }

    public int id() {
        return id;
    }

    /** The op with this wire id, or {@code null}. */
    public static OpCode ofId(int id) {
        return id > 0 && id < BY_ID.length ? BY_ID[id] : null;
    }
}

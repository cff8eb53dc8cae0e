package io.jrma;

/**
 * MPI error classes, with the numeric values of Open MPI's {@code mpi.h} so that codes printed by jrma
 * read the same as those of the C library users compare against.
 *
 * <p>Immutable; any thread.
 */
public enum ErrorClass {
    SUCCESS(0), ERR_BUFFER(1), ERR_COUNT(2), ERR_TYPE(3), ERR_TAG(4), ERR_COMM(5), ERR_RANK(6),
    ERR_REQUEST(7), ERR_ROOT(8), ERR_GROUP(9), ERR_OP(10), ERR_TOPOLOGY(11), ERR_DIMS(12), ERR_ARG(13),
    ERR_UNKNOWN(14), ERR_TRUNCATE(15), ERR_OTHER(16), ERR_INTERN(17), ERR_IN_STATUS(18), ERR_PENDING(19),
    ERR_ACCESS(20), ERR_AMODE(21), ERR_ASSERT(22), ERR_BAD_FILE(23), ERR_BASE(24), ERR_CONVERSION(25),
    ERR_DISP(26), ERR_DUP_DATAREP(27), ERR_FILE_EXISTS(28), ERR_FILE_IN_USE(29), ERR_FILE(30),
    ERR_INFO_KEY(31), ERR_INFO_NOKEY(32), ERR_INFO_VALUE(33), ERR_INFO(34), ERR_IO(35), ERR_KEYVAL(36),
    ERR_LOCKTYPE(37), ERR_NAME(38), ERR_NO_MEM(39), ERR_NOT_SAME(40), ERR_NO_SPACE(41),
    ERR_NO_SUCH_FILE(42), ERR_PORT(43), ERR_QUOTA(44), ERR_READ_ONLY(45), ERR_RMA_CONFLICT(46),
    ERR_RMA_SYNC(47), ERR_SERVICE(48), ERR_SIZE(49), ERR_SPAWN(50), ERR_UNSUPPORTED_DATAREP(51),
    ERR_UNSUPPORTED_OPERATION(52), ERR_WIN(53), ERR_RMA_RANGE(68), ERR_RMA_ATTACH(69), ERR_RMA_FLAVOR(70),
    ERR_RMA_SHARED(71), ERR_PROC_ABORTED(74);

    private final int code;

    ErrorClass(int code) {
        this.code = code;
    }

    /** The numeric MPI error class. */
    public int code() {
        return code;
    }

    /** The error class with this numeric code, or {@link #ERR_UNKNOWN}. */
    public static ErrorClass of(int code) {
        for (ErrorClass c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        return ERR_UNKNOWN;
    }
}

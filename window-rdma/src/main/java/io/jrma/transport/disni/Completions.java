package io.jrma.transport.disni;

import io.jrma.ErrorClass;
import io.jrma.RmaException;

/**
 * What a failed work completion means to MPI: {@code ibv_wc_status} (values and texts of
 * {@code ibv_wc_status_str} in libibverbs) to an {@link RmaException} with the error class a user can act on. A peer
 * that stopped answering (retries exhausted, response timeout, a flushed queue after such an error) is
 * ERR_PROC_ABORTED naming its world rank; a key or range the target's HCA refused is ERR_RMA_RANGE; the rest is the
 * transport's own failure, ERR_OTHER, with the status text. Threads: stateless.
 */
final class Completions {
    static final int IBV_WC_SUCCESS = 0;
    static final int IBV_WC_LOC_LEN_ERR = 1;
    static final int IBV_WC_LOC_QP_OP_ERR = 2;
    static final int IBV_WC_LOC_PROT_ERR = 4;
    static final int IBV_WC_WR_FLUSH_ERR = 5;
    static final int IBV_WC_LOC_ACCESS_ERR = 8;
    static final int IBV_WC_REM_INV_REQ_ERR = 9;
    static final int IBV_WC_REM_ACCESS_ERR = 10;
    static final int IBV_WC_REM_OP_ERR = 11;
    static final int IBV_WC_RETRY_EXC_ERR = 12;
    static final int IBV_WC_RNR_RETRY_EXC_ERR = 13;
    static final int IBV_WC_FATAL_ERR = 19;
    static final int IBV_WC_RESP_TIMEOUT_ERR = 20;

    /** {@code ibv_wc_status_str}'s texts, indexed by status. */
    private static final String[] TEXTS = {"success", "local length error", "local QP operation error",
        "local EE context operation error", "local protection error", "Work Request Flushed Error",
        "memory management operation error", "bad response error", "local access error",
        "remote invalid request error", "remote access error", "remote operation error",
        "transport retry counter exceeded", "RNR retry counter exceeded", "local RDD violation error",
        "remote invalid RD request", "aborted error", "invalid EE context number", "invalid EE context state",
        "fatal error", "response timeout error", "general error", "TM error"};

    private Completions() {
    }

    /** libibverbs' text for {@code status}. */
    static String text(int status) {
        return status >= 0 && status < TEXTS.length ? TEXTS[status] : "unknown status " + status;
    }

    /** The error class of a completion with {@code status} (never called with success). */
    static ErrorClass errorClass(int status) {
        return switch (status) {
            case IBV_WC_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR, IBV_WC_RESP_TIMEOUT_ERR, IBV_WC_WR_FLUSH_ERR,
                 IBV_WC_FATAL_ERR -> ErrorClass.ERR_PROC_ABORTED;
            case IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_INV_REQ_ERR, IBV_WC_LOC_PROT_ERR, IBV_WC_LOC_ACCESS_ERR,
                 IBV_WC_LOC_LEN_ERR -> ErrorClass.ERR_RMA_RANGE;
            default -> ErrorClass.ERR_OTHER;
        };
    }

    /** The exception for {@code op} to world rank {@code worldRank} completing with {@code status}; null on success. */
    static RmaException failure(int status, int vendorError, String op, int worldRank) {
        if (status == IBV_WC_SUCCESS) {
            return null;
        }
        ErrorClass c = errorClass(status);
        String what = c == ErrorClass.ERR_PROC_ABORTED ? "world rank " + worldRank + " does not answer over RDMA"
                : c == ErrorClass.ERR_RMA_RANGE ? "the memory or key was refused" : "the RDMA operation failed";
        return new RmaException(c, "disni " + op + " to world rank " + worldRank + ": " + what + " ("
                + text(status) + ", status " + status + ", vendor error 0x" + Integer.toHexString(vendorError) + ")");
    }
}

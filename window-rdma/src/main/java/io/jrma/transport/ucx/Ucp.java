package io.jrma.transport.ucx;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import java.util.Locale;

/**
 * The UCP calls jrma makes, bound with JNA's direct mapping to Debian's {@code libucp.so.0} (package
 * {@code libucx0}, UCX 1.13; the API is stable from 1.10 on), and the constants and structure layouts of its
 * {@code ucp.h} they need. Handles ({@code ucp_context_h}, {@code ucp_worker_h}, {@code ucp_ep_h}, ...) and
 * request pointers are {@code long}s; out-parameters are one-element {@code long[]}s.
 *
 * <p>Loading: {@link #unavailableReason()} is null when the library loaded. Before loading it,
 * {@code UCX_ERROR_SIGNALS} is set empty in the process environment (unless already set): UCX's own handlers for
 * SIGSEGV and SIGBUS would take the signals the JVM raises on purpose (null checks, safepoints) and kill it. Also
 * {@code UCX_WARN_UNUSED_ENV_VARS=n}: a job's environment holds UCX variables meant for other tools.
 *
 * <p>Every call is thread-safe as UCX's are with {@code UCS_THREAD_MODE_SERIALIZED}: callers serialize the calls on
 * one worker ({@link UcxWorker} holds the lock).
 */
final class Ucp {
    /** The shared objects: Debian's runtime package has only the versioned names. */
    static final String LIB_UCP = "libucp.so.0";
    static final String LIB_UCS = "libucs.so.0";
    /**
     * The system property naming libucp's file instead ({@code /opt/ucx/lib/libucp.so.0} for a UCX built from source);
     * libucs is then taken from the same directory. Read once, when UCX is first used in the JVM.
     */
    static final String LIBRARY_PROPERTY = "jrma.ucx.library";

    // ucs_status_t
    static final int UCS_OK = 0;
    static final int UCS_INPROGRESS = 1;
    static final int UCS_ERR_NO_MEMORY = -4;
    static final int UCS_ERR_BUSY = -15;
    /** Error statuses are small negative numbers; a status pointer below this (as unsigned) is an error. */
    static final long UCS_ERR_LAST = -100;

    // ucp_params_t: 80 bytes
    static final int PARAMS_SIZE = 80;
    static final int PARAMS_FIELD_MASK = 0;
    static final int PARAMS_FEATURES = 8;
    static final long UCP_PARAM_FIELD_FEATURES = 1;
    static final long UCP_FEATURE_TAG = 1;
    static final long UCP_FEATURE_RMA = 2;
    static final long UCP_FEATURE_AMO32 = 4;
    static final long UCP_FEATURE_AMO64 = 8;
    static final long UCP_FEATURE_WAKEUP = 16;
    static final int API_MAJOR = 1;
    /** The API version asked for: 1.10 has every call used here ({@code *_nbx}). */
    static final int API_MINOR = 10;

    // ucp_worker_params_t: 200 bytes
    static final int WORKER_PARAMS_SIZE = 200;
    static final int WORKER_PARAMS_THREAD_MODE = 8;
    static final long UCP_WORKER_PARAM_FIELD_THREAD_MODE = 1;
    static final int UCS_THREAD_MODE_SERIALIZED = 1;

    // ucp_ep_params_t: 104 bytes
    static final int EP_PARAMS_SIZE = 104;
    static final int EP_PARAMS_ADDRESS = 8;
    static final long UCP_EP_PARAM_FIELD_REMOTE_ADDRESS = 1;
    static final long UCP_EP_CLOSE_FLAG_FORCE = 1;

    // ucp_mem_map_params_t: 40 bytes
    static final int MEM_MAP_PARAMS_SIZE = 40;
    static final int MEM_MAP_ADDRESS = 8;
    static final int MEM_MAP_LENGTH = 16;
    static final long UCP_MEM_MAP_PARAM_FIELD_ADDRESS = 1;
    static final long UCP_MEM_MAP_PARAM_FIELD_LENGTH = 2;
    static final int MEM_MAP_FLAGS = 24;
    static final long UCP_MEM_MAP_PARAM_FIELD_FLAGS = 4;
    /** UCX allocates the memory (from its allocators' order, {@code UCX_ALLOC_PRIO}: sysv, posix, ... heap). */
    static final int UCP_MEM_MAP_ALLOCATE = 2;

    // ucp_mem_attr_t: 32 bytes
    static final int MEM_ATTR_SIZE = 32;
    static final int MEM_ATTR_ADDRESS = 8;
    static final long UCP_MEM_ATTR_FIELD_ADDRESS = 1;

    // ucp_request_param_t: 72 bytes
    static final int REQ_PARAM_SIZE = 72;
    static final int REQ_OP_ATTR_MASK = 0;
    static final int REQ_FLAGS = 4;
    static final int REQ_DATATYPE = 24;
    static final int REQ_REPLY_BUFFER = 40;
    static final int UCP_OP_ATTR_FIELD_FLAGS = 0x10;
    static final int UCP_OP_ATTR_FIELD_DATATYPE = 0x8;
    static final int UCP_OP_ATTR_FIELD_REPLY_BUFFER = 0x20;

    // ucp_tag_recv_info_t: 16 bytes
    static final int TAG_INFO_SIZE = 16;
    static final int TAG_INFO_SENDER_TAG = 0;
    static final int TAG_INFO_LENGTH = 8;

    // ucp_atomic_op_t
    static final int UCP_ATOMIC_OP_ADD = 0;
    static final int UCP_ATOMIC_OP_SWAP = 1;
    static final int UCP_ATOMIC_OP_CSWAP = 2;
    static final int UCP_ATOMIC_OP_AND = 3;
    static final int UCP_ATOMIC_OP_OR = 4;
    static final int UCP_ATOMIC_OP_XOR = 5;

    /** {@code ucp_dt_make_contig(bytes)}: a contiguous datatype of elements of {@code bytes}. */
    static long contig(int bytes) {
        return ((long) bytes << 3);
    }

    private static final String REASON;

    static {
        String why = null;
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            why = "UCX is used on Linux only";
        } else {
            try {
                Env.defaultTo("UCX_ERROR_SIGNALS", "");
                Env.defaultTo("UCX_WARN_UNUSED_ENV_VARS", "n");
                String ucp = System.getProperty(LIBRARY_PROPERTY, LIB_UCP);
                int slash = ucp.lastIndexOf('/');
                String ucs = slash < 0 ? LIB_UCS : ucp.substring(0, slash + 1) + LIB_UCS;
                Native.register(Ucp.class, NativeLibrary.getInstance(ucp));
                Native.register(Ucs.class, NativeLibrary.getInstance(ucs));
            } catch (Throwable e) { // UnsatisfiedLinkError, or JNA refused by the JVM's native-access policy
                why = "cannot load " + System.getProperty(LIBRARY_PROPERTY, LIB_UCP)
                        + " (Debian/Ubuntu package libucx0; or -D" + LIBRARY_PROPERTY + "=the file of libucp): "
                        + firstLine(e.getMessage());
            }
        }
        REASON = why;
    }

    private Ucp() {
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** Why UCX cannot be used in this JVM, or null when libucp loaded. */
    static String unavailableReason() {
        return REASON;
    }

    /** Whether {@code ptr} (a {@code ucs_status_ptr_t}) is an error status. */
    static boolean isError(long ptr) {
        return ptr < 0 && ptr >= UCS_ERR_LAST;
    }

    /** The text of a status ({@code ucs_status_string}). */
    static String text(int status) {
        return Ucs.ucs_status_string(status) + " (" + status + ")";
    }

    /** The calls of libucs. */
    static final class Ucs {
        static native String ucs_status_string(int status);
    }

    static native String ucp_get_version_string();

    static native int ucp_config_read(String envPrefix, String filename, long[] config);

    static native int ucp_config_modify(long config, String name, String value);

    static native void ucp_config_release(long config);

    static native int ucp_init_version(int major, int minor, long params, long config, long[] context);

    static native void ucp_cleanup(long context);

    static native int ucp_worker_create(long context, long params, long[] worker);

    static native void ucp_worker_destroy(long worker);

    static native int ucp_worker_get_address(long worker, long[] address, long[] length);

    static native void ucp_worker_release_address(long worker, long address);

    static native int ucp_worker_progress(long worker);

    static native int ucp_worker_get_efd(long worker, int[] fd);

    static native int ucp_worker_arm(long worker);

    static native int ucp_ep_create(long worker, long params, long[] ep);

    static native long ucp_ep_close_nbx(long ep, long param);

    static native int ucp_mem_map(long context, long params, long[] memh);

    static native int ucp_mem_unmap(long context, long memh);

    static native int ucp_mem_query(long memh, long attr);

    static native int ucp_rkey_ptr(long rkey, long remoteAddr, long[] addr);

    static native int ucp_rkey_pack(long context, long memh, long[] buffer, long[] size);

    static native void ucp_rkey_buffer_release(long buffer);

    static native int ucp_ep_rkey_unpack(long ep, byte[] buffer, long[] rkey);

    static native void ucp_rkey_destroy(long rkey);

    static native long ucp_put_nbx(long ep, long buffer, long count, long remoteAddr, long rkey, long param);

    static native long ucp_get_nbx(long ep, long buffer, long count, long remoteAddr, long rkey, long param);

    static native long ucp_atomic_op_nbx(long ep, int opcode, long buffer, long count, long remoteAddr, long rkey,
                                         long param);

    static native long ucp_ep_flush_nbx(long ep, long param);

    static native long ucp_worker_flush_nbx(long worker, long param);

    static native int ucp_request_check_status(long request);

    static native void ucp_request_free(long request);

    static native void ucp_request_cancel(long worker, long request);

    static native long ucp_tag_send_nbx(long ep, long buffer, long count, long tag, long param);

    static native long ucp_tag_probe_nb(long worker, long tag, long tagMask, int remove, long info);

    static native long ucp_tag_msg_recv_nbx(long worker, long buffer, long count, long message, long param);
}

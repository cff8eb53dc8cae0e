package io.jrma.transport.ucx;

import static io.jrma.transport.ucx.Ucp.isError;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * One UCP context with one worker: the unit a JVM opens (one per job) and the only class that calls {@link Ucp}.
 * It offers what jrma needs of UCP and nothing of jrma's own notions: the worker's address, endpoints to peers'
 * addresses, progress, registration of existing memory with its packed remote key, remote keys of peers,
 * put/get/atomics on remote registered memory, endpoint and worker flushes, tagged messages and their probe.
 *
 * <p>Operations return a request: 0 when done at once, else a handle to test with {@link #done} (which frees it once
 * complete). Local buffers given to an operation must stay valid and unchanged until it is done.
 *
 * <p>Threads: any; every call is serialized on this object (the worker is created with
 * {@code UCS_THREAD_MODE_SERIALIZED}). Closing is the owner's, once no other thread calls it.
 */
public final class UcxWorker implements AutoCloseable {
    /** What {@link #open} asks of UCP: tagged messages, RMA, 32- and 64-bit atomics. */
    private static final long FEATURES = Ucp.UCP_FEATURE_TAG | Ucp.UCP_FEATURE_RMA | Ucp.UCP_FEATURE_AMO32
            | Ucp.UCP_FEATURE_AMO64;

    private final long context;
    private final long worker;
    private final String tls;
    /** Scratch for the parameter structures of calls (serialized): UCX reads them only during the call. */
    private final Memory scratch = new Memory(Ucp.WORKER_PARAMS_SIZE);
    private final long scratchAddress = Pointer.nativeValue(scratch);
    private final Memory tagInfo = new Memory(Ucp.TAG_INFO_SIZE);
    private final long tagInfoAddress = Pointer.nativeValue(tagInfo);
    private final long[] out = new long[1];
    private final long[] out2 = new long[1];
    private boolean closed;
    /** What is still open, released by {@link #close} (UCX aborts the process on a context closed with mappings). */
    private final Set<Registration> registrations = new HashSet<>();
    private final Set<Long> keys = new HashSet<>();
    private final Set<Long> endpoints = new LinkedHashSet<>();

    private UcxWorker(long context, long worker, String tls) {
        this.context = context;
        this.worker = worker;
        this.tls = tls;
    }

    /** Why UCX cannot be used in this JVM (libucp missing or refused), or null. */
    public static String unavailableReason() {
        return Ucp.unavailableReason();
    }

    /** The version of the UCX library loaded, or null when it is not available. */
    public static String version() {
        return Ucp.unavailableReason() == null ? Ucp.ucp_get_version_string() : null;
    }

    /**
     * Opens a context and a worker.
     *
     * @param tls the UCX transports to use ({@code UCX_TLS}: {@code sm}, {@code tcp}, ...), or empty for UCX's own
     *            choice (the process environment's {@code UCX_TLS}, else all it finds)
     * @throws RmaException ERR_UNSUPPORTED_OPERATION when libucp is missing; ERR_OTHER with UCX's reason when it
     *                      fails to initialize
     */
    public static UcxWorker open(String tls) {
        return open(tls, false);
    }

    /**
     * Opens a context and a worker, with UCP's wake-up support when {@code wakeup} ({@link #eventFd}, {@link #arm}).
     *
     * @see #open(String)
     */
    public static UcxWorker open(String tls, boolean wakeup) {
        String why = Ucp.unavailableReason();
        if (why != null) {
            throw new RmaException(ErrorClass.ERR_UNSUPPORTED_OPERATION, why);
        }
        long[] h = new long[1];
        check(Ucp.ucp_config_read(null, null, h), "ucp_config_read");
        long config = h[0];
        long context;
        try (Memory p = new Memory(Ucp.WORKER_PARAMS_SIZE)) {
            if (tls != null && !tls.isEmpty()) {
                check(Ucp.ucp_config_modify(config, "TLS", tls), "ucp_config_modify TLS=" + tls);
            }
            p.clear();
            p.setLong(Ucp.PARAMS_FIELD_MASK, Ucp.UCP_PARAM_FIELD_FEATURES);
            p.setLong(Ucp.PARAMS_FEATURES, FEATURES | (wakeup ? Ucp.UCP_FEATURE_WAKEUP : 0));
            check(Ucp.ucp_init_version(Ucp.API_MAJOR, Ucp.API_MINOR, Pointer.nativeValue(p), config, h),
                    "ucp_init (UCX_TLS=" + tls + ")");
            context = h[0];
            p.clear();
            p.setLong(0, Ucp.UCP_WORKER_PARAM_FIELD_THREAD_MODE);
            p.setInt(Ucp.WORKER_PARAMS_THREAD_MODE, Ucp.UCS_THREAD_MODE_SERIALIZED);
            int s = Ucp.ucp_worker_create(context, Pointer.nativeValue(p), h);
            if (s != Ucp.UCS_OK) {
                Ucp.ucp_cleanup(context);
                check(s, "ucp_worker_create (UCX_TLS=" + tls + ")");
            }
        } finally {
            Ucp.ucp_config_release(config);
        }
        return new UcxWorker(context, h[0], tls == null ? "" : tls);
    }

    private static void check(int status, String what) {
        if (status != Ucp.UCS_OK) {
            throw new RmaException(ErrorClass.ERR_OTHER, "UCX: " + what + " failed: " + Ucp.text(status));
        }
    }

    /** The transports this worker was opened with (empty: UCX's own choice). */
    public String tls() {
        return tls;
    }

    /** This worker's address: what a peer needs to {@link #connect} to it. */
    public synchronized byte[] address() {
        checkOpen();
        check(Ucp.ucp_worker_get_address(worker, out, out2), "ucp_worker_get_address");
        byte[] a = new Pointer(out[0]).getByteArray(0, (int) out2[0]);
        Ucp.ucp_worker_release_address(worker, out[0]);
        return a;
    }

    /** An endpoint to the worker whose {@link #address} is {@code peer}; returns its handle. */
    public synchronized long connect(byte[] peer) {
        checkOpen();
        try (Memory a = new Memory(peer.length)) {
            a.write(0, peer, 0, peer.length);
            scratch.clear(Ucp.EP_PARAMS_SIZE);
            scratch.setLong(0, Ucp.UCP_EP_PARAM_FIELD_REMOTE_ADDRESS);
            scratch.setLong(Ucp.EP_PARAMS_ADDRESS, Pointer.nativeValue(a));
            check(Ucp.ucp_ep_create(worker, scratchAddress, out), "ucp_ep_create");
            endpoints.add(out[0]);
            return out[0];
        }
    }

    /**
     * The worker's event file descriptor (opened with wake-up support): readable after {@link #arm} when an event
     * arrives. It stays the worker's; the caller only polls it.
     */
    public synchronized int eventFd() {
        checkOpen();
        int[] fd = new int[1];
        check(Ucp.ucp_worker_get_efd(worker, fd), "ucp_worker_get_efd");
        return fd[0];
    }

    /**
     * Arms the event file descriptor for the next event; false when events are already pending (drive
     * {@link #progress} instead of waiting).
     */
    public synchronized boolean arm() {
        if (closed) {
            return false;
        }
        int s = Ucp.ucp_worker_arm(worker);
        if (s == Ucp.UCS_ERR_BUSY) {
            return false;
        }
        check(s, "ucp_worker_arm");
        return true;
    }

    /** Drives the worker once; returns how many events it handled (0 = idle). Never blocks. */
    public synchronized int progress() {
        return closed ? 0 : Ucp.ucp_worker_progress(worker);
    }

    /**
     * Registers {@code length} bytes of existing memory at {@code address} (a window's, a buffer's) for remote
     * access and packs its remote key.
     */
    public synchronized Registration register(long address, long length) {
        checkOpen();
        if (length <= 0) {
            throw new RmaException(ErrorClass.ERR_ARG, "UCX: cannot register " + length + " bytes");
        }
        scratch.clear(Ucp.MEM_MAP_PARAMS_SIZE);
        scratch.setLong(0, Ucp.UCP_MEM_MAP_PARAM_FIELD_ADDRESS | Ucp.UCP_MEM_MAP_PARAM_FIELD_LENGTH);
        scratch.setLong(Ucp.MEM_MAP_ADDRESS, address);
        scratch.setLong(Ucp.MEM_MAP_LENGTH, length);
        check(Ucp.ucp_mem_map(context, scratchAddress, out), "ucp_mem_map of " + length + " bytes");
        return keep(out[0], address, length);
    }

    /** Packs the remote key of mapped memory {@code memh} and records the registration (unmapped on a failure). */
    private Registration keep(long memh, long address, long length) {
        int s = Ucp.ucp_rkey_pack(context, memh, out, out2);
        if (s != Ucp.UCS_OK) {
            Ucp.ucp_mem_unmap(context, memh);
            check(s, "ucp_rkey_pack");
        }
        byte[] key = new Pointer(out[0]).getByteArray(0, (int) out2[0]);
        Ucp.ucp_rkey_buffer_release(out[0]);
        Registration r = new Registration(memh, address, length, key);
        registrations.add(r);
        return r;
    }

    /**
     * Memory of {@code length} bytes that UCX allocates ({@code ucp_mem_map} with {@code UCP_MEM_MAP_ALLOCATE}),
     * registered, with its packed remote key. UCX takes it from the first of its allocators that works
     * ({@code UCX_ALLOC_PRIO}: its sysv and posix shared-memory domains first, where the context has them), so a peer
     * whose endpoint reaches it by one of those may map it ({@link #pointer}). Freed by {@link #unregister}. Its
     * contents are not defined (UCX's heap allocator does not clear it).
     */
    public synchronized Registration allocate(long length) {
        checkOpen();
        if (length <= 0) {
            throw new RmaException(ErrorClass.ERR_ARG, "UCX: cannot allocate " + length + " bytes");
        }
        scratch.clear(Ucp.MEM_MAP_PARAMS_SIZE);
        scratch.setLong(0, Ucp.UCP_MEM_MAP_PARAM_FIELD_LENGTH | Ucp.UCP_MEM_MAP_PARAM_FIELD_FLAGS);
        scratch.setLong(Ucp.MEM_MAP_LENGTH, length);
        scratch.setInt(Ucp.MEM_MAP_FLAGS, Ucp.UCP_MEM_MAP_ALLOCATE);
        int s = Ucp.ucp_mem_map(context, scratchAddress, out);
        if (s != Ucp.UCS_OK) {
            throw new RmaException(ErrorClass.ERR_NO_MEM, "UCX: ucp_mem_map cannot allocate " + length + " bytes: "
                    + Ucp.text(s));
        }
        long memh = out[0];
        scratch.clear(Ucp.MEM_ATTR_SIZE);
        scratch.setLong(0, Ucp.UCP_MEM_ATTR_FIELD_ADDRESS);
        s = Ucp.ucp_mem_query(memh, scratchAddress);
        long address = scratch.getLong(Ucp.MEM_ATTR_ADDRESS);
        if (s != Ucp.UCS_OK || address == 0) {
            Ucp.ucp_mem_unmap(context, memh);
            check(s == Ucp.UCS_OK ? Ucp.UCS_ERR_NO_MEMORY : s, "ucp_mem_query");
        }
        return keep(memh, address, length);
    }

    /**
     * Where the memory at {@code remote} of a peer's registration ({@code rkey}, {@link #unpack}) is mapped in this
     * process, or 0 when no transport of the endpoint maps it ({@code ucp_rkey_ptr}: UCX's shared-memory transports
     * map memory UCX allocated with its sysv or posix domain; nothing maps memory registered where it lay).
     */
    public synchronized long pointer(long rkey, long remote) {
        checkOpen();
        return Ucp.ucp_rkey_ptr(rkey, remote, out) == Ucp.UCS_OK ? out[0] : 0;
    }

    /** Undoes {@link #register}; the memory must no longer be the target of any peer's operation. */
    public synchronized void unregister(Registration r) {
        if (!closed && registrations.remove(r)) {
            check(Ucp.ucp_mem_unmap(context, r.memh()), "ucp_mem_unmap");
        }
    }

    /** A peer's packed remote key ({@link Registration#key}) unpacked for endpoint {@code ep}; returns its handle. */
    public synchronized long unpack(long ep, byte[] key) {
        checkOpen();
        check(Ucp.ucp_ep_rkey_unpack(ep, key, out), "ucp_ep_rkey_unpack");
        keys.add(out[0]);
        return out[0];
    }

    /** Releases an unpacked remote key. */
    public synchronized void destroyKey(long rkey) {
        if (!closed && keys.remove(rkey)) {
            Ucp.ucp_rkey_destroy(rkey);
        }
    }

    /** Writes {@code length} bytes at {@code local} to {@code remote} (registered, {@code rkey}) of the peer. */
    public synchronized long put(long ep, long local, long length, long remote, long rkey) {
        checkOpen();
        return request(Ucp.ucp_put_nbx(ep, local, length, remote, rkey, plainParam()), "ucp_put_nbx");
    }

    /** Reads {@code length} bytes at {@code remote} of the peer into {@code local}. */
    public synchronized long get(long ep, long local, long length, long remote, long rkey) {
        checkOpen();
        return request(Ucp.ucp_get_nbx(ep, local, length, remote, rkey, plainParam()), "ucp_get_nbx");
    }

    /**
     * A remote atomic on a 4- or 8-byte integer at {@code remote}: {@link Atomic#ADD} adds the operand at
     * {@code operand}, {@link Atomic#AND}, {@link Atomic#OR} and {@link Atomic#XOR} combine it bitwise,
     * {@link Atomic#SWAP} stores it, {@link Atomic#CSWAP} stores the value at {@code reply} if
     * the target equals the operand (for CSWAP {@code reply} holds the value to store on entry). With {@code reply}
     * non-zero the target's old value is written there (required for SWAP and CSWAP).
     */
    public synchronized long atomic(long ep, Atomic op, long operand, int size, long remote, long rkey, long reply) {
        checkOpen();
        if (size != Integer.BYTES && size != Long.BYTES) {
            throw new RmaException(ErrorClass.ERR_ARG, "UCX atomics are on 4 or 8 bytes, not " + size);
        }
        if (reply == 0 && op != Atomic.ADD) {
            throw new RmaException(ErrorClass.ERR_ARG, "UCX " + op + " needs a reply buffer");
        }
        scratch.clear(Ucp.REQ_PARAM_SIZE);
        int mask = Ucp.UCP_OP_ATTR_FIELD_DATATYPE | (reply != 0 ? Ucp.UCP_OP_ATTR_FIELD_REPLY_BUFFER : 0);
        scratch.setInt(Ucp.REQ_OP_ATTR_MASK, mask);
        scratch.setLong(Ucp.REQ_DATATYPE, Ucp.contig(size));
        scratch.setLong(Ucp.REQ_REPLY_BUFFER, reply);
        return request(Ucp.ucp_atomic_op_nbx(ep, op.code, operand, 1, remote, rkey, scratchAddress),
                "ucp_atomic_op_nbx " + op);
    }

    /** Completes every operation issued on {@code ep} at the target (remote completion). */
    public synchronized long flush(long ep) {
        checkOpen();
        return request(Ucp.ucp_ep_flush_nbx(ep, plainParam()), "ucp_ep_flush_nbx");
    }

    /** Completes every operation issued on this worker at its targets. */
    public synchronized long flushAll() {
        checkOpen();
        return request(Ucp.ucp_worker_flush_nbx(worker, plainParam()), "ucp_worker_flush_nbx");
    }

    /** Sends {@code length} bytes at {@code buffer} as a tagged message; the buffer stays untouched until done. */
    public synchronized long send(long ep, long buffer, long length, long tag) {
        checkOpen();
        return request(Ucp.ucp_tag_send_nbx(ep, buffer, length, tag, plainParam()), "ucp_tag_send_nbx");
    }

    /**
     * Takes the next arrived tagged message whose tag matches {@code tag} under {@code mask}, or returns 0; its
     * length and sender's tag are then {@link #probedLength()} and {@link #probedTag()}; receive it with
     * {@link #receive}.
     */
    public synchronized long probe(long tag, long mask) {
        return closed ? 0 : Ucp.ucp_tag_probe_nb(worker, tag, mask, 1, tagInfoAddress);
    }

    /** The length of the message {@link #probe} returned last. */
    public synchronized long probedLength() {
        return tagInfo.getLong(Ucp.TAG_INFO_LENGTH);
    }

    /** The tag of the message {@link #probe} returned last. */
    public synchronized long probedTag() {
        return tagInfo.getLong(Ucp.TAG_INFO_SENDER_TAG);
    }

    /** Receives a probed message into {@code length} bytes at {@code buffer}. */
    public synchronized long receive(long message, long buffer, long length) {
        checkOpen();
        return request(Ucp.ucp_tag_msg_recv_nbx(worker, buffer, length, message, plainParam()), "ucp_tag_msg_recv_nbx");
    }

    /**
     * Whether request {@code req} is complete; frees it when it is. 0 is complete.
     *
     * @throws RmaException ERR_OTHER when it completed with an error (freed too)
     */
    public synchronized boolean done(long req) {
        if (req == 0) {
            return true;
        }
        int s = Ucp.ucp_request_check_status(req);
        if (s == Ucp.UCS_INPROGRESS) {
            return false;
        }
        Ucp.ucp_request_free(req);
        if (s != Ucp.UCS_OK) {
            throw new RmaException(ErrorClass.ERR_OTHER, "UCX: an operation failed: " + Ucp.text(s));
        }
        return true;
    }

    /**
     * Drives progress until {@code req} is complete, at most {@code timeoutNs}.
     *
     * @throws RmaException ERR_OTHER when it fails or does not complete in time
     */
    public void await(long req, long timeoutNs) {
        long deadline = System.nanoTime() + timeoutNs;
        int idle = 0;
        while (!done(req)) {
            if (progress() == 0 && ++idle > SPINS_BEFORE_PARK) {
                LockSupport.parkNanos(PARK_NS);
            }
            if (System.nanoTime() - deadline > 0) {
                cancel(req);
                throw new RmaException(ErrorClass.ERR_OTHER, "UCX: an operation did not complete within "
                        + timeoutNs / 1_000_000 + " ms");
            }
        }
    }

    private static final int SPINS_BEFORE_PARK = 1000;
    private static final long PARK_NS = 50_000;

    /** Cancels and frees an incomplete request (on a deadline or shutdown). */
    public synchronized void cancel(long req) {
        if (req != 0 && !closed) {
            Ucp.ucp_request_cancel(worker, req);
            Ucp.ucp_request_free(req);
        }
    }

    /** Closes endpoint {@code ep} at once, without flushing it (the peers said goodbye over the control plane). */
    public synchronized void closeEndpoint(long ep) {
        if (closed || !endpoints.remove(ep)) {
            return;
        }
        scratch.clear(Ucp.REQ_PARAM_SIZE);
        scratch.setInt(Ucp.REQ_OP_ATTR_MASK, Ucp.UCP_OP_ATTR_FIELD_FLAGS);
        scratch.setInt(Ucp.REQ_FLAGS, (int) Ucp.UCP_EP_CLOSE_FLAG_FORCE);
        long r = Ucp.ucp_ep_close_nbx(ep, scratchAddress);
        if (r != 0 && !isError(r)) {
            for (int i = 0; i < CLOSE_SPINS && Ucp.ucp_request_check_status(r) == Ucp.UCS_INPROGRESS; i++) {
                Ucp.ucp_worker_progress(worker);
            }
            Ucp.ucp_request_free(r);
        }
    }

    private static final int CLOSE_SPINS = 100_000;

    /** Releases the remote keys, endpoints and registrations still open, then the worker and the context. */
    @Override
    public synchronized void close() {
        if (!closed) {
            for (long k : keys) {
                Ucp.ucp_rkey_destroy(k);
            }
            keys.clear();
            for (long ep : endpoints.toArray(new Long[0])) {
                closeEndpoint(ep);
            }
            for (Registration r : registrations) {
                Ucp.ucp_mem_unmap(context, r.memh());
            }
            registrations.clear();
            closed = true;
            Ucp.ucp_worker_destroy(worker);
            Ucp.ucp_cleanup(context);
        }
    }

    private long plainParam() {
        scratch.clear(Ucp.REQ_PARAM_SIZE);
        return scratchAddress;
    }

    private static long request(long r, String what) {
        if (isError(r)) {
            throw new RmaException(ErrorClass.ERR_OTHER, "UCX: " + what + " failed: " + Ucp.text((int) r));
        }
        return r;
    }

    private void checkOpen() {
        if (closed) {
            throw new RmaException(ErrorClass.ERR_OTHER, "UCX: the worker is closed");
        }
    }

    /** The remote atomic operations ({@code ucp_atomic_op_t}). */
    public enum Atomic {
        ADD(Ucp.UCP_ATOMIC_OP_ADD), SWAP(Ucp.UCP_ATOMIC_OP_SWAP), CSWAP(Ucp.UCP_ATOMIC_OP_CSWAP),
        AND(Ucp.UCP_ATOMIC_OP_AND), OR(Ucp.UCP_ATOMIC_OP_OR), XOR(Ucp.UCP_ATOMIC_OP_XOR);

        final int code;

        Atomic(int code) {
            this.code = code;
        }
    }

    /**
     * Memory registered with this worker's context.
     *
     * @param memh the memory handle
     * @param address where the memory starts
     * @param length its length in bytes
     * @param key the packed remote key a peer unpacks ({@link #unpack}) to reach it
     */
    public record Registration(long memh, long address, long length, byte[] key) {
    }
}

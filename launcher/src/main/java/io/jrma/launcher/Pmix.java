package io.jrma.launcher;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A PMIx client on the process manager's own library ({@code libpmix}, through JNA), as Open MPI's {@code mpirun}
 * (and Slurm with {@code --mpi=pmix}) serve it to the processes they start: {@code PMIx_Init} names this process,
 * {@code PMIx_Put}/{@code Commit}/{@code Fence}/{@code Get} are the key-value space, {@code PMIx_Abort} ends the job.
 * Only strings are exchanged. The job's size comes from the launcher's environment ({@code OMPI_COMM_WORLD_SIZE},
 * {@code SLURM_NTASKS}) or PMIx's {@code pmix.job.size}.
 *
 * <p>Not thread-safe: one thread (the rank's) uses it.
 */
final class Pmix implements Pmi {
    /** pmix_proc_t: char nspace[PMIX_MAX_NSLEN + 1]; uint32_t rank. */
    private static final int NSPACE_BYTES = 256;
    private static final int PROC_BYTES = NSPACE_BYTES + 4;
    /** pmix_value_t: uint16_t type, then an 8-aligned union (24 bytes in PMIx 4); room to spare. */
    private static final int VALUE_BYTES = 64;
    private static final int VALUE_DATA = 8;
    /** pmix_info_t: char key[PMIX_MAX_KEYLEN + 1]; uint32_t flags (0: none); pmix_value_t value at +520. */
    private static final int INFO_BYTES = 552;
    private static final int INFO_VALUE = 520;
    private static final short PMIX_BOOL = 1;
    private static final short PMIX_STRING = 3;
    private static final short PMIX_UINT32 = 14;
    private static final int PMIX_GLOBAL = 3;
    private static final int PMIX_RANK_WILDCARD = -2; // UINT32_MAX - 1

    /** The part of libpmix's client API jrma uses. */
    interface Lib extends Library {
        int PMIx_Init(Pointer proc, Pointer info, long ninfo);

        int PMIx_Put(int scope, String key, Pointer value);

        int PMIx_Commit();

        int PMIx_Fence(Pointer procs, long nprocs, Pointer info, long ninfo);

        int PMIx_Get(Pointer proc, String key, Pointer info, long ninfo, PointerByReference value);

        int PMIx_Abort(int status, String msg, Pointer procs, long nprocs);

        int PMIx_Finalize(Pointer info, long ninfo);

        String PMIx_Error_string(int status);
    }

    /**
     * The fence's one directive, PMIX_COLLECT_DATA: every server gathers the job's data at the fence. Without it
     * a Get of a process on another node asks that node's server on demand, which Slurm's PMIx plugin answered
     * with PMIX_ERROR here (srun --mpi=pmix over two slurmd).
     */
    private final Memory collectData = new Memory(INFO_BYTES);
    private final Lib lib;
    private final String nspace;
    private final int rank;
    private final int size;

    private Pmix(Lib lib, String nspace, int rank, int size) {
        this.lib = lib;
        this.nspace = nspace;
        this.rank = rank;
        this.size = size;
        collectData.clear();
        collectData.setString(0, "pmix.collect", StandardCharsets.US_ASCII.name());
        collectData.setShort(INFO_VALUE, PMIX_BOOL);
        collectData.setByte(INFO_VALUE + VALUE_DATA, (byte) 1);
    }

    /** Whether the environment says a PMIx server started this process (its namespace, rank and address). */
    static boolean inEnvironment() {
        return System.getenv("PMIX_NAMESPACE") != null && System.getenv("PMIX_RANK") != null
                && System.getenv().keySet().stream().anyMatch(k -> k.startsWith("PMIX_SERVER_URI"));
    }

    /** Loads libpmix and connects to the server the environment names. */
    static Pmix connect() throws IOException {
        Lib lib;
        try {
            lib = Native.load("pmix", Lib.class);
        } catch (UnsatisfiedLinkError e) {
            try {
                lib = Native.load("libpmix.so.2", Lib.class);
            } catch (UnsatisfiedLinkError e2) {
                throw new IOException("the launcher serves PMIx (PMIX_NAMESPACE is set), and jrma talks to it through"
                        + " the PMIx library, which is not installed or not found (" + e.getMessage()
                        + "): install libpmix2 (Debian), or set jna.library.path to its directory");
            }
        }
        Memory proc = new Memory(PROC_BYTES);
        proc.clear();
        int rc = lib.PMIx_Init(proc, null, 0);
        if (rc != 0) {
            throw new IOException("PMIx_Init failed: " + lib.PMIx_Error_string(rc));
        }
        String ns = proc.getString(0, StandardCharsets.US_ASCII.name());
        int rank = proc.getInt(NSPACE_BYTES);
        Pmix p = new Pmix(lib, ns, rank, 0);
        return new Pmix(lib, ns, rank, p.jobSize());
    }

    private int jobSize() throws IOException {
        for (String env : new String[] {"OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS", "PMIX_SIZE"}) {
            String v = System.getenv(env);
            if (v != null) {
                try {
                    return Integer.parseInt(v.trim());
                } catch (NumberFormatException ignored) {
                    // ask PMIx
                }
            }
        }
        PointerByReference out = new PointerByReference();
        int rc = lib.PMIx_Get(proc(PMIX_RANK_WILDCARD), "pmix.job.size", null, 0, out);
        if (rc != 0 || out.getValue() == null) {
            throw new IOException("PMIx: the job's size is unknown: " + lib.PMIx_Error_string(rc));
        }
        Pointer v = out.getValue();
        if (v.getShort(0) != PMIX_UINT32) {
            throw new IOException("PMIx: pmix.job.size has type " + v.getShort(0));
        }
        return v.getInt(VALUE_DATA);
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public void put(String key, String value) throws IOException {
        Memory text = new Memory(value.length() + 1L);
        text.setString(0, value, StandardCharsets.US_ASCII.name());
        Memory v = new Memory(VALUE_BYTES);
        v.clear();
        v.setShort(0, PMIX_STRING);
        v.setPointer(VALUE_DATA, text);
        check(lib.PMIx_Put(PMIX_GLOBAL, key, v), "PMIx_Put " + key);
    }

    @Override
    public void exchange() throws IOException {
        check(lib.PMIx_Commit(), "PMIx_Commit");
        check(lib.PMIx_Fence(null, 0, collectData, 1), "PMIx_Fence");
    }

    @Override
    public String get(int fromRank, String key) throws IOException {
        PointerByReference out = new PointerByReference();
        check(lib.PMIx_Get(proc(fromRank), key, null, 0, out), "PMIx_Get " + key + " of rank " + fromRank);
        Pointer v = out.getValue();
        if (v == null || v.getShort(0) != PMIX_STRING) {
            throw new IOException("PMIx: " + key + " of rank " + fromRank + " is not a string");
        }
        return v.getPointer(VALUE_DATA).getString(0, StandardCharsets.US_ASCII.name());
    }

    @Override
    public void abort(int code, String message) throws IOException {
        check(lib.PMIx_Abort(code, message, null, 0), "PMIx_Abort");
    }

    @Override
    public void finish() throws IOException {
        check(lib.PMIx_Finalize(null, 0), "PMIx_Finalize");
    }

    @Override
    public void close() {
        // PMIx_Finalize closed the connection
    }

    private Memory proc(int r) {
        Memory p = new Memory(PROC_BYTES);
        p.clear();
        byte[] ns = nspace.getBytes(StandardCharsets.US_ASCII);
        p.write(0, ns, 0, Math.min(ns.length, NSPACE_BYTES - 1));
        p.setInt(NSPACE_BYTES, r);
        return p;
    }

    private void check(int rc, String what) throws IOException {
        if (rc != 0) {
            throw new IOException(what + " failed: " + lib.PMIx_Error_string(rc) + " (" + rc + ")");
        }
    }
}
